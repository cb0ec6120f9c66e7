"""Run execution for the service. `RunExecutor` runs one run (status, event log, report) and is
shared by the API process (embedded mode: a bounded pool of tasks, resume on start-up) and by
`earnings-desk worker` processes (EDESK_REDIS_URL: runs go through the arq queue). `RunManager`
is what the API routes use: submit, stream (log replay + live bus), wait, cancel, delete."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import timedelta
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel

from app.service.bus import WAKE, Bus
from app.service.companies import StoreMemory, remember_call
from app.service.engine import Engine, RunOutcome
from app.service.events import NodeFinished, RunError, RunFinished, TokenDelta
from app.service.memory import release_memory
from app.service.metrics import run_finished, run_started
from app.service.requests import RunRequest
from app.settings import Settings
from app.storage import TERMINAL, RunRecord, Store, now
from app.storage.checkpoints import compact as compact_checkpoints
from app.storage.errors import is_infra_error
from core.context import RunControl
from core.contract import NodeTrace
from core.logctx import run_id_var
from core.transcript import Transcript, parse_transcript

log = logging.getLogger("earnings_desk.runs")


class EventWriter:
    """A run's progress events, appended to its log in order by one background task, so the
    graph never waits on the database between steps: whatever queued while a write was in
    flight goes in the next write, as one transaction, then one wake-up for the streams.
    `flush` waits until every event put so far is stored (and raises what a write raised);
    a process killed before a flush loses at most the unwritten node events, which a resume
    restores from the checkpoint (`RunExecutor._recover_node_events`)."""

    def __init__(self, store: Store, bus: Bus, run_id: str) -> None:
        self.store, self.bus, self.run_id = store, bus, run_id
        self._pending: list[BaseModel] = []
        self._wake = asyncio.Event()
        self._idle = asyncio.Event()
        self._idle.set()
        self._error: BaseException | None = None
        self._last: int | None = None  # the last number this writer stored
        self._task = asyncio.create_task(self._run(), name=f"events {run_id}")

    def put(self, event: BaseModel) -> None:
        if self._error is not None:
            return  # the next flush raises it
        self._pending.append(event)
        self._idle.clear()
        self._wake.set()

    async def _run(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            batch, self._pending = self._pending, []
            try:
                if batch:
                    self._last = await self.store.append_events(self.run_id, batch,
                                                                after=self._last)  # fmt: skip
                    await self.bus.notify(self.run_id)
            except Exception as exc:  # kept for flush: the run's executor decides
                self._error, self._last = exc, None
                self._pending.clear()
            if not self._pending:
                self._idle.set()

    async def flush(self) -> None:
        await self._idle.wait()
        if self._error is not None:
            raise self._error

    async def close(self) -> None:
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task


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


T = TypeVar("T")


def _unbroken(read: Awaitable[T]) -> Awaitable[T]:
    """A store read that finishes even when the stream's client goes away during it: a read
    cancelled inside SQLAlchemy leaves a connection-closing task that the loop destroys
    pending (logged at every SSE disconnect). The stream itself still stops at once."""
    task = asyncio.ensure_future(read)
    task.add_done_callback(lambda t: t.cancelled() or t.exception())  # never "unretrieved"
    return asyncio.shield(task)


async def stream_log(
    store: Store,
    bus: Bus,
    stream_id: str,
    *,
    after: int,
    final: str,
    exists: Callable[[], Awaitable[bool]],
    poll: float,
    tokens: bool = False,
) -> AsyncIterator[dict[str, Any]]:
    """SSE messages of one event log (a run's or an evaluation's): the stored events after
    `after`, then live ones until the `final` event; token deltas (live only) when asked."""
    token_n = 0
    async with bus.listen(stream_id, tokens=tokens) as inbox:
        while True:
            # listening before reading: an event stored after this read wakes us
            stored = await _unbroken(store.events(stream_id, after=after))
            for ev in stored:
                after = ev.seq
                yield {"id": str(ev.seq), "event": ev.type, "data": json.dumps(ev.data)}
                if ev.type == final:
                    return
            if not stored and 0 < await _unbroken(store.last_seq(stream_id, final)) <= after:
                return  # resumed at or past the end of a finished log: nothing can come
            if not await _unbroken(exists()):
                return
            item = await inbox.get(timeout=poll)
            while item is not None:
                if isinstance(item, TokenDelta):
                    token_n += 1
                    yield {
                        "id": f"{after}.{token_n}",
                        "event": "token",
                        "data": item.model_dump_json(),
                    }
                if inbox.queue.empty():
                    break
                item = inbox.queue.get_nowait()


class RunQueue(Protocol):
    """Where the API hands runs to workers (app.service.queue.ArqQueue)."""

    async def enqueue(self, run_id: str) -> str: ...
    async def ping(self) -> None: ...
    async def close(self) -> None: ...


class RunExecutor:
    """Executes one run: marks it running, runs (or resumes) its pipeline, writes the final
    status and report, and publishes every event to the store's log and the bus."""

    def __init__(self, engine: Engine, store: Store, bus: Bus, settings: Settings) -> None:
        self.engine = engine
        self.store = store
        self.bus = bus
        self.settings = settings

    def request_for(self, record: RunRecord, transcript: Transcript | None) -> RunRequest:
        """The stored input as the engine takes it, read as stored: options resolved at intake,
        financials and prices typed. `transcript` None resumes from the checkpoint. A run reads
        its key's stored calls for its track record (an evaluation's run does not: its reports
        must not depend on what else the key stored)."""
        given = record.input
        memory = None if record.eval_id else StoreMemory(self.store, record.owner)
        return RunRequest(
            pipeline=record.pipeline, transcript=transcript, options=given.options,
            call=given.call, financials=given.financials, prices=given.prices, run_id=record.id,
            durability="sync",  # survive SIGKILL without re-running finished nodes
            keep_checkpoint=True,  # read by _recover_node_events and _finish, then deleted
            memory=memory,
        )  # fmt: skip

    async def exhausted(self, record: RunRecord, prior: int) -> bool:
        """After EDESK_RESUME_ATTEMPTS starts that each ended with the process killed or
        stalled, the run is failed, naming the node it was in, instead of started again: a
        call that kills its process cannot take the service down at every restart."""
        limit = self.settings.resume_attempts
        if prior < limit:
            return False
        node = await self.interrupted_node(record)
        message = (
            f"the process was killed or stalled {prior} times while this run was in node "
            f"{node}; not resumed again (EDESK_RESUME_ATTEMPTS={limit})"
        )
        log.warning("run %s: %s", record.id, message)
        await self.store.update(
            record.id, status="failed", finished_at=now(), error=message, failed_node=node,
            reason="interrupted",
        )  # fmt: skip
        await self.publish(record.id, RunError(run_id=record.id, node=node, message=message))
        await self.publish(
            record.id, RunFinished(run_id=record.id, status="failed", reason="interrupted")
        )
        run_finished(record.pipeline, "failed", [])
        return True

    async def interrupted_node(self, record: RunRecord) -> str:
        """The node a run was in when its process died: the last one its log shows started
        and not finished, else the checkpoint's next node, else the pipeline's start."""
        open_nodes: Counter[str] = Counter()
        last: str | None = None
        for e in await self.store.events(record.id):
            node = e.data.get("node")
            if e.type == "node_started" and isinstance(node, str):
                open_nodes[node] += 1
                last = node
            elif e.type == "node_finished" and isinstance(node, str) and open_nodes[node] > 0:
                open_nodes[node] -= 1
        if last is not None and open_nodes[last] > 0:
            return last
        pending = next((n for n, k in open_nodes.items() if k > 0), None)
        if pending is not None:
            return pending
        snapshot = await self.engine.graphs[record.pipeline].aget_state(
            {"configurable": {"thread_id": record.id}}
        )
        return str(snapshot.next[0]) if snapshot.next else "(before its first node)"

    async def has_checkpoint(self, record: RunRecord) -> bool:
        snapshot = await self.engine.graphs[record.pipeline].aget_state(
            {"configurable": {"thread_id": record.id}}
        )
        return bool(snapshot.values)

    async def execute(
        self, record: RunRecord, control: RunControl, *, resume: bool, infra_raises: bool = False
    ) -> None:
        """Run it to its end. Failures inside the run end it `failed` (node and reason kept).
        With `infra_raises` (workers), a lost database or queue connection is raised instead,
        so the run is retried from its checkpoint rather than failed for an outage."""
        run_id = record.id
        run_id_var.set(run_id)  # every log line of this task names the run (JSON logs)
        writer = EventWriter(self.store, self.bus, run_id)
        try:
            control.cancelled = record.cancel_requested  # asked before a restart
            await self.store.update(run_id, status="running", started_at=now())
            log.info(
                "run %s started (%s%s)", run_id, record.pipeline, ", resumed" if resume else ""
            )
            run_started(record.pipeline, resume)
            # parsing is CPU-bound on a long call: in a worker thread, off the event loop
            text = record.input.transcript
            bounds = self.settings.transcript_bounds()  # the intake's, so what it took runs
            transcript = (
                None if resume else await asyncio.to_thread(parse_transcript, text, **bounds)
            )
            outcome = await self.engine.run(
                self.request_for(record, transcript),
                on_event=lambda e: self._on_event(writer, e),
                control=control,
            )
            await writer.flush()
            if resume:
                await self._recover_node_events(record, outcome)
            await self._finish(record, outcome)
            await self.engine.settle(outcome)  # ended: never resumed
            await self.compact()
        except asyncio.CancelledError:
            # process shutting down (or a worker's lease lost): the run stays `running` and
            # is resumed; an orderly stop is not an attempt that killed the process
            with contextlib.suppress(Exception):
                await asyncio.shield(self.store.uncount_attempt(run_id))
            raise
        except Exception as exc:  # outside the graph (store, bad checkpoint): fail the run loudly
            if infra_raises and is_infra_error(exc):
                with contextlib.suppress(Exception):
                    await self.store.uncount_attempt(run_id)
                raise
            log.exception("run %s crashed outside the graph", run_id)
            with contextlib.suppress(Exception):  # what the run logged goes first
                await writer.flush()
            await self.store.update(
                run_id,
                status="failed",
                finished_at=now(),
                error=f"{type(exc).__name__}: {exc}",
                reason="error",
            )
            await self.publish(run_id, RunError(run_id=run_id, message=str(exc)))
            await self.publish(run_id, RunFinished(run_id=run_id, status="failed", reason="error"))
            run_finished(record.pipeline, "failed", [])
        finally:
            await writer.close()
            await asyncio.to_thread(release_memory)  # the run's freed pages back to the system

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
        if outcome.report is not None and not record.eval_id:  # an eval's runs add no call
            await remember_call(self.store, record.owner, record.id, outcome.report,
                                record.input.transcript)  # fmt: skip
        finished = next(e for e in reversed(outcome.events) if isinstance(e, RunFinished))
        url = f"/v1/runs/{record.id}/report.md" if outcome.report else None
        await self.publish(record.id, finished.model_copy(update={"report_url": url}))
        log.info("run %s finished: %s", record.id, outcome.status)
        run_finished(record.pipeline, outcome.status, trace)

    async def _recover_node_events(self, record: RunRecord, outcome: RunOutcome) -> None:
        """A node whose writes reached the checkpoint but whose node_finished did not reach the
        event log (the process died, or the database went away, in between) is not run again
        on resume, so LangGraph never reports it again: log it from the checkpoint's trace."""
        nodes = set(self.engine.graphs[record.pipeline].nodes)
        logged = Counter(
            e.data.get("node") for e in await self.store.events(record.id)
            if e.type == "node_finished"
        )  # fmt: skip
        seen: Counter[str] = Counter()
        for t in await self._trace(record.id, outcome):
            if t.node not in nodes:
                continue
            seen[t.node] += 1
            if seen[t.node] > logged[t.node]:
                log.warning("run %s: node %s finished unlogged; logged now", record.id, t.node)
                await self.publish(
                    record.id,
                    NodeFinished(
                        run_id=record.id, node=t.node, duration_ms=t.duration_ms,
                        tokens=t.prompt_tokens + t.completion_tokens, outcome=t.outcome,
                        summary="logged on resume (finished before an interruption)",
                        at=t.ended_at,
                    ),
                )  # fmt: skip

    async def _trace(self, run_id: str, outcome: RunOutcome) -> list[NodeTrace]:
        if outcome.report is not None:
            return outcome.report.trace
        snapshot = await self.engine.graphs[outcome.pipeline].aget_state(
            {"configurable": {"thread_id": run_id}}
        )
        return list(snapshot.values.get("trace", []))

    async def _on_event(self, writer: EventWriter, event: BaseModel) -> None:
        if isinstance(event, TokenDelta):
            await self.bus.token(event)
            return
        if isinstance(event, RunFinished):
            return  # published by _finish once the run's record is final
        writer.put(event)

    async def publish(self, run_id: str, event: BaseModel) -> None:
        await self.store.append_event(run_id, event)
        await self.bus.notify(run_id)

    async def compact(self) -> None:
        """Give deleted rows' and checkpoints' space back to the disk (SQLite files)."""
        await self.store.compact()
        await compact_checkpoints(self.engine.checkpointer)


class RunManager:
    """The API side. Embedded mode (`queue=None`): runs execute here, at most `max_runs` at
    once, and unfinished runs resume at start-up. Queue mode: runs are enqueued for workers."""

    def __init__(
        self,
        engine: Engine,
        store: Store,
        settings: Settings,
        bus: Bus,
        queue: RunQueue | None = None,
    ) -> None:
        self.engine = engine
        self.store = store
        self.settings = settings
        self.bus = bus
        self.queue = queue
        self.executor = RunExecutor(engine, store, bus, settings)
        self._pool = asyncio.Semaphore(settings.max_runs)
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._controls: dict[str, RunControl] = {}

    # -- lifecycle ---------------------------------------------------------------------------

    async def submit(self, record: RunRecord) -> None:
        """Store the run (queued) and schedule it; returns at once. Once stored, the run is
        never lost: if the queue is unreachable now, the workers' sweeper enqueues it later."""
        await self.store.create(record)
        if self.queue is None:
            self._spawn(record.id, resume=False)
            return
        try:
            await self.queue.enqueue(record.id)
        except Exception as exc:
            log.warning("run %s stored but not enqueued (%s); the sweeper will", record.id, exc)

    async def resume_unfinished(self) -> list[str]:
        """Embedded mode, on start-up: finish what a dead process left. Runs with a checkpoint
        resume from it (finished nodes are not re-run); queued runs start. (Queue mode: the
        workers' sweeper does this.)"""
        if self.queue is not None:
            return []
        resumed = []
        for record in await self.store.unfinished():
            self._spawn(record.id, resume=await self.executor.has_checkpoint(record))
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
        control = RunControl()  # cancel's handle; the budget is the run's option
        self._controls[run_id] = control
        try:
            async with self._pool:
                record = await self.store.get(run_id)
                if record is None or record.status in TERMINAL:
                    return  # deleted or cancelled while queued
                if await self.executor.exhausted(record, await self.store.begin_attempt(run_id)):
                    return
                await self.executor.execute(record, control, resume=resume)
        finally:
            self._controls.pop(run_id, None)

    # -- events ------------------------------------------------------------------------------

    def stream(
        self, run_id: str, *, after: int = 0, tokens: bool = False
    ) -> AsyncIterator[dict[str, Any]]:
        """SSE messages for one run: the stored log after `after`, then live events until
        run_finished. Token events (live only) when asked."""

        async def exists() -> bool:
            return await self.store.get(run_id) is not None

        return stream_log(
            self.store, self.bus, run_id, after=after, final="run_finished", exists=exists,
            poll=self.settings.sse_poll, tokens=tokens,
        )  # fmt: skip

    async def wait_finished(self, run_id: str) -> RunRecord | None:
        async with self.bus.listen(run_id, tokens=False) as inbox:
            while True:
                record = await self.store.get(run_id)
                if record is None or record.status in TERMINAL:
                    return record
                while await inbox.get(timeout=self.settings.sse_poll) not in (None, WAKE):
                    pass

    # -- control -----------------------------------------------------------------------------

    async def cancel(self, run_id: str) -> RunRecord | None:
        """Queued: cancelled at once. Running: stops at the next node boundary (its worker
        sees the request when it renews its lease)."""
        record = await self.store.get(run_id)
        if record is None or record.status in TERMINAL:
            return record
        await self.store.update(run_id, cancel_requested=True)
        cancelled_queued = await self.store.update_if_status(
            run_id, {"queued"}, status="cancelled", finished_at=now(), reason="cancelled"
        )
        if cancelled_queued:
            await self.executor.publish(
                run_id, RunFinished(run_id=run_id, status="cancelled", reason="cancelled")
            )
        elif (control := self._controls.get(run_id)) is not None:
            control.cancelled = True
        return await self.store.get(run_id)

    async def delete(self, run_id: str, *, compact: bool = True) -> None:
        """Cancel if needed, then remove the run, its events, its checkpoints and, when no
        other run reads the same call, the call's search index; then give the space back."""
        task = self._tasks.get(run_id)
        await self.cancel(run_id)
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        sha = await self.store.delete(run_id)
        await self.engine.forget(run_id)
        if sha and not await self.store.uses_transcript(sha):
            await asyncio.to_thread(self.engine.index.drop, sha, shrink=compact)
        await self.bus.notify(run_id)
        if compact:
            await self.executor.compact()
        await asyncio.to_thread(release_memory)

    async def delete_thread(self, owner: str | None, thread_id: str) -> None:
        """A LangGraph thread and every run on it (each as `delete` does), then the space."""
        run_ids = await self.store.thread_run_ids(owner, thread_id)
        for run_id in run_ids:
            await self.delete(run_id, compact=False)
        await self.store.delete_thread(owner, thread_id)
        if run_ids:
            await self.executor.compact()

    async def prune(self, days: float) -> list[str]:
        """Retention: delete every run that ended more than `days` days ago, as DELETE does
        (events, checkpoints, unused indexes), then the threads made before then that hold no
        run any more, then give the space back once."""
        cutoff = now() - timedelta(days=days)
        expired = await self.store.ended_before(cutoff)
        for run_id in expired:
            await self.delete(run_id, compact=False)
        idle = await self.store.idle_threads_before(cutoff)
        for owner, thread_id in idle:
            await self.store.delete_thread(owner, thread_id)
        # ingested calls follow the runs' retention (a run's call went with its run above)
        await self.store.ingested_before(cutoff)
        if expired or idle:
            await self.executor.compact()
            await asyncio.to_thread(self.engine.index.shrink)
            log.info(
                "retention: deleted %d run(s) ended and %d idle thread(s) made over %g days ago",
                len(expired), len(idle), days,
            )  # fmt: skip
        return expired
