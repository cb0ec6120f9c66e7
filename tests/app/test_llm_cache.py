"""The on-disk LLM cache: a repeated run gives identical output with zero model calls, also
from a new engine over the same file; different prompts or models miss."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from langchain_core.embeddings import DeterministicFakeEmbedding

from app.llm.factory import ModelFactory
from app.service.engine import Engine
from app.settings import Settings
from core.llm.cache import entries
from core.transcript import parse_transcript


def _settings(tmp_path: Path, **kw: Any) -> Settings:
    return Settings(data_dir=tmp_path / "data", provider="fake", **kw)


async def _run(settings: Settings, text: str, pipeline: str = "findebate") -> tuple[Any, int]:
    async with Engine.open(
        settings, embeddings=DeterministicFakeEmbedding(size=32), embedding_name="fake"
    ) as engine:
        out = await engine.run(engine.request(pipeline, parse_transcript(text)))
        assert isinstance(engine.models, ModelFactory)
        return out.report, engine.models._fakes.default.served  # type: ignore[union-attr]


async def test_cache_hit_is_identical_with_zero_model_calls(
    tmp_path: Path, sample_text: str
) -> None:
    settings = _settings(tmp_path, llm_cache=tmp_path / "cache.sqlite")
    first, first_calls = await _run(settings, sample_text)
    second, second_calls = await _run(settings, sample_text)  # a new engine, same file
    assert first_calls > 0 and second_calls == 0
    assert sum(t.calls for t in first.trace) == first_calls
    assert sum(t.calls for t in second.trace) == 0
    # every answer of the first run, including the one it already got from the cache (the
    # canned leader report's extraction prompt equals the draft's)
    answers = sum(t.calls + t.cached_calls for t in first.trace)
    assert sum(t.cached_calls for t in second.trace) == answers > first_calls
    assert second.markdown == first.markdown
    assert second.recommendations == first.recommendations
    assert second.evidence.numbers == first.evidence.numbers
    assert second.tokens == first.tokens  # usage as the model reported it, for the same numbers


async def test_no_cache_calls_the_model_every_time(tmp_path: Path, sample_text: str) -> None:
    _, a = await _run(_settings(tmp_path), sample_text)
    _, b = await _run(_settings(tmp_path), sample_text)
    assert a == b > 0


async def test_a_different_prompt_misses(tmp_path: Path, sample_text: str) -> None:
    settings = _settings(tmp_path, llm_cache=tmp_path / "cache.sqlite")
    await _run(settings, sample_text, "zero_shot")
    _, calls = await _run(settings, sample_text + "\nOne more sentence.", "zero_shot")
    assert calls > 0


def test_entries_are_keyed_by_model_name(tmp_path: Path, sample_text: str) -> None:
    import asyncio

    settings = _settings(tmp_path, llm_cache=tmp_path / "cache.sqlite")
    asyncio.run(_run(settings, sample_text, "zero_shot"))
    factory = ModelFactory(settings)
    assert factory.cache is not None
    rows = entries(factory.cache)
    assert rows and {ns for ns, _ in rows} == {"fake:canned"}
