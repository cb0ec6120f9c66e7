"""The market scorecard (adversarial pipeline, seed 004): computed in code from `prices`, never by
a model. Indicators come from the `ta` library (pandas); returns, volatility and beta are
plain pandas.

Windows count trading days (bars) back from the last bar on or before `as_of`. Metrics that
need more history than given are None and listed in `unavailable`.
"""

from __future__ import annotations

import math
from datetime import date
from typing import Literal

import pandas as pd
from pydantic import BaseModel, Field
from ta.momentum import RSIIndicator
from ta.trend import MACD, SMAIndicator
from ta.volatility import BollingerBands

from core.inputs import Prices, PriceSeries

RETURN_WINDOWS: tuple[int, ...] = (30, 15, 7, 3)
Crossover = Literal["bullish_crossover", "bearish_crossover", "above_signal", "below_signal"]
RsiSignal = Literal["overbought", "oversold", "neutral"]
Trend = Literal["bullish", "bearish", "mixed"]
BandLabel = Literal["above_upper", "near_upper", "middle", "near_lower", "below_lower"]
TRADING_DAYS = 252


class MacdState(BaseModel):
    macd: float
    signal: float
    histogram: float
    crossover: Crossover


class BollingerState(BaseModel):
    upper: float
    middle: float
    lower: float
    position: float = Field(description="(close - lower) / (upper - lower): 0 lower, 1 upper band")
    label: BandLabel


class MarketScorecard(BaseModel):
    symbol: str
    benchmark: str | None
    as_of: date
    close: float
    bars_used: int
    returns_pct: dict[int, float | None] = Field(description="window (trading days) -> return %")
    benchmark_returns_pct: dict[int, float | None] = Field(default_factory=dict)
    relative_returns_pct: dict[int, float | None] = Field(
        default_factory=dict, description="company minus benchmark, percentage points"
    )
    volatility_30d_pct: float | None = Field(description="annualised stdev of daily returns")
    rsi_14: float | None
    rsi_signal: RsiSignal | None
    ma_trend: Trend | None = Field(description="close vs 20- and 50-day simple moving averages")
    sma_20: float | None
    sma_50: float | None
    macd: MacdState | None
    bollinger: BollingerState | None
    beta_30d: float | None
    unavailable: list[str] = Field(default_factory=list)


def _closes(series: PriceSeries, as_of: date | None) -> pd.Series:
    bars = [b for b in series.bars if as_of is None or b.date <= as_of]
    return pd.Series([b.close for b in bars], index=pd.to_datetime([b.date for b in bars]))


def _ret(closes: pd.Series, window: int) -> float | None:
    if len(closes) <= window:
        return None
    return round((float(closes.iloc[-1]) / float(closes.iloc[-1 - window]) - 1) * 100, 4)


def _last(values: pd.Series) -> float | None:
    value = values.iloc[-1]
    return None if pd.isna(value) else float(value)


def scorecard(prices: Prices) -> MarketScorecard:
    closes = _closes(prices.company, prices.as_of)
    missing: list[str] = []
    returns = {w: _ret(closes, w) for w in RETURN_WINDOWS}
    missing += [f"return_{w}d" for w, v in returns.items() if v is None]

    bench = _closes(prices.benchmark, prices.as_of) if prices.benchmark else None
    bench_returns: dict[int, float | None] = {}
    relative: dict[int, float | None] = {}
    if bench is not None:
        bench_returns = {w: _ret(bench, w) for w in RETURN_WINDOWS}
        for w in RETURN_WINDOWS:
            a, b = returns[w], bench_returns[w]
            relative[w] = None if a is None or b is None else round(a - b, 4)

    daily = closes.pct_change().dropna()
    vol = None
    if len(daily) >= 30:
        vol = round(float(daily.iloc[-30:].std(ddof=1)) * math.sqrt(TRADING_DAYS) * 100, 4)
    else:
        missing.append("volatility_30d")

    rsi = _last(RSIIndicator(closes, window=14).rsi()) if len(closes) > 14 else None
    if rsi is None:
        missing.append("rsi_14")
    rsi_signal: RsiSignal | None = None
    if rsi is not None:
        rsi_signal = "overbought" if rsi > 70 else "oversold" if rsi < 30 else "neutral"

    sma20 = _last(SMAIndicator(closes, window=20).sma_indicator()) if len(closes) >= 20 else None
    sma50 = _last(SMAIndicator(closes, window=50).sma_indicator()) if len(closes) >= 50 else None
    close = float(closes.iloc[-1])
    trend: Trend | None = None
    if sma20 is not None and sma50 is not None:
        trend = ("bullish" if close > sma20 > sma50
                 else "bearish" if close < sma20 < sma50 else "mixed")  # fmt: skip
    else:
        missing.append("ma_trend")

    return MarketScorecard(
        symbol=prices.company.symbol,
        benchmark=prices.benchmark.symbol if prices.benchmark else None,
        as_of=closes.index[-1].date(),
        close=close,
        bars_used=len(closes),
        returns_pct=returns,
        benchmark_returns_pct=bench_returns,
        relative_returns_pct=relative,
        volatility_30d_pct=vol,
        rsi_14=None if rsi is None else round(rsi, 4),
        rsi_signal=rsi_signal,
        ma_trend=trend,
        sma_20=sma20,
        sma_50=sma50,
        macd=_macd(closes, missing),
        bollinger=_bollinger(closes, missing),
        beta_30d=_beta(daily, bench, missing),
        unavailable=missing,
    )


def _macd(closes: pd.Series, missing: list[str]) -> MacdState | None:
    if len(closes) < 26 + 9:
        missing.append("macd")
        return None
    ind = MACD(closes, window_slow=26, window_fast=12, window_sign=9)
    line, signal = ind.macd(), ind.macd_signal()
    diff = (line - signal).dropna()
    now, before = float(diff.iloc[-1]), diff.iloc[-4:-1]
    cross: Crossover
    if now > 0 and (before <= 0).any():
        cross = "bullish_crossover"
    elif now < 0 and (before >= 0).any():
        cross = "bearish_crossover"
    else:
        cross = "above_signal" if now > 0 else "below_signal"
    return MacdState(
        macd=round(float(line.iloc[-1]), 6),
        signal=round(float(signal.iloc[-1]), 6),
        histogram=round(now, 6),
        crossover=cross,
    )


def _bollinger(closes: pd.Series, missing: list[str]) -> BollingerState | None:
    if len(closes) < 20:
        missing.append("bollinger")
        return None
    bands = BollingerBands(closes, window=20, window_dev=2)
    upper, middle, lower = (float(x.iloc[-1]) for x in
                            (bands.bollinger_hband(), bands.bollinger_mavg(),
                             bands.bollinger_lband()))  # fmt: skip
    close = float(closes.iloc[-1])
    width = upper - lower
    position = 0.5 if width == 0 else (close - lower) / width
    label: BandLabel
    if position > 1:
        label = "above_upper"
    elif position >= 0.8:
        label = "near_upper"
    elif position < 0:
        label = "below_lower"
    elif position <= 0.2:
        label = "near_lower"
    else:
        label = "middle"
    return BollingerState(
        upper=round(upper, 6),
        middle=round(middle, 6),
        lower=round(lower, 6),
        position=round(position, 4),
        label=label,
    )


def _beta(daily: pd.Series, bench: pd.Series | None, missing: list[str]) -> float | None:
    if bench is None:
        missing.append("beta_30d")
        return None
    joined = pd.concat([daily, bench.pct_change()], axis=1, join="inner").dropna().iloc[-30:]
    if len(joined) < 20 or float(joined.iloc[:, 1].var(ddof=1)) == 0:
        missing.append("beta_30d")
        return None
    cov = float(joined.iloc[:, 0].cov(joined.iloc[:, 1]))
    return round(cov / float(joined.iloc[:, 1].var(ddof=1)), 4)
