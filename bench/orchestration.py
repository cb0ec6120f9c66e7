"""Orchestration overhead of `findebate` with fake models (no real model, fake embeddings).

1. Fixed latency per model call (default 200 ms): wall time / critical-path bound. The bound is
   derived from the graph and the run's own trace (bench/critical.py): the heaviest chain of
   node executions, each weighing its model calls x the latency (or, for a node that called no
   model, its measured time). Today that chain is facts, ingest, retrieve, a specialist,
   synthesize (write + parse), trust, skeptic, leader (write + parse), the integrity check,
   fact_check (1 call when a figure is unsupported) and report: 8 latencies. Target <= 1.10.
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
import time

from app.service.requests import Durability
from bench.common import REPO, emit, fake_engine
from bench.critical import Bound, critical_path
from core.contract import Report
from core.llm.fake import FakeModels, Script, canned
from core.transcript import parse_transcript
from graphs.findebate import build_findebate


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
) -> tuple[float, float, Report, Bound]:
    text = (REPO / "samples" / "northwind_q2_2026.md").read_text()
    transcript = parse_transcript(text)
    models = FakeModels(default=Script.of(default=canned), latency=latency)
    async with fake_engine(models) as engine:
        await engine.run(engine.request("findebate", transcript))  # warm-up: ingest, compile caches
        walls, overheads, bounds = [], [], []
        graph = build_findebate().compile()
        for _ in range(runs):
            t0 = time.perf_counter()
            out = await engine.run(engine.request("findebate", transcript, durability=durability))
            wall = time.perf_counter() - t0
            assert out.report is not None
            walls.append(wall)
            overheads.append(wall - busy_seconds(out.report))
            bounds.append(critical_path(graph, out.report.trace, latency))
    assert out.report is not None
    bound = sorted(bounds, key=lambda b: b.seconds)[len(bounds) // 2]
    return statistics.median(walls), statistics.median(overheads), out.report, bound


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--instant-runs", type=int, default=20)
    args = parser.parse_args()
    wall, _, _, bound = asyncio.run(measure(args.latency, args.runs))
    instant, overhead, report, _ = asyncio.run(measure(0.0, args.instant_runs))
    _, overhead_sync, _, _ = asyncio.run(measure(0.0, args.instant_runs, "sync"))
    steps = len(report.trace)
    in_node = sum(t.duration_ms for t in report.trace) / steps
    emit(
        {
            "latency_s": args.latency,
            "wall_s": round(wall, 3),
            "critical_path_bound_s": round(bound.seconds, 3),
            "critical_path_model_calls": bound.model_calls,
            "critical_path": " > ".join(bound.path),
            "wall_over_bound": round(wall / bound.seconds, 3),
            "node_steps": steps,
            "instant_run_s": round(instant, 4),
            "overhead_per_node_step_ms": round(overhead / steps * 1000, 3),
            "overhead_per_node_step_ms_sync_checkpoints": round(overhead_sync / steps * 1000, 3),
            "mean_in_node_ms_instant_model": round(in_node, 3),
        }
    )


if __name__ == "__main__":
    main()
