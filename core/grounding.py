"""Numeric grounding: is each number the report states also stated in the transcript?

Numbers are compared by value after unit and scale normalisation, within the rounding of the
less precise of the two ("$1.54 billion" matches "1,543.1 million"; "10.7%" matches
"10.7 percent"). Percentages only match percentages.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from core.contract import NumberCheck
from core.inputs import Financials
from core.transcript import Transcript

_SCALES: dict[str, float] = {
    "thousand": 1e3,
    "k": 1e3,
    "million": 1e6,
    "mln": 1e6,
    "mn": 1e6,
    "mm": 1e6,
    "m": 1e6,
    "billion": 1e9,
    "bln": 1e9,
    "bn": 1e9,
    "b": 1e9,
    "trillion": 1e12,
    "tn": 1e12,
}

NUMBER_RE = re.compile(
    r"(?<![\w.])(?P<cur>[$€£])?\s?"
    r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    r"(?:\s?(?P<pct>%|percent\b|per cent\b)"
    r"|\s?(?P<bps>basis points\b|bps\b)"
    r"|\s?(?P<scale>thousand|million|billion|trillion|mln|bln|mn|mm|bn|tn|[kKmMbB])\b)?",
    re.IGNORECASE,
)
# Words that make a number the report's own apparatus rather than a claim about the call.
_SKIP_BEFORE = re.compile(r"(conviction|confidence|probability)[^.\n]{0,25}$", re.IGNORECASE)
_SKIP_AFTER = re.compile(r"\s?-?\s?(day|week|month)s?\b", re.IGNORECASE)

# A cited chunk id ("[4bc14f6c498a-0001]"), a footnote mark ("[^unverified-1]") or a code span
# (the rules' weights and scores, "`+1.5`"): apparatus, not figures.
CITATION_RE = re.compile(r"\[([0-9a-f]{6,12}-f?\d{4})\]")
_MARKS = re.compile(CITATION_RE.pattern + r"|\[\^[\w-]+\]|`[^`\n]{1,40}`")

Kind = Literal["percent", "money", "plain"]


@dataclass(frozen=True)
class Figure:
    text: str
    value: float
    kind: Kind
    tolerance: float
    start: int


def extract_figures(text: str, *, skip_apparatus: bool = False) -> list[Figure]:
    """All numbers in `text` with value normalised to units (percent points for percentages)."""
    out: list[Figure] = []
    if skip_apparatus:  # blank out ids and marks, keeping offsets
        text = _MARKS.sub(lambda m: " " * len(m.group(0)), text)
    for m in NUMBER_RE.finditer(text):
        raw = m.group("num")
        if skip_apparatus and (
            _SKIP_BEFORE.search(text, max(0, m.start() - 40), m.start())
            or _SKIP_AFTER.match(text, m.end())
        ):
            continue
        decimals = len(raw.split(".")[1]) if "." in raw else 0
        value = float(raw.replace(",", ""))
        unit = 1.0
        kind: Kind = "plain"
        if m.group("pct"):
            kind = "percent"
        elif m.group("bps"):
            kind, unit = "percent", 0.01
        else:
            if m.group("scale"):
                unit = _SCALES[m.group("scale").lower()]
            if m.group("cur"):
                kind = "money"
        if skip_apparatus and kind == "plain" and unit == 1.0 and not decimals and value < 10:
            continue  # list numbering, counts of things: not figures worth checking
        tolerance = 0.5 * (10.0**-decimals) * unit
        whole = m.group(0)
        lead = len(whole) - len(whole.lstrip())
        out.append(Figure(whole.strip(), value * unit, kind, tolerance, m.start() + lead))
    return out


def same_figure(a: Figure, b: Figure) -> bool:
    """Same value within the rounding of the less precise figure; percentages only match
    percentages."""
    return (a.kind == "percent") == (b.kind == "percent") and abs(a.value - b.value) <= max(
        a.tolerance, b.tolerance
    ) + 1e-9


def check_numbers(report_text: str, sources: list[str]) -> list[NumberCheck]:
    """One check per distinct figure in the report, grounded if any source states that value.
    A grounded figure says where: the index of the source (0 = the transcript) and the
    character span of the matching figure in it."""
    source_figures = [(i, f) for i, s in enumerate(sources) for f in extract_figures(s)]
    checks: list[NumberCheck] = []
    seen: set[str] = set()
    for fig in extract_figures(report_text, skip_apparatus=True):
        if fig.text in seen:
            continue
        seen.add(fig.text)
        # the closest matching figure is the one cited (first one on a tie)
        candidates = [(i, s) for i, s in source_figures if same_figure(fig, s)]
        found = min(candidates, key=lambda c: abs(c[1].value - fig.value), default=None)
        match = found[1] if found else None
        lo, hi = max(0, fig.start - 50), min(len(report_text), fig.start + len(fig.text) + 50)
        checks.append(
            NumberCheck(
                text=fig.text,
                value=fig.value,
                kind=fig.kind,
                grounded=match is not None,
                source_text=match.text if match else None,
                source_index=found[0] if found else None,
                source_start=match.start if match else None,
                source_end=match.start + len(match.text) if match else None,
                context=" ".join(report_text[lo:hi].split()),
            )
        )
    return checks


def grounding_sources(transcript: Transcript, financials: Financials | None) -> list[str]:
    """What a report's figures may rest on, transcript first (source index 0)."""
    return [transcript.text] + ([financials.figures_text()] if financials else [])
