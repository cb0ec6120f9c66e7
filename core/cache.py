"""On-disk LLM response cache (LangChain `BaseCache` over SQLite): keyed by the model's name,
its parameters (LangChain's llm_string: temperature, token budget, bound tools...) and the full
prompt, so a repeated evaluation costs no model call and returns the same text. A response
served from the cache is marked, so usage accounting can tell it from a real call."""

from __future__ import annotations

import hashlib
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


def is_cache_hit(message: BaseMessage | None) -> bool:
    return bool(message is not None and message.response_metadata.get(HIT_KEY))


class SqliteLLMCache(BaseCache):
    """One SQLite file shared by every model; `namespace` separates models whose LangChain
    parameters look alike (e.g. two GGUF files served under the same alias)."""

    def __init__(self, path: Path, namespace: str = "") -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.namespace = namespace
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(str(path), check_same_thread=False)
        with self._lock, self._conn:
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute(
                "CREATE TABLE IF NOT EXISTS llm_cache ("
                " key TEXT PRIMARY KEY, namespace TEXT, llm_string TEXT, prompt TEXT,"
                " value TEXT, created_at TEXT DEFAULT CURRENT_TIMESTAMP)"
            )

    def for_namespace(self, namespace: str) -> SqliteLLMCache:
        """The same file under another namespace (shares the connection)."""
        other = object.__new__(SqliteLLMCache)
        other.path, other.namespace = self.path, namespace
        other._lock, other._conn = self._lock, self._conn
        return other

    def _key(self, prompt: str, llm_string: str) -> str:
        raw = "\x00".join((self.namespace, llm_string, prompt)).encode()
        return hashlib.sha256(raw).hexdigest()

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
