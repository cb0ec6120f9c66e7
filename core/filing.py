"""The call's key figures checked against the filing: each result row whose metric, basis and
period match a filed value says "matches the filing" or "differs from the filing (filed: X)"
with the filing named. Nothing is corrected: the call's figure stays as stated.

Filed values come from quarterly statements that name their fiscal quarter (`fiscalPeriod`,
e.g. "Q2 2026": SEC EDGAR's company facts carry it, a `--financials` file may). Statements are
GAAP, so only a GAAP or unqualified figure is compared with them; an adjusted figure never is.
A figure matches when the filed value, rounded as the call stated it, is the stated figure.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from pydantic import BaseModel

from core.contract import CallFacts, KeyFigure
from core.inputs import Financials

# statement line -> (metric as the call facts name it, unit)
LINES: dict[str, tuple[str, str]] = {
    "totalRevenue": ("revenue", "money"),
    "grossProfit": ("gross_profit", "money"),
    "operatingIncome": ("operating_income", "money"),
    "incomeBeforeTax": ("pretax_income", "money"),
    "netIncome": ("net_income", "money"),
    "operatingCashflow": ("operating_cash_flow", "money"),
    "capitalExpenditures": ("capex", "money"),
    "dilutedEPS": ("eps", "money"),
}
NUMBER = re.compile(r"\d[\d,]*(?:\.(\d+))?")


class FiledValue(BaseModel):
    metric: str
    period: str
    value: float
    unit: str = "money"
    basis: str = "gaap"
    source: str


def _period(text: str | None) -> str:
    return " ".join((text or "").upper().replace("FISCAL", "").split())


def filed_values(financials: Financials | None, source: str) -> list[FiledValue]:
    """The statement lines of every quarter that names its fiscal quarter."""
    if financials is None:
        return []
    out = []
    for q in financials.ordered():
        extra = q.model_extra or {}
        period = extra.get("fiscalPeriod")
        if not period:
            continue
        named = str(extra.get("source") or source)
        for line, (metric, unit) in LINES.items():
            value = q.line(line)
            if value is not None:
                out.append(FiledValue(metric=metric, period=str(period), value=value, unit=unit,
                                      source=f"{named}, {line}"))  # fmt: skip
    return out


def _half_step(k: KeyFigure) -> float:
    """Half the last digit the call stated, in the figure's units ('$612 million': 0.5
    million; '$0.56': 0.005)."""
    found = NUMBER.search(k.text)
    if found is None:
        return 0.0
    stated = float(found.group(0).replace(",", ""))
    scale = abs(k.value / stated) if stated else 1.0
    return float(0.5 * 10 ** -len(found.group(1) or "") * scale)


def _money(value: float) -> str:
    size = abs(value)
    for word, step in (("billion", 1e9), ("million", 1e6)):
        if size >= step:
            return f"${value / step:,.1f} {word}"
    return f"${value:,.2f}"


def verdict(k: KeyFigure, filed: Iterable[FiledValue]) -> str | None:
    """Say "matches the filing" or "differs from the filing (filed: X)", each with its source;
    None when no filed value has the figure's metric, basis and period."""
    if k.role != "result" or k.segment is not None or not k.period:
        return None
    basis = k.basis or "gaap"
    for f in filed:
        if (f.metric, f.basis, f.unit) != (k.metric, basis, k.unit):
            continue
        if _period(f.period) != _period(k.period):
            continue
        if abs(k.value - f.value) <= _half_step(k) + 1e-9 * abs(f.value):
            return f"matches the filing ({f.source})"
        return f"differs from the filing (filed: {_money(f.value)}; {f.source})"
    return None


def check(facts: CallFacts, filed: list[FiledValue]) -> CallFacts:
    """The facts with each comparable key figure's `filing` verdict set (figures unchanged)."""
    if not filed:
        return facts
    rows = [k.model_copy(update={"filing": verdict(k, filed)}) for k in facts.key_figures]
    return facts.model_copy(update={"key_figures": rows})


def filing_lines(facts: CallFacts) -> list[str]:
    """One line per checked key figure, for the models' data block."""
    return [
        f"- Filing check, {k.label} {k.text} ({k.period}): {k.filing}"
        for k in facts.key_figures
        if k.filing
    ]


def filing_markdown(facts: CallFacts) -> str:
    """The report's filing check: each checked key figure with its verdict."""
    rows = [k for k in facts.key_figures if k.filing]
    if not rows:
        return ""
    lines = ["**Checked against the filing** (code; the call's figures are left as stated)", "",
             "| Metric | Figure | Period | Filing |", "|---|---|---|---|"]  # fmt: skip
    for k in rows:
        cells = (k.label, k.text, k.period or "", k.filing or "")
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines)
