"""The figures a report may state besides the call's: statement lines (field, quarter), changes
computed by code from them (formula and operands), the market scorecard (series, date,
indicator) and the data vendor's consensus. `core/grounding.py` matches a report's figures to
these and to the call's spans; whatever matches none is unsupported."""

from __future__ import annotations

from core.grounding import Figure, Kind, Known, Origin, Sources
from core.inputs import Financials, Prices, changes
from core.market import MarketScorecard, scorecard
from core.transcript import Transcript

# How scorecard values are read: percentages (returns, volatility) or plain levels.
_PERCENT = "percent"


def _known(value: float, kind: Kind, origin: Origin, detail: str, index: int | None) -> Known:
    text = f"{value:,.4f}".rstrip("0").rstrip(".") + ("%" if kind == "percent" else "")
    # start -1: not a span of any text; tolerance 0: the report's own rounding decides
    return Known(Figure(text, abs(value), kind, 0.0, -1), origin, detail, index)


def statement_figures(financials: Financials) -> list[Known]:
    """Every reported line of every quarter, as stated in the statements (field, quarter)."""
    out: list[Known] = []
    for q in financials.ordered():
        names = [*q.reported(), *sorted(q.model_extra or {})]
        for name in dict.fromkeys(names):
            value = q.line(name)
            if value is None:
                continue
            detail = f"statements: {name}, quarter ending {q.fiscalDateEnding}"
            out.append(_known(value, "plain", "statements", detail, 1))
    return out


def computed_figures(financials: Financials) -> list[Known]:
    """The QoQ and YoY changes code computes for the writers (`core.inputs.changes`)."""
    return [
        _known(c.percent, "percent", "computed", f"computed: {c.formula}", None)
        for c in changes(financials)
    ]


def consensus_figures(financials: Financials) -> list[Known]:
    """The vendor's reported and estimated EPS, the surprise and its percentage."""
    c = financials.consensus
    if c is None:
        return []
    where = f"{c.source}, quarter ending {c.fiscalDateEnding}"
    out = [
        _known(v, "percent" if name == "surprisePercentage" else "plain", "consensus",
               f"consensus: {name} = {v:g} ({where})", None)
        for name in ("reportedEPS", "estimatedEPS", "surprise", "surprisePercentage")
        if (v := getattr(c, name)) is not None
    ]  # fmt: skip
    if c.reportedEPS is not None and c.estimatedEPS is not None:  # the "beat by" in its text
        diff = c.reportedEPS - c.estimatedEPS
        formula = f"computed: EPS surprise = {c.reportedEPS:g} - {c.estimatedEPS:g} ({where})"
        out.append(_known(round(diff, 2), "plain", "computed", formula, None))
    return out


def market_figures(card: MarketScorecard) -> list[Known]:
    """Each scorecard value: the series, the date and the indicator."""
    values: list[tuple[str, str, float | None, str]] = [
        (card.symbol, "close", card.close, "plain"),
        (card.symbol, "volatility_30d_pct", card.volatility_30d_pct, _PERCENT),
        (card.symbol, "rsi_14", card.rsi_14, "plain"),
        (card.symbol, "sma_20", card.sma_20, "plain"),
        (card.symbol, "sma_50", card.sma_50, "plain"),
        (card.symbol, "beta_30d", card.beta_30d, "plain"),
    ]
    for w, v in card.returns_pct.items():
        values.append((card.symbol, f"return_{w}d_pct", v, _PERCENT))
    for w, v in card.benchmark_returns_pct.items():
        values.append((card.benchmark or "benchmark", f"return_{w}d_pct", v, _PERCENT))
    for w, v in card.relative_returns_pct.items():
        values.append((card.symbol, f"relative_return_{w}d_pct_points", v, _PERCENT))
    if card.macd is not None:
        for name in ("macd", "signal", "histogram"):
            values.append((card.symbol, f"macd.{name}", getattr(card.macd, name), "plain"))
    if card.bollinger is not None:
        for name in ("upper", "middle", "lower", "position"):
            values.append((card.symbol, f"bollinger.{name}", getattr(card.bollinger, name),
                           "plain"))  # fmt: skip
    return [
        _known(v, "percent" if kind == _PERCENT else "plain", "market",
               f"market data: {series}, {card.as_of}, {name} = {v:g}", None)
        for series, name, v, kind in values
        if v is not None
    ]  # fmt: skip


def grounding_sources(
    transcript: Transcript, financials: Financials | None, prices: Prices | None = None
) -> Sources:
    """What a report's figures may rest on: the call (source 0) and what code knows of the
    statements, their computed changes, the consensus and the market scorecard."""
    known: list[Known] = []
    if financials is not None:
        known += statement_figures(financials) + consensus_figures(financials)
        known += computed_figures(financials)
    if prices is not None:
        known += market_figures(scorecard(prices))
    return Sources((transcript.text,), tuple(known))
