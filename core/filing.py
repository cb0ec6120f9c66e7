"""The call's key figures checked against the filing: each result row whose metric, basis and
period match a filed value says "matches the filing" or "differs from the filing (filed: X)"
with the filing named. Nothing is corrected: the call's figure stays as stated.

Filed values come from the call's earnings release (8-K exhibit 99.1, fetched from SEC EDGAR:
its table rows, `release_values`) and from quarterly statements that name their fiscal quarter
(`fiscalPeriod`, e.g. "Q2 2026": SEC EDGAR's company facts carry it, a `--financials` file
may). Both are GAAP, so only a GAAP or unqualified figure is compared with them; an adjusted
figure never is.
A figure matches when the filed value, rounded as the call stated it, is the stated figure.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from core.contract import CallFacts, KeyFigure
from core.inputs import FiledValue, Financials

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


__all__ = ["FiledValue", "check", "filed_values", "release_values", "verdict"]

# an earnings release's table rows: a line starting with the line's name, then its first amount
RELEASE_ROWS: dict[str, re.Pattern[str]] = {
    "revenue": re.compile(r"(?:total )?(?:net )?(?:revenues?|sales)\b", re.I),
    "net_income": re.compile(r"net income\b(?: \(loss\))?", re.I),
    "operating_income": re.compile(r"(?:operating income\b(?: \(loss\))?|income from operations\b)",
                                   re.I),
    "eps": re.compile(r"(?:diluted (?:earnings|net income) per (?:common )?share|diluted eps)\b",
                      re.I),
}  # fmt: skip
QUARTER_WORDS = {"first": "Q1", "second": "Q2", "third": "Q3", "fourth": "Q4"}
QUARTER_TITLE = re.compile(
    r"\b(first|second|third|fourth) quarter (?:of )?(?:fiscal (?:year )?)?(\d{4})\b", re.I
)
AMOUNT = re.compile(r"[\s$:]*(\()?[\s$]*(\d[\d,]*(?:\.\d+)?)")  # right after the name


def _period(text: str | None) -> str:
    return " ".join((text or "").upper().replace("FISCAL", "").split())


def filed_values(financials: Financials | None, source: str) -> list[FiledValue]:
    """The release's values the run was given, then the statement lines of every quarter that
    names its fiscal quarter (the first comparable value decides)."""
    if financials is None:
        return []
    out = list(financials.filed)
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


def release_values(text: str, source: str) -> list[FiledValue]:
    """The GAAP rows of an earnings release's tables for the quarter its title names ("Second
    Quarter 2026 Results"): the first amount after each line's name, in the table's stated
    scale ("in millions"); an amount in parentheses is negative. A heuristic over the text:
    a release with no quarter in its words gives nothing, never a guess."""
    title = QUARTER_TITLE.search(text)
    if title is None:
        return []
    period = f"{QUARTER_WORDS[title.group(1).lower()]} {title.group(2)}"
    lowered = text.lower()
    scale = 1e6 if "in millions" in lowered else 1e3 if "in thousands" in lowered else 1.0
    out: dict[str, FiledValue] = {}
    for line in text.splitlines():
        for metric, name in RELEASE_ROWS.items():
            head = name.match(line.strip())
            if metric in out or head is None:
                continue
            amount = AMOUNT.match(line.strip()[head.end() :])
            if amount is None:
                continue
            value = float(amount.group(2).replace(",", "")) * (-1 if amount.group(1) else 1)
            out[metric] = FiledValue(metric=metric, period=period,
                                     value=value if metric == "eps" else value * scale,
                                     source=f"{source}, '{line.strip()[:40]}'")  # fmt: skip
    return list(out.values())


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
    size, sign = abs(value), "-" if value < 0 else ""
    for word, step in (("billion", 1e9), ("million", 1e6)):
        if size >= step:
            return f"{sign}${size / step:,.1f} {word}"
    return f"{sign}${size:,.2f}"


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
