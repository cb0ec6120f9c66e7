"""Per-run brakes (cancel, token budget) at node boundaries, and resume from a checkpoint."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from app.service.events import NodeFinished, TokenDelta
from core.context import RunControl
from core.transcript import parse_transcript
from nodes.specialists import SPECIALISTS
from tests.scripts import block, findebate_models

pytestmark = pytest.mark.asyncio


async def test_budget_stops_at_next_node_boundary(fake_engine: Any, sample_text: str) -> None:
    models = findebate_models(block(), block())
    async with fake_engine(models) as engine:
        options = engine.context.options.merged({"token_budget": 1})
        out = await engine.run(
            engine.request("findebate", parse_transcript(sample_text), None, options)
        )
        state = await engine.graphs["findebate"].aget_state(
            {"configurable": {"thread_id": out.run_id}}
        )
    assert out.status == "failed" and out.reason == "budget"
    assert "token budget exhausted before synthesize" in (out.error or "")
    assert out.events[-1].reason == "budget"
    assert set(state.values["analyses"]) == set(SPECIALISTS)  # what was done is kept
    assert models.script("synthesizer").calls == []


async def test_cancel_stops_at_next_node_boundary(fake_engine: Any, sample_text: str) -> None:
    models = findebate_models(block(), block())
    control = RunControl()

    def on_event(event: BaseModel) -> None:
        if isinstance(event, NodeFinished) and event.node == "retrieve":
            control.cancelled = True

    async with fake_engine(models) as engine:
        out = await engine.run(
            engine.request("findebate", parse_transcript(sample_text)),
            control=control,
            on_event=on_event,
        )
    assert out.status == "cancelled" and out.reason == "cancelled"
    assert all(models.script(r).calls == [] for r in SPECIALISTS)


async def test_resume_does_not_rerun_finished_nodes(fake_engine: Any, sample_text: str) -> None:
    models = findebate_models(block(), block())
    models.scripts["trust"].responses.append(ConnectionError("provider down"))
    async with fake_engine(models) as engine:
        first = await engine.run(engine.request("findebate", parse_transcript(sample_text)))
        assert first.status == "failed" and first.failed_node == "trust"
        resumed = await engine.run(engine.request("findebate", None, run_id=first.run_id))
    assert resumed.status == "succeeded" and resumed.report is not None
    started = [e.node for e in resumed.events if e.type == "node_started"]
    assert started[0] == "trust" and "synthesize" not in started
    assert all(len(models.script(r).calls) == 1 for r in SPECIALISTS)  # not run again
    assert len(models.script("trust").calls) == 2  # the failed one, then the retry
    assert resumed.events[0].resumed


async def test_resume_without_checkpoint_is_an_error(fake_engine: Any) -> None:
    async with fake_engine(findebate_models()) as engine:
        with pytest.raises(KeyError, match="no checkpoint"):
            await engine.run(engine.request("findebate", None, run_id="nope"))


async def test_token_events_only_when_asked(fake_engine: Any, sample_text: str) -> None:
    models = findebate_models(block(), block(), block(), block())
    async with fake_engine(models) as engine:
        quiet = await engine.run(engine.request("findebate", parse_transcript(sample_text)))
        streaming = engine.context.options.merged({"stream_tokens": True})
        loud = await engine.run(
            engine.request("findebate", parse_transcript(sample_text), options=streaming)
        )
    assert not any(isinstance(e, TokenDelta) for e in quiet.events)
    tokens = [e for e in loud.events if isinstance(e, TokenDelta)]
    assert loud.status == "succeeded"
    assert {t.node for t in tokens} >= {"trust", "skeptic", *SPECIALISTS}


async def test_node_checkpointed_but_not_logged_is_logged_on_resume(
    fake_engine: Any, sample_text: str, tmp_path: Path
) -> None:
    """The worker dies (here: the database goes away) after the report node's writes reached
    the checkpoint and before its node_finished reached the event log. On retry the graph is
    already complete, so LangGraph neither runs nor reports that node again; the executor logs
    it from the checkpoint's trace: every node finished exactly once in the log."""
    import psycopg

    from app.service.bus import LocalBus
    from app.service.runs import RunExecutor
    from app.storage import RunInput, RunRecord, Store, now

    class Interrupted(Store):
        dropped = failed = False

        async def append_event(self, run_id: str, event: BaseModel) -> int:
            if isinstance(event, NodeFinished) and event.node == "report" and not self.dropped:
                self.dropped = True  # the write that never happened
                return 0
            return await super().append_event(run_id, event)

        async def update(self, run_id: str, **fields: Any) -> None:
            if fields.get("status") == "succeeded" and not self.failed:
                self.failed = True
                raise psycopg.OperationalError("server closed the connection unexpectedly")
            await super().update(run_id, **fields)

    async with fake_engine(findebate_models(block(), block())) as engine:
        store = await Interrupted.open(None, tmp_path / "runs.sqlite")
        record = RunRecord(
            id="r1", pipeline="findebate", status="queued", created_at=now(),
            input=RunInput(transcript=sample_text, options=engine.context.options),
        )  # fmt: skip
        await store.create(record)
        executor = RunExecutor(engine, store, LocalBus(), engine.settings)
        with pytest.raises(psycopg.OperationalError):
            await executor.execute(record, RunControl(), resume=False, infra_raises=True)
        assert await executor.has_checkpoint(record)
        await executor.execute(record, RunControl(), resume=True, infra_raises=True)
        done = await store.get("r1")
        events = await store.events("r1")
        await store.close()
    assert done is not None and done.status == "succeeded"
    finished = Counter(e.data["node"] for e in events if e.type == "node_finished")
    assert finished["report"] == 1 and set(finished.values()) == {1}
    assert len(finished) == 16  # every findebate node (facts included), once
    assert events[-1].type == "run_finished"
