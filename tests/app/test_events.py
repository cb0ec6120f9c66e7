from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from app.service.events import NodeFinished, NodeStarted, RunError, map_chunk
from core.contract import NodeTrace


def test_task_start_and_result() -> None:
    [start] = map_chunk("r1", "tasks", {"id": "x", "name": "trust", "input": {}, "triggers": ()})
    assert isinstance(start, NodeStarted) and start.node == "trust" and start.run_id == "r1"
    now = datetime.now(UTC)
    trace = NodeTrace(
        node="trust",
        started_at=now,
        ended_at=now,
        duration_ms=12.5,
        prompt_tokens=10,
        completion_tokens=5,
    )
    [done] = map_chunk(
        "r1",
        "tasks",
        {"id": "x", "name": "trust", "error": None, "result": {"trace": [trace]}, "interrupts": []},
    )
    assert isinstance(done, NodeFinished)
    assert (done.duration_ms, done.tokens, done.outcome) == (12.5, 15, "ok")


def test_error_names_node() -> None:
    [err] = map_chunk(
        "r1",
        "tasks",
        {
            "id": "x",
            "name": "leader",
            "error": TimeoutError("slow"),
            "result": None,
            "interrupts": [],
        },
    )
    assert isinstance(err, RunError) and err.node == "leader" and "slow" in err.message


def test_other_modes_ignored() -> None:
    assert map_chunk("r1", "updates", {"trust": {}}) == []


def test_tokens_are_text_or_streamed_tool_arguments() -> None:
    from langchain_core.messages import AIMessageChunk

    from app.service.events import TokenDelta

    meta = {"langgraph_node": "synthesize"}
    [text] = map_chunk("r1", "messages", (AIMessageChunk(content="Revenue "), meta))
    assert isinstance(text, TokenDelta) and text.text == "Revenue " and text.node == "synthesize"
    call = AIMessageChunk(
        content="",
        tool_call_chunks=[{"name": "Block", "args": '{"pos', "id": "c1", "index": 0}],
    )
    [args] = map_chunk("r1", "messages", (call, meta))
    assert isinstance(args, TokenDelta) and args.text == '{"pos'
    assert map_chunk("r1", "messages", (AIMessageChunk(content=""), meta)) == []
    assert map_chunk("r1", "messages", (AIMessageChunk(content="x"), {})) == []  # no node


async def test_progress_summaries_come_from_the_nodes(fake_engine: Any, sample_text: str) -> None:
    """Each node's trace carries its own one-line summary (models summarise themselves); the
    event mapper only reads it, knowing no pipeline's state keys."""
    from app.service.events import NodeFinished
    from core.transcript import parse_transcript
    from tests.scripts import block, findebate_models

    async with fake_engine(findebate_models(block(), block())) as engine:
        out = await engine.run(engine.request("findebate", parse_transcript(sample_text)))
    said = {e.node: e.summary for e in out.events if isinstance(e, NodeFinished)}
    assert said["retrieve"].endswith("passages over 4 dimensions")
    assert said["synthesize"].endswith("1d LONG 75%, 1w LONG 75%, 1m LONG 75%")
    assert said["integrity_check"] == "accept: recommendations preserved"
    assert said["report"].startswith("report succeeded: 1d LONG")
    assert said["trust"].startswith("trust: ")  # the speaker, then what it said
    assert all(said[n] for n in said if n != "fact_check") and said["fact_check"]
    assert out.report is not None and out.report.trace[-1].summary == said["report"]
