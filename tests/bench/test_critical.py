"""The benchmarks' critical-path bound follows the graph and the run's own trace."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bench.critical import critical_path
from core.contract import NodeTrace
from graphs.findebate import build_findebate

T0 = datetime(2026, 11, 23, tzinfo=UTC)
LATENCY = 0.2


def entry(node: str, start: float, seconds: float, calls: int = 0) -> NodeTrace:
    return NodeTrace(
        node=node,
        started_at=T0 + timedelta(seconds=start),
        ended_at=T0 + timedelta(seconds=start + seconds),
        duration_ms=seconds * 1000,
        calls=calls,
    )


def findebate_trace(fact_check_calls: int) -> list[NodeTrace]:
    t, trace = 0.0, []
    for node, seconds, calls in (("facts", 0.05, 0), ("ingest", 0.01, 0), ("retrieve", 0.01, 0)):
        trace.append(entry(node, t, seconds, calls))
        t += seconds
    specialists = ("earnings_analyst", "sentiment_analyst", "valuation_analyst", "risk_analyst")
    for i, node in enumerate(specialists):
        trace.append(entry(node, t, 0.21 + i * 0.001, 1))
    trace.append(entry("market_predictor", t, 0.23, 1))  # the slowest of the five
    t += 0.24
    for node, calls in (("synthesize", 2), ("trust", 1), ("skeptic", 1), ("leader", 2)):
        trace.append(entry(node, t, calls * LATENCY + 0.01, calls))
        t += calls * LATENCY + 0.02
    for node, seconds, calls in (
        ("integrity_check", 0.001, 0),
        ("accept", 0.001, 0),
        ("fact_check", fact_check_calls * LATENCY + 0.002, fact_check_calls),
        ("report", 0.004, 0),
    ):
        trace.append(entry(node, t, seconds, calls))
        t += seconds + 0.001
    return trace


def test_bound_counts_the_model_calls_on_the_longest_chain() -> None:
    graph = build_findebate().compile()
    bound = critical_path(graph, findebate_trace(fact_check_calls=1), LATENCY)
    # one specialist, synthesize (write + parse), trust, skeptic, leader (write + parse), fact_check
    assert bound.model_calls == 8
    assert bound.path[:3] == ("facts", "ingest", "retrieve")
    assert "fact_check" in bound.path and bound.path[-1] == "report"
    code = 0.05 + 0.01 + 0.01 + 0.001 + 0.001 + 0.004
    assert abs(bound.seconds - (8 * LATENCY + code)) < 1e-6


def test_bound_follows_the_run_a_fact_check_without_a_call_costs_nothing() -> None:
    graph = build_findebate().compile()
    bound = critical_path(graph, findebate_trace(fact_check_calls=0), LATENCY)
    assert bound.model_calls == 7


def test_parallel_branches_count_once() -> None:
    """Five specialists at once weigh one latency, not five."""
    graph = build_findebate().compile()
    trace = findebate_trace(fact_check_calls=1)
    bound = critical_path(graph, trace, LATENCY)
    specialists = [n for n in bound.path if n.endswith(("_analyst", "_predictor"))]
    assert len(specialists) == 1
