"""Recommendations judged against prices: event-window returns after each call, and per pipeline
and horizon the hit rate, conviction-weighted excess return, LONG vs SHORT average returns,
the Brier score and a calibration table.

Event windows count trading days (bars): the base is the last close before the call date; the
1-day, 1-week and 1-month windows end at the close of the 1st, 5th and 21st bar dated on or
after the call date (a call on a weekend or holiday starts at the next trading day). The excess
return is the company's return minus the benchmark's over the same two dates. A window the data
does not reach is counted as not covered, with the reason, never dropped.

A recommendation's conviction is read as the probability that its call is right: a LONG at 70
says P(up) = 0.70, a SHORT at 70 says P(up) = 0.30, a NEUTRAL says 0.50; "up" is a positive raw
return over the window."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Any

from app.evaluation.eventstudy import abnormal_returns
from app.evaluation.eventstudy import summary as car_summary
from core.contract import Horizon, Position, Recommendation
from core.inputs import PriceSeries

HORIZON_DAYS: dict[Horizon, int] = {
    Horizon.DAY: 1,
    Horizon.WEEK: 5,
    Horizon.MONTH: 21,
}
CALIBRATION_BINS: tuple[float, ...] = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
MAX_GAP_DAYS = 10  # calendar days between two bars beyond which the series has a hole


@dataclass(frozen=True)
class EventReturn:
    """One horizon's window after one call."""

    horizon: Horizon
    days: int
    start: date | None = None  # the base close (the last bar before the call)
    end: date | None = None
    raw: float | None = None
    benchmark: float | None = None
    excess: float | None = None
    missing: str | None = None  # why the window is not covered (None: covered)
    benchmark_missing: str | None = None
    car: float | None = None  # market-model cumulative abnormal return (app.evaluation.eventstudy)
    car_missing: str | None = None  # why there is none

    @property
    def covered(self) -> bool:
        return self.raw is not None


def event_returns(
    company: PriceSeries, call_date: date, benchmark: PriceSeries | None = None
) -> dict[Horizon, EventReturn]:
    """Raw and excess returns over each horizon's window after `call_date`, with the
    market-model CAR of the same horizon beside them."""
    raw = _raw_returns(company, call_date, benchmark)
    abnormal = abnormal_returns(company, call_date, benchmark)
    return {
        h: replace(r, car=abnormal[h].car, car_missing=abnormal[h].missing) for h, r in raw.items()
    }


def _raw_returns(
    company: PriceSeries, call_date: date, benchmark: PriceSeries | None
) -> dict[Horizon, EventReturn]:
    before = [b for b in company.bars if b.date < call_date]
    after = [b for b in company.bars if b.date >= call_date]
    bench = {b.date: b.close for b in benchmark.bars} if benchmark else {}
    out: dict[Horizon, EventReturn] = {}
    for horizon, days in HORIZON_DAYS.items():
        if not before:
            why = f"{company.symbol}: no price before the call date {call_date}"
            out[horizon] = EventReturn(horizon, days, missing=why)
            continue
        base = before[-1]
        if len(after) < days:
            last = company.bars[-1].date
            why = (
                f"{company.symbol}: prices end on {last}, before trading day {days} after "
                f"the call on {call_date}"
            )
            out[horizon] = EventReturn(horizon, days, start=base.date, missing=why)
            continue
        end = after[days - 1]
        window = [base, *after[:days]]
        hole = next(
            ((a, b) for a, b in zip(window, window[1:], strict=False)
             if (b.date - a.date).days > MAX_GAP_DAYS),
            None,
        )  # fmt: skip
        if hole is not None:
            why = f"{company.symbol}: prices have a gap from {hole[0].date} to {hole[1].date}"
            out[horizon] = EventReturn(horizon, days, start=base.date, missing=why)
            continue
        raw = end.close / base.close - 1
        b_ret: float | None = None
        b_missing: str | None = None
        if benchmark is None:
            b_missing = "no benchmark series"
        elif base.date not in bench or end.date not in bench:
            gap = base.date if base.date not in bench else end.date
            b_missing = f"{benchmark.symbol}: no bar on {gap}"
        else:
            b_ret = bench[end.date] / bench[base.date] - 1
        out[horizon] = EventReturn(
            horizon, days, base.date, end.date, raw, b_ret,
            None if b_ret is None else raw - b_ret, None, b_missing,
        )  # fmt: skip
    return out


def p_up(rec: Recommendation) -> float:
    """The recommendation's probability that the price rises, from its conviction."""
    c = rec.conviction / 100
    if rec.position == Position.LONG:
        return c
    if rec.position == Position.SHORT:
        return 1 - c
    return 0.5


def label(ret: EventReturn) -> int | None:
    """+1 up, -1 down (0 flat) from the window's raw return; None when not covered."""
    if ret.raw is None:
        return None
    return 1 if ret.raw > 0 else -1 if ret.raw < 0 else 0


@dataclass(frozen=True)
class Scored:
    """One report's call on one horizon, and what the price did."""

    group: tuple[str, ...]  # e.g. (model, pipeline)
    call_id: str
    rec: Recommendation | None
    ret: EventReturn


@dataclass
class Board:
    """Per group and horizon: the figures an investor asks for first."""

    group: tuple[str, ...]
    horizon: Horizon
    reports: int = 0
    no_recommendation: int = 0
    not_covered: int = 0
    neutral: int = 0
    hits: int = 0
    misses: int = 0
    long_returns: list[float] = field(default_factory=list)
    short_returns: list[float] = field(default_factory=list)
    weighted: list[tuple[float, float]] = field(default_factory=list)  # (signed conv, excess)
    no_excess: int = 0
    probs: list[tuple[float, int]] = field(default_factory=list)  # (P(up), up 1/0)
    missing: list[str] = field(default_factory=list)
    signed_cars: list[float] = field(default_factory=list)  # sign x CAR of LONG/SHORT calls
    car_not_covered: int = 0

    @property
    def hit_rate(self) -> float | None:
        n = self.hits + self.misses
        return self.hits / n if n else None

    @property
    def conviction_weighted_excess(self) -> float | None:
        total = sum(abs(w) for w, _ in self.weighted)
        return sum(w * x for w, x in self.weighted) / total if total else None

    @property
    def brier(self) -> float | None:
        if not self.probs:
            return None
        return sum((p - y) ** 2 for p, y in self.probs) / len(self.probs)

    def calibration(self) -> list[dict[str, Any]]:
        rows = []
        edges = CALIBRATION_BINS
        for lo, hi in zip(edges, edges[1:], strict=False):
            inside = [(p, y) for p, y in self.probs if lo <= p < hi or (hi == 1.0 and p == 1.0)]
            rows.append({
                "bin": f"{lo:.1f}-{hi:.1f}",
                "n": len(inside),
                "mean_p_up": _mean([p for p, _ in inside]),
                "observed_up": _mean([float(y) for _, y in inside]),
            })  # fmt: skip
        return rows

    def row(self) -> dict[str, Any]:
        return {
            "group": "/".join(self.group),
            "horizon": self.horizon.value,
            "reports": self.reports,
            "scored": self.hits + self.misses + self.neutral,
            "not_covered": self.not_covered,
            "no_recommendation": self.no_recommendation,
            "neutral": self.neutral,
            "hits": self.hits,
            "misses": self.misses,
            "hit_rate": _round(self.hit_rate),
            "conviction_weighted_excess": _round(self.conviction_weighted_excess),
            "no_benchmark": self.no_excess,
            "mean_long_return": _round(_mean(self.long_returns)),
            "mean_short_return": _round(_mean(self.short_returns)),
            "long_calls": len(self.long_returns),
            "short_calls": len(self.short_returns),
            "brier": _round(self.brier),
            **self.car_row(),
        }

    def car_row(self) -> dict[str, Any]:
        """The calls' abnormal return: mean sign x CAR, its t-statistic and 95% bootstrap
        interval, and how many LONG/SHORT calls had no CAR."""
        s = car_summary(self.signed_cars)
        return {
            "car_calls": s["n"],
            "mean_signed_car": _round(s["mean"]),
            "car_t": _round(s["t"], 3),
            "car_ci_low": _round(s["ci_low"]),
            "car_ci_high": _round(s["ci_high"]),
            "car_not_covered": self.car_not_covered,
        }


def score(items: Iterable[Scored]) -> list[Board]:
    """Boards in first-seen group order, horizons in order."""
    boards: dict[tuple[tuple[str, ...], Horizon], Board] = {}
    for it in items:
        key = (it.group, it.ret.horizon)
        board = boards.setdefault(key, Board(it.group, it.ret.horizon))
        board.reports += 1
        if it.rec is None:
            board.no_recommendation += 1
            continue
        y = label(it.ret)
        if y is None:
            board.not_covered += 1
            board.missing.append(
                f"{'/'.join(it.group)}/{it.call_id} {it.ret.horizon.value}: {it.ret.missing}"
            )
            continue
        assert it.ret.raw is not None
        board.probs.append((p_up(it.rec), 1 if y > 0 else 0))
        if it.rec.position == Position.NEUTRAL:
            board.neutral += 1
            continue
        sign = 1 if it.rec.position == Position.LONG else -1
        (board.long_returns if sign > 0 else board.short_returns).append(it.ret.raw)
        if sign * y > 0:
            board.hits += 1
        else:
            board.misses += 1
        if it.ret.car is None:
            board.car_not_covered += 1
        else:
            board.signed_cars.append(sign * it.ret.car)
        if it.ret.excess is None:
            board.no_excess += 1
        else:
            board.weighted.append((sign * it.rec.conviction / 100, it.ret.excess))
    order = {h: i for i, h in enumerate(HORIZON_DAYS)}
    groups: list[tuple[str, ...]] = []
    for g, _ in boards:
        if g not in groups:
            groups.append(g)
    return sorted(boards.values(), key=lambda b: (groups.index(b.group), order[b.horizon]))


def _mean(xs: Sequence[float]) -> float | None:
    return sum(xs) / len(xs) if xs else None


def _round(x: float | int | None, n: int = 4) -> float | None:
    return None if x is None or math.isnan(x) else round(x, n)
