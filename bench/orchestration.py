"""Orchestration overhead of `findebate` with fake models (no real model, fake embeddings).

1. Fixed latency per model call (default 200 ms): wall time / critical-path bound. The bound is
   the number of model calls on the longest path times the latency: specialists (1, all five at
   once) + synthesize (write + parse = 2) + trust (1) + skeptic (1) + leader (write + parse = 2)
   = 7 latencies, plus the time of the `facts` node (code, no model call; it runs first, before
   any model), read from the run's own trace. Target <= 1.10.
2. Instant model: orchestration overhead per node step = (wall time - time spent inside nodes,
   as the union of the nodes' traced intervals) / node steps, SQLite checkpointer included.
   Target < 2 ms. Measured with the CLI's durability ("async": the checkpoint write overlaps
   the next step) and the service's ("sync": written before the next step, so a killed process
   never re-runs a finished node). Also printed: the mean time inside a node with an instant
   model (LangChain invocation, prompt rendering, parsing): node work, not orchestration.

    .venv/bin/python -m bench.orchestration [--latency 0.2] [--runs 3]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from langchain_core.embeddings import DeterministicFakeEmbedding

from app.service.engine import Durability, Engine
from app.settings import Settings
from bench.common import REPO, emit
from core.contract import Report
from core.fake_llm import FakeModels, Script, canned
from core.transcript import parse_transcript

CRITICAL_PATH_CALLS = 7


def busy_seconds(report: Report) -> float:
    """Union of the nodes' [start, end] intervals (parallel nodes overlap)."""
    spans = sorted((t.started_at.timestamp(), t.ended_at.timestamp()) for t in report.trace)
    total, cur_start, cur_end = 0.0, spans[0][0], spans[0][1]
    for start, end in spans[1:]:
        if start > cur_end:
            total += cur_end - cur_start
            cur_start, cur_end = start, end
        else:
            cur_end = max(cur_end, end)
    return total + cur_end - cur_start


async def measure(
    latency: float, runs: int, durability: Durability = "async"
) -> tuple[float, float, Report]:
    text = (REPO / "samples" / "northwind_q2_2026.md").read_text()
    transcript = parse_transcript(text)
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=Path(tmp), provider="fake")
        models = FakeModels(default=Script.of(default=canned), latency=latency)
        async with Engine.open(
            settings,
            models=models,
            embeddings=DeterministicFakeEmbedding(size=32),
            embedding_name="fake",
        ) as engine:
            await engine.run("findebate", transcript)  # warm-up: ingest, compile caches
            walls, overheads = [], []
            for _ in range(runs):
                t0 = time.perf_counter()
                out = await engine.run("findebate", transcript, durability=durability)
                wall = time.perf_counter() - t0
                assert out.report is not None
                walls.append(wall)
                overheads.append(wall - busy_seconds(out.report))
    assert out.report is not None
    return statistics.median(walls), statistics.median(overheads), out.report


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--instant-runs", type=int, default=20)
    args = parser.parse_args()
    wall, _, timed = asyncio.run(measure(args.latency, args.runs))
    code_s = sum(t.duration_ms for t in timed.trace if t.node == "facts") / 1000
    bound = CRITICAL_PATH_CALLS * args.latency + code_s
    instant, overhead, report = asyncio.run(measure(0.0, args.instant_runs))
    _, overhead_sync, _ = asyncio.run(measure(0.0, args.instant_runs, "sync"))
    steps = len(report.trace)
    in_node = sum(t.duration_ms for t in report.trace) / steps
    emit(
        {
            "latency_s": args.latency,
            "wall_s": round(wall, 3),
            "critical_path_bound_s": round(bound, 3),
            "facts_node_s": round(code_s, 3),
            "wall_over_bound": round(wall / bound, 3),
            "node_steps": steps,
            "instant_run_s": round(instant, 4),
            "overhead_per_node_step_ms": round(overhead / steps * 1000, 3),
            "overhead_per_node_step_ms_sync_checkpoints": round(overhead_sync / steps * 1000, 3),
            "mean_in_node_ms_instant_model": round(in_node, 3),
        }
    )


if __name__ == "__main__":
    main()
