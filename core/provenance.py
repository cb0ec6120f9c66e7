"""The figures a report may state besides the call's: statement lines (field, quarter), changes
computed by code from them (formula and operands), the market scorecard (series, date,
indicator) and the data vendor's consensus. `core/grounding.py` matches a report's figures to
these and to the call's spans; whatever matches none is unsupported."""

from __future__ import annotations

from core.contract import ToneReport
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


# shares of revenue code computes for every quarter given: (line, name)
_OF_REVENUE: tuple[tuple[str, str], ...] = (
    ("grossProfit", "gross margin"), ("operatingIncome", "operating margin"),
    ("ebitda", "EBITDA margin"), ("ebit", "EBIT margin"), ("netIncome", "net margin"),
    ("incomeBeforeTax", "pretax margin"), ("costOfRevenue", "cost of revenue"),
    ("operatingExpenses", "operating expenses"),
    ("sellingGeneralAndAdministrative", "SG&A"), ("researchAndDevelopment", "R&D"),
    ("operatingCashflow", "operating cash flow"), ("capitalExpenditures", "capital expenditures"),
)  # fmt: skip
# other ratios: (numerator, denominator, name)
_RATIOS: tuple[tuple[str, str, str], ...] = (
    ("incomeTaxExpense", "incomeBeforeTax", "effective tax rate"),
    ("totalLiabilities", "totalShareholderEquity", "liabilities to equity"),
    ("netIncome", "totalShareholderEquity", "return on equity (quarter)"),
    ("netIncome", "totalAssets", "return on assets (quarter)"),
)


def derived_figures(financials: Financials) -> list[Known]:
    """What code derives from the statements beyond the headline changes: each quarter's margins
    and ratios (in percent), the change of every reported line between any two quarters given
    (percent and amount; a multi-quarter trend is the change between its ends) and the change of
    each margin between them in percentage points. Each names its formula and operands."""
    out: list[Known] = []
    quarters = financials.ordered()
    margins: dict[tuple[str, object], float] = {}
    for q in quarters:
        pairs = [(f, "totalRevenue", name) for f, name in _OF_REVENUE] + list(_RATIOS)
        for num, den, name in pairs:
            a, b = q.line(num), q.line(den)
            if a is None or not b:
                continue
            pct = a / b * 100
            margins[(name, q.fiscalDateEnding)] = pct
            how = f"computed: {name} = {num} / {den} = {a:,.0f} / {b:,.0f} ({q.fiscalDateEnding})"
            out.append(_known(pct, "percent", "computed", how, None))
    for i, new in enumerate(quarters):
        for old in quarters[i + 1 :]:
            span = f"{new.fiscalDateEnding} vs {old.fiscalDateEnding}"
            for name in new.reported():
                a, b = new.line(name), old.line(name)
                if a is None or b is None:
                    continue
                how = f"computed: {name} change = {a:,.0f} - {b:,.0f} ({span})"
                out.append(_known(a - b, "plain", "computed", how, None))
                if b:
                    how = f"computed: {name} change = {a:,.0f} / {b:,.0f} - 1 ({span})"
                    out.append(_known((a / b - 1) * 100, "percent", "computed", how, None))
            for (name, when), pct in margins.items():
                before = margins.get((name, old.fiscalDateEnding))
                if when == new.fiscalDateEnding and before is not None:
                    how = (f"computed: {name} change = {pct:.2f}% - {before:.2f}% in percentage "
                           f"points ({span})")  # fmt: skip
                    out.append(_known(pct - before, "percent", "computed", how, None))
    return out


def filed_figures(financials: Financials) -> list[Known]:
    """The values the company filed for the call's quarter (its earnings release's rows, the
    filing check's), each with its filing: a report may quote a filed value."""
    return [
        _known(f.value, "percent" if f.unit == "percent" else "plain", "statements",
               f"filed: {f.metric}, {f.period} ({f.source})", None)
        for f in financials.filed
    ]  # fmt: skip


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


def tone_figures(tone: ToneReport) -> list[Known]:
    """The call's tone as the call facts scored it (Loughran-McDonald word lists; their tone
    table): each group's net tone and uncertainty words per 1,000, with their counts."""
    out: list[Known] = []
    for g in tone.groups:
        net = (f"computed: tone, {g.group}: net tone = ({g.positive} - {g.negative}) / "
               f"({g.positive} + {g.negative})")  # fmt: skip
        out.append(_known(g.net_tone, "plain", "computed", net, None))
        per_1k = (f"computed: tone, {g.group}: uncertainty words per 1,000 = 1000 x "
                  f"{g.uncertainty} / {g.words}")  # fmt: skip
        out.append(_known(g.uncertainty_per_1k, "plain", "computed", per_1k, None))
    return out


def grounding_sources(
    transcript: Transcript,
    financials: Financials | None,
    prices: Prices | None = None,
    tone: ToneReport | None = None,
) -> Sources:
    """What a report's figures may rest on: the call (source 0), its tone as the call facts
    scored it (`tone`),
    and what code knows of the statements, their computed changes, the consensus and the market
    scorecard."""
    known: list[Known] = tone_figures(tone) if tone is not None else []
    if financials is not None:
        known += statement_figures(financials) + filed_figures(financials)
        known += consensus_figures(financials)
        known += computed_figures(financials) + derived_figures(financials)
    if prices is not None:
        known += market_figures(scorecard(prices))
    return Sources((transcript.text,), tuple(known))
