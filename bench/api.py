"""The HTTP service under load, against a real `earnings-desk serve` process on 127.0.0.1 with
the fake model (fixed latency) and fake embeddings:

1. time to first SSE event after POST, p50/p95 over 50 runs, each started on an idle pool
   (target p95 < 150 ms);
2. 32 findebate runs submitted at once: throughput / the ideal for the pool size (ideal = pool
   size / the run's critical path, derived from the graph and a solo run's trace by
   bench/critical.py), target >= 0.8, and zero errors.

    .venv/bin/python -m bench.api [--runs 50] [--concurrent 32] [--pool 4] [--latency 0.2]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from bench.common import REPO, emit
from bench.critical import critical_path
from core.contract import Report
from graphs.findebate import build_findebate

TEXT = (REPO / "samples" / "northwind_q2_2026.md").read_text()


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(data: Path, pool: int, latency: float) -> tuple[subprocess.Popen[bytes], str]:
    port = _port()
    env = {
        **os.environ,
        "EDESK_PROVIDER": "fake",
        "EDESK_EMBEDDINGS": "fake",
        "EDESK_FAKE_LATENCY": str(latency),
        "EDESK_MAX_RUNS": str(pool),
        "EDESK_KEY_RUNS_PER_MINUTE": "100000",  # one client's 80+ runs a minute, measured
        "EDESK_KEY_RUNS_IN_FLIGHT": "1000",
        "EDESK_DATA_DIR": str(data),
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "serve", "--port", str(port), "--log-level", "warning"],
        cwd=REPO,
        env=env,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit("server did not start")


async def first_event_ms(client: httpx.AsyncClient) -> float:
    """POST, then the run's stream: ms until the first event arrives. The stream is then read
    to run_finished (untimed) so every sample starts with an idle pool: this measures
    responsiveness, not queueing (the concurrency figure measures capacity)."""
    t0 = time.perf_counter()
    resp = await client.post("/v1/runs", json={"transcript": TEXT, "pipeline": "zero_shot"})
    resp.raise_for_status()
    first: float | None = None
    async with client.stream("GET", f"/v1/runs/{resp.json()['id']}/events") as stream:
        async for line in stream.aiter_lines():
            if first is None and line.startswith("data:"):
                first = (time.perf_counter() - t0) * 1000
            if line.startswith("event: run_finished"):
                break
    if first is None:
        raise RuntimeError("stream closed without an event")
    return first


async def wait_done(client: httpx.AsyncClient, run_id: str) -> str:
    async with client.stream("GET", f"/v1/runs/{run_id}/events") as stream:
        async for line in stream.aiter_lines():
            if line.startswith("event: run_finished"):
                break
    return str((await client.get(f"/v1/runs/{run_id}")).json()["status"])


async def solo_bound(client: httpx.AsyncClient, latency: float) -> float:
    """One findebate run alone: its critical path from the graph and its own trace."""
    resp = await client.post("/v1/runs", json={"transcript": TEXT})
    resp.raise_for_status()
    run_id = resp.json()["id"]
    await wait_done(client, run_id)
    report = Report.model_validate((await client.get(f"/v1/runs/{run_id}")).json()["report"])
    return critical_path(build_findebate().compile(), report.trace, latency).seconds


async def concurrent(client: httpx.AsyncClient, n: int) -> tuple[float, list[str]]:
    t0 = time.perf_counter()
    posts = await asyncio.gather(
        *(client.post("/v1/runs", json={"transcript": TEXT}) for _ in range(n))
    )
    ids = [p.json()["id"] for p in posts]
    statuses = await asyncio.gather(*(wait_done(client, i) for i in ids))
    return time.perf_counter() - t0, list(statuses)


async def main_async(args: argparse.Namespace, url: str) -> dict[str, object]:
    async with httpx.AsyncClient(base_url=url, timeout=120) as client:
        await first_event_ms(client)  # warm-up
        samples = [await first_event_ms(client) for _ in range(args.runs)]
        bound = await solo_bound(client, args.latency)
        wall, statuses = await concurrent(client, args.concurrent)
    q = statistics.quantiles(samples, n=20)
    ideal = args.pool / bound
    errors = sum(s != "succeeded" for s in statuses)
    return {
        "first_event_p50_ms": round(statistics.median(samples), 1),
        "first_event_p95_ms": round(q[18], 1),
        "concurrent_runs": args.concurrent,
        "pool": args.pool,
        "latency_s": args.latency,
        "wall_s": round(wall, 2),
        "throughput_runs_per_s": round(args.concurrent / wall, 3),
        "ideal_runs_per_s": round(ideal, 3),
        "throughput_over_ideal": round(args.concurrent / wall / ideal, 3),
        "errors": errors,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--concurrent", type=int, default=32)
    parser.add_argument("--pool", type=int, default=4)
    parser.add_argument("--latency", type=float, default=0.2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        proc, url = start_server(Path(tmp), args.pool, args.latency)
        try:
            figures = asyncio.run(main_async(args, url))
        finally:
            proc.terminate()
            proc.wait(timeout=20)
    emit(figures)


if __name__ == "__main__":
    main()
