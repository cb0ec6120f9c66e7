"""Numeric grounding: where does each number the report states come from? The call, the
statements, a change computed by code, market data, the vendor's consensus, or nowhere
(`core/provenance.py` builds the non-call sources).

Numbers are compared by value after unit and scale normalisation. A report's figure is grounded
by a source figure it states as written or rounded ("$1.54 billion" by "1,543.1 million", "11%"
by "10.7%", "10.7%" by "10.7 percent"), never by a rounder one ("10.7%" is not grounded by
"11%": `rounds_to`). Percentages only match percentages.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from core.contract import NumberCheck

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
    r"(?:\s?(?P<pct>%|percent\b|per cent\b|percentage points?\b|pp\b|ppts?\b)"
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


def rounds_to(claim: Figure, source: Figure) -> bool:
    """Whether `claim` is `source` as written or rounded: the claim's own rounding covers the
    difference ("$1.54 billion" of 1,543.1 million, "11%" of 10.7%). Never the other way: a
    claim more precise than its source ("10.7%" where the call says "11%") states a figure
    the source does not. Percentages only match percentages."""
    return (claim.kind == "percent") == (source.kind == "percent") and abs(
        claim.value - source.value
    ) <= claim.tolerance + 1e-9


Origin = Literal["call", "statements", "computed", "market", "consensus"]
_RANK: dict[str, int] = {"call": 0, "statements": 1, "consensus": 2, "computed": 3, "market": 4}


@dataclass(frozen=True)
class Known:
    """A figure the report may state that is not a span of the call: a statement line, a change
    computed by code, a market-data value or the vendor's consensus, with where it comes from
    (`detail`: the field and quarter, the formula and operands, the series, date and indicator).
    Values are magnitudes: a change is written "fell 7.4%" as often as "-7.4%"."""

    figure: Figure
    origin: Origin
    detail: str
    source_index: int | None = None


@dataclass(frozen=True)
class Sources:
    """What a report's figures may rest on: texts that state figures (0 = the call; a later text
    is read as the statements, as plain strings always were) and figures with known provenance."""

    texts: tuple[str, ...]
    known: tuple[Known, ...] = ()

    def as_texts(self) -> list[str]:
        """The texts plus one line of the known figures, for what needs plain text (the
        constrained decoder's grammar of allowed figures)."""
        extra = " ; ".join(k.figure.text for k in self.known)
        return [*self.texts, extra] if extra else list(self.texts)


def _stated(texts: Sequence[str]) -> list[Known]:
    out: list[Known] = []
    for i, text in enumerate(texts):
        for f in extract_figures(text):
            where = "the call" if i == 0 else f"source {i}"
            detail = f"{where}, characters {f.start}-{f.start + len(f.text)}"
            out.append(Known(f, "call" if i == 0 else "statements", detail, i))
    return out


def check_numbers(report_text: str, sources: Sequence[str] | Sources) -> list[NumberCheck]:
    """One check per distinct figure in the report, with its provenance: the call (the span of
    the matching figure in it), the statements, a change computed by code, market data or the
    vendor's consensus; `grounded=False` (origin "unsupported") when none states that value.
    Plain strings are read as before: the first is the call, the next the statements."""
    src = sources if isinstance(sources, Sources) else Sources(tuple(sources))
    known = _stated(src.texts) + list(src.known)
    checks: list[NumberCheck] = []
    seen: set[str] = set()
    for fig in extract_figures(report_text, skip_apparatus=True):
        if fig.text in seen:
            continue
        seen.add(fig.text)
        # the closest matching figure is the one cited (the call first, then the order given)
        candidates = [k for k in known if rounds_to(fig, k.figure)]
        match = min(
            candidates,
            key=lambda k: (round(abs(k.figure.value - fig.value), 9), _RANK[k.origin]),
            default=None,
        )
        lo, hi = max(0, fig.start - 50), min(len(report_text), fig.start + len(fig.text) + 50)
        # a span only for a figure read from a text; known figures (start -1) have a detail
        span = (match.figure.start, match.figure.start + len(match.figure.text)) if (
            match is not None and match.figure.start >= 0) else (None, None)  # fmt: skip
        checks.append(
            NumberCheck(
                text=fig.text,
                value=fig.value,
                kind=fig.kind,
                grounded=match is not None,
                origin=match.origin if match else "unsupported",
                provenance=match.detail if match else None,
                source_text=match.figure.text if match else None,
                source_index=match.source_index if match else None,
                source_start=span[0],
                source_end=span[1],
                context=" ".join(report_text[lo:hi].split()),
            )
        )
    return checks
