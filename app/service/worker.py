"""`earnings-desk worker`: executes runs taken from the arq queue (EDESK_REDIS_URL), with runs,
events and checkpoints in PostgreSQL (EDESK_DATABASE_URL). Start as many as you like, on as many
machines; API replicas never execute runs in this mode.

How nothing is lost or run twice:
- a worker executes a run only while it holds the run's lease in PostgreSQL, renewed every
  couple of seconds; a second delivery of the same job finds the lease held and does nothing;
- a worker that dies stops renewing; once the lease lapses, any worker's sweeper re-enqueues the
  run and the worker that takes it resumes from the last checkpoint (finished nodes are not run
  again: checkpoints are written before the next step starts);
- a database or Redis outage is waited out (the job is retried from the checkpoint), never
  recorded as a failure of the run; runs stored while Redis was away (or lost with it) are
  found in PostgreSQL by the sweeper and enqueued again;
- a worker that cannot renew its lease for a whole lease period stops the run itself, so two
  workers never execute one run at the same time.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import socket
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

from arq import Retry
from arq.worker import Worker, func

from app.service.bus import RedisBus
from app.service.engine import Engine
from app.service.queue import JOB, ArqQueue
from app.service.runs import RunExecutor
from app.settings import Settings
from app.storage import TERMINAL, Store
from app.storage.errors import is_infra_error
from core.context import RunControl
from core.llm.chat import ModelSource

log = logging.getLogger("earnings_desk.worker")


def alive_path(settings: Settings) -> Path:
    return settings.data_dir / "worker.alive"


def is_alive(settings: Settings) -> bool:
    """The worker's sweeper touched its liveness file within three lease periods (container
    health checks: `earnings-desk worker --alive`)."""
    try:
        age = time.time() - alive_path(settings).stat().st_mtime
    except OSError:
        return False
    return age < 3 * max(settings.lease_seconds, 5)


class PromptWorker(Worker):
    """arq's worker, taking the next job as soon as one of its own jobs ends.

    arq looks for jobs every `poll_delay`; a worker at `max_jobs` skips those looks, so a run
    that ends waits up to a whole poll delay before its slot takes the next queued run (at 200
    ms, ~0.1 s of every ~2 s run in bench/load.py). Here the poll loop also wakes when a job
    ends (arq 0.28's completion callback), so a free slot is filled at once; new jobs on an
    idle worker are still found by the poll. Pinned with arq==0.28.0 (private hooks)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.poll_every = float(kwargs.pop("poll_delay", 0.5))
        super().__init__(*args, poll_delay=0, **kwargs)
        self.slot_freed = asyncio.Event()

    def _release_sem_dec_counter_on_complete(self) -> None:
        super()._release_sem_dec_counter_on_complete()
        self.slot_freed.set()

    async def _poll_iteration(self) -> None:
        self.slot_freed.clear()
        await super()._poll_iteration()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.slot_freed.wait(), self.poll_every)


class WorkerNode:
    def __init__(
        self, settings: Settings, executor: RunExecutor, store: Store, queue: ArqQueue
    ) -> None:
        self.settings = settings
        self.executor = executor
        self.store = store
        self.queue = queue
        self.id = f"{socket.gethostname()}:{os.getpid()}"
        self.lease = timedelta(seconds=settings.lease_seconds)
        self.executed: list[str] = []  # run ids this process executed (tests, benchmarks)
        self.active: set[str] = set()  # run ids executing in this process now

    async def run_job(self, ctx: dict[str, Any], run_id: str) -> str:
        if run_id in self.active:  # a second delivery while this process runs it: our lease
            return "not claimed (already executing in this worker)"
        self.active.add(run_id)
        try:
            return await self._run_job(run_id)
        finally:
            self.active.discard(run_id)

    async def _run_job(self, run_id: str) -> str:
        try:
            record = await self.store.claim(run_id, self.id, self.lease)
        except Exception as exc:
            if is_infra_error(exc):
                raise Retry(defer=2) from exc
            raise
        if record is None or record.status in TERMINAL:
            return "not claimed (finished, gone, or held by a live worker)"
        if await self.executor.exhausted(record, await self.store.attempts(run_id) - 1):
            await self.store.release(run_id, self.id)
            return "failed: interrupted too many times"
        control = RunControl()  # cancel's handle; the budget is the run's option
        task = asyncio.current_task()
        assert task is not None
        beat = asyncio.create_task(self._heartbeat(run_id, control, task))
        try:
            resume = await self.executor.has_checkpoint(record)
            self.executed.append(run_id)
            await self.executor.execute(record, control, resume=resume, infra_raises=True)
            return "done"
        except Exception as exc:
            if is_infra_error(exc):
                log.warning("run %s: %s; retrying from its checkpoint", run_id, exc)
                raise Retry(defer=2) from exc
            raise
        finally:
            beat.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await beat
            with contextlib.suppress(Exception):
                await self.store.release(run_id, self.id)

    async def _heartbeat(self, run_id: str, control: RunControl, task: asyncio.Task[Any]) -> None:
        every = min(self.settings.lease_seconds / 3, 2.0)
        last_ok = time.monotonic()
        while True:
            await asyncio.sleep(every)
            try:
                ours, cancel = await self.store.renew(run_id, self.id, self.lease)
            except Exception as exc:
                if time.monotonic() - last_ok > self.settings.lease_seconds * 0.8:
                    log.warning("run %s: lease not renewable (%s); stopping it here", run_id, exc)
                    task.cancel()
                    return
                continue
            last_ok = time.monotonic()
            if cancel:
                control.cancelled = True
            if not ours:
                log.warning("run %s: lease taken by another worker; stopping it here", run_id)
                task.cancel()
                return

    async def sweep_once(self) -> list[str]:
        """Re-enqueue unfinished runs nobody holds whose job is not waiting in the queue."""
        enqueued = []
        for run_id in await self.store.orphans(min_age=self.lease):
            if not await self.queue.waiting(run_id):
                await self.queue.enqueue(run_id)
                enqueued.append(run_id)
        if enqueued:
            log.info("sweeper re-enqueued %d run(s)", len(enqueued))
        return enqueued

    async def sweeper(self) -> None:
        while True:
            await asyncio.sleep(min(self.settings.lease_seconds / 4, 5.0))
            with contextlib.suppress(OSError):  # liveness for `earnings-desk worker --alive`
                alive_path(self.settings).touch()
            try:
                await self.sweep_once()
            except Exception as exc:  # database or Redis away: try again next round
                log.warning("sweeper: %s", exc)


async def run_worker(settings: Settings, *, models: ModelSource | None = None) -> None:
    if not (settings.database_url and settings.redis_url):
        raise ValueError("the worker needs EDESK_DATABASE_URL and EDESK_REDIS_URL")
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    async with Engine.open(settings, models=models) as engine:
        store = await Store.open(settings.database_url, settings.runs_path)
        bus = RedisBus(settings.redis_url)
        queue = await ArqQueue.open(settings.redis_url)
        node = WorkerNode(settings, RunExecutor(engine, store, bus, settings), store, queue)
        worker = PromptWorker(
            functions=[func(node.run_job, name=JOB, max_tries=1000)],
            redis_pool=queue.redis,
            max_jobs=settings.max_runs,
            job_timeout=24 * 3600,  # liveness is the lease's job, not a timeout's
            keep_result=60,
            poll_delay=0.2,
            handle_signals=False,
        )
        sweeper = asyncio.create_task(node.sweeper(), name="sweeper")
        log.info("worker %s taking runs (max %d at once)", node.id, settings.max_runs)

        async def consume() -> None:
            while True:
                try:
                    await worker.main()
                except asyncio.CancelledError:
                    raise
                except Exception as exc:  # Redis away: arq's loop ended; start it again
                    log.warning("queue: %s; reconnecting", exc)
                    await asyncio.sleep(1.0)

        consumer = asyncio.create_task(consume(), name="consumer")
        await stop.wait()
        log.info("worker %s stopping: its runs resume on another worker", node.id)
        for t in (consumer, sweeper, *worker.tasks.values()):
            t.cancel()
        await asyncio.gather(consumer, sweeper, *worker.tasks.values(), return_exceptions=True)
        await queue.close()
        await bus.close()
        await store.close()
