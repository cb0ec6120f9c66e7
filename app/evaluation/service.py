"""Evaluations started over HTTP (POST /v1/evals): the same harness as `earnings-desk eval`, on
the server's engine (its configured model), with progress as numbered events for SSE replay.
Jobs live in memory; their results are files under <data_dir>/evals/<id>/ and survive."""

from __future__ import annotations

import asyncio
import json
import logging
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from app.evaluation.dataset import EvalItem
from app.evaluation.runner import EvalEvent, Evaluation, model_label
from app.evaluation.summary import summarize, write_chart, write_tables
from app.service.engine import Engine

log = logging.getLogger("earnings_desk.evals")
EvalStatus = Literal["queued", "running", "succeeded", "failed"]


@dataclass
class EvalJob:
    id: str
    owner: str | None
    pipelines: list[str]
    items: list[EvalItem]
    out: Path
    judge: bool
    pair: tuple[str, str] | None
    concurrency: int
    created_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    status: EvalStatus = "queued"
    error: str | None = None
    done: int = 0
    total: int = 0
    table: str | None = None
    rows: list[dict[str, Any]] = field(default_factory=list)
    tally: dict[str, Any] = field(default_factory=dict)
    events: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    def publish(self, kind: str, data: dict[str, Any]) -> None:
        self.events.append((kind, {"eval_id": self.id, **data}))
        self.changed.set()
        self.changed = asyncio.Event()


class EvalManager:
    def __init__(self, engine: Engine, root: Path) -> None:
        self.engine = engine
        self.root = root
        self.jobs: dict[str, EvalJob] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    def start(self, **kw: Any) -> EvalJob:
        eval_id = uuid.uuid4().hex
        job = EvalJob(id=eval_id, out=self.root / eval_id, **kw)
        job.total = len(job.items) * len(job.pipelines)
        self.jobs[eval_id] = job
        job.publish("eval_queued", {"total": job.total})
        task = asyncio.create_task(self._run(job))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return job

    async def _run(self, job: EvalJob) -> None:
        job.status = "running"

        def on_event(event: EvalEvent) -> None:
            if event.type == "report_finished":
                job.done = event.done
            job.publish(event.type, event.model_dump(exclude={"type"}, exclude_none=True))

        try:
            evaluation = Evaluation(job.items, job.pipelines, job.out, on_event=on_event)
            label = model_label(self.engine.settings)
            await evaluation.run_reports(self.engine, label, job.concurrency)
            if job.judge:
                await evaluation.judge_with(self.engine, job.pair)
            records = evaluation.records()
            job.table = await asyncio.to_thread(
                write_tables, job.out, records, evaluation.pairwise_results()
            )
            await asyncio.to_thread(write_chart, job.out, records)
            job.rows = summarize(records)
            t = evaluation.tally
            job.tally = {
                "ran": t.ran, "reused": t.reused, "failed": t.failed,
                "model_calls": t.model_calls, "cached_calls": t.cached_calls,
                "judged": t.judged, "pairs": t.pairs,
            }  # fmt: skip
            job.status = "succeeded"
        except Exception as exc:  # recorded on the job and in its last event, never swallowed
            log.exception("eval %s failed", job.id)
            job.status, job.error = "failed", f"{type(exc).__name__}: {exc}"
        job.publish("eval_finished", {"status": job.status, "error": job.error, "done": job.done})

    async def stream(self, job: EvalJob, after: int) -> AsyncIterator[dict[str, Any]]:
        while True:
            waiter = job.changed
            for n in range(after, len(job.events)):
                kind, data = job.events[n]
                after = n + 1
                yield {"id": str(after), "event": kind, "data": json.dumps(data, default=str)}
                if kind == "eval_finished":
                    return
            try:
                await asyncio.wait_for(waiter.wait(), timeout=5.0)
            except TimeoutError:
                continue

    async def shutdown(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
