"""The run queue on Redis (EDESK_REDIS_URL), through arq: the API enqueues a job per run, the
`earnings-desk worker` processes take them. PostgreSQL stays the truth: a job only says "run X
needs a worker"; a worker must hold X's lease (app.storage.Store.claim) to execute it, so a job
delivered twice, or left behind by a dead worker, never executes a run twice.

Why arq: asyncio-native (our graphs are async, so one worker process runs `max_runs` runs
concurrently on one event loop and one set of compiled graphs and models), Redis only, small
enough to read in an afternoon, with job ids to de-duplicate and deferred retries. Celery would
need a thread or event loop per task around async code; Taskiq would do, but arq's job model
is all we use."""

from __future__ import annotations

import uuid
from typing import Any

from arq import create_pool
from arq.connections import ArqRedis, RedisSettings
from arq.constants import in_progress_key_prefix, job_key_prefix

JOB = "run_job"  # the worker function's name
LATEST = "edesk:job:"  # + run id -> the id of the run's latest job


def redis_settings(url: str) -> RedisSettings:
    settings = RedisSettings.from_dsn(url)
    settings.conn_retries = 30  # a restarting Redis: keep trying for ~30 s
    settings.conn_retry_delay = 1
    return settings


class ArqQueue:
    def __init__(self, redis: ArqRedis) -> None:
        self.redis = redis

    @classmethod
    async def open(cls, url: str) -> ArqQueue:
        return cls(await create_pool(redis_settings(url)))

    async def close(self) -> None:
        await self.redis.aclose()

    async def enqueue(self, run_id: str) -> str:
        job_id = f"{run_id}:{uuid.uuid4().hex[:8]}"
        await self.redis.set(LATEST + run_id, job_id, ex=7 * 24 * 3600)
        await self.redis.enqueue_job(JOB, run_id, _job_id=job_id)
        return job_id

    async def waiting(self, run_id: str) -> bool:
        """True if the run's latest job still waits in the queue (not yet taken). False if it
        was taken (its worker may have died), lost (Redis restarted without its data), or none."""
        raw: Any = await self.redis.get(LATEST + run_id)
        if raw is None:
            return False
        job_id = raw.decode() if isinstance(raw, bytes) else str(raw)
        queued = await self.redis.exists(job_key_prefix + job_id)
        taken = await self.redis.exists(in_progress_key_prefix + job_id)
        return bool(queued) and not taken

    async def ping(self) -> None:
        await self.redis.ping()
