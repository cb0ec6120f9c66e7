from __future__ import annotations

import pytest
from langchain_core.messages import HumanMessage

from core.llm.chat import CallStats, ModelOutputError, complete, complete_structured, current_stats
from core.llm.fake import FakeModels, Script, block
from core.recommendations import RecommendationBlock, to_recommendations

pytestmark = pytest.mark.asyncio
MSG = [HumanMessage(content="hello")]


async def test_structured_retry_records_stats() -> None:
    script = Script.of("not a tool call", block())
    handle = FakeModels({"x": script}).chat("x")
    stats = CallStats()
    token = current_stats.set(stats)
    try:
        out = await complete_structured(
            handle, RecommendationBlock, MSG, validate=to_recommendations, retries=2
        )
    finally:
        current_stats.reset(token)
    assert out.ok and out.attempts == 2 and out.value is not None
    assert stats.calls == 2 and stats.retries == 1 and stats.prompt_tokens > 0
    assert "no call to the RecommendationBlock tool" in script.calls[1].text


async def test_structured_never_valid_is_a_failure_not_a_default() -> None:
    script = Script.of(default={"one_day": {"position": "UP"}})
    handle = FakeModels({"x": script}).chat("x")
    out = await complete_structured(
        handle, RecommendationBlock, MSG, validate=to_recommendations, retries=1
    )
    assert not out.ok and out.value is None and out.attempts == 2
    assert out.error and "parse" in out.error
    assert out.raw_output and "UP" in out.raw_output


async def test_empty_text_retried_then_raised() -> None:
    handle = FakeModels({"x": Script.of("", "fine")}).chat("x")
    assert await complete(handle, MSG, role="x", retries=1) == "fine"
    handle = FakeModels({"x": Script.of("", " ")}).chat("x")
    with pytest.raises(ModelOutputError, match="empty"):
        await complete(handle, MSG, role="x", retries=1)


async def test_a_schema_is_bound_once_per_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tool schema is built once per model and schema, not on every structured call: the
    same answers, one binding."""
    handle = FakeModels({"x": Script.of(default=block())}).chat("x")
    bound: list[object] = []
    original = type(handle.model).with_structured_output

    def counting(self: object, *args: object, **kwargs: object) -> object:
        bound.append(args[0])
        return original(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(type(handle.model), "with_structured_output", counting)
    for _ in range(3):
        out = await complete_structured(
            handle, RecommendationBlock, MSG, validate=to_recommendations, retries=0
        )
        assert out.ok
    assert bound == [RecommendationBlock]
