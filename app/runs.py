"""Run execution for the service: a bounded pool, durable status and event log, cancel, delete,
resume on start-up, and live fan-out of events to SSE subscribers (per run, never global)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator
from dataclasses import fields, replace
from typing import Any

from pydantic import BaseModel

from app.engine import Engine, RunOutcome
from app.events import RunError, RunFinished, TokenDelta
from app.settings import Settings
from app.store import TERMINAL, RunRecord, RunStore, now
from core.context import RunControl, RunOptions
from core.contract import NodeTrace
from core.inputs import Financials, Prices
from core.transcript import parse_transcript

log = logging.getLogger("earnings_desk.runs")

# Request options that map onto RunOptions fields (the rest are handled here).
OPTION_FIELDS = frozenset(f.name for f in fields(RunOptions))


def cost_of(trace: list[NodeTrace], prices: dict[str, dict[str, float]]) -> float | None:
    """USD from per-model token counts and prices per million tokens; None if none priced."""
    total, priced = 0.0, False
    for t in trace:
        for model, (prompt, completion) in t.usage.items():
            price = prices.get(model)
            if price is None:
                continue
            priced = True
            total += prompt * price.get("prompt", 0.0) / 1e6
            total += completion * price.get("completion", 0.0) / 1e6
    return round(total, 6) if priced else None


class RunManager:
    def __init__(self, engine: Engine, store: RunStore, settings: Settings) -> None:
        self.engine = engine
        self.store = store
        self.settings = settings
        self._pool = asyncio.Semaphore(settings.max_runs)
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._controls: dict[str, RunControl] = {}
        self._signals: dict[str, asyncio.Event] = {}
        self._token_subs: dict[str, set[asyncio.Queue[TokenDelta]]] = {}

    # -- lifecycle ---------------------------------------------------------------------------

    async def submit(self, record: RunRecord) -> None:
        """Store the run (queued) and schedule it; returns at once."""
        await self.store.create(record)
        self._spawn(record.id, resume=False)

    async def resume_unfinished(self) -> list[str]:
        """On start-up: finish what a dead process left. Runs with a checkpoint resume from it
        (finished nodes are not re-run); queued runs start."""
        resumed = []
        for record in await self.store.unfinished():
            snapshot = await self.engine.graphs[record.pipeline].aget_state(
                {"configurable": {"thread_id": record.id}}
            )
            self._spawn(record.id, resume=bool(snapshot.values))
            resumed.append(record.id)
        if resumed:
            log.info("resuming %d unfinished run(s)", len(resumed))
        return resumed

    async def shutdown(self) -> None:
        """Stop running tasks; their runs stay `running` and resume at the next start."""
        tasks = list(self._tasks.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def _spawn(self, run_id: str, *, resume: bool) -> None:
        task = asyncio.create_task(self._execute(run_id, resume=resume), name=f"run-{run_id}")
        self._tasks[run_id] = task
        task.add_done_callback(lambda _t: self._tasks.pop(run_id, None))

    async def _execute(self, run_id: str, *, resume: bool) -> None:
        record = await self.store.get(run_id)
        if record is None:
            return
        control = RunControl(
            token_budget=record.input.options.get("token_budget", self.settings.token_budget)
        )
        self._controls[run_id] = control
        try:
            async with self._pool:
                record = await self.store.get(run_id)
                if record is None or record.status in TERMINAL:
                    return  # deleted or cancelled while queued
                control.cancelled = record.cancel_requested  # asked before a restart
                await self.store.update(run_id, status="running", started_at=now())
                log.info(
                    "run %s started (%s%s)", run_id, record.pipeline, ", resumed" if resume else ""
                )
                outcome = await self.engine.run(
                    record.pipeline,
                    None if resume else parse_transcript(record.input.transcript),
                    record.input.call,
                    run_id=run_id,
                    on_event=lambda e: self._on_event(run_id, e),
                    options=self._options(record),
                    control=control,
                    stream_tokens=bool(record.input.options.get("stream_tokens", False)),
                    durability="sync",  # survive SIGKILL without re-running finished nodes
                    financials=Financials.model_validate(record.input.financials)
                    if record.input.financials
                    else None,
                    prices=Prices.model_validate(record.input.prices)
                    if record.input.prices
                    else None,
                )
                await self._finish(record, outcome)
        except asyncio.CancelledError:
            raise  # process shutting down: the run stays `running` and resumes at next start
        except Exception as exc:  # outside the graph (store, bad checkpoint): fail the run loudly
            log.exception("run %s crashed outside the graph", run_id)
            await self.store.update(
                run_id,
                status="failed",
                finished_at=now(),
                error=f"{type(exc).__name__}: {exc}",
                reason="error",
            )
            await self._publish(run_id, RunError(run_id=run_id, message=str(exc)))
            await self._publish(run_id, RunFinished(run_id=run_id, status="failed", reason="error"))
        finally:
            self._controls.pop(run_id, None)

    def _options(self, record: RunRecord) -> RunOptions:
        given: dict[str, Any] = {
            k: tuple(v) if isinstance(v, list) else v
            for k, v in record.input.options.items()
            if k in OPTION_FIELDS
        }
        return replace(self.engine.context.options, **given)

    async def _finish(self, record: RunRecord, outcome: RunOutcome) -> None:
        """Write the final status and report, then publish the stashed run_finished event, so a
        client that sees run_finished always finds the finished run."""
        trace = await self._trace(record.id, outcome)
        prompt = sum(t.prompt_tokens for t in trace)
        completion = sum(t.completion_tokens for t in trace)
        await self.store.update(
            record.id,
            status=outcome.status,
            finished_at=now(),
            report=outcome.report,
            error=outcome.error,
            failed_node=outcome.failed_node,
            reason=outcome.reason,
            prompt_tokens=prompt,
            completion_tokens=completion,
            cost=cost_of(trace, self.settings.prices),
        )
        finished = next(e for e in reversed(outcome.events) if isinstance(e, RunFinished))
        url = f"/v1/runs/{record.id}/report.md" if outcome.report else None
        await self._publish(record.id, finished.model_copy(update={"report_url": url}))
        log.info("run %s finished: %s", record.id, outcome.status)

    async def _trace(self, run_id: str, outcome: RunOutcome) -> list[NodeTrace]:
        if outcome.report is not None:
            return outcome.report.trace
        snapshot = await self.engine.graphs[outcome.pipeline].aget_state(
            {"configurable": {"thread_id": run_id}}
        )
        return list(snapshot.values.get("trace", []))

    # -- events ------------------------------------------------------------------------------

    async def _on_event(self, run_id: str, event: BaseModel) -> None:
        if isinstance(event, TokenDelta):
            for queue in self._token_subs.get(run_id, ()):
                queue.put_nowait(event)
            return
        if isinstance(event, RunFinished):
            return  # published by _finish once the run's record is final
        await self._publish(run_id, event)

    async def _publish(self, run_id: str, event: BaseModel) -> None:
        await self.store.append_event(run_id, event)
        signal = self._signals.pop(run_id, None)
        if signal is not None:
            signal.set()

    def _signal(self, run_id: str) -> asyncio.Event:
        return self._signals.setdefault(run_id, asyncio.Event())

    async def stream(
        self, run_id: str, *, after: int = 0, tokens: bool = False
    ) -> AsyncIterator[dict[str, Any]]:
        """SSE messages for one run: the stored log after `after`, then live events until
        run_finished. Token events (live only) when asked."""
        queue: asyncio.Queue[TokenDelta] | None = None
        if tokens:
            queue = asyncio.Queue()
            self._token_subs.setdefault(run_id, set()).add(queue)
        token_n = 0
        try:
            while True:
                events = await self.store.events(run_id, after=after)
                signal = None
                if not events:
                    # register for wake-up, then look again: nothing can slip in between
                    signal = self._signal(run_id)
                    events = await self.store.events(run_id, after=after)
                for ev in events:
                    after = ev.seq
                    yield {"id": str(ev.seq), "event": ev.type, "data": json.dumps(ev.data)}
                    if ev.type == "run_finished":
                        return
                if events or signal is None:
                    continue
                record = await self.store.get(run_id)
                if record is None:
                    return
                waiters: list[asyncio.Future[Any]] = [asyncio.ensure_future(signal.wait())]
                if queue is not None:
                    waiters.append(asyncio.ensure_future(queue.get()))
                done, pending = await asyncio.wait(
                    waiters, timeout=5.0, return_when=asyncio.FIRST_COMPLETED
                )
                for fut in pending:
                    fut.cancel()
                for fut in done:
                    result = fut.result()
                    if isinstance(result, TokenDelta):
                        token_n += 1
                        yield {
                            "id": f"{after}.{token_n}",
                            "event": "token",
                            "data": result.model_dump_json(),
                        }
                while queue is not None and not queue.empty():
                    token_n += 1
                    yield {
                        "id": f"{after}.{token_n}",
                        "event": "token",
                        "data": queue.get_nowait().model_dump_json(),
                    }
        finally:
            if queue is not None:
                self._token_subs.get(run_id, set()).discard(queue)

    async def wait_finished(self, run_id: str) -> RunRecord | None:
        while True:
            signal = self._signal(run_id)
            record = await self.store.get(run_id)
            if record is None or record.status in TERMINAL:
                return record
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(signal.wait(), timeout=5.0)

    # -- control -----------------------------------------------------------------------------

    async def cancel(self, run_id: str) -> RunRecord | None:
        """Queued: cancelled at once. Running: stops at the next node boundary."""
        record = await self.store.get(run_id)
        if record is None or record.status in TERMINAL:
            return record
        await self.store.update(run_id, cancel_requested=True)
        control = self._controls.get(run_id)
        if record.status == "queued":
            await self.store.update(
                run_id, status="cancelled", finished_at=now(), reason="cancelled"
            )
            await self._publish(
                run_id, RunFinished(run_id=run_id, status="cancelled", reason="cancelled")
            )
        elif control is not None:
            control.cancelled = True
        return await self.store.get(run_id)

    async def delete(self, run_id: str) -> None:
        """Cancel if needed, then remove the run, its events and its checkpoints."""
        task = self._tasks.get(run_id)
        await self.cancel(run_id)
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        await self.store.delete(run_id)
        await self.engine.checkpointer.adelete_thread(run_id)
        self._signal(run_id).set()
        self._signals.pop(run_id, None)
