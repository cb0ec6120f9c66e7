"""A figure's unit and whether it fits a metric (revenue is money; a margin is a percent; a
change may be points or basis points), and a sentence's figures with ranges joined ("$6.15
billion to $6.21 billion", "between $1.10 and $1.20") and worded ranges ("low teens")."""

from __future__ import annotations

import re

from core.facts.lexicon import Metric
from core.facts.memo import memoized
from core.facts.sentences import figures_in
from core.grounding import Figure

_BPS = re.compile(r"basis points?|bps|points?\b", re.IGNORECASE)
_PERCENT_POINTS = re.compile(r"^\s*(?:percentage )?points?\b", re.IGNORECASE)


def unit_of(fig: Figure, sentence: str) -> str:
    after = sentence[fig.start + len(fig.text) : fig.start + len(fig.text) + 25]
    head = _PLUS_MINUS.split(fig.text, maxsplit=1)[0]  # "58.5%, plus or minus 50 basis points"
    if _BPS.search(head) and re.search(r"basis|bps", head, re.I):
        return "bps"
    if fig.kind == "plain" and _PERCENT_POINTS.match(after):
        return "percent"
    if fig.kind == "percent":
        return "percent"
    if fig.kind != "money" and re.match(
        r"\s*(?:[\w-]+\s+)?(?:shares|units|customers|members|"
        r"subscribers|accounts|employees|users|carloads|vehicles|deliveries|transactions)\b",
        after,
        re.I,
    ):
        return "number"  # "1.2 million shares": a count, not an amount
    if fig.kind != "money" and _VOLUME.match(after):
        return "number"  # "3.2 million tonnes": a volume, not an amount
    if fig.kind == "money" or re.search(r"(?:million|billion|thousand|trillion)\b", fig.text, re.I):
        return "money"
    return "number"


_VOLUME = re.compile(
    r"\s*(?:million |billion |thousand )?(?:barrels of oil equivalent|bcfe?|mmcfe?|mcfe?|mmbtu|"
    r"bbls?|barrels|boe|mboe|"
    r"mmboe|tons|tonnes|metric tons|units|ounces|oz|megawatts|mw|gw|gigawatts|pounds|lbs|"
    r"gallons|cubic feet)\b",
    re.IGNORECASE,
)


def with_volume_unit(fig: Figure, sentence: str) -> str:
    """A volume with its unit as the call states it: "3 Bcfe per day", "2,160 megawatts"."""
    end = fig.start + len(fig.text)
    unit = _VOLUME.match(sentence, end)
    if unit is None:
        return fig.text
    rate = re.match(r"\s+(?:per|a) (?:day|week|month|quarter|year)\b", sentence[unit.end() :], re.I)
    return sentence[fig.start : unit.end() + (rate.end() if rate else 0)]


def fits(metric: Metric, unit: str, role: str, fig: Figure, after: str = "") -> bool:
    """A level of revenue is money, of a margin a percent; a change may be a percent of either
    (or points / basis points of a rate)."""
    if role == "change":
        if unit == "bps":
            return metric.level == "rate"
        if unit == "money":
            return metric.level in ("money", "per_share")
        return unit == "percent"
    level = metric.level
    if is_breakeven(fig):
        return unit == "money" and level in ("money", "per_share")
    if level == "money":
        return unit == "money" and abs(fig.value) >= 1000
    if level == "per_share":
        return unit == "money" and abs(fig.value) < 1000
    if level == "rate":
        return unit == "percent"
    if level == "volume":
        return unit == "number" and bool(_VOLUME.match(after))  # at the start of `after`
    if level == "multiple":
        return unit == "number" and bool(re.match(r"^\s*(?:times|x)\b", after, re.I))
    # a count: "1.9 million" carloads or members is a number, not money (no currency sign)
    return unit == "number" or (unit == "money" and fig.kind != "money")


_RANGE_JOIN = re.compile(r"^\s*(?:to|-|–|—|and|through)\s*$", re.IGNORECASE)


_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")


WORDED = re.compile(
    r"\b(?P<q>(?:(?:low|mid|high|upper)(?:[- ]to[- ](?:low|mid|high|upper))?[- ](?:single|double)"
    r"[- ]digits?|(?:low|mid|high|upper)(?:[- ]to[- ](?:low|mid|high|upper))?[- ]"
    r"(?:teens|twenties|thirties)|double[- ]digits?|"
    r"single[- ]digits?))\b(?:\s*(?:percent|%))?",
    re.IGNORECASE,
)


_WORDED_BOUNDS = {
    "low single": (1, 3), "mid single": (4, 6), "high single": (7, 9), "upper single": (7, 9),
    "low double": (10, 13), "double": (10, 19), "single": (1, 9), "low teens": (11, 13),
    "mid teens": (14, 16), "high teens": (17, 19), "upper teens": (17, 19),
    "low twenties": (20, 23), "mid twenties": (24, 26), "high twenties": (27, 29),
    "low thirties": (30, 33), "mid thirties": (34, 36), "high thirties": (37, 39),
}  # fmt: skip


# a level of zero in words: an income or cash flow "around breakeven"
_BREAKEVEN = re.compile(r"\b(?:break[- ]?even)\b(?![- ](?:point|level|price|rate)s?\b)", re.I)


_FLAT = re.compile(
    r"\b(?:was|were|is|are|remained|remains|came in|been|be|stayed)\s+(?:essentially |roughly |"
    r"about |relatively |basically |largely )?(?P<f>flat)\b(?!\s*(?:rate|fee|screen|panel|glass|"
    r"to (?:down|up|slightly)))",
    re.IGNORECASE,
)


def is_flat(fig: Figure) -> bool:
    return fig.value == 0 and fig.text.lower() == "flat"


def is_breakeven(fig: Figure) -> bool:
    return fig.value == 0 and bool(_BREAKEVEN.fullmatch(fig.text))


_PLUS_MINUS = re.compile(r"\s*,?\s*(?:plus or minus|\+/-|±)\s*", re.IGNORECASE)


def worded_bounds(phrase: str) -> tuple[float, float] | None:
    words = re.sub(r"[- ]+", " ", phrase.lower()).replace(" digits", "").replace(" digit", "")
    words = words.replace(" percent", "").replace("%", "").strip()
    if " to " in words:  # "mid to high single"
        first, rest = words.split(" to ", 1)
        tail = rest.split(" ", 1)
        lo = _WORDED_BOUNDS.get(f"{first} {tail[1]}" if len(tail) > 1 else first)
        hi = _WORDED_BOUNDS.get(rest)
        return (lo[0], hi[1]) if lo and hi else None
    return _WORDED_BOUNDS.get(words)


def _scale(fig: Figure) -> float:
    m = _NUMBER.search(fig.text)
    number = float(m.group(0).replace(",", "")) if m else 0.0
    return fig.value / number if number else 1.0


def signed(high: float, low_signed: float) -> float:
    return -abs(high) if low_signed < 0 else high


@memoized
def units(sentence: str, forward: bool) -> tuple[list[Figure], dict[int, float], set[int]]:
    """The sentence's figures with ranges joined ("$6.15 billion to $6.21 billion", "5% to
    7%", "between $1.10 and $1.20"; not "from 44% to 45%"), and, when forward-looking, worded
    ranges ("low teens"). Returns the figures, each range's upper bound by start, and the
    starts of worded ones."""
    figs = figures_in(sentence)
    out: list[Figure] = []
    highs: dict[int, float] = {}
    i = 0
    while i < len(figs):
        a = figs[i]
        b = figs[i + 1] if i + 1 < len(figs) else None
        ranged = forward or re.search(r"\b(?:between|range of|ranging from|range)\s*$",
                                      sentence[: a.start], re.I)  # fmt: skip
        joined = (
            b is not None
            and bool(ranged)
            and bool(_RANGE_JOIN.match(sentence[a.start + len(a.text) : b.start]))
            and not re.search(r"\bfrom\s*(?:approximately |about )?$", sentence[: a.start], re.I)
            and (a.kind == b.kind or a.kind == "plain")
        )
        pm = (
            b is not None
            and a.kind == b.kind
            and _PLUS_MINUS.fullmatch(sentence[a.start + len(a.text) : b.start]) is not None
        )
        if pm and b is not None:  # "$4.05 billion, plus or minus $100 million": a range
            out.append(Figure(sentence[a.start : b.start + len(b.text)],
                              round(a.value - b.value, 9), a.kind, a.tolerance,
                              a.start))  # fmt: skip
            highs[a.start] = round(a.value + b.value, 9)
            i += 2
            continue
        to_flat = re.match(r"\s+to\s+flat\b", sentence[a.start + len(a.text) :], re.I)
        if forward and a.kind == "percent" and to_flat is not None and not joined:
            # "volumes to be down 0.5% to flat": a range whose other end is no change
            out.append(Figure(sentence[a.start : a.start + len(a.text) + to_flat.end()],
                              a.value, a.kind, a.tolerance, a.start))  # fmt: skip
            highs[a.start] = 0.0
            i += 1
            continue
        if joined and b is not None:
            if " and " in sentence[a.start + len(a.text) : b.start] and not re.search(
                r"\bbetween\s*$", sentence[: a.start], re.I
            ):
                out.append(a)
                i += 1
                continue
            low = a.value
            if _scale(a) == 1.0 and _scale(b) != 1.0:
                low = a.value * _scale(b)
            text = sentence[a.start : b.start + len(b.text)]
            out.append(Figure(text, low, b.kind, b.tolerance, a.start))
            highs[a.start] = b.value
            i += 2
            continue
        out.append(a)
        i += 1
    worded: set[int] = set()
    if forward:
        for m in WORDED.finditer(sentence):
            bounds = worded_bounds(m.group("q"))
            if bounds is None or any(f.start <= m.start() < f.start + len(f.text) for f in out):
                continue
            out.append(Figure(m.group(0), float(bounds[0]), "percent", 0.0, m.start()))
            highs[m.start()] = float(bounds[1])
            worded.add(m.start())
    for m in _FLAT.finditer(sentence):  # "organic growth was flat": a change of zero
        if not any(f.start <= m.start("f") < f.start + len(f.text) for f in out):
            out.append(Figure("flat", 0.0, "percent", 0.0, m.start("f")))
            worded.add(m.start("f"))
    if forward:
        for m in _BREAKEVEN.finditer(sentence):  # "operating income to be around breakeven"
            if not any(f.start <= m.start() < f.start + len(f.text) for f in out):
                out.append(Figure(m.group(0), 0.0, "money", 0.0, m.start()))
                worded.add(m.start())
    out.sort(key=lambda f: f.start)
    return out, highs, worded
