"""Evaluations started over HTTP (POST /v1/evals): durable jobs in the store, whose report runs
are ordinary runs submitted to the run manager (so they share its pool, `max_runs` and, at
scale, the workers), with progress in the same event log and SSE code as runs.

A coordinator (in an API process, holding the job's lease) submits each (call, pipeline) run,
waits for it, scores its report and writes the same per-report files as `earnings-desk eval`.
Report runs have ids derived from the job, the call and the pipeline, so a coordinator that
restarts (the process was killed, or another replica took over a lapsed lease) finds the runs
already finished and scores them instead of running them again."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import socket
import uuid
from collections.abc import AsyncIterator
from dataclasses import asdict
from datetime import timedelta
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from app.evaluation.dataset import EvalItem
from app.evaluation.runner import EvalEvent, Evaluation, Outcome, model_label
from app.evaluation.summary import summarize, write_chart, write_tables
from app.service.runs import RunManager, stream_log
from app.storage import TERMINAL, EvalRecord, EvalSpec, RunInput, RunRecord, now
from app.storage.records import EVAL_TERMINAL, EvalCall, EvalResult
from app.storage.store import UNFINISHED
from core.options import parse_variant
from core.transcript import Transcript

log = logging.getLogger("earnings_desk.evals")
RUN_NAMESPACE = uuid.UUID("6f1c1a52-64a4-4c1e-9d3b-0f4f0c1e2d7a")
LEASE = timedelta(seconds=30)


class EvalCancelled(Exception):
    """The evaluation was cancelled or deleted while its coordinator ran."""


class LogEvent(BaseModel):
    """An evaluation's progress event as stored in its log (`type` plus its fields)."""

    model_config = ConfigDict(extra="allow")

    type: str


def report_run_id(eval_id: str, call_id: str, pipeline: str) -> str:
    """The id of the run that writes `pipeline`'s report on `call_id` for this evaluation."""
    return uuid.uuid5(RUN_NAMESPACE, f"{eval_id}/{call_id}/{pipeline}").hex


def items_of(spec: EvalSpec) -> list[EvalItem]:
    return [EvalItem(id=c.id, path=Path(c.path), summary=c.summary, labels=c.labels, call=c.call,
                     financials=c.financials, prices=c.prices)
            for c in spec.calls]  # fmt: skip


def calls_of(items: list[EvalItem]) -> list[EvalCall]:
    return [EvalCall(id=i.id, path=str(i.path), summary=i.summary, labels=i.labels, call=i.call,
                     financials=i.financials, prices=i.prices)
            for i in items]  # fmt: skip


class EvalManager:
    """Starts, resumes and streams evaluation jobs for the API."""

    def __init__(self, runs: RunManager, root: Path) -> None:
        self.runs = runs
        self.store = runs.store
        self.engine = runs.engine
        self.root = root
        self.holder = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._sweeper: asyncio.Task[None] | None = None

    # -- lifecycle ---------------------------------------------------------------------------

    async def start(
        self, owner: str | None, spec: EvalSpec, *, eval_id: str | None = None
    ) -> EvalRecord:
        """Store the job (the input is kept before anything runs), then coordinate it."""
        eval_id = eval_id or uuid.uuid4().hex
        total = len(spec.calls) * len(spec.pipelines)
        record = EvalRecord(id=eval_id, owner=owner, created_at=now(), spec=spec, total=total)
        await self.store.create_eval(record)
        await self.publish(eval_id, "eval_queued", total=total)
        await self._take(eval_id, force=True)
        return record

    async def resume(self) -> list[str]:
        """On start-up: take over unfinished jobs. Embedded (one process): all of them; with a
        queue (several API replicas): those whose holder's lease lapsed, checked every lease."""
        alone = self.runs.queue is None
        taken = [e for e in await self.store.unheld_evals(lapsed_only=not alone)
                 if await self._take(e, force=alone)]  # fmt: skip
        if not alone and self._sweeper is None:
            self._sweeper = asyncio.create_task(self._sweep(), name="eval-sweeper")
        if taken:
            log.info("resuming %d unfinished evaluation(s)", len(taken))
        return taken

    async def _sweep(self) -> None:
        while True:
            await asyncio.sleep(LEASE.total_seconds() / 2)
            with contextlib.suppress(Exception):  # the database away: next round
                for eval_id in await self.store.unheld_evals(lapsed_only=True):
                    await self._take(eval_id, force=False)

    async def _take(self, eval_id: str, *, force: bool) -> bool:
        if eval_id in self._tasks:
            return False
        if not await self.store.claim_eval(eval_id, self.holder, LEASE, force=force):
            return False
        task = asyncio.create_task(self._coordinate(eval_id), name=f"eval-{eval_id}")
        self._tasks[eval_id] = task
        task.add_done_callback(lambda _t: self._tasks.pop(eval_id, None))
        return True

    async def shutdown(self) -> None:
        """Stop coordinating; unfinished jobs resume at the next start (or on another replica)."""
        tasks = [*self._tasks.values(), *([self._sweeper] if self._sweeper else [])]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    # -- one job -----------------------------------------------------------------------------

    async def _coordinate(self, eval_id: str) -> None:
        beat = asyncio.create_task(self._heartbeat(eval_id))
        try:
            record = await self.store.get_eval(eval_id)
            if record is None or record.status in EVAL_TERMINAL:
                return
            if not await self.store.update_eval_if_status(
                eval_id, set(UNFINISHED), status="running", started_at=now()
            ):
                return  # cancelled (or deleted) meanwhile
            status, error = "succeeded", None
            try:
                await self._run(record)
            except asyncio.CancelledError:
                raise  # shutting down: the job stays `running` and resumes later
            except EvalCancelled:
                return  # `cancel` wrote the status and the last event
            except Exception as exc:  # recorded on the job and in its last event
                log.exception("eval %s failed", eval_id)
                status, error = "failed", f"{type(exc).__name__}: {exc}"
            done = (await self.store.get_eval(eval_id) or record).done
            if await self.store.update_eval_if_status(
                eval_id, {"running"}, status=status, error=error, finished_at=now(),
                lease_owner=None,
            ):  # fmt: skip
                await self.publish(eval_id, "eval_finished", status=status, error=error, done=done)
        finally:
            beat.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await beat

    async def _heartbeat(self, eval_id: str) -> None:
        while True:
            await asyncio.sleep(LEASE.total_seconds() / 3)
            with contextlib.suppress(Exception):
                await self.store.claim_eval(eval_id, self.holder, LEASE, force=False)

    async def _run(self, record: EvalRecord) -> None:
        spec = record.spec
        # a resumed evaluation (its process was killed) appends no event it already logged:
        # not a second eval_started, not a report_finished for a report it already announced,
        # and `done` never goes backwards
        logged = await self.store.events(record.id)
        started = any(e.type == "eval_started" for e in logged)
        finished = {(e.data.get("id"), e.data.get("pipeline")) for e in logged
                    if e.type == "report_finished"}  # fmt: skip
        floor = max((int(e.data.get("done") or 0) for e in logged
                     if e.type in ("report_started", "report_finished")), default=0)  # fmt: skip

        async def on_event(event: EvalEvent) -> None:
            nonlocal started, floor
            if event.type == "eval_started":
                if started:
                    return
                started = True
            if event.type == "report_finished":
                key = (event.id, event.pipeline)
                if key in finished:
                    return
                finished.add(key)
            if event.done < floor and event.type in ("report_started", "report_finished"):
                # a resumed run counts again from its reused reports: say no fewer than before
                event = event.model_copy(update={"done": max(floor, event.done)})
            if event.type in ("report_started", "report_finished"):
                floor = max(floor, event.done)
            if event.type == "report_finished":
                await self.store.update_eval(record.id, done=event.done)
            await self.publish(
                record.id, event.type, **event.model_dump(exclude={"type"}, exclude_none=True)
            )

        evaluation = Evaluation(
            items_of(spec), spec.pipelines, Path(spec.out), on_event=on_event,
            bounds=self.engine.settings.transcript_bounds(),
        )  # fmt: skip
        label = model_label(self.engine.settings)

        async def run_report(item: EvalItem, pipeline: str, transcript: Transcript) -> Outcome:
            return await self._report_run(record, item, pipeline)

        await evaluation.run_reports(run_report, label, spec.concurrency)
        if spec.judge:
            await evaluation.judge_with(self.engine, [spec.pair] if spec.pair else [])
        records = evaluation.records()
        out = Path(spec.out)
        table = await asyncio.to_thread(
            write_tables,
            out,
            records,
            evaluation.pairwise_results(),
            evaluation.ectsum_rows(),
            evaluation.data_rows(),
        )
        await asyncio.to_thread(write_chart, out, records)
        tally = {k: v for k, v in asdict(evaluation.tally).items() if k != "errors"}
        result = EvalResult(table=table, rows=summarize(records), tally=tally)
        await self.store.update_eval(record.id, result=result)

    async def _report_run(self, record: EvalRecord, item: EvalItem, pipeline: str) -> Outcome:
        """Submit the report's run (unless it exists: a resumed job) and wait for it; a variant
        (`adversarial@S1`) runs its pipeline with its options over the evaluation's."""
        run_id = report_run_id(record.id, item.id, pipeline)
        variant = parse_variant(pipeline)
        existing = await self.store.get(run_id)
        if existing is None:
            current = await self.store.get_eval(record.id)
            if current is None or current.status in EVAL_TERMINAL:
                raise EvalCancelled(record.id)  # by a request another process answered
            text = await asyncio.to_thread(item.path.read_text, encoding="utf-8")
            await self.runs.submit(
                RunRecord(
                    id=run_id, pipeline=variant.pipeline, status="queued", owner=record.owner,
                    created_at=now(), eval_id=record.id,
                    input=RunInput(transcript=text, call=item.call,
                                   options=variant.apply(record.spec.options),
                                   financials=item.financials, prices=item.prices),
                )
            )  # fmt: skip
        finished = await self.runs.wait_finished(run_id)
        if finished is None or finished.status not in TERMINAL:
            current = await self.store.get_eval(record.id)
            if current is None or current.status in EVAL_TERMINAL:
                raise EvalCancelled(record.id)
            raise RuntimeError(f"report run {run_id} was deleted before it finished")
        return Outcome(
            status=finished.status, report=finished.report, error=finished.error,
            failed_node=finished.failed_node,
        )  # fmt: skip

    # -- cancel, delete, retention -------------------------------------------------------------

    @staticmethod
    def run_ids(record: EvalRecord) -> list[str]:
        """The ids of every report run the evaluation has (or will have)."""
        spec = record.spec
        return [report_run_id(record.id, c.id, p) for c in spec.calls for p in spec.pipelines]

    async def cancel(self, eval_id: str) -> EvalRecord | None:
        """Stop an unfinished evaluation: no report run starts after this, and the runs queued
        or running are cancelled (a running one at its next node boundary). What finished is
        kept. A finished evaluation is left as it is."""
        record = await self.store.get_eval(eval_id)
        if record is None or record.status in EVAL_TERMINAL:
            return record
        if await self.store.update_eval_if_status(
            eval_id, set(UNFINISHED), status="cancelled", finished_at=now(), lease_owner=None
        ):
            task = self._tasks.get(eval_id)
            if task is not None:
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
            for run_id in self.run_ids(record):
                await self.runs.cancel(run_id)
            done = (await self.store.get_eval(eval_id) or record).done
            await self.publish(eval_id, "eval_finished", status="cancelled", error=None, done=done)
        return await self.store.get_eval(eval_id)

    async def delete(self, eval_id: str, *, compact: bool = True) -> None:
        """Cancel if unfinished, then remove the evaluation, its event log, its report runs
        (as DELETE /v1/runs/{id} does), its inputs under `inputs/` and its output folder."""
        record = await self.store.get_eval(eval_id)
        if record is None:
            return
        await self.cancel(eval_id)
        for run_id in self.run_ids(record):
            if await self.store.get(run_id) is not None:
                await self.runs.delete(run_id, compact=False)
        await self.store.delete_eval(eval_id)
        await self.runs.bus.notify(eval_id)
        await asyncio.to_thread(self._remove, self.folders(record.spec))
        if compact:
            await self.runs.executor.compact()

    def folders(self, spec: EvalSpec) -> set[Path]:
        """The folders of ours an evaluation uses: its output folder and the folder its inline
        calls were written to (never an allowed server folder it read)."""
        root, inputs = self.root.resolve(), (self.root / "inputs").resolve()
        found = set()
        out = Path(spec.out).resolve()
        if out.is_relative_to(root) and not out.is_relative_to(inputs) and out != root:
            found.add(root / out.relative_to(root).parts[0])
        for call in spec.calls:
            path = Path(call.path).resolve()
            if path.is_relative_to(inputs) and path != inputs:
                found.add(inputs / path.relative_to(inputs).parts[0])
        return found

    @staticmethod
    def _remove(folders: set[Path]) -> None:
        for folder in folders:
            shutil.rmtree(folder, ignore_errors=True)

    async def prune(self, days: float) -> list[str]:
        """Retention: delete the evaluations that ended more than `days` days ago (as DELETE
        does), then the folders under the evaluations' root (outputs, `inputs/`) that no stored
        evaluation uses and that were last written before then (left by a crash)."""
        cutoff = now() - timedelta(days=days)
        expired = await self.store.evals_ended_before(cutoff)
        for eval_id in expired:
            await self.delete(eval_id, compact=False)
        used: set[Path] = set()
        for _eval_id, spec in await self.store.eval_specs():
            used |= self.folders(spec)
        orphans = await asyncio.to_thread(self._orphans, used, cutoff.timestamp())
        await asyncio.to_thread(self._remove, orphans)
        if expired:
            await self.runs.executor.compact()
        if expired or orphans:
            log.info(
                "retention: deleted %d evaluation(s) and %d unused folder(s) over %g days old",
                len(expired), len(orphans), days,
            )  # fmt: skip
        return expired

    def _orphans(self, used: set[Path], before: float) -> set[Path]:
        root = self.root.resolve()
        inputs = root / "inputs"
        candidates = [p for p in (root.iterdir() if root.is_dir() else []) if p != inputs]
        candidates += list(inputs.iterdir()) if inputs.is_dir() else []
        return {
            p for p in candidates
            if p.is_dir() and not p.is_symlink() and p not in used and p.stat().st_mtime < before
        }  # fmt: skip

    # -- events ------------------------------------------------------------------------------

    async def publish(self, eval_id: str, kind: str, **data: Any) -> None:
        event = LogEvent.model_validate({"type": kind, "eval_id": eval_id, **data})
        await self.store.append_event(eval_id, event)
        await self.runs.bus.notify(eval_id)

    def stream(self, eval_id: str, after: int) -> AsyncIterator[dict[str, Any]]:
        async def exists() -> bool:
            return await self.store.get_eval(eval_id) is not None

        return stream_log(
            self.store, self.runs.bus, eval_id, after=after, final="eval_finished",
            exists=exists, poll=self.engine.settings.sse_poll,
        )  # fmt: skip
