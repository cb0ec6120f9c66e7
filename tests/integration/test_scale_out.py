"""Two API processes and two workers on real PostgreSQL, Redis and Chroma: any replica streams
any run; a run survives its worker's SIGKILL, a PostgreSQL restart, a Redis restart and an API
replica's death, with every node finished exactly once."""

from __future__ import annotations

import asyncio
import signal
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from app.service.engine import Engine
from app.settings import Settings
from app.storage import Store, migrate
from scripts.topology import Topology, call
from tests.integration.conftest import (
    db,
    events,
    finished_nodes,
    start_run,
    wait_finished,
    wait_until,
)

pytestmark = pytest.mark.integration


def node_counts(evs: list[dict[str, Any]]) -> Counter[str]:
    return Counter(e["data"]["node"] for e in evs if e["event"] == "node_finished")


@pytest.fixture(scope="module")
def reference(topology: Topology) -> Counter[str]:
    """An uninterrupted findebate run: which nodes finish, how often."""
    run_id = start_run(topology.api[0].url)
    assert wait_finished(topology.api[0].url, run_id)["status"] == "succeeded"
    counts = node_counts(events(topology.api[0].url, run_id))
    assert counts["synthesize"] == 1 and len(counts) > 5
    return counts


def test_post_on_one_replica_stream_from_the_other(topology: Topology) -> None:
    a, b = topology.api[0].url, topology.api[1].url
    run_id = start_run(a, options={"stream_tokens": True})
    got: list[str] = []
    with urllib.request.urlopen(f"{b}/v1/runs/{run_id}/events?tokens=true", timeout=120) as r:
        for raw in r:
            line = raw.decode().strip()
            if line.startswith("event:"):
                got.append(line.split(":", 1)[1].strip())
                if got[-1] == "run_finished":
                    break
    assert "token" in got  # live model text crossed from the worker through Redis
    assert got.count("node_started") == got.count("node_finished") > 5
    run = call(f"{b}/v1/runs/{run_id}")
    assert run["status"] == "succeeded" and run["report"]["recommendations"]
    # the run list, filtered, from PostgreSQL
    listed = call(f"{b}/v1/runs?status=succeeded&pipeline=findebate&limit=200")
    assert run_id in {r["id"] for r in listed["items"]} and listed["total"] >= 1
    assert run_id not in {r["id"] for r in call(f"{b}/v1/runs?pipeline=zero_shot")["items"]}
    # retrieval went through the Chroma server: the call's collection lives there
    assert topology.chroma is not None
    cols = call(f"{topology.chroma.url}/api/v2/tenants/default_tenant/databases/"
                "default_database/collections")  # fmt: skip
    assert any(c["name"].startswith("tx-") for c in cols)


def _worker_of(topology: Topology, run_id: str) -> Any:
    owner = db(topology, "SELECT lease_owner FROM runs WHERE id=%s", run_id)[0][0]
    if not owner:
        return None
    pid = int(owner.rsplit(":", 1)[1])
    return next((w for w in topology.worker if w.proc and w.proc.pid == pid), None)


def test_sigkill_a_worker_mid_run(topology: Topology, reference: Counter[str]) -> None:
    api = topology.api[0].url
    run_id = start_run(api)
    wait_until(lambda: finished_nodes(topology, run_id) >= 3, "three nodes finished")
    victim = _worker_of(topology, run_id)
    assert victim is not None
    victim.kill()  # SIGKILL: no clean-up, the lease just stops being renewed
    try:
        run = wait_finished(api, run_id, timeout=120)
        assert run["status"] == "succeeded"
        evs = events(topology.api[1].url, run_id)
        starts = [e["data"] for e in evs if e["event"] == "run_started"]
        assert len(starts) == 2 and starts[1]["resumed"] is True
        assert node_counts(evs) == reference  # nothing finished twice, nothing skipped
        assert [int(e["id"]) for e in evs] == list(range(1, len(evs) + 1))
        survivor = _worker_of(topology, run_id)
        assert survivor is None  # released when done
    finally:
        victim.start()


def test_postgres_restart_mid_run(topology: Topology, reference: Counter[str]) -> None:
    api = topology.api[1].url
    run_id = start_run(api)
    wait_until(lambda: finished_nodes(topology, run_id) >= 3, "three nodes finished")
    topology.postgres.restart(down_for=2.0)
    run = wait_finished(api, run_id, timeout=120)
    assert run["status"] == "succeeded", run.get("error")
    assert node_counts(events(api, run_id)) == reference


def test_redis_restart_loses_the_queue_not_the_runs(topology: Topology) -> None:
    api = topology.api[0].url
    ids = [start_run(api, pipeline="zero_shot") for _ in range(8)]  # more than 2 x 2 slots
    topology.redis.restart()  # no persistence: every queued job is gone
    for run_id in ids:
        assert wait_finished(api, run_id, timeout=120)["status"] == "succeeded"
    # and each ran once: one run_started per run
    rows = db(topology, "SELECT stream_id, count(*) FROM event_log WHERE type='run_started' "
              "AND stream_id = ANY(%s) GROUP BY stream_id", ids)  # fmt: skip
    assert sorted(n for _, n in rows) == [1] * 8


def test_api_replica_dies_client_resumes_on_the_other(topology: Topology) -> None:
    a, b = topology.api[0], topology.api[1]
    run_id = start_run(a.url)
    seen: list[int] = []
    with urllib.request.urlopen(f"{a.url}/v1/runs/{run_id}/events", timeout=60) as r:
        for raw in r:
            line = raw.decode().strip()
            if line.startswith("id:"):
                seen.append(int(line.split(":", 1)[1]))
                if len(seen) == 4:
                    break
    a.proc.send_signal(signal.SIGKILL)  # type: ignore[union-attr]
    a.proc.wait()  # type: ignore[union-attr]
    try:
        req = urllib.request.Request(f"{b.url}/v1/runs/{run_id}/events",
                                     headers={"Last-Event-ID": str(seen[-1])})  # fmt: skip
        rest: list[int] = []
        with urllib.request.urlopen(req, timeout=120) as r:
            for raw in r:
                line = raw.decode().strip()
                if line.startswith("id:"):
                    rest.append(int(line.split(":", 1)[1]))
                if line == "event: run_finished":
                    break
        total = db(topology, "SELECT count(*) FROM event_log WHERE stream_id=%s", run_id)[0][0]
        assert seen + rest == list(range(1, total + 1))  # no gap, no repeat
    finally:
        a.start()


async def test_replicas_starting_together_on_a_fresh_database(
    topology: Topology, tmp_path: Path
) -> None:
    """Run-store and LangGraph checkpoint migrations race when replicas start at once (CI saw
    'duplicate key ... checkpoint_migrations_pkey'): six engines open on one new database."""
    import psycopg

    with psycopg.connect(topology.postgres.url, autocommit=True) as admin:
        admin.execute("CREATE DATABASE fresh_start")
    settings = Settings(
        data_dir=tmp_path,
        provider="fake",
        embeddings="fake",
        database_url=topology.postgres.url_of("fresh_start"),
        chroma_url=topology.chroma.url if topology.chroma else None,
    )

    async def start() -> None:
        store = await Store.open(settings.database_url, settings.runs_path)
        try:
            async with Engine.open(settings):
                pass
        finally:
            await store.close()

    await asyncio.gather(*(start() for _ in range(6)))
    with psycopg.connect(settings.database_url or "", autocommit=True) as conn:
        mine = conn.execute("SELECT version_num FROM alembic_version").fetchall()
        theirs = conn.execute("SELECT count(DISTINCT v), count(*) FROM checkpoint_migrations")
        distinct, total = theirs.fetchone() or (0, 0)
    assert mine == [(migrate.head(),)]  # six starts, one schema at the newest revision
    assert distinct == total > 0


def test_workers_report_alive(topology: Topology) -> None:
    """The compose health check of a worker: its sweeper keeps the liveness file fresh."""
    import subprocess
    import sys

    live = [w for w in topology.worker if w.proc is not None and w.proc.poll() is None]
    assert live, "no worker process running"
    for w in live:
        cmd = [sys.executable, "-c", "import sys; from app.cli import main; "
               "sys.exit(main(sys.argv[1:]))", "worker", "--alive"]  # fmt: skip
        wait_until(
            lambda cmd=cmd, w=w: subprocess.run(cmd, env=w.env, check=False).returncode == 0,
            f"{w.name} alive",
            timeout=15,
        )
