"""Periods: the words a call uses for them ("the second quarter of 2020", "fiscal '22",
"year-to-date", "a year ago", "sequentially"), resolved against the call's own period into the
company's fiscal labels ("Q2 2020", "FY 2022", "9M 2021")."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache

from core.facts.memo import memoized

_ORD = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4}
_ORD_RE = r"first|second|third|fourth|1st|2nd|3rd|4th"
_YEAR = r"(?:19|20)\d{2}|['’]\d{2}"
_FYEAR = r"(?:19|20)\d{2}|['’]?\d{2}(?![\d%]|[.,]\d)"  # after "fiscal"/"FY" a bare "22" is a year


@dataclass(frozen=True)
class Period:
    """Q1-Q4, H1-H2, 9M/6M (year-to-date) or FY of a (fiscal) year; `year` None when unknown."""

    kind: str  # "Q" | "H" | "9M" | "6M" | "FY"
    n: int = 0
    year: int | None = None

    def label(self) -> str | None:
        if self.year is None:
            return None
        head = f"{self.kind}{self.n}" if self.kind in ("Q", "H") else self.kind
        return f"{head} {self.year}"

    def prior_year(self) -> Period:
        return replace(self, year=None if self.year is None else self.year - 1)

    def prior_quarter(self) -> Period:
        if self.kind != "Q" or self.year is None:
            return self
        return Period("Q", 4, self.year - 1) if self.n == 1 else Period("Q", self.n - 1, self.year)


@dataclass(frozen=True)
class Mention:
    """Period words in a text: an absolute period (its year may be missing), or a relative one
    (`rel`: current quarter, prior quarter, prior year, this year, next year, next quarter,
    year-to-date, rest of the year)."""

    start: int
    end: int
    text: str
    period: Period | None = None
    rel: str | None = None

    @property
    def is_base(self) -> bool:
        """Words that name what a figure is compared with, not the figure's own period."""
        return self.rel in ("prior_q", "prior_y")


def _year(raw: str | None) -> int | None:
    if not raw:
        return None
    raw = raw.lstrip("'’")
    return int(raw) if len(raw) == 4 else 2000 + int(raw)


_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(p, re.IGNORECASE))
    for name, p in (
        # "fiscal 2022 third quarter", "fiscal '22 first-quarter"
        ("fq", rf"\b(?:fiscal|fy)\s*(?:year\s+)?(?P<y>{_FYEAR})\s+(?P<o>{_ORD_RE})[- ]quarter\b"),
        # "NextEra Energy's 2021 third quarter adjusted earnings"
        ("fq", rf"(?<![$\d.,])\b(?P<y>(?:19|20)\d{{2}})\s+(?P<o>{_ORD_RE})[- ]quarter\b"),
        # "the third quarter of fiscal 2021", "first-quarter fiscal 2022", "fourth quarter 2020"
        (
            "q",
            rf"\b(?P<o>{_ORD_RE})[- ](?:fiscal[- ])?quarter\b(?:\s*(?:of\s+)?(?:(?:fiscal|fy)"
            rf"\s*(?:year\s+)?(?P<fy>{_FYEAR})|(?P<y>{_YEAR})\b))?",
        ),
        # Q3 2021, Q3 '21, Q3 FY22, 3Q21
        (
            "qq",
            rf"\bF?Q(?P<n>[1-4])\b(?:\s*(?:of\s+)?(?:(?:fiscal|fy)\s*(?P<fy>{_FYEAR})|"
            rf"(?P<y>{_YEAR})\b))?",
        ),
        ("nq", r"\b(?P<n>[1-4])Q\s?(?P<y>(?:19|20)?\d{2})?\b"),
        # first half of 2021, second half, H2 2021
        (
            "h",
            rf"\b(?P<o>first|second|1st|2nd|back|front)[- ]half\b(?:\s+of\s+(?:the\s+)?"
            rf"(?:(?:fiscal\s+)?(?:year\s+)?(?P<y>{_YEAR})\b|year\b))?",
        ),
        ("hh", rf"\b(?:H(?P<n>[12])|(?P<m>[12])H)\b\s*(?P<y>{_YEAR}|(?:19|20)?\d{{2}})?"),
        (
            "ytd",
            r"\b(?:year[- ]to[- ]date|ytd|so far this year|(?:first|past) (?P<w>nine|six) "
            r"months|(?P<w2>nine|six) months ended|through the first (?P<w3>three|two) "
            rf"quarters)\b(?: (?:of|in) (?:fiscal |fy ?)?(?:year )?(?P<y>{_FYEAR})\b)?",
        ),
        # full year 2021, fiscal '22, fiscal year 2021, FY22, fiscal 2021
        (
            "fy",
            rf"\b(?:full[- ](?:fiscal[- ])?year|fiscal[- ]year|fiscal|fy)\s*(?:of\s+)?"
            rf"(?P<y>{_FYEAR})\b",
        ),
        (
            "fy_cur",
            r"\b(?:(?:the|this|for the|full|current)[- ](?:fiscal[- ])?year|full[- ]year|"
            r"fiscal[- ]year|annual(?:ly)?)\b(?![- ](?:ago|over|on|to[- ]date|earlier)\b)"
            # "annual recurring revenue", "annual run rate", "annual contract value": a measure
            r"(?!\s+(?:recurring|run[- ]rate|contract|subscription))",
        ),
        ("next_y", r"\b(?:next|coming|following) (?:fiscal )?year\b"),
        ("next_q", r"\b(?:next|coming|following) quarter\b"),
        ("rest", r"\b(?:remainder|rest|balance) of (?:the|this) (?:fiscal )?year\b"),
        (
            "prior_q",
            r"\b(?:prior|previous|last|preceding|linked|sequential)[- ]quarter\b|"
            r"\bsequential(?:ly)?\b|\bquarter[- ](?:over|on)[- ]quarter\b|\bq-?o-?q\b",
        ),
        (
            "prior_y",
            r"\b(?:(?:a|one) year ago|year[- ]ago|last year|prior[- ]year|previous year|"
            r"same (?:quarter|period)(?: of| in| a)? (?:the )?(?:last|prior|previous) "
            r"year|year[- ](?:over|on)[- ]year|y-?o-?y)\b",
        ),
        ("cur_q", r"\b(?:this|the|current|latest|most recent) quarter\b"),
        # "in '21", "by '25": an abbreviated year after a preposition
        ("year2", r"\b(?:in|for|during|by|through)\s+['’](?P<y>\d{2})\b(?![\d%]|[.,]\d)"),
        # a bare year: "in 2020", "2021 guidance"
        ("year", r"(?<![$\d.,])\b(?P<y>(?:19|20)\d{2})\b(?![\d.,]*\s*(?:%|percent))"),
    )
)


_DATE_BEFORE = re.compile(
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?,?\s*$"
    r"|\b\d{1,2}/(?:\d{1,2}/)?$",
    re.IGNORECASE,
)


@memoized
def mentions(text: str) -> list[Mention]:
    """Every period phrase in `text`, longest first where they overlap, in text order."""
    return list(_mentions(text))


@lru_cache(maxsize=16384)  # a call asks about the same sentences and clauses many times
def _mentions(text: str) -> tuple[Mention, ...]:
    found: list[Mention] = []
    taken: list[tuple[int, int]] = []
    for name, pattern in _PATTERNS:
        for m in pattern.finditer(text):
            a, b = m.span()
            if any(a < y and x < b for x, y in taken):
                continue
            if name == "year" and _DATE_BEFORE.search(text, max(0, a - 30), a):
                continue  # "October 29th, 2021": a date, not a fiscal year
            if name in ("q", "qq") and (
                re.match(r"\s+in a row\b", text[b:])
                or re.search(r"\bconsecutive\s+$", text[max(0, a - 14) : a], re.I)
            ):
                continue  # "for the second quarter in a row": a count, not a period
            mention = _mention(name, m)
            if mention is not None:
                found.append(mention)
                taken.append((a, b))
    return tuple(sorted(found, key=lambda x: x.start))


def _mention(name: str, m: re.Match[str]) -> Mention | None:
    g = m.groupdict()
    a, b, text = m.start(), m.end(), m.group(0)
    if name in ("fq", "q"):
        year = _year(g.get("y") or g.get("fy"))
        return Mention(a, b, text, Period("Q", _ORD[g["o"].lower()], year))
    if name in ("qq", "nq"):
        raw = g.get("y") or g.get("fy")
        return Mention(a, b, text, Period("Q", int(g["n"]), _year(raw)))
    if name == "h":
        o = g["o"].lower()
        return Mention(a, b, text, Period("H", 1 if o in ("first", "1st", "front") else 2,
                                          _year(g.get("y"))))  # fmt: skip
    if name == "hh":
        return Mention(
            a, b, text, Period("H", int(g.get("n") or g.get("m") or 1), _year(g.get("y")))
        )
    if name == "ytd":
        w = (g.get("w") or g.get("w2") or g.get("w3") or "").lower()
        kind = "6M" if w in ("six", "two") else "9M" if w in ("nine", "three") else "YTD"
        year = _year(g.get("y"))
        if kind != "YTD" and year is not None:  # "the first nine months of fiscal 2025"
            return Mention(a, b, text, Period(kind, 0, year))
        return Mention(a, b, text, rel="ytd", period=Period(kind) if kind != "YTD" else None)
    if name == "fy":
        return Mention(a, b, text, Period("FY", 0, _year(g["y"])))
    if name == "year":
        return Mention(a, b, text, Period("FY", 0, int(g["y"])))
    if name == "year2":
        return Mention(a, b, text, Period("FY", 0, _year(g["y"])))
    return Mention(a, b, text, rel={"fy_cur": "this_y"}.get(name, name))


def resolve(mention: Mention, call: Period | None, *, forward: bool = False) -> Period | None:
    """The period a mention names, given the call's (fiscal) period; None when it cannot tell."""
    p, rel = mention.period, mention.rel
    cy = call.year if call is not None else None
    if rel == "cur_q":
        if forward and call is not None and call.kind == "Q" and call.year is not None:
            # an outlook "for the quarter" is the quarter it guides: the next one
            return (
                Period("Q", 1, call.year + 1) if call.n == 4 else Period("Q", call.n + 1, call.year)
            )
        return call
    if rel == "prior_q":
        return call.prior_quarter() if call is not None else None
    if rel == "prior_y":
        return call.prior_year() if call is not None else None
    if rel in ("this_y", "rest"):
        if cy is not None and forward and call is not None and call.kind == "Q" and call.n == 4:
            return Period("FY", 0, cy + 1)  # a Q4 call's outlook "for the full year": the next
        return Period("FY", 0, cy) if cy is not None else None
    if rel == "next_y":
        return Period("FY", 0, cy + 1) if cy is not None else None
    if rel == "next_q":
        if call is None or call.year is None:
            return None
        return Period("Q", 1, call.year + 1) if call.n == 4 else Period("Q", call.n + 1, call.year)
    if rel == "ytd":
        if call is None or call.year is None or call.kind != "Q":
            return None
        kind = p.kind if p is not None else {2: "6M", 3: "9M", 4: "FY"}.get(call.n)
        if kind is None:
            return None
        return Period("H", 1, call.year) if kind == "6M" else Period(kind, 0, call.year)
    if p is None:
        return None
    if p.year is not None:
        return p
    if cy is None or call is None:
        return None
    if p.kind == "Q":
        if forward:
            # an outlook's "first quarter" on a third-quarter call is next year's; its "third
            # quarter" is the one just reported (a reason: "the third quarter's outperformance
            # flows through"), not next year's
            return replace(p, year=cy if p.n >= call.n else cy + 1)
        return replace(p, year=cy if p.n <= call.n else cy - 1)
    if p.kind == "H":
        if forward and call.kind == "Q" and p.n == 1 and call.n >= 2:
            return replace(p, year=cy + 1)
        return replace(p, year=cy)
    return replace(p, year=cy)


def parse_label(label: str | None) -> Period | None:
    """ "Q3 2021", "FY 2021", "H1 2021", "9M 2021", "Q3" (from a user's --period, too:
    "Q3 2021", "3Q21", "fiscal 2022 third quarter")."""
    if not label:
        return None
    m = re.fullmatch(r"\s*(Q[1-4]|H[12]|9M|6M|FY)\s*(\d{4})?\s*", label, re.IGNORECASE)
    if m:
        head = m.group(1).upper()
        year = int(m.group(2)) if m.group(2) else None
        if head in ("9M", "6M", "FY"):
            return Period(head, 0, year)
        return Period(head[0], int(head[1]), year)
    if re.fullmatch(r"\s*[QH]\d+\s*(?:\d{4})?\s*", label, re.IGNORECASE):
        return None  # "Q5 2026", "H3": no such period (not the year it names)
    found = [x.period for x in mentions(label) if x.period is not None]
    quarter = next((p for p in found if p.kind == "Q"), None)
    year = next((p.year for p in found if p.year is not None), None)
    if quarter is not None:
        return replace(quarter, year=quarter.year or year)
    return found[0] if found else None
