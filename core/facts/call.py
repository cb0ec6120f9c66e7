"""The call's identity, read from the call: company, ticker when stated, the fiscal period it
reports (fiscal years that differ from the calendar included), the call date when stated, and
whether its figures are adjusted (or organic) unless it says otherwise. A user's company and
period win."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from core.facts.lexicon import metric_matches
from core.facts.outlook import PAST
from core.facts.periods import Period, mentions, parse_label
from core.facts.sentences import Sentence, figures_in

_RESULTS_WORDS = re.compile(
    r"\b(?:results?|earnings|call|conference|performance|report(?:ed|ing)?|delivered|"
    r"financial|quarter was|quarter,|we (?:grew|generated|achieved|posted|saw))\b",
    re.IGNORECASE,
)
_FORWARD = re.compile(
    r"\b(?:expects?|expected|expecting|anticipat\w+|guidance|outlook|forecast\w*|project(?:s|ed|"
    r"ing)?|will|plan(?:s|ned)? to|look(?:ing)? ahead|as we (?:enter|head into|begin)|"
    r"positioned for|going forward|next|ambitions?|goals?|targets?|"
    r"aspirations?|roadmap|commit(?:ted|ment)?|aim(?:s|ing)?|targeting|by (?:the )?(?:end of "
    r"(?:the )?)?(?:(?:first|second|third|fourth) quarter of |fiscal |fy ?)?['’]?\d{2,4})\b",
    re.IGNORECASE,
)
_COMPARED = re.compile(
    r"\b(?:compared (?:to|with)|versus|vs\.?|from|over|than|relative to|against)\s+(?:the |our |"
    r"a |an )?(?:same (?:quarter|period) (?:of |in )?)?(?:[\w$.,%']+\s+){0,3}$|['’]s$",
    re.IGNORECASE,
)
_ADJUSTED_DEFAULT = re.compile(
    r"\b(?:unless (?:otherwise )?(?:noted|stated|specified|indicated)|except (?:where|as) "
    r"(?:noted|stated|otherwise)|all (?:of )?(?:the )?(?:figures|results|numbers|references|"
    r"metrics|comparisons|financial (?:figures|results|measures))|unless (?:I|we) say otherwise)\b"
    r"[^.]{0,160}?\b(?:on an? )?"
    r"(?P<basis>adjusted|non-gaap|core|organic|operating(?= basis))\b"
    r"|\b(?P<basis2>adjusted|non-gaap|core)\b[^.]{0,60}\bunless (?:otherwise )?"
    r"(?:noted|stated|specified|indicated|(?:I|we) say otherwise)"
    # "I will discuss our results on an adjusted basis", "my comments today will reference
    # non-GAAP results": the call's basis, declared once for what follows
    r"|\b(?:I|we)(?:'ll| will| am going to| are going to| would like to)? (?:discuss|talk about|"
    r"refer to|present|review|cover|speak to|focus on)\b[^.]{0,60}?\b(?:results|figures|numbers|"
    r"performance|earnings)\b[^.]{0,20}?\bon an? (?P<basis3>adjusted|non-gaap|core) basis\b"
    r"|\bmy (?:remarks|comments)(?: today)?(?: will)? (?:reference|refer to|be on|focus on|"
    r"discuss) (?P<basis4>adjusted|non-gaap|core) (?:results|figures|measures|numbers)\b",
    re.IGNORECASE,
)
# "revenue growth rates are organic unless noted" (not "revenue growth of 4% to 6%, with
# organic growth in the mid-single digits": two measures)
_REVENUE_ORGANIC = re.compile(
    r"revenue (?:growth |comparisons? )(?:(?!\d)[^.]){0,60}\borganic\b|\borganic basis\b[^.]{0,40}"
    r"\brevenue|revenue comparisons are made on an organic basis",
    re.IGNORECASE,
)
_ADJUSTED_GUIDANCE = re.compile(
    r"\b(?:guidance|outlook)\b[^.]{0,120}\b(?:is (?:on )?(?:a )?non-gaap|(?:is|are) adjusted|"
    r"excludes?|does not include)\b|\b(?:non-gaap|adjusted) (?:guidance|outlook)\b",
    re.IGNORECASE,
)
_TICKER = re.compile(r"\b(?:NYSE|NASDAQ|Nasdaq|NYSE American|TSX|LSE)\s*:\s*(?P<t>[A-Z]{1,5})\b")
_MONTHS = [
    "january", "february", "march", "april", "may", "june",
    "july", "august", "september", "october", "november", "december",
]  # fmt: skip
_DATE = re.compile(
    r"\b(?:today|this (?:morning|afternoon|evening)),?\s+(?:\w+day,\s+)?(?P<m>"
    + "|".join(_MONTHS)
    + r")\s+(?P<d>\d{1,2})(?:st|nd|rd|th)?,\s+(?P<y>(?:19|20)\d{2})\b",
    re.IGNORECASE,
)
# "welcome to the Genesco first-quarter", "welcome to Medtronic's", "CEO of LyondellBasell"
_NAME = r"(?P<name>[A-Z][\w&.'’-]*(?:\s+(?:&\s+)?[A-Z][\w&.'’-]*){0,4})"
_COMPANY = tuple(
    re.compile(p)
    for p in (
        rf"\b[Ww]elcome to (?:the )?{_NAME}(?:'s|’s)?\s+(?:\w+[- ])?(?:\w+[- ])?(?i:quarter|"
        rf"fiscal|full|year|earnings|conference|financial|results|\d)",
        rf"\b(?:[Ww]elcome|[Tt]hank you)[^.]{{0,40}}\b(?:to|for joining) (?:the )?{_NAME}(?:'s|’s)"
        rf"\s",
        rf"\b(?:CEO|CFO|Chief (?:Executive|Financial) Officer|Chairman)[^.]{{0,30}}\bof {_NAME}",
        rf"\b{_NAME}(?:'s|’s|(?<=s)['’]) (?:(?:first|second|third|fourth)[- ]quarter|fiscal|"
        rf"full[- ]year)",
        rf"(?:^|, ){_NAME} (?:reported|delivered|posted|generated|earned) (?:[\w-]+ ){{0,4}}?"
        rf"(?:net income|earnings|revenues?|results|net sales|diluted)",
        rf"\bwith me (?:today|on the call)[^.]{{0,80}}\b{_NAME}(?:'s|’s) (?:chief|president|ceo)",
        rf"\bHead of {_NAME} Investor Relations",
        # the company as its own people name it: "I have been with Avista since 2009", "We at
        # Air Lease Corporation", "Investor Relations at Mettler Toledo" (not "the entire
        # Journeys team": a part's people say that too)
        rf"\b(?:been|worked|working) (?:with|at|for) {_NAME} (?:since|for)\b",
        rf"\b[Ww]e at {_NAME}\b",
        rf"\b(?:Investor Relations|responsibilities|role) (?:at|for) {_NAME}\b",
    )
)
_NOT_NAMES = frozenset(
    [
        "The",
        "Our",
        "We",
        "I",
        "This",
        "Today",
        "Good",
        "Thank",
        "Welcome",
        "Ladies",
        "Operator",
        "Hello",
        "Investor",
        "Relations",
        "Q1",
        "Q2",
        "Q3",
        "Q4",
        "Fiscal",
        "Chief",
        "Executive",
        "Officer",
        "Financial",
        "President",
        "Vice",
        "Senior",
        "Director",
        "Head",
        "First",
        "Second",
        "Third",
        "Fourth",
        "Full",
        "Year",
        "Full-Year",
        "Full-year",
        "Half-Year",
        "Annual",
        "Results",
        "Quarter",
        "Earnings",
        "Conference",
        "Call",
    ]
)


_AUM = re.compile(r"\bassets under (?:management|administration)\b|\bAUM\b")
_FLOWS = re.compile(r"\bnet (?:in|out)?flows\b", re.IGNORECASE)


@dataclass(frozen=True)
class CallIdentity:
    company: str | None = None
    ticker: str | None = None
    period: Period | None = None
    call_date: str | None = None
    adjusted_by_default: bool = False
    organic_revenue_by_default: bool = False
    adjusted_guidance: bool = False  # "our EPS guidance excludes non-GAAP adjustments"
    # metrics the call declares non-GAAP ("non-GAAP measures, including operating income")
    non_gaap_metrics: frozenset[str] = frozenset()
    # the metrics "all figures are adjusted unless noted" names as exceptions ("other than
    # revenue"): not adjusted
    adjusted_except: frozenset[str] = frozenset()
    # an asset manager's call (assets under management and net flows): its "organic growth" is
    # of assets, from flows, not of revenue
    flows_business: bool = False
    # qualifiers the call defines as its non-GAAP measures ("We will discuss comparable measures,
    # which exclude items affecting comparability"): "comparable EPS" is then adjusted EPS
    adjusted_words: frozenset[str] = frozenset()
    # the rule that gave the call's period ("identity.given": the user's; "identity.operator_
    # welcome", "identity.quarter_with_year", ...: core.facts.call): a row dated by the call's
    # period carries it in its chain
    period_rule: str = "identity.given"
    notes: list[str] = field(default_factory=list)

    @property
    def period_label(self) -> str | None:
        return self.period.label() if self.period is not None else None


# a person's past or other post: a director's former employer, a board member's own company
_PAST_ROLE = re.compile(
    r"\b(?:former|formerly|retired|previously|prior|past|ex-|served as|comes to our board|joins "
    r"our board|joined our board|board of directors|director)\b",
    re.IGNORECASE,
)
_COMPANY_WEIGHTS = (3, 3, 2, 2, 1, 2, 2, 1, 1, 1)  # the operator's welcome names the company surely
_OPENING_ONLY = {3, 4}  # patterns a segment matches too: only in the call's first sentences


def _company(sents: Sequence[Sentence]) -> str | None:
    """The company the call is for: names its opening patterns give ("welcome to the Genesco
    first quarter call", "CEO of LyondellBasell", "NextEra Energy delivered ... results"),
    weighted by pattern, then by how often the call says the name."""
    votes: Counter[str] = Counter()
    for i, s in enumerate(sents[:80]):
        for n, (pattern, weight) in enumerate(zip(_COMPANY, _COMPANY_WEIGHTS, strict=True)):
            if n in _OPENING_ONLY and i >= 10:
                continue  # "GDIT's first quarter", "FPL reported": later, a segment's
            for m in pattern.finditer(s.text):
                if n == 2 and _PAST_ROLE.search(s.text, 0, m.start("name")):
                    continue  # "the former Chief Financial Officer of Genuine Parts": elsewhere
                name = _clean_name(m.group("name"))
                if name:
                    votes[name] += weight
    if not votes:
        return None
    text = " ".join(s.text for s in sents)
    return max(votes, key=lambda n: (votes[n], text.count(n)))


_ORDINALS = frozenset(["First", "Second", "Third", "Fourth", "Fifth"])


def _clean_name(raw: str) -> str | None:
    words = raw.replace("’", "'").split()
    while words and words[0] in _NOT_NAMES:
        if words[0] in _ORDINALS and len(words) > 1 and words[1] not in _NOT_NAMES:
            break  # "First Harbor Bancorp", "Fifth Third": an ordinal that starts a name
        words.pop(0)
    while words and (
        words[-1].strip(".,") in _NOT_NAMES
        or words[-1].lower() in ("inc", "inc.")
        or re.fullmatch(
            r"(?i)(?:fy|q[1-4]|h[12])['’]?\d{0,4}|(?:19|20)\d{2}", words[-1].strip(".,")
        )
    ):  # "Coraline Dental Sciences Q3 FY2026"
        words.pop()
    name = re.sub(r"'s$", "", " ".join(words).rstrip(".,'"))  # "Veridian Medical's Q2 results"
    return name if len(name) >= 2 and not name.isdigit() else None


def _quarters(sents: Sequence[Sentence]) -> Counter[int]:
    """Which quarter the call reports: the one its results sentences name most, early weighing
    more, forward-looking and comparison mentions aside."""
    quarters: Counter[int] = Counter()
    for i, s in enumerate(sents):
        if _FORWARD.search(s.text):
            continue
        weight = 3 if i < 15 else 2 if i < 40 else 1
        results = 2 if _RESULTS_WORDS.search(s.text) else 1
        for m in mentions(s.text):
            if (
                m.period is not None
                and m.period.kind == "Q"
                and not _COMPARED.search(s.text[max(0, m.start - 40) : m.start])
            ):
                quarters[m.period.n] += weight * results
    return quarters


_HORIZON = re.compile(
    r"\b(?:by|through|until|till|into|beyond|before|payable in|paid in|due in)\s+(?:the\s+)?"
    r"(?:end of\s+(?:the\s+)?)?(?:fiscal\s+|fy\s*)?$",
    re.IGNORECASE,
)
_FULL_YEAR_WORDS = re.compile(r"\b(?:full[- ]year|fiscal(?: year)?|for the year|year[- ]end)\s*$",
                              re.IGNORECASE)  # fmt: skip
_FILING = re.compile(r"\b(?:form\s+10-?[kq]|10-?[kq]|annual report|proxy|filing|filed)\b", re.I)


_COMPARED_IN_CLAUSE = re.compile(
    r"\b(?:compar\w*|versus|vs\.?|year[- ]ago|prior[- ]year|last year|below|above|greater than|"
    r"less than|higher than|lower than|better than|worse than|in line with|since|relative to|"
    r"over the|from the|up from|down from|against|pre-pandemic|pre-covid|two years ago|"
    r"reminder|delivery|completion)\b",
    re.IGNORECASE,
)
_REPORTED = re.compile(
    r"\b(?:results?|report(?:ed|ing)?|deliver(?:ed)?|earnings|performance|posted|generated|"
    r"achieved)\b",
    re.IGNORECASE,
)
# "35% of second-quarter 2019 levels", "off a 2020 base": a period as a yardstick
_YARDSTICK_AFTER = re.compile(r"\s*(?:levels?|base|baseline|peak|comparisons?)\b", re.I)
# "To level set, Q3 2020 SG&A of $65 million was abnormally low": an earlier period as a base
_YARDSTICK_SENTENCE = re.compile(
    r"\blevel[- ]set\b|\b(?:abnormally|unusually|exceptionally) (?:low|high|strong|weak)\b|"
    r"\b(?:tough|tougher|easy|easier|difficult) (?:comps?|comparisons?)\b",
    re.IGNORECASE,
)


def _stated_year(sents: Sequence[Sentence], n: int | None) -> tuple[int | None, str]:
    """The fiscal year of the call's quarter `n` (None: a full-year call), only from words that
    state the reported period: a results sentence naming the quarter with its year ("we
    reported third quarter 2021 FFO per share of $0.57"; the latest, since a results sentence
    never names a later year's same quarter), one naming the quarter and one fiscal year
    ("fiscal '22 is off to a strong start with the first quarter"), or, on a fourth-quarter or
    full-year call, one reporting the full year ("Fiscal '22 was another record year", "our
    full-year 2020 results"). A comparison ("31% below the second quarter of 2019"), a horizon
    ("through the second quarter of 2026"), a plan or outlook, a filing ("our 2020 annual
    report on Form 10-K"), a calendar quarter or a date state nothing about the call: with only
    those, the year is not stated (None)."""
    bound: set[int] = set()
    reported: set[int] = set()  # bound in a sentence that reports ("we reported ...")
    full_year: Counter[int] = Counter()
    paired: set[int] = set()
    for i, s in enumerate(sents):
        if _FORWARD.search(s.text) or _FILING.search(s.text):
            continue
        past = bool(PAST.search(s.text))
        quarters_here: list[int] = []  # where the call's quarter is named without a year
        years_here: dict[int, int] = {}  # fiscal year -> where
        for m in mentions(s.text):
            p = m.period
            if p is None:
                continue
            before = s.text[max(0, m.start - 40) : m.start]
            clause = s.text[s.text.rfind(";", 0, m.start) + 1 : m.start]
            after = s.text[m.end : m.end + 12]
            if (
                re.search(r"\bcalendar\b", before[-25:] + m.text, re.I)
                or _HORIZON.search(before)
                or _COMPARED.search(before)
                or _COMPARED_IN_CLAUSE.search(clause)
                or _YARDSTICK_AFTER.match(after)
            ):
                continue
            if p.kind == "Q" and p.n == n and p.year is None:
                quarters_here.append(m.start)
            if p.year is None:
                continue
            if (
                p.kind == "Q"
                and p.n == n
                and (i < 10 or _REPORTED.search(s.text) or past or figures_in(s.text))
                and not _YARDSTICK_SENTENCE.search(s.text)
            ):  # "Free cash flow was $79.2 million in the third quarter of fiscal 2021"
                bound.add(p.year)
                if _REPORTED.search(s.text):
                    reported.add(p.year)
            elif p.kind == "FY":
                years_here[p.year] = m.start
                if n in (4, None) and (
                    (past and (_FULL_YEAR_WORDS.search(before) or "fiscal" in m.text.lower()))
                    or re.match(r"\s+results\b", after, re.I)
                ):
                    full_year[p.year] += 1
        # "fiscal '22 is off to a strong start with the first quarter": the quarter and one
        # fiscal year in one clause (not "At the end of 2020, we announced ..., and during the
        # second quarter, we purchased ...")
        if len(years_here) == 1 and any(
            not re.search(r"[,;]", s.text[min(q, at) : max(q, at)])
            for q in quarters_here
            for at in years_here.values()
        ):
            paired |= set(years_here)
    if bound:
        # the latest (a results sentence never names a later year's same quarter), among the
        # sentences that report first ("on budget for Q2 or Q3 2023 delivery" does not)
        return max(reported or bound), "identity.quarter_with_year"
    top = full_year.most_common(2)
    if top and (len(top) == 1 or top[0][1] > top[1][1]):
        return top[0][0], "identity.full_year_reported"  # the year a Q4 call reports most
    if len(paired) == 1:
        return next(iter(paired)), "identity.quarter_and_fiscal_year"
    return None, "identity.year_not_stated"


_OPENING = re.compile(
    r"\b(?:welcome|conference call|(?:earnings|results) (?:conference )?call|call to discuss)\b",
    re.I,
)


def _opening_period(sents: Sequence[Sentence]) -> Period | None:
    """ "Welcome to the Calloway Specialty Materials Fourth Quarter Fiscal 2025 Earnings Call":
    the quarter and year the operator's welcome names, when it names exactly one with its year
    (later sentences name other periods: "payable in the first quarter of fiscal 2026")."""
    for s in sents[:4]:
        if not _OPENING.search(s.text):
            continue
        named = {m.period for m in mentions(s.text) if m.period is not None}
        quarters = {p for p in named if p.kind == "Q" and p.year is not None}
        if len(quarters) == 1 and not {p for p in named if p.kind == "FY"} - {
            Period("FY", 0, next(iter(quarters)).year)
        }:
            return quarters.pop()
        # "the Fourth Quarter and Full Year 2025 Earnings Conference Call": the year is said once,
        # after the full year; the quarter is that year's
        yearless = {p for p in named if p.kind == "Q" and p.year is None}
        years = {p.year for p in named if p.kind == "FY" and p.year is not None}
        if not quarters and len(yearless) == 1 and len(years) == 1:
            return Period("Q", next(iter(yearless)).n, years.pop())
    return None


def call_period(sents: Sequence[Sentence]) -> Period | None:
    """The fiscal period the call reports (see `call_period_named`)."""
    return call_period_named(sents)[0]


def call_period_named(sents: Sequence[Sentence]) -> tuple[Period | None, str]:
    """The fiscal period the call reports: the quarter its operator's welcome names, else the
    quarter its results sentences name most, with the year the words state (see `_stated_year`:
    None when no words state it); a full-year call when it names no quarter but its full-year
    results."""
    opening = _opening_period(sents)
    if opening is not None:
        return opening, "identity.operator_welcome"
    quarters = _quarters(sents)
    n = quarters.most_common(1)[0][0] if quarters else None
    year, how = _stated_year(sents, n)
    if n is None:
        full_year = any(
            re.search(
                r"\b(?:full[- ]year|fiscal (?:year )?(?:19|20)?\d{2}) results\b", s.text, re.I
            )
            for s in sents[:40]
        )
        return (Period("FY", 0, year), how) if full_year and year is not None else (None, how)
    return Period("Q", n, year), how


_EXCEPT = re.compile(r"\b(?:other than|except(?: for)?|excluding)\s+(?P<what>[^.;]{3,80}?)\s+"
                     r"(?:are|is|were)\b", re.IGNORECASE)  # fmt: skip
_NON_GAAP_LIST = re.compile(
    r"\bnon-gaap (?:financial )?measures?,?\s+(?:including|such as|like|namely)\s+"
    r"(?P<a>[^.;]{3,160})|(?P<b>[^.;]{3,120}?)\s+(?:is|are) (?:a |both )?non-gaap "
    r"(?:financial )?measures?",
    re.IGNORECASE,
)


_LISTED_DEFAULT = re.compile(
    r"^\W*(?:unless (?:otherwise )?(?:noted|stated|specified|indicated)|unless (?:I|we) say "
    r"otherwise),?\s+(?P<what>(?:(?!\b(?:all|including|such as|our results|figures)\b)[^.;])"
    r"{3,140}?)\s+(?:are|is)\s+(?:presented |stated |discussed )?(?:on an? )?"
    r"(?:adjusted|non-gaap|core)\b",
    re.IGNORECASE,
)


_DECLARED_QUALIFIER = re.compile(
    r"\b(?P<q>comparable|underlying|recurring)\s+(?:financial\s+)?(?:measures|results|figures|"
    r"metrics|numbers|basis)\b,?\s+(?:which|that)?\s*(?:excludes?|excluding|adjusts? for|"
    r"(?:are|is) (?:a )?non-gaap)\b",
    re.IGNORECASE,
)


def _non_gaap_metrics(text: str) -> frozenset[str]:
    """The metrics the opening declares non-GAAP: their unqualified figures are adjusted."""
    found: set[str] = set()
    # every match lies within one stretch between stops ("." or ";": neither alternative can
    # cross one) and names "non-GAAP": only those stretches are searched, with the same matches
    stretches = (p for p in re.split(r"[.;]", text) if "non-gaap" in p.lower())
    for m in (m for p in stretches for m in _NON_GAAP_LIST.finditer(p)):
        words = m.group("a") or m.group("b") or ""
        words = re.split(r"\b(?:which|that|where|because)\b", words, maxsplit=1)[0]
        # "non-GAAP measures, including adjusted operating ratio and adjusted EPS": the plain
        # operating ratio and EPS are then the GAAP ones; only a measure listed bare is non-GAAP
        found.update(
            x.metric.name
            for x in metric_matches(words)
            if not re.search(
                r"\b(?:adjusted|non-gaap|core|normalized)\s+(?:(?:diluted|basic|net|operating|"
                r"gross|free)\s+)*$",
                words[: x.start],
                re.I,
            )  # "adjusted diluted EPS" keeps plain diluted EPS GAAP
        )
    # revenue is not adjusted by being named; free cash flow and EBITDA are non-GAAP by
    # definition, and a call that lists them among its non-GAAP measures does not make them
    # "adjusted free cash flow" or "adjusted EBITDA" (other measures, named as such)
    return frozenset(found - {"revenue", "free_cash_flow", "ebitda", "ebitda_margin"})


def identify(
    sents: Sequence[Sentence],
    *,
    company: str | None = None,
    ticker: str | None = None,
    period: str | None = None,
) -> CallIdentity:
    """The call's identity from its text; what the user stated (company, ticker, period)
    wins."""
    notes: list[str] = []
    text = " ".join(s.text for s in sents[:80])
    found_company = _company(sents)
    tickers = {m.group("t") for m in _TICKER.finditer(text)}
    found_period, period_rule = call_period_named(sents)
    user_period = parse_label(period)
    if user_period is not None:
        if user_period.year is None and found_period is not None:
            user_period = Period(user_period.kind, user_period.n, found_period.year)
        chosen: Period | None = user_period
        period_rule = "identity.given"
    else:
        chosen = found_period
    if chosen is None:
        notes.append("period: the call does not say which quarter or year it reports")
    elif chosen.year is None:
        notes.append(f"period: the call names {chosen.kind}{chosen.n or ''} but not its year")
    if not (company or found_company):
        notes.append("company: the call does not name the company in its opening")
    names = {_clean_name(m.group("name")) for s in sents[:60] for p in _COMPANY
             for m in p.finditer(s.text)} - {None}  # fmt: skip
    if company is None and len(names) > 1 and found_company is not None:
        others = sorted(n for n in names if n and n not in found_company and found_company not in n)
        if others:
            notes.append(f"company: the opening also names {', '.join(others[:3])}")
    date = _DATE.search(text)
    call_date = None
    if date:
        month = _MONTHS.index(date.group("m").lower()) + 1
        call_date = f"{date.group('y')}-{month:02d}-{int(date.group('d')):02d}"
    adjusted = _ADJUSTED_DEFAULT.search(text)
    basis = (
        (adjusted.group("basis") or adjusted.group("basis2") or adjusted.group("basis3")
         or adjusted.group("basis4") or "").lower()
        if adjusted
        else ""
    )  # fmt: skip
    # "Unless otherwise noted, gross margin, operating expenses, operating margin and earnings per
    # share are on a non-GAAP basis": the default covers the measures it lists, no others
    listed = _LISTED_DEFAULT.search(adjusted.group(0)) if adjusted is not None else None
    scope = (
        frozenset(x.metric.name for x in metric_matches(listed.group("what")))
        if listed is not None and basis in ("adjusted", "non-gaap", "core")
        else frozenset()
    )
    return CallIdentity(
        company=company or found_company,
        ticker=ticker or (next(iter(tickers)) if len(tickers) == 1 else None),
        period=chosen,
        period_rule=period_rule,
        call_date=call_date,
        adjusted_by_default=basis in ("adjusted", "non-gaap", "core") and not scope,
        organic_revenue_by_default=bool(_REVENUE_ORGANIC.search(text))
        or any(
            (m.group("basis") or "").lower() == "organic" for m in _ADJUSTED_DEFAULT.finditer(text)
        ),
        adjusted_guidance=bool(_ADJUSTED_GUIDANCE.search(" ".join(s.text for s in sents)))
        or basis in ("adjusted", "non-gaap", "core"),
        non_gaap_metrics=_non_gaap_metrics(text) | scope,
        adjusted_except=frozenset(
            x.metric.name
            for m in _EXCEPT.finditer(adjusted.group(0) if adjusted else "")
            for x in metric_matches(m.group("what"))
        ),
        flows_business=bool(_AUM.search(text) and _FLOWS.search(text)),
        adjusted_words=frozenset(m.group("q").lower() for m in _DECLARED_QUALIFIER.finditer(text)),
        notes=notes,
    )
