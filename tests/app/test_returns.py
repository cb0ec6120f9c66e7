"""Event-window returns and the scoreboard on synthetic prices with known answers."""

from __future__ import annotations

from datetime import date

import pytest

from app.evaluation.returns import Scored, event_returns, p_up, score
from core.contract import Horizon, Position, Recommendation
from core.inputs import PriceSeries
from tests.scripts import weekdays


def series(symbol: str, closes: dict[date, float]) -> PriceSeries:
    bars = [
        {"date": d.isoformat(), "open": c, "high": c, "low": c, "close": c}
        for d, c in closes.items()
    ]
    return PriceSeries.model_validate({"symbol": symbol, "bars": bars})


DAYS = weekdays(date(2024, 1, 1), 60)  # Mon 1 Jan 2024 onwards
CALL = date(2024, 1, 10)  # a Wednesday


def jump(after: date, up: float = 0.10) -> PriceSeries:
    """Flat at 100, then +`up` from the first bar on or after `after`."""
    return series("ACME", {d: 100 * (1 + up) if d >= after else 100.0 for d in DAYS})


def rec(h: Horizon, pos: Position, conv: int) -> Recommendation:
    return Recommendation(horizon=h, position=pos, conviction=conv, rationale="r")


def test_a_call_before_a_ten_percent_jump() -> None:
    bench = series("SPY", {d: 400.0 for d in DAYS})
    r = event_returns(jump(CALL), CALL, bench)
    day = r[Horizon.DAY]
    assert day.start == date(2024, 1, 9) and day.end == CALL  # last close before -> call day
    assert day.raw == pytest.approx(0.10) and day.excess == pytest.approx(0.10)
    assert r[Horizon.WEEK].end == date(2024, 1, 16)  # the 5th trading day from the call
    assert r[Horizon.MONTH].end == DAYS[DAYS.index(CALL) + 20]


def test_weekend_call_starts_at_the_next_trading_day() -> None:
    saturday = date(2024, 1, 13)
    r = event_returns(jump(date(2024, 1, 15)), saturday)
    assert r[Horizon.DAY].start == date(2024, 1, 12) and r[Horizon.DAY].end == date(2024, 1, 15)
    assert r[Horizon.DAY].raw == pytest.approx(0.10)


def test_window_past_the_end_of_the_data_is_counted_not_dropped() -> None:
    short = series("ACME", {d: 100.0 for d in DAYS[:15]})
    r = event_returns(short, CALL)
    assert r[Horizon.WEEK].covered and not r[Horizon.MONTH].covered
    assert "before trading day 21" in (r[Horizon.MONTH].missing or "")
    boards = score(Scored(("m", "p"), "A", rec(h, Position.LONG, 70), r[h]) for h in Horizon)
    month = next(b for b in boards if b.horizon == Horizon.MONTH)
    assert month.not_covered == 1 and month.row()["scored"] == 0 and month.missing


def test_missing_benchmark_keeps_raw_returns() -> None:
    r = event_returns(jump(CALL), CALL, None)
    assert r[Horizon.DAY].raw == pytest.approx(0.10) and r[Horizon.DAY].excess is None
    gappy = series("SPY", {d: 400.0 for d in DAYS if d != CALL})
    r2 = event_returns(jump(CALL), CALL, gappy)
    assert r2[Horizon.DAY].excess is None and "no bar on 2024-01-10" in str(
        r2[Horizon.DAY].benchmark_missing
    )


def test_a_hole_in_the_prices_is_not_a_window() -> None:
    holey = series(
        "ACME", {d: 100.0 for d in DAYS if not date(2024, 1, 11) <= d <= date(2024, 2, 1)}
    )
    r = event_returns(holey, CALL)
    assert r[Horizon.DAY].covered
    assert "gap from 2024-01-10 to 2024-02-02" in str(r[Horizon.WEEK].missing)


def test_call_before_all_the_data() -> None:
    r = event_returns(jump(CALL), date(2023, 6, 1))
    assert all("no price before the call" in str(x.missing) for x in r.values())


def test_scoreboard_hit_rate_weighted_excess_brier_calibration() -> None:
    bench = series("SPY", {d: 400.0 for d in DAYS})
    up = event_returns(jump(CALL), CALL, bench)[Horizon.DAY]  # +10%
    down = event_returns(jump(CALL, -0.05), CALL, bench)[Horizon.DAY]  # -5%
    items = [
        Scored(("m", "p"), "A", rec(Horizon.DAY, Position.LONG, 80), up),  # hit
        Scored(("m", "p"), "B", rec(Horizon.DAY, Position.LONG, 60), down),  # miss
        Scored(("m", "p"), "C", rec(Horizon.DAY, Position.SHORT, 90), down),  # hit
        Scored(("m", "p"), "D", rec(Horizon.DAY, Position.NEUTRAL, 50), up),  # apart
        Scored(("m", "p"), "E", None, up),  # no recommendation
    ]
    [board] = score(items)
    row = board.row()
    assert (row["hits"], row["misses"], row["neutral"], row["no_recommendation"]) == (2, 1, 1, 1)
    assert row["hit_rate"] == pytest.approx(2 / 3, abs=1e-4)
    # (0.8 x 0.10 + 0.6 x -0.05 + -0.9 x -0.05) / (0.8 + 0.6 + 0.9)
    assert row["conviction_weighted_excess"] == pytest.approx(0.095 / 2.3, abs=1e-4)
    assert row["mean_long_return"] == pytest.approx(0.025) and row["mean_short_return"] == -0.05
    # P(up): 0.8 (up), 0.6 (down), 0.1 (down), 0.5 (up)
    assert row["brier"] == pytest.approx((0.04 + 0.36 + 0.01 + 0.25) / 4, abs=1e-4)
    bins = {c["bin"]: c for c in board.calibration()}
    assert bins["0.0-0.2"]["n"] == 1 and bins["0.8-1.0"]["observed_up"] == 1.0
    assert p_up(rec(Horizon.DAY, Position.SHORT, 70)) == pytest.approx(0.3)
