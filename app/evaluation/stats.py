"""Comparisons a reader can trust: for every two pipelines run on the same calls by the same
model, the paired difference of each metric with a 95% confidence interval (t distribution)
and a paired test (Wilcoxon signed-rank over the non-zero differences), and
the pairwise judge's win rates with Wilson intervals. A difference whose test gives p >= 0.05
reads "not significant": the table never ranks pipelines by noise."""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import combinations
from typing import Any, Protocol

from scipy import stats

ALPHA = 0.05
# metric name -> how to read it off a record (None when the report has no value)
METRICS: tuple[str, ...] = (
    "grounding", "coverage", "completeness", "judge_findebate", "judge_overall", "judge_e2i",
)  # fmt: skip


class _Metrics(Protocol):
    grounding: float | None
    coverage: float | None
    completeness: float


class _Judge(Protocol):
    findebate_mean: float | None
    overall: float | None
    e2i_mean: float | None


class _Record(Protocol):
    model: str
    pipeline: str
    id: str

    @property
    def metrics(self) -> _Metrics | None: ...

    @property
    def judge(self) -> _Judge | None: ...


def value(rec: _Record, metric: str) -> float | None:
    if metric.startswith("judge_"):
        j = rec.judge
        if j is None:
            return None
        return {"judge_findebate": j.findebate_mean, "judge_overall": j.overall,
                "judge_e2i": j.e2i_mean}[metric]  # fmt: skip
    m = rec.metrics
    return None if m is None else getattr(m, metric)


def paired(diffs: Sequence[float]) -> dict[str, Any]:
    """Mean difference, its 95% interval, the test's p-value and the verdict."""
    n = len(diffs)
    mean = sum(diffs) / n
    if n < 2:
        return {"n": n, "mean_diff": mean, "ci_low": None, "ci_high": None, "p": None,
                "test": "too few pairs", "verdict": "not significant"}  # fmt: skip
    sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1))
    half = float(stats.t.ppf(1 - ALPHA / 2, n - 1)) * sd / math.sqrt(n)
    nonzero = [d for d in diffs if d != 0]
    if not nonzero:
        p, test = 1.0, "all equal"
    else:
        p, test = float(stats.wilcoxon(nonzero).pvalue), "Wilcoxon signed-rank"
    return {
        "n": n, "mean_diff": mean, "ci_low": mean - half, "ci_high": mean + half, "p": p,
        "test": test,
        "verdict": "significant" if p < ALPHA else "not significant",
    }  # fmt: skip


def comparisons(records: Sequence[_Record]) -> list[dict[str, Any]]:
    """Every (model, pipeline x, pipeline y, metric) with at least one call graded by both."""
    by: dict[tuple[str, str], dict[str, _Record]] = {}
    for r in records:
        by.setdefault((r.model, r.pipeline), {})[r.id] = r
    rows: list[dict[str, Any]] = []
    models = sorted({m for m, _ in by})
    for model in models:
        pipelines = sorted(p for m, p in by if m == model)
        for x, y in combinations(pipelines, 2):
            rx, ry = by[(model, x)], by[(model, y)]
            for metric in METRICS:
                diffs = []
                for cid in sorted(set(rx) & set(ry)):
                    a, b = value(rx[cid], metric), value(ry[cid], metric)
                    if a is not None and b is not None:
                        diffs.append(a - b)
                if diffs:
                    rows.append({"model": model, "x": x, "y": y, "metric": metric,
                                 **paired(diffs)})  # fmt: skip
    return rows


def wilson(wins: float, n: int) -> tuple[float | None, float | None]:
    """95% Wilson score interval for a win rate; `wins` may hold halves (a tie is half a win)."""
    if n == 0:
        return None, None
    z = float(stats.norm.ppf(1 - ALPHA / 2))
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def comparison_table(rows: Sequence[dict[str, Any]]) -> str:
    if not rows:
        return ""
    lines = [
        "| model | x - y | metric | calls | mean difference | 95% CI | p | verdict |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        ci = "n/a" if r["ci_low"] is None else f"[{r['ci_low']:+.3f}, {r['ci_high']:+.3f}]"
        p = "n/a" if r["p"] is None else f"{r['p']:.3f}"
        lines.append(
            f"| {r['model']} | {r['x']} - {r['y']} | {r['metric']} | {r['n']} | "
            f"{r['mean_diff']:+.3f} | {ci} | {p} ({r['test']}) | {r['verdict']} |"
        )
    return "\n".join(lines)
