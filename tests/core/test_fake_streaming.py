"""The `fake` provider's model streams like a real one when asked (the server's demo and browser
tests), and keeps tool calls whole; the test fakes do not stream unless built to."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from core.llm.fake import FakeModels, Script, ScriptedChatModel


class Pick(BaseModel):
    choice: str


async def test_text_streams_word_by_word_over_the_latency() -> None:
    model = (
        FakeModels(
            default=Script.of(default="Revenue rose 10.7% to $1.54 billion."),
            latency=0.05,
            stream=True,
        )
        .chat("writer")
        .model
    )
    chunks = [c async for c in model.astream("hi")]
    assert [c.content for c in chunks if c.content] == [
        "Revenue",
        " rose",
        " 10.7%",
        " to",
        " $1.54",
        " billion.",
    ]
    total = chunks[0]
    for c in chunks[1:]:
        total = total + c
    assert total.content == "Revenue rose 10.7% to $1.54 billion."
    assert total.usage_metadata is not None and total.usage_metadata["output_tokens"] == 6


async def test_tool_calls_arrive_whole_when_streamed() -> None:
    model = FakeModels(default=Script.of(default={"choice": "b"}), stream=True).chat("x").model
    bound = model.bind_tools([Pick])
    chunks = [c async for c in bound.astream("pick")]
    total: Any = chunks[0]
    for c in chunks[1:]:
        total = total + c
    assert total.tool_calls[0]["name"] == "Pick" and total.tool_calls[0]["args"] == {"choice": "b"}


async def test_test_fakes_do_not_stream_by_default() -> None:
    model: Any = ScriptedChatModel(script=Script.of(default="one two three"))
    chunks = [c async for c in model.astream("hi")]
    assert [c.content for c in chunks] == ["one two three"]  # one whole message
