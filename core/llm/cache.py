"""On-disk LLM response cache (LangChain `BaseCache` over SQLite): keyed by the model's name,
its parameters (LangChain's llm_string: temperature, token budget, bound tools...) and the full
prompt, so a repeated evaluation costs no model call and returns the same text. A response
served from the cache is marked, so usage accounting can tell it from a real call."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from langchain_core._api import LangChainBetaWarning
from langchain_core.caches import RETURN_VAL_TYPE, BaseCache
from langchain_core.load import dumps, loads
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, Generation

HIT_KEY = "edesk_cache_hit"
# Parameters that change how a model is reached, not what it answers: never part of the key.
TRANSPORT_KEYS: tuple[str, ...] = ("max_retries", "request_timeout", "timeout", "openai_api_key")
KEY_VERSION = 2  # PRAGMA user_version; older files are re-keyed on open


def canonical_llm_string(llm_string: str, ignore: tuple[str, ...] = ()) -> str:
    """LangChain's llm_string (serialized model + `---` + call options) with transport keys and
    `ignore`d keys dropped and the rest sorted, so equal settings give equal keys."""
    head, sep, tail = llm_string.partition("---")
    try:
        data = json.loads(head)
    except json.JSONDecodeError:
        return llm_string
    if isinstance(data, dict) and isinstance(data.get("kwargs"), dict):
        for k in (*TRANSPORT_KEYS, *ignore):
            data["kwargs"].pop(k, None)
    return json.dumps(data, sort_keys=True) + sep + tail


def is_cache_hit(message: BaseMessage | None) -> bool:
    return bool(message is not None and message.response_metadata.get(HIT_KEY))


class SqliteLLMCache(BaseCache):
    """One SQLite file shared by every model; `namespace` separates models whose LangChain
    parameters look alike (e.g. two GGUF files served under the same alias), `ignore` drops
    parameters that vary between processes without changing the model (the local llama.cpp
    server's port)."""

    def __init__(self, path: Path, namespace: str = "", ignore: tuple[str, ...] = ()) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.namespace = namespace
        self.ignore = ignore
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(str(path), check_same_thread=False)
        with self._lock, self._conn:
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute(
                "CREATE TABLE IF NOT EXISTS llm_cache ("
                " key TEXT PRIMARY KEY, namespace TEXT, llm_string TEXT, prompt TEXT,"
                " value TEXT, created_at TEXT DEFAULT CURRENT_TIMESTAMP)"
            )
            (version,) = self._conn.execute("PRAGMA user_version").fetchone()
            if version < KEY_VERSION:
                self._rekey()
                self._conn.execute(f"PRAGMA user_version = {KEY_VERSION}")

    def _rekey(self) -> None:
        """Recompute every key with the current canonical form (entries keep their answers)."""
        rows = self._conn.execute("SELECT key, namespace, llm_string, prompt FROM llm_cache")
        for key, ns, llm_string, prompt in rows.fetchall():
            ignore = ("openai_api_base",) if str(ns).startswith("local:") else ()
            new = self._hash(ns, canonical_llm_string(llm_string, ignore), prompt)
            self._conn.execute("UPDATE OR REPLACE llm_cache SET key = ? WHERE key = ?", (new, key))

    def for_namespace(self, namespace: str, ignore: tuple[str, ...] = ()) -> SqliteLLMCache:
        """The same file under another namespace (shares the connection)."""
        other = object.__new__(SqliteLLMCache)
        other.path, other.namespace, other.ignore = self.path, namespace, ignore
        other._lock, other._conn = self._lock, self._conn
        return other

    @staticmethod
    def _hash(namespace: str, llm_string: str, prompt: str) -> str:
        return hashlib.sha256("\x00".join((namespace, llm_string, prompt)).encode()).hexdigest()

    def _key(self, prompt: str, llm_string: str) -> str:
        return self._hash(self.namespace, canonical_llm_string(llm_string, self.ignore), prompt)

    def lookup(self, prompt: str, llm_string: str) -> RETURN_VAL_TYPE | None:
        with self._lock:
            row = self._conn.execute(
                "SELECT value FROM llm_cache WHERE key = ?", (self._key(prompt, llm_string),)
            ).fetchone()
        if row is None:
            return None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", LangChainBetaWarning)
            generations: list[Any] = loads(
                row[0], allowed_objects=[ChatGeneration, Generation, AIMessage]
            )
        for gen in generations:
            if isinstance(gen, ChatGeneration):
                gen.message.response_metadata[HIT_KEY] = True
        return generations

    def update(self, prompt: str, llm_string: str, return_val: RETURN_VAL_TYPE) -> None:
        value = dumps(list(return_val))
        with self._lock, self._conn:
            self._conn.execute(
                "INSERT OR REPLACE INTO llm_cache (key, namespace, llm_string, prompt, value)"
                " VALUES (?, ?, ?, ?, ?)",
                (self._key(prompt, llm_string), self.namespace, llm_string, prompt, value),
            )

    def clear(self, **kwargs: Any) -> None:
        with self._lock, self._conn:
            self._conn.execute("DELETE FROM llm_cache WHERE namespace = ?", (self.namespace,))

    def __len__(self) -> int:
        with self._lock:
            return int(self._conn.execute("SELECT COUNT(*) FROM llm_cache").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._conn.close()


def entries(cache: SqliteLLMCache) -> Sequence[tuple[str, str]]:
    """(namespace, llm_string) of every entry: what a test or a curious user can inspect."""
    with cache._lock:
        return cache._conn.execute("SELECT namespace, llm_string FROM llm_cache").fetchall()
