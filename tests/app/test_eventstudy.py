"""Market-model abnormal returns on synthetic series with known answers: a stock that is
exactly twice the market has no abnormal return however the market moves; a jump on day 0 is
the CAR; a short estimation window, a flat benchmark or prices ending early are not covered,
with the reason; a holiday is not a trading day."""

from __future__ import annotations

from datetime import date, timedelta

import numpy as np
import pytest

from app.evaluation.eventstudy import abnormal_returns, summary
from core.contract import Horizon
from core.inputs import PriceBar, PriceSeries

CALL = date(2026, 7, 30)  # a Thursday


def trading_days(start: date, n: int, skip: frozenset[date] = frozenset()) -> list[date]:
    out: list[date] = []
    d = start
    while len(out) < n:
        if d.weekday() < 5 and d not in skip:
            out.append(d)
        d += timedelta(days=1)
    return out


def series(symbol: str, days: list[date], returns: list[float]) -> PriceSeries:
    closes, c = [], 100.0
    for r in returns:
        c *= 1 + r
        closes.append(c)
    bars = [
        PriceBar(date=d, open=c, high=c, low=c, close=c) for d, c in zip(days, closes, strict=True)
    ]
    return PriceSeries(symbol=symbol, bars=bars)


def market(n: int, seed: int = 1) -> list[float]:
    return [0.0, *np.random.default_rng(seed).normal(0, 0.01, n - 1).tolist()]


def pair(
    before: int,
    after: int,
    jump: float = 0.0,
    skip: frozenset[date] = frozenset(),
    jumps: dict[int, float] | None = None,
) -> tuple[PriceSeries, PriceSeries, list[date]]:
    start = CALL - timedelta(days=int(before * 1.5) + 10)
    days = [d for d in trading_days(start, before + after + 40, skip) if d < CALL][-before:]
    days += [d for d in trading_days(CALL, after, skip)]
    m = market(len(days))
    event = [i for i, d in enumerate(days) if d >= CALL]
    for i in event[:21]:
        m[i] = 0.01  # the market rises 1% a day after the call
    s = [2 * x for x in m]
    s[event[0]] += jump
    for offset, size in (jumps or {}).items():  # offset from day 0 in the company's bars
        s[event[0] + offset] += size
    return series("STK", days, s), series("SPY", days, m), days


def test_beta_two_stock_has_no_abnormal_return_when_the_market_moves() -> None:
    stock, spy, _ = pair(260, 30)
    got = abnormal_returns(stock, CALL, spy)
    for horizon in (Horizon.DAY, Horizon.WEEK, Horizon.MONTH):
        a = got[horizon]
        assert a.missing is None and a.estimation_days == 240
        assert a.beta == pytest.approx(2.0) and a.alpha == pytest.approx(0.0, abs=1e-12)
        assert a.car == pytest.approx(0.0, abs=1e-12)


def test_a_jump_on_day_zero_is_the_cumulative_abnormal_return() -> None:
    stock, spy, _ = pair(260, 30, jump=0.05)
    got = abnormal_returns(stock, CALL, spy)
    assert got[Horizon.DAY].car == pytest.approx(0.05, abs=1e-9)
    assert got[Horizon.MONTH].car == pytest.approx(0.05, abs=1e-9)


def test_a_move_before_the_call_is_not_abnormal_after_it() -> None:
    stock, spy, _ = pair(260, 30, jumps={-1: 0.05})
    assert abnormal_returns(stock, CALL, spy)[Horizon.DAY].car == pytest.approx(0.0, abs=1e-12)


def test_a_short_estimation_window_is_not_covered_with_the_reason() -> None:
    stock, spy, _ = pair(100, 30)
    got = abnormal_returns(stock, CALL, spy)[Horizon.WEEK]
    assert got.car is None and got.estimation_days == 89  # days -100..-11 less the first bar
    assert "89 trading days with SPY in the estimation window" in str(got.missing)
    assert "needs 120" in str(got.missing)
    long_stock, _, days = pair(260, 30)
    flat = series("SPY", days, [0.0] * len(days))
    assert "SPY did not move" in str(abnormal_returns(long_stock, CALL, flat)[Horizon.DAY].missing)
    assert "no benchmark" in str(abnormal_returns(stock, CALL, None)[Horizon.DAY].missing)


def test_prices_ending_before_the_window_is_over() -> None:
    stock, spy, _ = pair(260, 3)
    got = abnormal_returns(stock, CALL, spy)
    assert got[Horizon.DAY].car is not None
    assert "before day +4 after the call" in str(got[Horizon.WEEK].missing)


def test_a_holiday_is_not_a_trading_day() -> None:
    """The call falls on a holiday: day 0 is the next trading day; a benchmark-only holiday
    inside the window is not a trading day either ([0,+4] ends on the fifth common day)."""
    holiday = frozenset({CALL})
    stock, spy, days = pair(260, 30, jump=0.05, skip=holiday, jumps={5: 0.03})
    assert CALL not in days
    got = abnormal_returns(stock, CALL, spy)
    assert got[Horizon.DAY].car == pytest.approx(0.05, abs=1e-9)  # the jump on the next day
    assert got[Horizon.WEEK].car == pytest.approx(0.05, abs=1e-9)  # day +5 is outside [0,+4]
    after = [d for d in days if d > CALL]
    spy_gap = PriceSeries(symbol="SPY", bars=[b for b in spy.bars if b.date != after[2]])
    gap = abnormal_returns(stock, CALL, spy_gap)[Horizon.WEEK]
    assert gap.car == pytest.approx(0.08, abs=1e-3)  # the fifth common day is the company's +5


def test_summary_mean_t_and_bootstrap_interval() -> None:
    s = summary([0.01, 0.03, 0.02, 0.04, 0.00])
    assert s["n"] == 5 and s["mean"] == pytest.approx(0.02)
    assert s["t"] == pytest.approx(0.02 / (np.std([0.01, 0.03, 0.02, 0.04, 0.0], ddof=1) / 5**0.5))
    assert s["ci_low"] is not None and s["ci_high"] is not None
    assert 0.0 <= s["ci_low"] < 0.02 < s["ci_high"] <= 0.04
    assert summary([]) == {"n": 0, "mean": None, "t": None, "ci_low": None, "ci_high": None}
    assert summary([0.1])["t"] is None


def test_the_backtest_scores_each_calls_signed_car() -> None:
    """A LONG before a 5% abnormal jump earns +0.05, a SHORT -0.05, beside the raw and excess
    returns; a call without an estimation window is counted as not covered."""
    from app.evaluation.returns import Scored, event_returns, score
    from core.contract import Position, Recommendation

    stock, spy, _ = pair(260, 30, jump=0.05)
    short_stock, short_spy, _ = pair(100, 30, jump=0.05)
    rets = event_returns(stock, CALL, spy)[Horizon.WEEK]
    assert rets.car == pytest.approx(0.05, abs=1e-9) and rets.raw is not None
    assert rets.excess is not None and rets.excess != pytest.approx(0.05, abs=1e-3)
    bare = event_returns(short_stock, CALL, short_spy)[Horizon.WEEK]
    assert bare.car is None and "needs 120" in str(bare.car_missing) and bare.raw is not None

    def rec(pos: Position) -> Recommendation:
        return Recommendation(horizon=Horizon.WEEK, position=pos, conviction=70, rationale="r")

    boards = score([
        Scored(("m", "long"), "a", rec(Position.LONG), rets),
        Scored(("m", "long"), "b", rec(Position.LONG), rets),
        Scored(("m", "short"), "a", rec(Position.SHORT), rets),
        Scored(("m", "short"), "c", rec(Position.SHORT), bare),
    ])  # fmt: skip
    long_row, short_row = (b.row() for b in boards)
    assert long_row["mean_signed_car"] == pytest.approx(0.05) and long_row["car_calls"] == 2
    assert long_row["car_t"] is None  # no spread: no t-statistic
    assert short_row["mean_signed_car"] == pytest.approx(-0.05)
    assert short_row["car_calls"] == 1 and short_row["car_not_covered"] == 1
