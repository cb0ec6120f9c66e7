"""The market scorecard against values computed step by step in the test."""

from __future__ import annotations

import math
import statistics
from datetime import date, timedelta

import pytest

from core.inputs import Prices
from core.market import scorecard


def _prices(
    closes: list[float], bench: list[float] | None = None, as_of: date | None = None
) -> Prices:
    start = date(2021, 1, 1)

    def series(symbol: str, values: list[float]) -> dict[str, object]:
        return {
            "symbol": symbol,
            "bars": [
                {
                    "date": str(start + timedelta(days=i)),
                    "open": c,
                    "high": c * 1.01,
                    "low": c * 0.99,
                    "close": c,
                    "volume": 100,
                }
                for i, c in enumerate(values)
            ],
        }

    return Prices.model_validate(
        {
            "company": series("ABC", closes),
            "benchmark": series("SPY", bench) if bench else None,
            "as_of": as_of,
        }
    )


def _wilder_rsi(closes: list[float], n: int = 14) -> float:
    """RSI as `ta` defines it: Wilder smoothing (alpha = 1/n) of gains and losses, seeded with
    0 for the first bar (no previous close), written out step by step."""
    up = dn = 0.0
    for i in range(1, len(closes)):
        change = closes[i] - closes[i - 1]
        up = up + (max(change, 0.0) - up) / n
        dn = dn + (max(-change, 0.0) - dn) / n
    return 100.0 if dn == 0 else 100 - 100 / (1 + up / dn)


def _ema(values: list[float], span: int) -> list[float]:
    alpha, out = 2 / (span + 1), [values[0]]
    for v in values[1:]:
        out.append(out[-1] + alpha * (v - out[-1]))
    return out


WAVE = [100 + 5 * math.sin(i / 4) + i * 0.2 for i in range(60)]


def test_returns_and_relative_returns() -> None:
    closes = [100.0 + i for i in range(40)]  # 100 .. 139
    bench = [200.0] * 39 + [210.0]
    card = scorecard(_prices(closes, bench))
    assert card.returns_pct[3] == pytest.approx((139 / 136 - 1) * 100, abs=1e-4)
    assert card.returns_pct[30] == pytest.approx((139 / 109 - 1) * 100, abs=1e-4)
    assert card.benchmark_returns_pct[7] == pytest.approx(5.0)
    assert card.relative_returns_pct[7] == pytest.approx((139 / 132 - 1) * 100 - 5.0, abs=1e-4)


def test_rsi_matches_the_wilder_recursion() -> None:
    card = scorecard(_prices(WAVE[:30]))
    assert card.rsi_14 == pytest.approx(_wilder_rsi(WAVE[:30]), abs=1e-3)
    up = scorecard(_prices([10.0 + i for i in range(20)]))
    assert up.rsi_14 == 100 and up.rsi_signal == "overbought"
    down = scorecard(_prices([50.0 - i for i in range(20)]))
    assert down.rsi_14 == 0 and down.rsi_signal == "oversold"


def test_bollinger_by_hand() -> None:
    closes = WAVE[:40]
    card = scorecard(_prices(closes))
    window = closes[-20:]
    mean, sd = statistics.fmean(window), statistics.pstdev(window)
    assert card.bollinger is not None
    assert card.bollinger.middle == pytest.approx(mean, abs=1e-5)
    assert card.bollinger.upper == pytest.approx(mean + 2 * sd, abs=1e-5)
    expected = (closes[-1] - (mean - 2 * sd)) / (4 * sd)
    assert card.bollinger.position == pytest.approx(expected, abs=1e-4)


def test_macd_matches_ema_recursion() -> None:
    card = scorecard(_prices(WAVE))
    fast, slow = _ema(WAVE, 12), _ema(WAVE, 26)
    line = [f - s for f, s in zip(fast, slow, strict=True)]
    signal = _ema(line[25:], 9)  # ta's signal starts where the slow EMA has its full window
    assert card.macd is not None
    assert card.macd.macd == pytest.approx(line[-1], abs=1e-4)
    assert card.macd.histogram == pytest.approx(line[-1] - signal[-1], abs=1e-3)
    rising = scorecard(_prices([100.0 - i for i in range(40)] + [61.0 + 4 * i for i in range(4)]))
    assert rising.macd is not None and rising.macd.crossover == "bullish_crossover"


def test_volatility_and_beta_by_hand() -> None:
    bench = [100.0]
    for i in range(40):
        bench.append(bench[-1] * (1 + (0.01 if i % 3 else -0.015)))
    company = [50.0]
    for i in range(1, len(bench)):
        company.append(company[-1] * (1 + 2 * (bench[i] / bench[i - 1] - 1)))
    card = scorecard(_prices(company, bench))
    assert card.beta_30d == pytest.approx(2.0, abs=1e-6)
    rets = [company[i] / company[i - 1] - 1 for i in range(1, len(company))][-30:]
    assert card.volatility_30d_pct == pytest.approx(
        statistics.stdev(rets) * math.sqrt(252) * 100, abs=1e-3
    )


def test_trend_and_as_of_cutoff() -> None:
    closes = [50.0 + i for i in range(70)]
    card = scorecard(_prices(closes))
    assert card.ma_trend == "bullish" and card.sma_20 == pytest.approx(
        statistics.fmean(closes[-20:])
    )
    cut = scorecard(_prices(closes, as_of=date(2021, 1, 1) + timedelta(days=10)))
    assert cut.bars_used == 10 and cut.close == 59.0  # the bars before the call date


def test_short_history_says_what_is_missing() -> None:
    card = scorecard(_prices([10.0, 11.0, 12.0, 11.5, 12.5]))
    assert card.returns_pct[3] is not None and card.returns_pct[30] is None
    for name in (
        "return_30d",
        "volatility_30d",
        "rsi_14",
        "ma_trend",
        "macd",
        "bollinger",
        "beta_30d",
    ):
        assert name in card.unavailable
    assert card.rsi_signal is None and card.macd is None
