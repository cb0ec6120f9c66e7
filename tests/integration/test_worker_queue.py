"""The worker's queue loop on a real Redis: a slot freed by a finished job takes the next
queued job at once, not at arq's next poll (bench/load.py measured ~0.1 s lost per run at a
200 ms poll). The poll delay here is 60 s, so only the wake-up can start the later jobs within
the test's time; and a job enqueued while the worker is idle is still found by the poll."""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from arq.worker import func

from app.service.queue import ArqQueue
from app.service.worker import PromptWorker
from scripts.topology import Redis

pytestmark = pytest.mark.integration


@pytest.fixture
def redis(tmp_path: Path) -> Iterator[Redis]:
    import shutil

    if shutil.which("redis-server") is None:
        if os.environ.get("CI"):
            pytest.fail("redis-server missing in CI")
        pytest.skip("needs redis-server (scripts/setup.sh --dev installs it)")
    server = Redis(tmp_path / "redis")
    server.start()
    try:
        yield server
    finally:
        server.stop()


async def _serve(redis: Redis, jobs: int, *, poll: float) -> list[float]:
    """Enqueue `jobs` jobs of 0.2 s, run a one-slot worker polling every `poll` s until they
    are done (at most 20 s); each job's start time after the worker started."""
    queue = await ArqQueue.open(redis.url)
    started: list[float] = []

    async def job(ctx: dict[str, Any], n: int) -> int:
        started.append(time.monotonic())
        await asyncio.sleep(0.2)
        return n

    for n in range(jobs):
        await queue.redis.enqueue_job("job", n, _job_id=f"job-{n}")
    worker = PromptWorker(
        functions=[func(job, name="job")], redis_pool=queue.redis, max_jobs=1,
        poll_delay=poll, handle_signals=False, keep_result=5,
    )  # fmt: skip
    t0 = time.monotonic()
    main = asyncio.create_task(worker.main())
    try:
        deadline = t0 + 20
        while len(started) < jobs and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.3)  # the last one finishes
    finally:
        main.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await main
        await queue.close()
    return [s - t0 for s in started]


async def test_a_freed_slot_takes_the_next_job_at_once(redis: Redis) -> None:
    starts = await _serve(redis, 4, poll=60)
    assert len(starts) == 4, f"only {len(starts)} of 4 jobs started: the slot waited for a poll"
    gaps = [b - a for a, b in zip(starts, starts[1:], strict=False)]
    assert all(g < 5 for g in gaps), gaps  # 0.2 s of work each; a missed wake-up costs 60 s


async def test_an_idle_worker_still_polls(redis: Redis) -> None:
    queue = await ArqQueue.open(redis.url)
    seen: list[int] = []

    async def job(ctx: dict[str, Any], n: int) -> None:
        seen.append(n)

    worker = PromptWorker(
        functions=[func(job, name="job")], redis_pool=queue.redis, max_jobs=2,
        poll_delay=0.2, handle_signals=False,
    )  # fmt: skip
    main = asyncio.create_task(worker.main())
    try:
        await asyncio.sleep(0.5)  # nothing queued: the worker idles
        await queue.redis.enqueue_job("job", 7, _job_id="late")
        deadline = time.monotonic() + 10
        while not seen and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        assert seen == [7]
    finally:
        main.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await main
        await queue.close()
