"""Memory after large runs: ten ~1 MB findebate runs, one after another, through the API in this
process (fake chat model, the real bundled embedding model), each DELETEd when it finishes; the
process's resident memory after each. Target: after the second run, growth below 50 MB a run.

    .venv/bin/python -m bench.memory [--runs 10] [--mb 1.0] [--pipeline findebate]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from bench.common import emit
from bench.disk import transcript

TARGET_MB_PER_RUN = 50.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--mb", type=float, default=1.0, help="size of each call in MB")
    parser.add_argument("--pipeline", default="findebate")
    args = parser.parse_args()
    if args.runs < 3:
        parser.error("--runs must be at least 3 (growth is measured after the second run)")

    from fastapi.testclient import TestClient

    from app.api import create_app
    from app.settings import Settings
    from core.llm.fake import FakeModels, Script, canned
    from scripts.topology import rss_mb

    size = int(args.mb * 1_000_000) - 10_000  # under the default 1 MB transcript limit
    pid = os.getpid()
    after: list[float] = []
    seconds: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(
            data_dir=Path(tmp) / "data", provider="fake", max_transcript_bytes=size + 1000
        )
        app = create_app(
            settings,
            models=FakeModels(default=Script.of(default=canned)),
        )
        with TestClient(app) as client:
            start = rss_mb(pid) or 0.0
            for seed in range(args.runs):
                body = {"transcript": transcript(seed, size), "pipeline": args.pipeline}
                t0 = time.perf_counter()
                reply = client.post("/v1/runs", json=body)
                reply.raise_for_status()
                run_id = reply.json()["id"]
                while (status := client.get(f"/v1/runs/{run_id}").json()["status"]) in (
                    "queued",
                    "running",
                ):
                    time.sleep(0.1)
                seconds.append(round(time.perf_counter() - t0, 1))
                if status not in ("succeeded", "degraded"):
                    raise SystemExit(f"run {seed + 1} ended {status}")
                client.delete(f"/v1/runs/{run_id}").raise_for_status()
                del body
                after.append(round(rss_mb(pid) or 0.0, 1))
                line = f"run {seed + 1:>2}: {status}, {seconds[-1]} s, RSS {after[-1]} MB"
                print(line, flush=True)
    growth = (after[-1] - after[1]) / (len(after) - 2)
    emit(
        {
            "pipeline": args.pipeline,
            "call_mb": round(size / 1e6, 2),
            "runs": args.runs,
            "rss_start_mb": round(start, 1),
            "rss_after_mb": after,
            "run_s": seconds,
            "growth_after_second_mb_per_run": round(growth, 1),
            "target_mb_per_run": TARGET_MB_PER_RUN,
            "met": growth < TARGET_MB_PER_RUN,
        }
    )


if __name__ == "__main__":
    main()
