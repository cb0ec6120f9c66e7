"""The scale-out topology under a quarter's batch: real PostgreSQL, Redis and Chroma servers,
API replica(s) and 2 workers (scripts/topology.py), the fake model at 200 ms per call.

200 findebate runs are POSTed at once (round-robin over the API replicas). Figures:
- throughput (runs/s) against the ideal for the worker pool: workers x runs per worker, each
  run lasting its critical path, derived from the graph and a solo run's own trace
  (bench/critical.py: today 8 model latencies plus the code-only nodes; the fastest of 3 runs
  alone after a warm-up) -> `efficiency`; also against the model latencies alone
  (`efficiency_model_calls_only`) and the fastest solo run (`efficiency_vs_solo`);
- p50/p95 run latency (created -> finished: queueing included) and execution time;
- lost runs (not succeeded) and duplicated node executions, read from PostgreSQL's event log
  (each run's node_finished counts against a solo run's), must both be 0;
- peak RSS per worker and per API process;
- CPU seconds per run: each process tree's CPU over the batch (the API, the workers, PostgreSQL,
  Redis, Chroma) divided by the runs, and per node: the mean CPU each node spent outside any
  wait (`NodeTrace.cpu_ms`: its steps on the event loop and the threads it handed work to) in
  the solo runs and in a sample of the batch's runs; the workers' CPU outside every node is
  LangGraph, checkpoints, events and the queue. The largest three nodes are named.

    .venv/bin/python -m bench.load [--runs 200] [--workers 2] [--apis 1] [--per-worker 4]
                                   [--latency 0.2]

Needs the Debian packages `scripts/setup.sh --dev` installs (PostgreSQL, Redis).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.common import REPO, PeakRss, commit, emit, tree_cpu_seconds
from bench.critical import Bound, critical_path
from core.contract import Report
from graphs.findebate import build_findebate
from scripts.topology import Topology, call, missing

TEXT = (REPO / "samples" / "northwind_q2_2026.md").read_text(encoding="utf-8")
DONE = {"succeeded", "degraded", "failed", "cancelled"}
SOLO = 3  # runs alone after the warm-up; the fastest bound is the ideal


def post_run(api: str) -> str:
    return str(call(f"{api}/v1/runs", "POST", {"transcript": TEXT, "pipeline": "findebate"})["id"])


def wait_all(api: str, ids: list[str], timeout: float) -> dict[str, dict[str, Any]]:
    """Every run's record once none is queued or running. While waiting it asks only for the
    two counts (a page of 200 runs every half second would load the API the workers share
    the cores with), then reads the pages once."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        pending = sum(
            call(f"{api}/v1/runs?status={status}&limit=1")["total"]
            for status in ("queued", "running")
        )
        if not pending:
            break
        time.sleep(0.2)
    want, offset = set(ids), 0
    done: dict[str, dict[str, Any]] = {}
    while True:
        page = call(f"{api}/v1/runs?limit=200&offset={offset}")
        for run in page["items"]:
            if run["id"] in want and run["status"] in DONE:
                done[run["id"]] = run
        offset += len(page["items"])
        if not page["items"] or offset >= page["total"]:
            return done


def seconds(a: str, b: str) -> float:
    return (datetime.fromisoformat(b) - datetime.fromisoformat(a)).total_seconds()


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 3)


def node_counts(topo: Topology, run_id: str | None = None) -> dict[str, Counter[str]]:
    import psycopg

    sql = "SELECT stream_id, data FROM event_log WHERE type = 'node_finished'"
    args: tuple[Any, ...] = ()
    if run_id:
        sql, args = sql + " AND stream_id = %s", (run_id,)
    out: dict[str, Counter[str]] = {}
    with psycopg.connect(topo.postgres.url, autocommit=True) as conn:
        for rid, payload in conn.execute(sql.encode(), args):
            data = payload if isinstance(payload, dict) else json.loads(payload)
            out.setdefault(rid, Counter())[data["node"]] += 1
    return out


def _args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="python -m bench.load", description=__doc__)
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--apis", type=int, default=1)
    ap.add_argument("--per-worker", type=int, default=4, help="EDESK_MAX_RUNS of each worker")
    ap.add_argument("--latency", type=float, default=0.2, help="fake model seconds per call")
    ap.add_argument("--timeout", type=float, default=900)
    return ap.parse_args(argv)


@dataclass
class Measured:
    ids: list[str]
    runs: dict[str, Any]
    solo_s: float
    bound: Bound
    reference: Counter[str]
    counts: dict[str, Counter[str]]
    submitted_s: float
    makespan: float
    rss: dict[str, float]
    cpu_s: dict[str, float]  # each process tree's CPU over the batch
    solo_nodes: dict[str, float]  # node -> mean CPU ms a solo run
    batch_nodes: dict[str, float]  # node -> mean CPU ms a run, over a sample of the batch


SAMPLE = 20  # batch runs whose traces are read for the per-node CPU


def node_cpu(traces: list[list[Any]]) -> dict[str, float]:
    """node -> mean CPU ms a run (a node run twice in a run counts twice), largest first."""
    totals: dict[str, float] = {}
    for trace in traces:
        for entry in trace:
            totals[entry.node] = totals.get(entry.node, 0.0) + (entry.cpu_ms or 0.0)
    mean = {node: round(ms / max(1, len(traces)), 2) for node, ms in totals.items()}
    return dict(sorted(mean.items(), key=lambda kv: -kv[1]))


def processes(topo: Topology) -> dict[str, int]:
    named = {p.name: p.proc.pid for p in [*topo.api, *topo.worker] if p.proc}
    for name in ("postgres", "redis", "chroma"):
        server = getattr(topo, name, None)
        if server is not None and server.proc is not None:
            named[name] = server.proc.pid
    return named


def _drive(topo: Topology, args: argparse.Namespace) -> Measured:
    """A warm-up, runs alone (the reference), then `--runs` at once; wait for all of them.

    A worker's first runs are slower (connections opened, collections created): a few runs
    at once warm every worker, then the bound is the smallest of SOLO runs alone, so the ideal
    is the most demanding one measured, not one inflated by a cold start."""
    apis = [p.url for p in topo.api]
    warm = [post_run(apis[0]) for _ in range(2 * args.workers)]
    wait_all(apis[0], warm, 120)
    graph = build_findebate().compile()
    solos: list[tuple[Bound, float, str]] = []
    solo_traces = []
    for _ in range(SOLO):
        solo_id = post_run(apis[0])
        solo = wait_all(apis[0], [solo_id], 120)[solo_id]
        assert solo["status"] == "succeeded", solo
        trace = Report.model_validate(call(f"{apis[0]}/v1/runs/{solo_id}")["report"]).trace
        solo_traces.append(trace)
        solo_s = seconds(solo["started_at"], solo["finished_at"])
        solos.append((critical_path(graph, trace, args.latency), solo_s, solo_id))
    bound = min(solos, key=lambda s: s[0].seconds)[0]
    solo_s = min(s[1] for s in solos)
    reference = node_counts(topo, solos[-1][2])[solos[-1][2]]
    procs = [*topo.api, *topo.worker]
    pids = processes(topo)
    cpu0 = {name: tree_cpu_seconds(pid) for name, pid in pids.items()}
    with PeakRss(lambda: {p.name: p.proc.pid for p in procs if p.proc}, 0.5) as rss:
        t0, t0_wall = time.monotonic(), datetime.now(UTC)
        with ThreadPoolExecutor(max_workers=64) as pool:
            ids = list(pool.map(lambda i: post_run(apis[i % len(apis)]), range(args.runs)))
        submitted_s = time.monotonic() - t0
        runs = wait_all(apis[0], ids, args.timeout)
    cpu_s = {name: tree_cpu_seconds(pid) - cpu0[name] for name, pid in pids.items()}
    sample = [
        Report.model_validate(call(f"{apis[0]}/v1/runs/{i}")["report"]).trace
        for i in ids[:: max(1, len(ids) // SAMPLE)][:SAMPLE]
        if runs.get(i, {}).get("status") == "succeeded"
    ]
    # from the first POST to the last run's end, by the runs' own clocks (same machine)
    ends = [datetime.fromisoformat(r["finished_at"]) for r in runs.values() if r["finished_at"]]
    makespan = (max(ends) - t0_wall).total_seconds() if ends else time.monotonic() - t0
    return Measured(
        ids, runs, solo_s, bound, reference,
        node_counts(topo), submitted_s, makespan, rss.peak,
        cpu_s, node_cpu(solo_traces), node_cpu(sample),
    )  # fmt: skip


def _figures(args: argparse.Namespace, m: Measured) -> dict[str, Any]:
    finished = [m.runs[i] for i in m.ids if i in m.runs]
    ok = [r for r in finished if r["status"] == "succeeded"]
    duplicated = sum(
        max(0, n - m.reference[node])
        for rid in m.ids
        for node, n in m.counts.get(rid, Counter()).items()
    )
    missing_nodes = sum(
        max(0, m.reference[node] - m.counts.get(r["id"], Counter())[node])
        for r in ok
        for node in m.reference
    )
    latency = [seconds(r["created_at"], r["finished_at"]) for r in ok]
    execution = [seconds(r["started_at"], r["finished_at"]) for r in ok]
    pool_size = args.workers * args.per_worker
    throughput = len(ok) / m.makespan
    ideal = pool_size / m.bound.seconds
    workers = [v for k, v in m.rss.items() if k.startswith("worker")]
    per_run = {name: round(s / max(1, len(ok)), 4) for name, s in sorted(m.cpu_s.items())}
    worker_cpu = sum(v for k, v in per_run.items() if k.startswith("worker"))
    return {
        "commit": commit(),
        "runs": args.runs, "workers": args.workers, "apis": args.apis,
        "runs_per_worker": args.per_worker, "latency_s": args.latency,
        "submit_s": round(m.submitted_s, 2), "makespan_s": round(m.makespan, 2),
        "throughput_runs_per_s": round(throughput, 3), "ideal_runs_per_s": round(ideal, 3),
        "efficiency": round(throughput / ideal, 3), "solo_run_s": round(m.solo_s, 3),
        "critical_path_s": round(m.bound.seconds, 3),
        # the same with the code-only nodes at zero: model latency alone
        "efficiency_model_calls_only": round(
            throughput / (pool_size / (m.bound.model_calls * args.latency)), 3
        ),
        "critical_path_model_calls": m.bound.model_calls,
        "efficiency_vs_solo": round(throughput / (pool_size / m.solo_s), 3),
        "latency_p50_s": pct(latency, 0.5) if latency else None,
        "latency_p95_s": pct(latency, 0.95) if latency else None,
        "execution_p50_s": pct(execution, 0.5) if execution else None,
        "execution_p95_s": pct(execution, 0.95) if execution else None,
        "succeeded": len(ok), "lost_runs": args.runs - len(ok),
        "statuses": dict(Counter(r["status"] for r in finished)),
        "duplicated_node_executions": duplicated, "missing_node_executions": missing_nodes,
        "nodes_per_run": sum(m.reference.values()),
        "worker_rss_mb_peak": {k: round(v) for k, v in m.rss.items() if k.startswith("worker")},
        "api_rss_mb_peak": {k: round(v) for k, v in m.rss.items() if k.startswith("api")},
        "worker_rss_mb_mean": round(statistics.mean(workers or [0.0])),
        "cpu_s_per_run": per_run,
        "cpu_s_per_run_total": round(sum(per_run.values()), 4),
        "node_cpu_ms_solo": m.solo_nodes,
        "node_cpu_ms_batch": m.batch_nodes,
        # the workers' CPU outside every node: LangGraph, checkpoints, events, the queue
        "worker_cpu_s_outside_nodes_per_run": round(
            worker_cpu - sum(m.batch_nodes.values()) / 1000, 4
        ),
        "largest_nodes": list(m.batch_nodes)[:3],
    }  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    args = _args(argv)
    if lacking := missing():
        print("skipped: " + "; ".join(lacking))
        print(json.dumps({"skipped": True, "reason": "; ".join(lacking)}))
        return 0
    env = {
        "EDESK_PROVIDER": "fake",
        "EDESK_EMBEDDINGS": "fake",
        "EDESK_FAKE_LATENCY": str(args.latency),
        "EDESK_MAX_RUNS": str(args.per_worker),
        # a quarter's batch from one client: the per-key quotas are raised for it
        "EDESK_KEY_RUNS_IN_FLIGHT": str(args.runs + 10),
        "EDESK_KEY_RUNS_PER_MINUTE": str(10 * args.runs),
        "EDESK_MAX_QUEUE": str(args.runs + 10),
    }
    topo = Topology(Path(tempfile.mkdtemp(prefix="edesk-load-")), apis=args.apis,
                    workers=args.workers, env=env)  # fmt: skip
    try:
        topo.up()
        measured = _drive(topo, args)
    finally:
        topo.down()
    figures = _figures(args, measured)
    emit(figures)
    return 0 if figures["lost_runs"] == 0 and figures["duplicated_node_executions"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
