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


async def test_the_run_context_derives_from_the_options_alone(fake_engine: Any) -> None:
    """Token budget, word caps and token streaming come from the run's options: the EDESK_
    defaults are resolved once (the engine's defaults, the intake's), never read again."""
    from core.context import RunStopped, WordBudget
    from core.options import RunOptions

    async with fake_engine(findebate_models(), evidence_words=300, transcript_words=900) as engine:
        assert engine.context.options.evidence_words == 300  # resolved once, from the settings
        given = RunOptions(transcript_words=400, token_budget=5, stream_tokens=True)
        context = engine.run_context(given)
    assert context.words == WordBudget(evidence=None, transcript=400)  # not the settings' 300
    assert context.options.stream_tokens
    context.check("retrieve")
    context.control.spend(5)
    with pytest.raises(RunStopped, match="5 used of 5"):
        context.check("synthesize")


async def test_a_run_stored_before_typed_inputs_loads_and_resumes(
    fake_engine: Any, sample_text: str, tmp_path: Path
) -> None:
    """A run stored by the previous code (financials and prices as dicts, the financials' keys
    by alias) runs with them typed, and resumes from its checkpoint after an outage."""
    import json

    import psycopg
    import sqlalchemy as sa

    from app.service.bus import LocalBus
    from app.service.runs import RunExecutor
    from app.storage import RunInput, RunRecord, Store, now
    from core.llm.fake import FakeModels, Script, canned

    class Outage(Store):
        failed = False

        async def update(self, run_id: str, **fields: Any) -> None:
            if fields.get("status") == "succeeded" and not self.failed:
                self.failed = True
                raise psycopg.OperationalError("server closed the connection unexpectedly")
            await super().update(run_id, **fields)

    fin = {"Ticker": "NWO", "most_recent_earnings": {"fiscalDateEnding": "2026-06-30",
                                                    "totalRevenue": "1543100000"}}  # fmt: skip
    async with fake_engine(FakeModels(default=Script.of(default=canned))) as engine:
        store = await Outage.open(None, tmp_path / "runs.sqlite")
        options = engine.context.options
        await store.create(RunRecord(
            id="old", pipeline="zero_shot", status="queued", created_at=now(),
            input=RunInput(transcript=sample_text, options=options),
        ))  # fmt: skip
        old = {"transcript": sample_text, "options": options.model_dump(mode="json"),
               "financials": fin, "prices": None}  # fmt: skip
        async with store.engine.begin() as conn:
            await conn.execute(sa.text("UPDATE runs SET input = :v WHERE id = 'old'"),
                               {"v": json.dumps(old)})  # fmt: skip
        record = await store.get("old")
        assert record is not None and record.input.financials is not None
        assert record.input.financials.ticker == "NWO"
        executor = RunExecutor(engine, store, LocalBus(), engine.settings)
        assert executor.request_for(record, None).options is record.input.options  # as stored
        with pytest.raises(psycopg.OperationalError):
            await executor.execute(record, RunControl(), resume=False, infra_raises=True)
        assert await executor.has_checkpoint(record)
        await executor.execute(record, RunControl(), resume=True, infra_raises=True)
        done = await store.get("old")
        await store.close()
    assert done is not None and done.status == "succeeded" and done.report is not None
    numbers = {n.text: n.grounded for n in done.report.evidence.numbers}
    assert numbers["$1.54 billion"] is True  # stated only in the stored financials


async def test_the_report_comes_from_the_stream_not_a_state_read(
    fake_engine: Any, sample_text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The report node's write is taken as the stream carries it: the whole checkpointed state
    (the call, its chunks) is not read back once more per run just to find the report."""
    models = findebate_models(block(), block())
    async with fake_engine(models) as engine:
        graph = engine.graphs["findebate"]

        async def no_state_read(*_: Any, **__: Any) -> Any:
            raise AssertionError("the state was read back")

        monkeypatch.setattr(graph, "aget_state", no_state_read)
        out = await engine.run(engine.request("findebate", parse_transcript(sample_text)))
    assert out.status == "succeeded" and out.report is not None
    assert out.report.trace[-1].node == "report" and out.report.recommendations
