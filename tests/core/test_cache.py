"""The LLM cache key: model namespace + generation parameters + prompt; transport settings and
the local server's per-start URL are not part of it; old files are re-keyed on open."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration

from core.llm.cache import SqliteLLMCache, canonical_llm_string, is_cache_hit


def llm_string(base: str, temperature: float = 0.6, timeout: float = 300.0) -> str:
    return (
        '{"id": ["x"], "kwargs": {"model_name": "smollm2", "openai_api_base": "' + base + '", '
        f'"temperature": {temperature}, "request_timeout": {timeout}, "max_retries": 3}}, '
        "\"lc\": 1}---[('stop', None)]"
    )


def answer(text: str) -> list[ChatGeneration]:
    return [ChatGeneration(message=AIMessage(content=text))]


def test_local_port_and_transport_settings_are_not_in_the_key(tmp_path: Path) -> None:
    cache = SqliteLLMCache(tmp_path / "c.sqlite", "local:smollm2", ("openai_api_base",))
    cache.update("prompt", llm_string("http://127.0.0.1:34711/v1"), answer("hello"))
    hit = cache.lookup("prompt", llm_string("http://127.0.0.1:40001/v1", timeout=60))
    assert hit is not None and hit[0].text == "hello"
    assert is_cache_hit(hit[0].message)  # type: ignore[attr-defined]
    assert cache.lookup("prompt", llm_string("http://127.0.0.1:40001/v1", temperature=0.0)) is None
    assert cache.lookup("other prompt", llm_string("http://127.0.0.1:34711/v1")) is None


def test_remote_endpoints_stay_apart(tmp_path: Path) -> None:
    cache = SqliteLLMCache(tmp_path / "c.sqlite", "openai:m")
    cache.update("p", llm_string("http://gpu-a:8000/v1"), answer("a"))
    assert cache.lookup("p", llm_string("http://gpu-b:8000/v1")) is None
    other = cache.for_namespace("openai:n")
    assert other.lookup("p", llm_string("http://gpu-a:8000/v1")) is None


def test_canonical_form_is_order_insensitive() -> None:
    a = '{"kwargs": {"b": 1, "a": 2}}---x'
    b = '{"kwargs": {"a": 2, "b": 1}}---x'
    assert canonical_llm_string(a) == canonical_llm_string(b)
    assert canonical_llm_string("not json---x") == "not json---x"


def test_old_files_are_rekeyed_on_open(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    first = SqliteLLMCache(path, "local:smollm2", ("openai_api_base",))
    first.update("prompt", llm_string("http://127.0.0.1:1/v1"), answer("kept"))
    first.close()
    conn = sqlite3.connect(path)  # make it look like a version-1 file: raw llm_string keys
    raw = "\x00".join(("local:smollm2", llm_string("http://127.0.0.1:1/v1"), "prompt"))
    conn.execute("UPDATE llm_cache SET key = ?", (hashlib.sha256(raw.encode()).hexdigest(),))
    conn.execute("PRAGMA user_version = 1")
    conn.commit()
    conn.close()
    reopened = SqliteLLMCache(path, "local:smollm2", ("openai_api_base",))
    hit = reopened.lookup("prompt", llm_string("http://127.0.0.1:2/v1"))
    assert hit is not None and hit[0].text == "kept"
