"""Market-model abnormal returns around a call, as event studies measure them (MacKinlay 1997).

Trading days are the bars both the company and the benchmark have (a holiday of either is not
a trading day). Day 0 is the first such day on or after the call date. Alpha and beta are the
OLS fit of the company's daily return on the benchmark's over days -250 to -11; with fewer than
`MIN_ESTIMATION` days there, or a benchmark that never moved, the call is not covered and the
reason says why. The abnormal return of day t is r_t - (alpha + beta * m_t); the cumulative
abnormal return (CAR) sums it over [0, +1], [0, +4] and [0, +20] for 1d, 1w and 1m.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

import numpy as np

from core.contract import Horizon
from core.inputs import PriceSeries

ESTIMATION = (-250, -11)  # first and last day of the estimation window, relative to day 0
MIN_ESTIMATION = 120
CAR_DAYS: dict[Horizon, int] = {Horizon.DAY: 1, Horizon.WEEK: 4, Horizon.MONTH: 20}  # [0,+k]
BOOTSTRAP = 2000


@dataclass(frozen=True)
class Abnormal:
    """One horizon's cumulative abnormal return after one call, or why there is none."""

    horizon: Horizon
    car: float | None = None
    alpha: float | None = None
    beta: float | None = None
    estimation_days: int = 0
    missing: str | None = None


def abnormal_returns(
    company: PriceSeries, call_date: date, benchmark: PriceSeries | None
) -> dict[Horizon, Abnormal]:
    """CAR over each horizon's window after `call_date` from the market model."""

    def none(why: str, **kw: float | int) -> dict[Horizon, Abnormal]:
        return {h: Abnormal(h, missing=why, **kw) for h in CAR_DAYS}  # type: ignore[arg-type]

    if benchmark is None:
        return none("no benchmark series for the market model")
    bench = {b.date: b.close for b in benchmark.bars}
    days = [(b.date, b.close, bench[b.date]) for b in company.bars if b.date in bench]
    # returns: index i is the return from day i-1 to day i of `days`
    dates = [d for d, _, _ in days]
    t0 = next((i for i, d in enumerate(dates) if d >= call_date), None)
    if t0 is None:
        return none(f"{company.symbol}: no trading day on or after the call date {call_date}")
    first, last = t0 + ESTIMATION[0], t0 + ESTIMATION[1]
    est = [i for i in range(max(first, 1), last + 1)]
    if len(est) < MIN_ESTIMATION:
        return none(
            f"{company.symbol}: {len(est)} trading days with {benchmark.symbol} in the "
            f"estimation window (days -250 to -11 before {call_date}), needs {MIN_ESTIMATION}",
            estimation_days=len(est),
        )
    r = np.array([0.0] + [days[i][1] / days[i - 1][1] - 1 for i in range(1, len(days))])
    m = np.array([0.0] + [days[i][2] / days[i - 1][2] - 1 for i in range(1, len(days))])
    re_, me = r[est], m[est]
    var = float(np.var(me, ddof=1))
    if var == 0:
        return none(
            f"{benchmark.symbol} did not move in the estimation window before {call_date}: "
            "no beta", estimation_days=len(est),
        )  # fmt: skip
    beta = float(np.cov(re_, me, ddof=1)[0, 1]) / var
    alpha = float(re_.mean()) - beta * float(me.mean())
    out: dict[Horizon, Abnormal] = {}
    for horizon, k in CAR_DAYS.items():
        end = t0 + k
        if end >= len(days):
            why = (f"{company.symbol}: prices with {benchmark.symbol} end on {dates[-1]}, "
                   f"before day +{k} after the call on {call_date}")  # fmt: skip
            out[horizon] = Abnormal(horizon, alpha=alpha, beta=beta,
                                    estimation_days=len(est), missing=why)  # fmt: skip
            continue
        window = range(t0, end + 1)
        car = float(sum(r[t] - (alpha + beta * m[t]) for t in window))
        out[horizon] = Abnormal(horizon, car, alpha, beta, len(est))
    return out


def summary(values: Sequence[float], seed: int = 0) -> dict[str, float | int | None]:
    """Mean, t-statistic (mean / standard error) and a 95% percentile bootstrap interval of
    the mean (fixed seed: the same table every run)."""
    n = len(values)
    if n == 0:
        return {"n": 0, "mean": None, "t": None, "ci_low": None, "ci_high": None}
    xs = np.asarray(values, dtype=float)
    mean = float(xs.mean())
    if n < 2:
        return {"n": n, "mean": mean, "t": None, "ci_low": None, "ci_high": None}
    sd = float(xs.std(ddof=1))
    t = None if sd == 0 else mean / (sd / math.sqrt(n))
    rng = np.random.default_rng(seed)
    means = xs[rng.integers(0, n, size=(BOOTSTRAP, n))].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return {"n": n, "mean": mean, "t": t, "ci_low": float(low), "ci_high": float(high)}
