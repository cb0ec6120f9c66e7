"""The scale-out topology on real servers: PostgreSQL and Redis from Debian's packages, a Chroma
server, two API processes and two workers (scripts/topology.py), the fake model with latency so
runs last long enough to be interrupted. Missing servers: skipped with the reason, or a failure
under CI (where scripts/setup.sh --dev installs them)."""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from scripts.topology import Topology, call, missing

SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "northwind_q2_2026.md"


def start_run(api: str, pipeline: str = "findebate", **extra: Any) -> str:
    body = {"transcript": SAMPLE.read_text(encoding="utf-8"), "pipeline": pipeline, **extra}
    return str(call(f"{api}/v1/runs", "POST", body)["id"])


def wait_finished(api: str, run_id: str, timeout: float = 180) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            run = call(f"{api}/v1/runs/{run_id}")
        except (urllib.error.URLError, OSError):
            time.sleep(0.5)  # an API replica restarting, a database restarting
            continue
        if run["status"] in ("succeeded", "degraded", "failed", "cancelled"):
            return dict(run)
        time.sleep(0.3)
    raise AssertionError(f"run {run_id} not finished after {timeout} s")


def events(api: str, run_id: str) -> list[dict[str, Any]]:
    """The run's whole event log, read as SSE from `api` until run_finished."""
    out: list[dict[str, Any]] = []
    current: dict[str, Any] = {}
    with urllib.request.urlopen(f"{api}/v1/runs/{run_id}/events", timeout=120) as resp:
        for raw in resp:
            line = raw.decode().rstrip("\r\n")
            if not line:
                if "event" in current:
                    out.append(current)
                    if current["event"] == "run_finished":
                        return out
                current = {}
            elif not line.startswith(":"):
                key, _, value = line.partition(":")
                value = value.removeprefix(" ")
                current[key] = json.loads(value) if key == "data" else value
    return out


def db(topo: Topology, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    """Look into the run store's PostgreSQL directly (what happened, not what the API says)."""
    import psycopg

    with psycopg.connect(topo.postgres.url, autocommit=True) as conn:
        return list(conn.execute(sql.encode(), args).fetchall())


def finished_nodes(topo: Topology, run_id: str) -> int:
    rows = db(
        topo, "SELECT count(*) FROM event_log WHERE stream_id=%s AND type='node_finished'", run_id
    )
    return int(rows[0][0])


def wait_until(predicate: Any, what: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    raise AssertionError(f"{what}: not within {timeout} s")


@pytest.fixture(scope="module")
def topology(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Topology]:
    lacking = missing()
    if lacking:
        if os.environ.get("CI"):
            pytest.fail("integration servers missing in CI: " + "; ".join(lacking))
        pytest.skip("needs " + "; ".join(lacking) + " (scripts/setup.sh --dev installs them)")
    env = {
        "EDESK_PROVIDER": "fake",
        "EDESK_EMBEDDINGS": "fake",
        "EDESK_FAKE_LATENCY": "0.8",
        "EDESK_LEASE_SECONDS": "4",
    }
    topo = Topology(tmp_path_factory.mktemp("topology"), apis=2, workers=2, env=env)
    try:
        topo.up()
        yield topo
    finally:
        topo.down()
