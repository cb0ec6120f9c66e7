"""Attribution by clause: for each figure of a sentence, the metric, segment, basis, period and
role that the words bound to it give, or nothing when those words do not settle it.

"Revenue was $108 million, an increase from $81 million in the second quarter of 2020": $108
million is the current quarter's revenue (result), $81 million is the comparison (Q2 2020).
"Licensed brands revenue was up 122%" is a segment's growth (change), never the level of revenue.
A figure is bound to a metric only through a short run of connecting words ("was", "of",
"increased 9% to", period words); anything else between them (another metric, a verb that
starts a new thought, a clause mark) and the figure is left out. Precision before recall."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from core.facts.call import CallIdentity
from core.facts.lexicon import METRIC_BY_NAME, Metric, MetricMatch, metric_matches
from core.facts.outlook import FORWARD, PAST
from core.facts.periods import Mention, Period, mentions, resolve
from core.facts.segments import (
    COMPANY_CUE,
    GEO,
    NOT_SEGMENT,
    SEGMENT_AFTER,
    SEGMENT_AT,
    SEGMENT_CALLED,
    SEGMENT_NAMED,
    SEGMENT_OPENER,
    SEGMENT_SUBJECT,
    TOPIC,
    TRANSITION,
    np_segment,
    segment_after,
)
from core.facts.units import fits, is_flat, signed, unit_of, units, with_volume_unit
from core.facts.words import CONNECT, FORWARD_CONNECT, OBJECT_VERBS, PART_WORDS, words
from core.grounding import Figure

_CHANGE_UP = (
    r"up|increased?|increasing|grew|growing|growth|rose|rising|improved?|improving|"
    r"improvement|expand|expanded|expanding|expansion|higher|gain(?:ed)?|climbed|jumped|better|"
    r"grow|widen(?:ed)?"
)
_CHANGE_DOWN = (
    r"down|decreased?|decreasing|declined?|declining|fell|falling|lower|contracted|"
    r"contraction|reduction|reduced|drop(?:ped)?|slipped|worse|compressed|compression|contract|"
    r"compress|narrow(?:ed)?|fall"
)
_CHANGE_BEFORE = re.compile(
    rf"\b(?P<dir>{_CHANGE_UP}|{_CHANGE_DOWN})(?:\s+(?:of|by))?\s+(?:approximately |about |nearly "
    r"|roughly |almost |more than |over |just over |just under |some |a strong |a solid |an? )?$",
    re.IGNORECASE,
)
_CHANGE_AFTER = re.compile(
    rf"^\s*(?:year[- ](?:over|on)[- ]year |sequential |quarter[- ]over[- ]quarter )?"
    rf"(?P<dir>increase|growth|{_CHANGE_UP}|{_CHANGE_DOWN}|decline|decrease|improvement|rise|"
    r"gain)\b",
    re.IGNORECASE,
)
_DOWN = re.compile(
    rf"^(?:{_CHANGE_DOWN}|decline|decrease|reduc(?:e|es|ing)|cut(?:ting)?|pay|"
    r"paying|lowering)$",
    re.IGNORECASE,
)
_COMPARE_BEFORE = re.compile(
    r"\b(?:from|compared (?:to|with)|versus|vs\.?|against|(?<!more )(?<!less )(?<!greater )than|"
    r"relative to|last year's|flat (?:to|with)|in line with|unchanged from|"
    r"prior[- ]year's|year[- ]ago|a year ago of)\s+(?:approximately |about |the |a |an |roughly "
    r"|nearly |record |just |only )?$",
    re.IGNORECASE,
)
# "up 1.9% from $8.55 billion in the second quarter of 2023": the comparison's period, named
# after its figure
_COMPARE_FIGURE_BEFORE = re.compile(
    r"\b(?:from|compared (?:to|with)|versus|vs\.?|against)\s+(?:approximately |about |roughly )?"
    # "compared with an operating loss of $31.8 million in the second quarter of fiscal 2025"
    r"(?:(?:an?|the)\s+(?:[\w-]+\s+){1,3}?(?:of|at)\s+)?"
    r"[$€£]?\d[\d.,]*(?:\s*(?:million|billion|thousand|trillion|%|percent|per share|cents))?\s+"
    r"(?:in|for|during|at)\s+(?:the\s+)?$",
    re.IGNORECASE,
)


def _compared_before(sentence: str, at: int) -> bool:
    """The period words at `at` name what a figure is compared with."""
    return bool(
        _COMPARE_BEFORE.search(sentence[max(0, at - 30) : at])
        or _COMPARE_FIGURE_BEFORE.search(sentence[max(0, at - 90) : at])
    )


# what reconciles EPS: "amortization of acquired intangibles of $0.24 per share"
_ITEM_PER_SHARE = re.compile(
    r"\b(?:amortization|charges?|gains?|impairments?|benefits?|costs?|expenses?|items?|"
    r"adjustments?|headwinds?|tailwinds?|impacts?|dilution|contributions?)\b"
    r"(?:\s+[\w&'’-]+){0,4}?\s+(?:of|was|were|at)\s+(?:approximately |about |roughly )?$",
    re.IGNORECASE,
)
# a part named right after the metric: "margin for Homes", "revenue at Kinetic"
_FOR_NAMED = re.compile(
    r"\s+(?:for|at|from)\s+(?!(?:The|Our|This|That|Q[1-4]|FY|Fiscal|First|Second|Third|Fourth)\b)"
    r"(?P<n>[A-Z][\w&'’-]+(?:\s+[A-Z][\w&'’-]+){0,2})"
)
# a named subject of "was": "Europe was $214 million of revenue" (not "This was", "It was")
_NAMED_SUBJECT = re.compile(
    r"\s*(?:And\s+|So\s+)?(?!(?:This|That|It|These|Those|There|Total|Overall|We)\b)"
    r"(?P<who>[A-Z][\w&'’.-]*(?:\s+(?:&\s+)?[A-Z&][\w&'’.-]*){0,3})\s+(?:was|were|came in at|"
    r"totaled|contributed|generated|delivered|added)\s+(?:approximately |about |nearly |roughly |"
    r"a record |over |more than )?$"
)
_CAUSE_WORDS = re.compile(
    r"\b(?:because|since|due to|as a result of|driven by|reflecting|related to|tied to|"
    r"owing to|which included|including)\b",
    re.IGNORECASE,
)
# "Given the investments we make in the fourth quarter, we now expect ...": a reason opening the
# sentence, whose period is not the outlook's
# a reason clause before the outlook: its period is the reason's ("As we begin to lap the impact
# of COVID-19 in the second quarter, we expect Merchant revenue growth ... for 2021")
REASON = re.compile(
    r"\s*(?:Given|Because of|Due to|Despite|Considering|Based on|Thanks to|On the back of|"
    r"As we (?:begin to |start to )?(?:lap|"
    r"anniversary|cycle|annualize))\b[^,]*,"
)
_TO_BEFORE = re.compile(
    r"\bto\s+(?:approximately |about |a record |record |nearly |roughly |almost |over |"
    r"more than |just over )?$",
    re.IGNORECASE,
)
# a loss as the metric itself ("net loss", "loss per share"), not "provision for loan losses"
_LOSS = re.compile(
    r"\b(?:net|operating|pre-?tax|comprehensive)\s+loss\b|\bloss\s+per\b|^loss\b", re.IGNORECASE
)
_PER_SHARE_AFTER = re.compile(r"^\s*(?:per|a) (?:diluted |basic )?(?:common )?share\b", re.I)
_ADJUSTED = re.compile(
    r"\b(?:adjusted|non-gaap|core(?= (?:eps|earnings|operating|net|diluted|ebitda|income|ffo|"
    r"margin|gross|free cash|tax rate))|normalized|underlying|pro forma|"
    r"excluding (?:[\w-]+ ){0,2}items|ex-items|before (?:special|notable) items)\b",
    re.IGNORECASE,
)
ADJUSTED_WORDS = _ADJUSTED  # for the outlook's basis (figures.py)
_GAAP = re.compile(r"(?<!non-)(?<!non )\b(?:gaap|as reported|on an? reported basis)\b", re.I)
GAAP_WORDS = _GAAP
_BASIS_OPENING = re.compile(
    r"^(?:On|Excluding [\w\s-]{3,40}?,?\s+on)\s+an?\s+(?P<b>adjusted|non-gaap|normalized|core|gaap|"
    r"reported|organic|constant[- ]currency|comparable)\s+basis\s*,",
    re.IGNORECASE,
)
_ORGANIC = re.compile(r"\borganic(?:ally)?\b", re.IGNORECASE)
_CC = re.compile(r"\b(?:constant[- ]currency|fx[- ]neutral|currency[- ]neutral)\b", re.I)


# bounds that keep attribution linear in the call's length: each sentence's work is bounded
MAX_SENTENCE = 1500  # characters
MAX_FIGURES = 24  # figures in one sentence


@dataclass(frozen=True)
class Attributed:
    """A figure with the metric, segment, basis, period and role its words give it."""

    fig: Figure  # offsets within the sentence
    metric: Metric
    role: str  # "result" | "comparison" | "change"
    value: float  # signed, normalised (percent points for percents and bps)
    unit: str  # "money" | "percent" | "bps" | "number"
    basis: str | None
    segment: str | None
    period: Period | None
    anchor: int | None = None  # for a change or comparison: the start of its figure
    high: float | None = None  # a range's upper bound (value is the lower)
    forward: bool = False  # an outlook's figure (its cue stands before it or in its clause)
    qualitative: bool = False  # a worded range ("low teens")


@dataclass
class Context:
    """What the sentences before say about the ones after: the segment being discussed."""

    segment: str | None = None
    segment_age: int = 0
    segment_heading: bool = (
        False  # named by a sentence of no figures: "... our Technology segment."
    )
    period: Period | None = None  # the period the last sentences stated
    period_age: int = 0
    # "I will touch on our fourth quarter results": a heading that opens the quarter's section;
    # on a fourth-quarter call its figures are the quarter's until another period is stated
    section: Period | None = None
    # the one part the figures of a recent sentence named (see `_recent_part`)
    part: str | None = None
    part_age: int = 99
    # the one company-wide result the sentence before stated ("Total production was 3 Bcfe per
    # day."), whose parts "This included ..." may list
    total: Attributed | None = None


def _words(text: str) -> list[str]:
    return re.findall(r"[\w'’&.-]+", text.lower())


def clause_bounds(sentence: str, start: int, end: int) -> tuple[int, int]:
    """The clause a figure sits in: between clause marks (semicolon, dash, colon, parenthesis,
    ", and", ", while", ", but", ", which", ", driven by" ...)."""
    marks = re.compile(
        r";|\s[—–-]\s|:\s|\(|\)|,\s+(?:and|while|but|whereas|which|driven|reflecting|primarily|"
        r"partially|partly|offset|due|as|including|excluding|with|led|helped|thanks|where|"
        r"bringing|taking)\b|"
        r"\.\s|\band\s+(?=(?:our|the|we|its)\b)|"
        # "$800 million of share repurchases, $250 million of which were in the fourth quarter"
        r",\s+(?=[$€£]?\d[\d.,]*\s*(?:million|billion|thousand)?\s+of\s+(?:which|them)\b)"
    )
    a, b = 0, len(sentence)
    for m in marks.finditer(sentence):
        if m.end() <= start:
            a = m.end()
        elif m.start() >= end and b == len(sentence):
            b = m.start()
    return a, b


# sales counted in units of energy, not money
_VOLUME_SALES = re.compile(
    r"\bweather[- ]normali[sz]ed\b|\b(?:electric(?:ity)?|kwh|kilowatt[- ]hour) sales\b|"
    r"\bsales volumes?\b",
    re.IGNORECASE,
)
_PRIOR_POSSESSIVE = re.compile(
    r"\b(?:last|prior|previous|the prior|the previous)[- ](?:year|quarter|fiscal year)['’]s\b", re.I
)
# "This included 2.4 Bcf per day of gas and ...": the parts of a total stated just before
_INCLUDED = re.compile(
    r"\s*(?:This|That|These|It)\s+(?:included|includes|consisted of|comprised)\b"
)
_OF_PART = re.compile(
    r"^\s+of\s+(?P<seg>[A-Za-z][\w&/-]*(?:\s+(?:and\s+)?[A-Za-z][\w&/-]*){0,2}?)(?=\s*(?:[,.;]|$|"
    r"\b(?:representing|flat|up|down|which|or)\b|\band\s+(?:approximately\s+|about\s+)?\d))"
)
# "We expect North America to ..., and ... its organic revenue growth": the part "its" refers to
_ITS_PART = re.compile(
    r"\b(?:expect|see|for|in|at)\s+(?:the\s+|our\s+)?(?P<seg>[A-Z][\w&'’.-]*(?:\s+[A-Z&][\w&'’.-]*)"
    r"{0,3})\s+(?:to|segment|business|division|region)\b"
)
# a part as the subject of an outlook: "the modern banking platform will generate", "We expect
# our Banking platform to generate"
_PART_WILL = re.compile(
    r"\b(?:the|our)\s+(?P<seg>[A-Za-z][\w&'’.-]*(?:\s+[A-Za-z][\w&'’.-]*){0,2}?)\s+"
    r"(?P<noun>platform|segment|business|division|unit|franchise)\s+(?:will|to|should|would|is "
    r"(?:expected|projected|on track) to)\s+(?:generate|deliver|contribute|produce|reach|add|"
    r"achieve|post|grow|exceed)\b[^,;]*$"
)
GENERIC_PART = frozenset(["core", "overall", "total", "whole", "entire", "existing", "base",
                          "underlying", "combined", "new", "current"])  # fmt: skip
# "this segment", "the group": a part of the company is under discussion, its name not said
_ANAPHOR = re.compile(r"\b(?:this|that|the) (?:segment|group|division|business unit)\b", re.I)
UNNAMED_SEGMENT = "(a segment the call does not name here)"
# "the Bank's": a part of the company named by a definite description
_POSSESSOR = re.compile(r"\b(?:the|this|that) (?P<who>[A-Z][\w&.-]*(?: [A-Z][\w&.-]*)?)['’]s\s")


def _recent_part(context: Context) -> str | None:
    """The part a sentence of the last three named ("It ...", "Its ...", "This segment ..."
    refer to it), or None when no part was named."""
    heading = (
        context.segment
        if context.segment not in (None, UNNAMED_SEGMENT) and context.segment_age <= 3
        else None
    )
    if (
        context.part is not None
        and context.part_age <= 3
        and (heading is None or context.part_age < context.segment_age)
    ):
        return context.part  # named by a sentence's figures after the heading
    return heading


def _company_possessor(sentence: str, company_words: frozenset[str], end: int) -> bool:
    found = list(_POSSESSOR.finditer(sentence, 0, end))
    return bool(found) and all(
        {w.lower() for w in m.group("who").split()} <= company_words | {"company", "firm"}
        for m in found
    )


# "a solid quarter", "an outstanding quarter" (not "a quarter of revenue"): the call's quarter
_A_QUARTER = re.compile(r"\b(?:a|an)\s+(?:[a-z-]+\s+){1,2}quarter\b(?!\s+of\b)")

# qualifiers of a metric that name no part of the company and no other figure
_GAP_QUALIFIER = re.compile(
    r"\b(?:from|of|in) (?:our )?continuing operations\b|\bfor the (?:entire |whole |total )?"
    r"company(?: as a whole)?\b|\bas a whole\b|\bpercentage\b",
    re.IGNORECASE,
)


# "to be in the upper half of the allowed band of 9.25% to 11.25%", "at the high end of our range
# of $2.40 to $2.54": where in a range the outlook is (core.facts.figures narrows a half). Not "at
# the low end of our prior range": whether that lowers the outlook the words do not say
IN_RANGE = re.compile(
    r"\b(?P<b>(?:in|at|to|toward|towards|near)\s+the\s+(?P<pos>upper|lower|top|bottom|high|low)"
    r"(?:[- ](?P<part>half|end)))\s+of\s+(?:(?:our|the|its|that|this|an?)\s+)?(?:(?:allowed|"
    r"authorized|current|guided|guidance|targeted|target|stated|expected)\s+)*(?:range|band|"
    r"guidance(?: range)?|target(?: range)?|"
    r"expectations?)?\s*(?:of\s+)?(?=(?:approximately |about )?$)",
    re.IGNORECASE,
)
_MOVE_THEN = re.compile(
    r"^\s*(?:growth\s+)?to\s+(?:accelerate|rebound|recover|improve|grow|increase|expand|decline|decrease|"
    r"moderate|slow|normalize)(?:\s+(?:sharply|strongly|further|meaningfully|significantly|"
    r"modestly|gradually|again))?,?\s+(?:driving|reaching|delivering|to)\s+(?=(?:approximately |"
    r"about |around )?$)",
    re.IGNORECASE,
)


def _gap_ok(gap: str, forward: bool = False) -> bool:
    """Only connecting words (and period words) between a metric and its figure."""

    def blank(m: re.Match[str]) -> str:
        return " " * len(m.group(0))  # the same length: the period words' offsets stay true

    stripped = SEGMENT_AFTER.sub(blank, gap, count=1)
    stripped = re.sub(r"\b(?:attributable|available) to (?:common )?(?:(?:share|stock)holders|"
                      r"(?:[A-Z][\w&.'’-]*\s*){1,4})", blank, stripped)  # fmt: skip
    stripped = _GAP_QUALIFIER.sub(blank, stripped)
    # "improved our leverage ratio by almost half a turn to 2.6 times": a worded change, then
    # the level the figure states
    stripped = re.sub(r"\bby\s+(?:[a-z-]+\s+){1,4}(?=to\s+(?:approximately |about |nearly )?$)",
                      blank, stripped)  # fmt: skip
    if forward:
        # "we expect Merchant revenue growth to rebound sharply, driving mid to high teens growth
        # for 2021": the metric's own move, then the figure it reaches
        stripped = _MOVE_THEN.sub(blank, stripped)
        stripped = IN_RANGE.sub(blank, stripped)
    for m in reversed(mentions(gap)):
        stripped = stripped[: m.start] + " " + stripped[m.end :]
    stripped = re.sub(r"\bon an? [\w-]+(?: [\w-]+)? basis\b", " ", stripped, flags=re.I)
    # "Assets under management ended June at a record $612 billion": the month a balance is at
    stripped = re.sub(
        r"(?<=\bended )(?:January|February|March|April|May|June|July|August|September|October|"
        r"November|December)\b",
        blank,
        stripped,
    )
    if re.search(r"\d", stripped) or re.search(r"[;:(),]", stripped):
        return False  # another figure, or a list ("11% domestic sales growth, 14.9% for ...")
    words = _words(stripped.replace(",", " "))
    allowed = FORWARD_CONNECT if forward else CONNECT
    return len(words) <= (16 if forward else 12) and all(w in allowed for w in words)


_REPORTED_ADJ = re.compile(
    r"(?:^|\b(?:our|the|a|its|of|with|and|on)\s+|,\s*)reported\s+(?=(?:[\w-]+\s+){0,2}(?:revenues?|"
    r"sales|eps|earnings|net|operating|gross|ebitda|margins?|growth|diluted)\b)",
    re.IGNORECASE,
)


# what "all figures are adjusted unless noted" covers: earnings, margins and expenses (not
# revenue, cash flows, buybacks or the balance sheet)
_PNL_ADJUSTED = words(
    """
    eps net_income operating_income operating_margin ebitda ebitda_margin pretax_income
    gross_margin gross_profit tax_rate expenses noninterest_expense efficiency_ratio
    return_on_equity return_on_assets
    """
)


# and what "all figures are non-GAAP unless noted" covers besides
_ALSO_ADJUSTED: frozenset[str] = frozenset()  # (free cash flow stays as named: the gold's rule)


def _basis(text: str, metric: Metric, role: str, call: CallIdentity) -> str | None:
    if metric.name == "ffo" and re.search(r"\bnareit\b", text, re.I):
        return None  # "NAREIT FFO": the standard definition, not a REIT's own adjusted "core FFO"
    adjusted = [m.start() for m in _ADJUSTED.finditer(text)]
    gaap = [m.start() for m in _GAAP.finditer(text)] + [
        m.start() for m in _REPORTED_ADJ.finditer(text)]  # fmt: skip
    if adjusted or gaap:
        return "adjusted" if max(adjusted, default=-1) > max(gaap, default=-1) else "gaap"
    sales_like = metric.name in ("revenue", "same_store_sales", "orders", "backlog")
    if role == "change" and _CC.search(text):
        return "constant_currency"  # "EPS each to be down 2% to 3% in constant currency"
    if role == "change" and sales_like and _ORGANIC.search(text):
        return "organic"
    if (
        role == "change"
        and metric.name == "revenue"
        and call.organic_revenue_by_default
        and not re.search(r"\b(?:as )?reported\b|\bincluding (?:foreign )?currency\b", text, re.I)
    ):  # not "Including currency, we now expect reported revenue growth of 5%"
        return "organic"
    if (
        call.adjusted_words
        and metric.name != "same_store_sales"
        and re.search(
            rf"\b(?:{'|'.join(sorted(call.adjusted_words))})\b(?!\s+(?:to|with|quarter|period|"
            r"prior|year|store|sales|-store))",
            text,
            re.I,
        )
    ):  # "comparable EPS" where the call defines its comparable measures as excluding items
        return "adjusted"
    if (
        call.adjusted_by_default
        and metric.name not in call.adjusted_except
        and (metric.name in _PNL_ADJUSTED or (call.adjusted_all and metric.name in _ALSO_ADJUSTED))
    ):
        return "adjusted"
    if metric.name in call.non_gaap_metrics:
        return "adjusted"  # "our remarks include non-GAAP measures, including operating income"
    if (
        "operating_income" in call.non_gaap_metrics
        and metric.level in ("rate", "per_share")
        and re.search(r"\boperating (?:income |earnings )?(?:return|eps|earnings per)|\bon "
                      r"operating (?:income|earnings)\b", text, re.I)
    ):  # fmt: skip
        return "adjusted"  # "operating return on equity", "the tax rate on operating income"
    return None


def _period(
    sentence: str,
    own: Sequence[Mention],
    call: CallIdentity,
    forward: bool,
) -> Period | None | bool:
    """The figure's period from the period words bound to it; False when they disagree."""
    resolved = {resolve(m, call.period, forward=forward) for m in own if not m.is_base}
    resolved.discard(None)
    if len(resolved) > 1:
        return False
    if resolved:
        return resolved.pop()
    return None


def attribute(
    sentence: str,
    call: CallIdentity,
    context: Context,
    *,
    forward: bool = False,
) -> list[Attributed]:
    """The figures of one sentence that its words attribute, in order; unattributable ones are
    left out. Updates `context` (the segment under discussion) for the next sentence."""
    company_words = frozenset(w.lower().rstrip("'’s") for w in (call.company or "").split())
    opener = (SEGMENT_OPENER.match(sentence) or SEGMENT_NAMED.search(sentence)
              or SEGMENT_SUBJECT.search(sentence) or SEGMENT_CALLED.match(sentence))  # fmt: skip
    opener_seg = None
    if opener is not None and not NOT_SEGMENT.match(opener.group("seg")):
        seg = opener.group("seg").strip()
        if seg.endswith(".") and sentence.rstrip().endswith(seg):
            seg = seg[:-1]  # "Now let's turn to Omega Energy Partners.": the sentence's stop
        words = {w.lower().removesuffix("'s").removesuffix("’s") for w in seg.split()}
        if not words <= company_words and not mentions(seg) and not metric_matches(seg):
            opener_seg = seg  # not "Orders grew 4%": a metric is not a part of the company
    reason = REASON.match(sentence)
    if (
        opener_seg is not None
        and opener is not None
        and reason is not None
        and opener.start("seg") < reason.end()
    ):
        # "Given the strength of the Direct-to-Consumer business, we are raising our adjusted
        # EBITDA guidance": the part is the reason, the outlook is the company's
        opener_seg = None
    named_at = opener.start("seg") if opener_seg is not None and opener is not None else -1
    if COMPANY_CUE.search(sentence):
        context.segment = None
    turn = TRANSITION.match(sentence)
    if turn is not None:  # "Turning to marine systems.": the part under discussion, or a topic
        topic = turn.group("seg").strip()
        if TOPIC.search(topic) or mentions(topic) or metric_matches(topic):
            context.segment = None
        elif not {w.lower() for w in topic.split()} <= company_words:
            context.segment, context.segment_age = topic, 0
    if opener_seg is None and not re.search(r"\d", sentence):
        at = SEGMENT_AT.search(sentence)
        if at is not None and not NOT_SEGMENT.match(at.group("seg")):
            words = {
                w.lower().removesuffix("'s").removesuffix("’s") for w in at.group("seg").split()
            }
            if not words <= company_words:
                context.segment, context.segment_age = at.group("seg"), 0
    if (
        opener_seg is None
        and _ANAPHOR.search(sentence)
        and (context.segment is None or context.segment_age > 3)
    ):
        context.segment, context.segment_age = UNNAMED_SEGMENT, 0
    context.segment_age += 1
    context.part_age += 1  # (the same clock: the nearer of a heading and a part wins)
    if context.segment_age > 30:
        context.segment = None  # three sentences without naming it: no longer under discussion
    if opener_seg is not None:
        context.segment, context.segment_age = opener_seg, 0
    if context.segment_age == 0:
        no_figures = not [
            f
            for f in units(sentence, False)[0]
            if not _SLIDE.search(sentence, max(0, f.start - 12), f.start)
        ]
        context.segment_heading = bool(
            context.segment is not None
            and context.segment != UNNAMED_SEGMENT
            and (
                (no_figures and re.search(r"\b(?:segments?|business|division)\b", sentence, re.I))
                # "Let me now turn to Energy Resources, which reported ...": a turn to the part
                or _TURN_TO.match(sentence) is not None
            )
        )
    if len(sentence) > MAX_SENTENCE:
        return []  # no spoken sentence is that long: a table or a paste, not attributable
    figs, highs, worded = units(sentence, forward)
    # "a book-to-bill of 1.3:1", "a 1:1 book-to-bill": the ratio's ":1" is not a figure
    figs = [
        f
        for f in figs
        if not (
            f.text == "1"
            and sentence[max(0, f.start - 1) : f.start] == ":"
            and sentence[max(0, f.start - 2) : f.start - 1].isdigit()
        )
    ]
    if len(figs) > MAX_FIGURES:
        return []
    period_words = mentions(sentence)
    metrics = metric_matches(sentence)
    geo = GEO.search(sentence)
    out: list[Attributed] = []
    last: Attributed | None = None
    prev: Attributed | None = None
    cued = bool(FORWARD.search(sentence))
    paired = _respectively(sentence, figs, metrics)
    for i, fig in enumerate(figs):
        end = fig.start + len(fig.text)
        ca, cb = clause_bounds(sentence, fig.start, end)
        fw = forward and (
            not cued
            or bool(FORWARD.search(sentence[: fig.start]))
            or (bool(FORWARD.search(sentence[ca:cb])) and not PAST.search(sentence[ca:cb]))
        )
        # "a net loss of $109 million ..., because we recorded a charge of $142 million in our
        # Industrial segment": a part named after the figure, in a cause, is the cause's
        own_seg = opener_seg
        if named_at > fig.start and _CAUSE_WORDS.search(sentence, end, named_at):
            own_seg = None
        got = _bind(sentence, fig, i, figs, metrics, period_words, (ca, cb), last, prev, call,
                    company_words, own_seg, context, fw, geo, paired)  # fmt: skip
        if got is not None and fw:
            got = replace(got, forward=True)
        before_range = (
            i > 0
            and figs[i - 1].kind == fig.kind
            and bool(
                re.fullmatch(
                    r"\s*(?:to|-|–|—)\s*",
                    sentence[figs[i - 1].start + len(figs[i - 1].text) : fig.start],
                )
            )
        )
        grew_to = (got is not None and prev is not None and prev.fig is figs[i - 1]
                   and prev.role == "change" and got.anchor == prev.fig.start)  # fmt: skip
        if before_range and fig.start not in highs and not grew_to:
            # "7% to 9%" outside an outlook: the second end of a range (not "increased by $2.3
            # million to $47.9 million": a change, then the level it reached)
            got = None
        nxt = figs[i + 1] if i + 1 < len(figs) else None
        if (
            got is not None
            and got.anchor is None
            and fig.start not in paired
            and nxt is not None
            and nxt.kind == fig.kind
            and re.fullmatch(r"\s*(?:,|and|, and)\s*", sentence[end : nxt.start])
            and not (
                sentence[end : nxt.start].strip() == ","
                and _CHANGE_AFTER.match(sentence[nxt.start + len(nxt.text) :])
            )  # "10%, 70 basis points lower": a level, then its change
        ):
            got = None  # "$10 million and $12 million": which is which is not said
        if (
            i
            and got is not None
            and (prev is None or prev.fig is not figs[i - 1])
            and re.fullmatch(
                r"\s*,?\s*or\s+", sentence[figs[i - 1].start + len(figs[i - 1].text) : fig.start]
            )
        ):
            got = None  # "$67 million or $0.81 per share": whatever the first was, so is this
        prev = got
        if got is not None:
            if fig.start in highs:
                got = replace(got, high=signed(highs[fig.start] * (100 if got.unit == "bps" else 1),
                                               got.value), qualitative=fig.start
                              in worded)  # fmt: skip
            elif fig.start in worded:
                got = replace(got, qualitative=True)  # "around breakeven"
            out.append(got)
            twin = _joint_metric(sentence, got, metrics, call)
            if twin is not None:
                out.append(twin)
            if got.segment is not None and _BOTH in got.segment:
                first_seg, second_seg = got.segment.split(_BOTH)
                got = replace(got, segment=first_seg)
                out[-1 if twin is None else -2] = got
                out.append(replace(got, segment=second_seg))
            if got.role != "comparison":
                last = got
    _remember_period(sentence, period_words, call, context, forward)
    results = [a for a in out if a.role == "result"]
    context.total = (  # "Total production was 276 Bcfe or 3 Bcfe per day.": one quantity
        results[-1]
        if results
        and not forward
        and all(a.segment is None and a.metric == results[0].metric for a in results)
        else None
    )
    # "Mission Systems sales grew 13% to $2.71 billion. The segment's operating margin was
    # 12.8%": the one part a sentence's figures name is the part under discussion after it
    # (only for the words that refer back to a part: an unqualified figure after it stays the
    # company's)
    named = {a.segment for a in out if a.segment not in (None, UNNAMED_SEGMENT)}
    if len(named) == 1 and opener_seg is None:
        seg = named.pop()
        assert seg is not None
        if _BOTH not in seg and seg.lower() in sentence.lower():
            context.part, context.part_age = seg, 0
    return out


def _joint_metric(
    sentence: str, got: Attributed, metrics: Sequence[MetricMatch], call: CallIdentity
) -> Attributed | None:
    """ "both gross profit margins and core operating margins to improve 30 basis points": the
    one figure is each metric's; the copy for the first one named."""
    own = [m for m in metrics if m.metric is got.metric and m.end <= got.fig.start]
    if not own or got.anchor is not None:
        return None
    named = own[-1]
    if not _gap_ok(sentence[named.end : got.fig.start], got.forward or True):
        return None
    first = next((m for m in metrics if m.end < named.start and re.fullmatch(
        r"\s+and\s+(?:(?:our|the|its|core|adjusted|non-gaap|gaap|total)\s+)*",
        sentence[m.end : named.start], re.I)), None)  # fmt: skip
    if first is None or first.metric is got.metric:
        return None
    growth = got.role == "change" and got.unit == "percent"
    levels = {first.metric.level, got.metric.level}
    if first.metric.level != got.metric.level and not (growth and levels <= {"money", "per_share"}):
        return None  # "operating profit and EPS to decline 2% to 3%": both growth rates
    if not fits(
        first.metric, got.unit, got.role, got.fig, sentence[got.fig.start + len(got.fig.text) :]
    ):
        return None
    head = re.split(r"\band\b|,", sentence[max(0, first.start - 30) : first.start])[-1]
    basis = _basis(head + sentence[first.start : first.end], first.metric, got.role, call)
    if got.basis in ("constant_currency", "organic"):
        basis = got.basis  # the qualifier after the figure is both metrics'
    return replace(got, metric=first.metric, basis=basis)


def _respectively(
    sentence: str, figs: Sequence[Figure], metrics: Sequence[MetricMatch]
) -> dict[int, MetricMatch | None]:
    """ "A and B were $X and $Y, respectively": each figure's metric, in order; {} when the
    sentence has no such list or the counts differ."""
    out: dict[int, MetricMatch | None] = {}
    for r in re.finditer(r",?\s+respectively\b", sentence):
        listed: list[Figure] = []
        for f in reversed([f for f in figs if f.start + len(f.text) <= r.start()]):
            end = f.start + len(f.text)
            tail = sentence[end : (listed[0].start if listed else r.start())]
            if listed and not re.fullmatch(
                r"(?:\s+[a-z ]{0,20})?\s*(?:,\s*(?:and\s+)?|\s+and\s+)"
                r"(?:(?:approximately|about|roughly|an?|up|down)\s+)*",
                tail,
            ):
                break  # fmt: skip
            if not listed and not re.fullmatch(r"(?:\s+[\w ]{0,25})?", tail):
                break
            if listed and f.kind != listed[0].kind:
                break  # "$7.08 for the full year, up 17% and 14%": the list is the percents
            listed.insert(0, f)
        if len(listed) < 2:
            continue
        before = [m for m in metrics if m.end <= listed[0].start]
        names: list[MetricMatch] = []
        for m in reversed(before):
            if names and not re.fullmatch(
                r"\s*(?:,\s*(?:and\s+)?|\s+and\s+)(?:(?:the|our|its|adjusted|gaap|non-gaap|core|"
                r"total|net|organic|diluted)\s+)*",
                sentence[m.end : names[0].start],
                re.I,
            ):
                break  # fmt: skip
            names.insert(0, m)
            if len(names) == len(listed):
                break
        if len(names) == len(listed):
            out.update({f.start: m for f, m in zip(listed, names, strict=True)})
        else:
            # "... organic net sales were up 1% and down 3%, respectively": the list of parts it
            # pairs them with is not in the sentence: none of them can be attributed
            out.update({f.start: None for f in listed})
    return out


_FY_LIFE = 1  # sentences a stated year carries past the next one, on a quarterly call
# a sentence of no figures that opens the quarter's results: "Starting on slide 11, I will touch
# on our fourth quarter results", "Let me now review our fourth quarter performance."
_QUARTER_HEADING = re.compile(
    r"\b(?:our|the)\s+(?:(?:first|second|third|fourth)\s+quarter|Q[1-4]|full[- ]year|fiscal\s+"
    r"(?:year\s+)?(?:['’]?\d{2}|(?:19|20)\d{2})|(?:19|20)\d{2}(?:\s+full[- ]year)?)\s+"
    r"(?:financial\s+)?(?:results|performance)\b",
    re.IGNORECASE,
)


def _context_life(context: Context, call: CallIdentity) -> int:
    """How many sentences after it a stated period carries: two; the year on a quarterly call
    only the next two (a fourth-quarter call moves between the quarter and the year, and a
    longer carry dated the quarter's figures that followed as the year's)."""
    p, c = context.period, call.period
    if p is not None and c is not None and p.kind == "FY" and c.kind == "Q":
        return _FY_LIFE
    return 2


def _remember_period(
    sentence: str, found: Sequence[Mention], call: CallIdentity, context: Context, forward: bool
) -> None:
    """The period a results sentence speaks of, for the next ones (see `_context_life`).
    An outlook's period, or a year used as a name ("our 2021 plan"), sets nothing."""
    heading = _QUARTER_HEADING.search(sentence)
    heading_of_section = heading is not None and not [
        f for f in units(sentence, False)[0] if not _SLIDE.search(sentence, max(0, f.start - 12),
                                                                   f.start)]  # fmt: skip
    if heading is not None and heading_of_section:
        named = mentions(heading.group(0))
        section = resolve(named[0], call.period) if named else None
        year_of_q4 = (  # "First, let's discuss our fiscal '22 results." on the Q4 call
            section is not None
            and call.period is not None
            and section.kind == "FY"
            and call.period.kind == "Q"
            and call.period.n == 4
            and section.year == call.period.year
        )
        context.section = (
            section if section is not None and (section == call.period or year_of_q4) else None
        )
    if forward:
        context.period_age += 1
        if context.period_age > _context_life(context, call):
            context.period = context.section
        return
    own = {resolve(m, call.period) for m in found if not m.is_base
           and not _compared_before(sentence, m.start)
           # "a very good start to the year": a part of the year, not the year's figures
           and not re.search(r"\b(?:start|beginning|end|part)\s+(?:to|of)\s+$",
                             sentence[max(0, m.start - 20) : m.start], re.I)
           and not (m.period is not None and m.period.kind == "FY" and re.fullmatch(
               r"(?:19|20)\d{2}", m.text) and not re.search(
               r"(?:\b(?:in|for|during|of|throughout)\s+(?:fiscal\s+)?|^\s*)$", sentence[: m.start],
               re.I))}  # fmt: skip
    own.discard(None)
    # "as we discussed at our investor updates in 2017 and 2019.", "a reduction in our store
    # hours in January and to start fiscal '23.": history or what comes next, told in passing
    section = context.section
    history = (
        section is not None
        and section.year is not None
        and all(
            p.year is not None
            and (p.year < section.year or (p.year > section.year and p.kind == "FY"))
            for p in own
            if p
        )
        and not units(sentence, False)[0]
    )
    if not heading_of_section and own and own != {context.section} and not history:
        context.section = None  # "For the full year, ...": the quarter's section has ended
    if own and history:
        own = set()  # the section's period continues
    if len(own) == 1:
        context.period, context.period_age = own.pop(), 0
    elif len(own) > 1:
        context.period, context.period_age = None, 0
    else:
        context.period_age += 1
        if context.period_age > _context_life(context, call):
            context.period = context.section


_SEG_NAME = r"[A-Z][\w&'’.-]*(?:\s+(?:&\s+)?[A-Z][\w&'’.-]*){0,3}"
_SEG_GROWS = re.compile(
    rf"(?:^\s*|\bexpect\s+(?:the\s+|our\s+)?|,\s+(?:and\s+)?)(?P<seg>{_SEG_NAME})"
    rf"(?:\s+and\s+(?P<seg2>{_SEG_NAME}))?(?:\s+"
    r"(?:segment|business|division))?\s+to\s+(?:now\s+|also\s+)?(?:grow|increase|decline|"
    r"be (?:down|up)|accelerate (?:in)?to(?: the)?)\s+(?:by\s+)?(?:approximately |about |around )?$"
)
_BOTH = " \x1f "  # joins the two parts of a subject ("A and B to grow 7%"): one row each
_SEG_NEXT = re.compile(rf",\s+(?:and\s+)?(?P<seg>{_SEG_NAME})\s+(?:approximately |about )?$")


# "for fiscal 2021 excluding discrete items", "on an adjusted basis": a basis after the figure
_QUALIFIER_AFTER = re.compile(
    r"^\s*,?\s*(?:(?:for|in) (?:fiscal |the )?[\w' ]{2,20}?\s+)?(?:on an? [\w-]+(?: [\w-]+)? "
    r"basis|in constant currency|organically|excluding [^,.;]{3,40})",
    re.IGNORECASE,
)


# what may follow "$X of <metric>" for the figure to be that metric's level
_AFTER_METRIC = re.compile(
    r"^\s*(?:$|,|\.|in the (?:quarter|period|year)|for\b|during|this|compared|versus|vs|up|down|"
    r"an? |which|year|over|from|as\b|(?:in|by) (?:fiscal |fy ?)?(?:'?\d{2}\b|(?:19|20)\d{2}|"
    r"q[1-4])|(?:and|or)\s+(?:approximately |about )?[$€£]?\d)",
    re.IGNORECASE,
)
# ratios where better is lower: an improvement is a decrease
_LOWER_IS_BETTER = frozenset(
    ["combined_ratio", "efficiency_ratio", "operating_ratio", "medical_care_ratio"]
)
_THRESHOLD = re.compile(
    r"\b(?:with|having|of)\s+(?:[\w-]+\s+){0,3}(?:over|above|more than|greater than|at least|"
    r"exceeding|in excess of)\s+$",
    re.IGNORECASE,
)
_BOUGHT_BACK = re.compile(
    r"\b(?:we|[A-Z][\w/&.'’-]*)\s+(?:repurchased|bought back)\s+(?:approximately |about |"
    r"nearly )?(?:[\d.,]+\s+(?:million\s+)?shares\s+(?:of (?:our )?(?:common )?stock\s+)?"
    r"(?:for|totaling|worth)\s+|)(?:approximately |about |nearly )?$"
)
# a change verb before its metric: "reducing debt by", "to grow revenue by"
_VERB_BEFORE = re.compile(
    rf"\b({_CHANGE_UP}|{_CHANGE_DOWN}|reduc(?:e|es|ing)|cut(?:ting)?|pay(?:ing)? down|"
    r"lower(?:ing)?|rais(?:e|ing)|boost(?:ing)?)\s+(?:our |the |its |total |net )?$",
    re.IGNORECASE,
)
_CAUSE_BEFORE = re.compile(
    r"\b(?:drove|driven|resulted in|resulting in|pushed|lifted)\s+(?:(?:the|our|a|its|first|second|"
    r"third|fourth|quarter|quarterly|record)\s+)*$",
    re.IGNORECASE,
)
_MARGINS_LISTED = re.compile(
    r"\b(?P<dir>improvement|expansion|increase|decline|contraction|compression|improved|expanded|"
    r"increased|declined|contracted)s?\s+(?:in\s+)?(?:our\s+|the\s+)?(?:[\w-]+\s+)?margins?\s*[,:]"
    r"\s*(?:with\s+)?$",
    re.IGNORECASE,
)
_TURN_TO = re.compile(
    r"^(?:(?:now|so|next|finally|lastly),?\s+)?(?:turning|moving|(?:let me|let's|I'll|I will) "
    r"(?:now )?(?:turn|move))\s+(?:now\s+)?(?:on\s+)?to\s+(?:the\s+|our\s+)?[A-Z]",
    re.IGNORECASE,
)
_NOT_A_PART = re.compile(
    r"\b(?:excluding|including|or|about|approximately|roughly|nearly|up|down|compared|versus|"
    r"vs|from|to|by|which|that|this|it|we|our|they|the|a|an|its|while|with|was|were|is|are|"
    r"also|reported|organic|adjusted|gaap|growth|currency|basis|rate|of|total|[a-z]+ing|[a-z]+ed)\b",
    re.IGNORECASE,
)
_LOWER_PART = re.compile(
    r"\b(?:[Oo]ur|[Tt]he)\s+(?P<seg>[a-z][\w&-]*(?:\s+[a-z][\w&-]*)?)\s+(?:business|segment|division|"
    r"unit|utility|platform)\s+(?:also\s+)?(?:posted|had|reported|generated|delivered|recorded|saw|achieved|produced|"
    r"contributed|earned)\s+(?:an?\s+|its\s+)?(?:[\w-]+\s+){0,3}$"
)
_SLIDE = re.compile(r"\b(?:slides?|pages?|charts?)\s+$", re.IGNORECASE)
_INVESTED = re.compile(
    r"\b(?:we|[A-Z][\w/&.'’-]*)\s+invested\s+(?:approximately |about |nearly |roughly )?$"
)
_EARNED = re.compile(r"\b(?:we|[A-Z][\w/&.'’-]*)\s+earned\s+(?:approximately |about |nearly )?$")


_A_MARGIN = re.compile(
    r"(?:,|\b(?:for|at|with|and|or))\s+(?:an?|the)\s+margin\s+(?:of\s+)?(?:approximately |about |"
    r"roughly |around |nearly )?$",
    re.IGNORECASE,
)
_MARGIN_OF = {"ebitda": "ebitda_margin", "operating_income": "operating_margin",
              "gross_profit": "gross_margin"}  # fmt: skip


# what drove a total, then its own growth: " by continued strength in e-commerce, up "
_PART_THAT_DROVE = re.compile(
    r"\s*by\s+(?:(?:continued|strong|solid|robust|double-digit|further|higher|the)\s+)*"
    r"(?:(?:strength|growth|gains?|momentum|increases?|demand|sales)\s+(?:in|at|of|from)\s+)?"
    r"(?:our\s+|the\s+)?(?P<seg>[\w&'’.-]+(?:\s+[\w&'’.-]+){0,2}?),\s+(?:up|down)\s+"
    r"(?:approximately\s+|about\s+|nearly\s+|over\s+|more than\s+)?$",
    re.IGNORECASE,
)


_EXCLUDING = re.compile(r"\b(?:excluding|ex-(?!dividend))(?!\s+(?:[\w-]+\s+){0,2}items\b)", re.I)
_WITH_MORE_THAN = re.compile(
    r"\b(?:customers|clients|accounts|users|members)\s+(?:with|having|that have|generating|"
    r"contributing)\s+(?:more than|over|at least|greater than|above|in excess of)\s+\$?[\d,.]+"
    r"\s*(?:[kmb]\b|thousand|million|billion)?\s+(?:in|of)\s+(?:annual(?:ized)? )?$",
    re.IGNORECASE,
)
_SAME_SUBJECT_AHEAD = re.compile(
    r"\s*(?:and\s+)?we\s+(?:now\s+)?(?:expect|anticipate|see|plan for|project)\s+(?:approximately "
    r"|about |roughly |around |nearly )?",
    re.IGNORECASE,
)
_PERIOD_ONLY_AFTER = re.compile(
    r"\s*(?:for|in)\s+(?:the\s+)?(?:full[- ]year(?:\s+(?:fiscal\s+)?(?:19|20)\d{2})?|"
    r"(?:fiscal\s+)?(?:year|(?:19|20)\d{2})|"
    r"(?:first|second|third|fourth)\s+quarter|next\s+(?:year|quarter))\s*[.!]?\s*$",
    re.IGNORECASE,
)
_CONSENSUS = re.compile(
    r"\b(?:mean|consensus|average|median)(?:\s+of)?(?:\s+(?:the|current|street|sell-side))*\s+"
    r"(?:analysts?['’]?\s+)?(?:estimates?|expectations?)(?:\s+for\s+[\w\s']{3,30}?)?\s+(?:of|at)\s+"
    r"(?:approximately |about |roughly )?$",
    re.IGNORECASE,
)
# "$2.7 billion this fiscal year, which is an increase of over 10%": the change of the level
_WHICH_CHANGE = re.compile(
    r"[^,;:()$%]{0,30}?,\s*which\s+(?:is|was|represents|represented|would be|will be)\s+"
    r"(?:an?\s+)?(?:(?:year[- ](?:over|on)[- ]year|sequential)\s+)?(?:increase|decrease|decline|"
    r"growth|improvement|reduction|rise)\s+of\s+(?:approximately |about |nearly |roughly |"
    r"almost |more than |over |just over )?",
    re.IGNORECASE,
)


def _names_a_part(seg: str, company_words: frozenset[str]) -> bool:
    """Words that may name a part of the company: not a metric, a period, a pronoun or the
    company itself."""
    names = {w.lower().removesuffix("'s").removesuffix("’s") for w in seg.split()}
    return not (
        NOT_SEGMENT.match(seg)
        or names <= company_words | {"we", "it", "this", "that", "they", "our", "the", "i"}
        or mentions(seg)
        or metric_matches(seg)
    )


def _is_part(seg: str, company_words: frozenset[str]) -> bool:
    """A part's name as well as words that may name one: capitalized, a part word ("online",
    "e-commerce") or with "&"."""
    names = {w.lower() for w in seg.split()}
    return _names_a_part(seg, company_words) and bool(
        seg[:1].isupper() or names & PART_WORDS or "&" in seg
    )


def _segment_growth(
    sentence: str, fig: Figure, ca: int, last: Attributed | None, company_words: frozenset[str]
) -> str | None:
    """The part an outlook's growth rate is for, when the sentence names it as the subject:
    "we expect Neurosciences to grow 9% to 10%", and the list after it ", Neuroscience 4% to
    5%". A subject of two parts ("Cardiovascular and Medical Surgical to grow") is not one."""
    head = sentence[max(ca, fig.start - 80) : fig.start]
    found = _SEG_GROWS.search(head)
    if found is None and last is not None and last.role == "change" and last.segment:
        between = sentence[last.fig.start + len(last.fig.text) : fig.start]
        found = _SEG_NEXT.fullmatch(between) or _SEG_NEXT.search(between) if len(
            between) < 60 and not re.search(r"\d", between) else None  # fmt: skip
    if found is None:
        return None
    segs = [found.group("seg").strip()]
    if "seg2" in found.groupdict() and found.group("seg2"):
        segs.append(found.group("seg2").strip())  # "Cardiovascular and Medical Surgical to grow"
    if not all(_names_a_part(seg, company_words) for seg in segs):
        return None
    return _BOTH.join(segs)


def _bind(
    sentence: str,
    fig: Figure,
    i: int,
    figs: Sequence[Figure],
    metrics: Sequence[MetricMatch],
    period_words: Sequence[Mention],
    clause: tuple[int, int],
    last: Attributed | None,
    prev: Attributed | None,
    call: CallIdentity,
    company_words: frozenset[str],
    opener_seg: str | None,
    context: Context,
    forward: bool,
    geo: re.Match[str] | None,
    paired: dict[int, MetricMatch | None] | None = None,
) -> Attributed | None:
    ca, cb = clause
    end = fig.start + len(fig.text)
    unit = unit_of(fig, sentence)
    which_change = last is not None and _WHICH_CHANGE.fullmatch(
        sentence, last.fig.start + len(last.fig.text), fig.start) is not None  # fmt: skip
    if (
        ca > 0
        and (re.match(r"^\s*(?:which|who|that|where)\b", sentence[ca:])
             or re.search(r"\b(?:which|who|where)\s*$", sentence[:ca]))
        and not which_change
    ):  # fmt: skip
        return None  # ", which was able to deliver ...": its subject is in another clause
        # (not "$2.7 billion this fiscal year, which is an increase of over 10%": its change)
    threshold = None if which_change else _THRESHOLD.search(sentence, ca, fig.start)
    if threshold is not None and re.search(
        r"\b(?:exit|end|finish|close)\s+(?:the\s+|this\s+)?(?:fiscal\s+)?(?:year|quarter|"
        r"(?:19|20)\d{2})\s+$",
        sentence[: threshold.start()],
        re.I,
    ):
        threshold = None  # "to exit the year with ARR above $1.70 billion": a floor, not a class
    if threshold is not None and not (
        threshold.group(0).lower().startswith("of")
        and any(sentence[m.end : threshold.start()].strip() == "" for m in metrics)
    ):  # "free cash flow of at least $2.4 billion" bounds the metric itself
        return None  # "customers with ARR over $100,000": a threshold, not a level
    right = sentence[end:cb]
    prev_fig_end = max((f.start + len(f.text) for f in figs[:i]), default=0)
    metric_match: MetricMatch | None = None
    anchor: Attributed | None = None
    # 0. "adjusted earnings and adjusted EPS were $1.48 billion and $0.75 per share,
    #    respectively": the metrics in the order of the figures
    if paired and fig.start in paired and paired[fig.start] is None:
        return None  # one of a "respectively" list whose other list the sentence does not give
    pair = (paired or {}).get(fig.start)
    if pair is not None:
        metric_match = pair
    # 1. per share: "$5.25 per share of earnings", "$0.79 per diluted share"
    if metric_match is None and _PER_SHARE_AFTER.match(right):
        near = sentence[max(ca, fig.start - 60) : fig.start]
        per_share = [m for m in metrics if max(ca, fig.start - 60) <= m.start and m.end <= fig.start
                     and m.metric.level == "per_share" and m.metric.name != "eps"]  # fmt: skip
        if per_share and _gap_ok(sentence[per_share[-1].end : fig.start], forward):
            metric_match = per_share[-1]  # "Core FFO was $0.61 per share"
        elif re.search(r"dividend", near, re.I):
            metric_match = MetricMatch(METRIC_BY_NAME["dividend"], fig.start, fig.start)
        elif re.search(r"book value", near, re.I):
            metric_match = MetricMatch(METRIC_BY_NAME["book_value_per_share"], fig.start, fig.start)
        elif _ITEM_PER_SHARE.search(sentence, max(ca, fig.start - 80), fig.start):
            return None  # "amortization of acquired intangibles of $0.24 per share": an item
        elif re.search(r"earn|income|eps|loss|profit", sentence[ca:cb], re.I):
            metric_match = MetricMatch(METRIC_BY_NAME["eps"], fig.start, fig.start)
        else:
            return None
    # 1a. "we believe that the mean of analyst estimates of $6.81 is reasonable" for the year's
    #     earnings, "comfortable with the consensus estimate of $6.81": per-share earnings guided
    #     by the analysts' figure
    if (
        metric_match is None
        and forward
        and unit == "money"
        and abs(fig.value) < 100
        and _CONSENSUS.search(sentence, ca, fig.start)
        and re.search(r"\b(?:earnings|eps)\b", sentence[ca:cb], re.I)
    ):
        metric_match = MetricMatch(METRIC_BY_NAME["eps"], fig.start, fig.start)
    # 1b. an outlook by segment: "we expect Neurosciences to grow 9% to 10%, Neuroscience
    #     4% to 5%": a part's growth is its sales growth
    subject_seg: str | None = None
    if metric_match is None and forward and unit == "percent":
        subject_seg = _segment_growth(sentence, fig, ca, last, company_words)
        if subject_seg is not None:
            metric_match = MetricMatch(METRIC_BY_NAME["revenue"], fig.start, fig.start)
    # 1b'. "revenue was $539 million, up 9%, driven by continued strength in e-commerce, up
    #      144%": the growth of the part that drove the sales just stated
    if (
        metric_match is None
        and unit == "percent"
        and last is not None
        and last.metric.name == "revenue"
        and last.segment is None
        and re.search(r"\b(?:driven|led|helped|fueled|boosted)\s*$", sentence[:ca], re.I)
    ):
        drove = _PART_THAT_DROVE.match(sentence, ca, fig.start)
        seg = drove.group("seg") if drove is not None else None
        if seg is not None and _is_part(seg, company_words):
            subject_seg = seg
            metric_match = MetricMatch(last.metric, fig.start, fig.start)
    # 1c. "Cullen/Frost earned $109.8 million or $1.73 per share": what a company earned;
    #     "we repurchased 1.2 million shares for $95 million": what it spent on buybacks
    if metric_match is None and unit == "money" and _EARNED.search(sentence, ca, fig.start):
        metric_match = MetricMatch(METRIC_BY_NAME["net_income"], fig.start, fig.start)
    if metric_match is None and unit == "money" and _BOUGHT_BACK.search(sentence, ca, fig.start):
        metric_match = MetricMatch(METRIC_BY_NAME["buyback"], fig.start, fig.start)
    if (
        metric_match is None
        and unit == "money"
        and _INVESTED.search(sentence, ca, fig.start)
        and re.match(r"\s+(?:of\s+capital|in\s+capital\s+expenditures?)\b", right)
    ):  # "we invested $259 million of capital in the quarter": capital expenditures
        metric_match = MetricMatch(METRIC_BY_NAME["capex"], fig.start, fig.start)
    # 1d. "$1.25 billion of adjusted EBITDA for a margin of 40%": the margin of the money
    #     metric just named (with its basis)
    margin_of: MetricMatch | None = None
    if metric_match is None and unit == "percent" and _A_MARGIN.search(sentence, ca, fig.start):
        named = [m for m in metrics if ca <= m.start and m.end <= fig.start]
        if named and named[-1].metric.name in _MARGIN_OF:
            src = margin_of = named[-1]
            metric_match = MetricMatch(METRIC_BY_NAME[_MARGIN_OF[src.metric.name]], src.start,
                                       src.end)  # fmt: skip
    growth_after = False
    # 2a. "6% revenue growth", "13% earnings growth", "a 43% comparable sales increase": the
    #     metric named right after a percent, with its growth word (before the one before it)
    if metric_match is None and unit == "percent":
        lead = re.match(
            r"^\s*(?:(?:organic|adjusted|reported|total|net|core|diluted|domestic|international|"
            r"constant[- ]currency|year[- ]over[- ]year)\s+)*",
            right,
            re.I,
        )  # "11% domestic organic sales growth": the part named in the metric's phrase
        at = end + (lead.end() if lead else 0)
        nxt = next((m for m in metrics if m.start == at), None)
        if nxt is not None and re.match(
            rf"^\s*(?P<dir>growth|increase|decline|decrease|{_CHANGE_UP}|{_CHANGE_DOWN})\b",
            sentence[nxt.end : cb],
            re.I,
        ):
            metric_match, growth_after = nxt, True
        own = next((m for m in metrics if m.start == end + len(right) - len(right.lstrip())), None)
        if (
            metric_match is None
            and own is not None
            and re.search(r"\bgrowth$", sentence[own.start : own.end], re.I)
            # not "excited about International and committed to our 6% organic growth target":
            # a name before it in the clause may be the part whose growth it is
            and not [
                w
                for w in re.findall(r"(?<=\s)[A-Z][\w&'’.-]*", sentence[ca : fig.start])
                if w.lower() not in company_words and w not in ("I", "I'm", "I've")
            ]
        ):  # "positioned for 4% organic growth in 2021": the growth word is the metric's own
            metric_match, growth_after = own, True
    # 2. the metric before the figure, through connecting words only
    if metric_match is None:
        before = [m for m in metrics if ca <= m.start and m.end <= fig.start
                  and m.end >= prev_fig_end]  # fmt: skip
        if before and _gap_ok(sentence[before[-1].end : fig.start], forward):
            metric_match = before[-1]
            if (
                len(before) > 1
                and before[-2].metric.level == "rate"
                and metric_match.metric.level != "rate"
                and re.fullmatch(r"\s+(?:on|of|for)\s+(?:[\w-]+\s+)?",
                                 sentence[before[-2].end : metric_match.start])
            ):  # fmt: skip
                metric_match = before[-2]  # "the tax rate on core earnings is 25%": the rate
    # 3. the metric after: "$2.7 billion of EBITDA", "a 9% increase in revenue"
    times = re.match(r"^\s*(?:times|x)\s+", right, re.I) if unit == "number" else None
    if metric_match is None and unit == "number" and times is None:
        ratio = re.match(r"^(?::1)?\s+", right)  # "a 1:1 book-to-bill", "a 1.2 book-to-bill"
        if ratio is not None:
            metric_match = next((m for m in metrics if m.start == end + ratio.end()
                                 and m.metric.name == "book_to_bill"), None)  # fmt: skip
    if metric_match is None and unit == "number" and fig.kind != "money":
        # "1.9 million carloads", "4.1 million medical members": a count named after it
        metric_match = next((m for m in metrics if m.start == end + len(right) - len(right.lstrip())
                             and m.metric.level == "number"
                             and m.metric.name != "book_to_bill"), None)  # fmt: skip
    if metric_match is None and times is not None:  # "1.3 times debt-to-EBITDA"
        metric_match = next((m for m in metrics if m.start == end + times.end()
                             and m.metric.level == "multiple"), None)  # fmt: skip
    if metric_match is None:
        after = re.match(
            r"^\s*(?:(?:year[- ]over[- ]year |sequential )?(?:increase|decrease|decline|growth|"
            r"improvement|rise|drop|reduction|expansion|gain)\s+)?(?:of|in|on)\s+"
            r"(?:our |the |total |"
            r"net |adjusted |gaap |non-gaap |consolidated |core |diluted |organic |reported )*",
            right,
            re.IGNORECASE,
        )
        if after is not None:
            at = end + after.end()
            nxt = next((m for m in metrics if m.start == at), None)
            if nxt is None:  # one modifier word: "$539 million in Journeys revenue"
                nxt = next((m for m in metrics if at < m.start <= at + 30 and m.end <= cb
                            and re.fullmatch(r"\s*[\w&'’.-]+(?:\s+[\w&'’.-]+)?\s*",
                                             sentence[at : m.start])), None)  # fmt: skip
            verb = re.search(r"(\w+)\s+(?:(?:approximately|about|nearly|roughly|almost|over|"
                             r"more than|a record|record|just over|a|an)\s+)*$",
                             sentence[ca : fig.start])  # fmt: skip
            tail = sentence[nxt.end : cb] if nxt is not None else ""
            listed = verb is not None and verb.group(1).lower() in ("and", "or") and (
                prev is not None and i > 0 and prev.fig is figs[i - 1])  # fmt: skip
            moved = re.match(rf"^\s*(?:{_CHANGE_UP}|{_CHANGE_DOWN})\b", tail, re.I) if (
                unit in ("bps", "percent")) else None  # fmt: skip
            on_up = (
                verb is not None
                and verb.group(1).lower() in ("up", "down")
                and bool(re.match(r"\s*on\b", right))
            )  # "we're up 100 basis points on operating margin"
            if nxt is not None and (verb is None or verb.group(1).lower() in OBJECT_VERBS
                                    or listed or on_up) and (  # fmt: skip
                _AFTER_METRIC.match(tail) or moved
            ):  # fmt: skip
                metric_match = nxt
                growth_after = moved is not None  # "250 basis points of margin expansion"
                subject = _NAMED_SUBJECT.match(sentence[ca : fig.start])
                who = {w.lower() for w in subject.group("who").split()} if subject else set()
                if subject is not None and not who <= company_words | {"we", "it"}:
                    return None  # "Europe was $214 million of revenue": a part's, or whose?
    # 3c. "a 30% tax rate", "a 5.4% non-GAAP operating income rate", "45% adjusted EBITDA
    #     margins": a rate named right after its level
    if metric_match is None and unit == "percent":
        lead = re.match(r"^\s*(?:(?:adjusted|non-gaap|gaap|core|effective|reported|total|"
                        r"consolidated)\s+)*", right, re.I)  # fmt: skip
        at = end + (lead.end() if lead else 0)
        nxt = next((m for m in metrics if m.start == at and m.metric.level == "rate"), None)
        if nxt is not None and not re.match(
            r"^\s*(?:growth|increase|decline|decrease|expansion|contraction|improvement|"
            r"change|impact|headwind|tailwind|benefit)\b",
            sentence[nxt.end : cb],
            re.I,
        ):
            metric_match = nxt
    # 3b. "Total production was 3 Bcfe per day. This included 2.4 Bcf per day of gas ... and
    #     104,000 barrels per day of oil and NGLs": the parts of the volume stated just before
    part_of: str | None = None
    total = context.total
    if (
        metric_match is None
        and total is not None
        and unit == "number" == total.unit
        and (volume := with_volume_unit(fig, sentence)) != fig.text
        and _INCLUDED.match(sentence)
        and (of := _OF_PART.match(sentence[fig.start + len(volume) : cb])) is not None
        and not NOT_SEGMENT.match(of.group("seg"))
        and not metric_matches(of.group("seg"))
        and not mentions(of.group("seg"))
    ):
        metric_match = MetricMatch(total.metric, fig.start, fig.start)
        part_of = of.group("seg")
    # 4. an appositive change of the figure before: ", a year-over-year improvement of $1.8
    #    billion", ", up 9%", "or 7.3%"
    to_level = same_change = False
    # "11% domestic organic sales growth, 14.9% for international and minus 1.2% for SPD": the
    # list goes on with the same metric's change for other parts
    list_seg: str | None = None
    if (
        metric_match is None
        and last is not None
        and last.role == "change"
        and last.segment is not None
        and last.unit == unit
        and re.fullmatch(
            r"[^\d;:()]{0,60}?(?:,\s*(?:and\s+)?|\s+and\s+)(?:minus\s+|negative\s+)?",
            sentence[last.fig.start + len(last.fig.text) : fig.start],
        )  # fmt: skip
        and (
            part := re.match(
                r"\s+for\s+(?P<seg>[A-Za-z][\w&'’.-]*(?:\s+[A-Z][\w&'’.-]*){0,2})"
                r"(?=\s*(?:,|\.|$|\band\b))",
                right,
            )
        )  # fmt: skip
        and not NOT_SEGMENT.match(part.group("seg"))
        and not metric_matches(part.group("seg"))
        and not mentions(part.group("seg"))
    ):
        metric_match = MetricMatch(last.metric, fig.start, fig.start)
        list_seg = part.group("seg").rstrip(".")
    if (
        metric_match is None
        and last is not None
        and last.role == "change"
        and last.unit == unit
        and (
            part_named := re.fullmatch(
                r"[^\d;:()]{0,40}?(?:,\s*(?:and\s+)?|\s+and\s+)(?P<seg>[A-Za-z][\w&'’.-]*(?:\s+"
                r"[A-Za-z][\w&'’.-]*){0,2}?)\s+(?:was\s+|were\s+|at\s+)?(?:minus\s+|negative\s+)?",
                sentence[last.fig.start + len(last.fig.text) : fig.start],
            )
        )  # fmt: skip
        and not _NOT_A_PART.search(part_named.group("seg"))
        # a part's name: capitalised ("SPD") or a word for a part ("domestic", "international")
        and all(w[:1].isupper() or w.lower() in PART_WORDS for w in part_named.group("seg").split())
        and not NOT_SEGMENT.match(part_named.group("seg"))
        and not metric_matches(part_named.group("seg"))
        and not mentions(part_named.group("seg"))
    ):  # "Organic was 9.5%, domestic was 10.7%, international 8.6% and SPD was 0.4%"
        metric_match = MetricMatch(last.metric, fig.start, fig.start)
        list_seg = part_named.group("seg")
    if metric_match is None and last is not None:
        between = sentence[last.fig.start + len(last.fig.text) : fig.start]
        # "$512 million in the quarter, up 21%": the quarter's words are the level's
        between = re.sub(r"^\s*(?:in|for|during) (?:the|this) (?:quarter|period)\b", "", between)
        if last.metric.level == "number" and last.unit == "number":
            # "1.9 million carloads, up 3%": the count's own noun, then its change
            between = last.metric.pattern.sub("", between, count=1) if re.match(
                rf"\s*(?:{last.metric.words})\b", between, re.I) else between  # fmt: skip
        restated = last.metric.level == "volume" and re.fullmatch(
            r"\s*,?\s*or\s+(?:approximately |about |roughly )?",
            between[len(with_volume_unit(last.fig, sentence)) - len(last.fig.text) :],
        )
        if restated:  # "276 Bcfe or 3 Bcfe per day": the same volume as a rate (its own row)
            to_level = True
            metric_match = MetricMatch(last.metric, last.fig.start, last.fig.start)
        elif (
            last.role == "change"
            and re.fullmatch(
                r"[^\d;:()$%]{0,40}?\band\s+by\s+(?:approximately |about |"
                r"nearly |roughly |almost )?",
                between,
            )  # fmt: skip
        ):  # "increased by $82 million over the previous quarter and by $371 million": the
            # same metric's change against another base
            anchor, same_change = last, True
            metric_match = MetricMatch(last.metric, last.fig.start, last.fig.start)
        elif last.role == "change" and re.fullmatch(
            r"\s*(?:(?:year[- ](?:over|on)[- ]year|sequentially|organically|in the quarter|"
            r"on an? [\w-]+ basis)\s+)?"
            r"to\s+(?:a record |record |approximately |about |nearly |roughly |(?:a|the) range "
            r"of |between )?",
            between,
            re.IGNORECASE,
        ):
            anchor, to_level = last, True
            metric_match = MetricMatch(last.metric, last.fig.start, last.fig.start)
        elif (
            re.fullmatch(
                r"\s*,?\s*(?:(?:an?|the)\s+)?"
                r"(?:(?:year[- ](?:over|on)[- ]year|sequential|quarterly|"
                rf"organic|strong|solid)\s+)*(?:(?:{_CHANGE_UP}|{_CHANGE_DOWN}|increase|decrease|"
                r"decline|improvement|gain|rise)(?:\s+(?:of|by))?|or(?:\s+an?\s+(?:increase|decrease|"
                r"decline)\s+of)?|(?:representing|reflecting|implying)\s+(?:(?:year[- ]over[- ]"
                r"year|organic|reported)\s+)?(?:growth|an?\s+(?:increase|decrease|decline))\s+of)\s+"
                r"(?:approximately |about |nearly |roughly |almost |more than |over )?",
                between,
                re.IGNORECASE,
            )
            or re.fullmatch(
                r"\s*,?\s*(?:(?:up|down|increasing|decreasing|compared|as compared)\s+)?"
                r"(?:from|compared (?:to|with)|versus|vs\.?)\s+(?:approximately |about |"
                r"the |a )?",
                between,
                re.IGNORECASE,
            )
            or (re.fullmatch(r"\s*,?\s*(?:up|down)\s+from\s+", between, re.I))
            or _WHICH_CHANGE.fullmatch(between)
            or (
                re.fullmatch(r"\s*,\s*(?:approximately |about |roughly |nearly |almost )?", between)
                and (after := _CHANGE_AFTER.match(right)) is not None
                and re.match(
                    r"\s+(?:than|from|compared|versus|vs\b|over|year)", right[after.end() :]
                )
            )  # "10%, 70 basis points lower than the year-ago quarter": its change
        ):
            anchor = last
            metric_match = MetricMatch(last.metric, last.fig.start, last.fig.start)
    # "Capital expenditures were $262 million in the quarter, and we expect about $1.2 billion
    #  for the full year": the clause's subject is the one just stated, for another period
    if (
        metric_match is None
        and forward
        and last is not None
        and last.role == "result"
        and last.unit == unit
        and _SAME_SUBJECT_AHEAD.fullmatch(sentence, ca, fig.start)
        and _PERIOD_ONLY_AFTER.match(right)
    ):
        subject_seg = subject_seg or last.segment
        metric_match = MetricMatch(last.metric, fig.start, fig.start)
    if metric_match is None:
        return None
    metric = metric_match.metric
    if metric.name == "revenue" and re.search(
        r"\bcosts?\s+of\s+(?:goods\s+)?$",
        sentence[max(0, metric_match.start - 20) : metric_match.start],
        re.I,
    ):
        return None  # "Cost of sales was $14.9 million": a cost, not sales
    if metric.level == "rate" and re.match(
        r"\s+(?:on|for|of)\s+(?:[\w-]+\s+){1,2}(?:sales|revenues?)\b",
        sentence[metric_match.end :],
        re.I,
    ):
        return None  # "gross margin on product sales was 88.6%": a part's margin, not the company's
    if metric.name == "revenue" and _VOLUME_SALES.search(sentence):
        return None  # "Weather-normalized retail electric sales grew 2.4%": volumes, not revenue
    if (
        call.flows_business
        and metric.name == "revenue"
        and sentence[metric_match.start : metric_match.end].lower().startswith("organic")
    ):
        return None  # an asset manager's "organic growth": of assets, from net flows
    if (
        metric.name == "net_income"
        and prev is not None
        and prev.metric.name == "eps"
        and sentence[metric_match.start : metric_match.end].lower() == "earnings"
        and re.fullmatch(
            r"[^\d;:]{0,40}?\bor\s+", sentence[prev.fig.start + len(prev.fig.text) : fig.start]
        )
    ):  # "$6.35 in core earnings per share or 13% earnings growth": the same per-share earnings
        metric = prev.metric
    gap = sentence[metric_match.end : fig.start] if anchor is None else sentence[
        anchor.fig.start + len(anchor.fig.text) : fig.start]  # fmt: skip
    # role
    role = "result"
    up_down: str | None = None
    if subject_seg is not None:
        down = re.search(r"\b(?:down|decline|decrease)\s+(?:by\s+)?(?:approximately |about )?$",
                         sentence[max(ca, fig.start - 30) : fig.start], re.I)  # fmt: skip
        role, up_down = "change", ("down" if down else "growth")
    cmp_before = _COMPARE_BEFORE.search(sentence[max(ca, fig.start - 40) : fig.start])
    chg_before = _CHANGE_BEFORE.search(sentence[max(ca, fig.start - 40) : fig.start])
    chg_after = _CHANGE_AFTER.match(right)
    if chg_after is not None and re.match(
        r"\s*(?:by\s+)?(?:approximately |about |nearly |almost |"
        r"over |more than )?(?:[$€£]?\d|(?:one|two|three|four|five|six|seven|eight|nine|ten|"
        r"eleven|twelve|fifteen|twenty|thirty|forty|fifty|a (?:half|quarter))\b)",
        right[chg_after.end() :],
        re.I,
    ):
        chg_after = None  # "$14.5 billion up 5.8%": the change is the next figure's
    level_to = bool(re.search(r"(?<!\bup )\bto\s+(?:\w+\s+)?$", gap)) and not re.search(
        r"\b(?:compared|relative)\s+to\s+(?:\w+\s+)?$", gap)  # fmt: skip
    if cmp_before is not None and not level_to:
        role = "comparison"
    elif (
        level_to
        and _TO_BEFORE.search(sentence[max(ca, fig.start - 25) : fig.start])
        and (unit != "bps")
    ):
        role = "result"
    elif chg_before is not None:
        role, up_down = "change", chg_before.group("dir")
    elif re.search(
        r"\bby\s+(?:approximately |about |nearly |roughly |almost |over |more than )?$",
        sentence[max(ca, fig.start - 30) : fig.start],
        re.I,
    ) and (verb := re.search(rf"\b({_CHANGE_UP}|{_CHANGE_DOWN})\b", gap, re.I)):
        role, up_down = "change", verb.group(1)
    elif chg_after is not None:
        role, up_down = "change", chg_after.group("dir")
    elif (
        anchor is None
        and re.fullmatch(
            r"\s+(?:per (?:common )?(?:share|unit)\s+)?(?:by|at(?:\s+an?)?)\s+(?:up to |"
            r"approximately |about |nearly |roughly |almost |around )?",
            gap,
        )
        and (unit == "percent" or not re.search(r"\bat\b", gap))  # "at roughly 10%": a rate
        and (
            verb := _VERB_BEFORE.search(
                sentence, max(ca, metric_match.start - 30), metric_match.start
            )
        )  # fmt: skip
    ):  # "reducing debt by $4 billion", "grow revenue by 5%": the metric's change
        role, up_down = "change", verb.group(1)
    elif unit == "bps" and (
        listing := _MARGINS_LISTED.search(sentence, max(0, fig.start - 90), fig.start)
    ):  # "improvement in our margins, 360 basis points on gross margin"
        role, up_down = "change", listing.group("dir")
    elif (
        unit == "bps"
        and prev is not None
        and i > 0
        and prev.fig is figs[i - 1]
        and prev.role == "change"
        and prev.unit == "bps"
        and re.fullmatch(
            r"[^\d;:]*?,?\s+and\s+", sentence[prev.fig.start + len(prev.fig.text) : fig.start]
        )
    ):  # "... 360 basis points on gross margin and 470 basis points on operating margin"
        role, up_down = "change", "down" if prev.value < 0 else "up"
    elif unit == "bps" and not growth_after:
        return None  # basis points with no direction: not a level, not a known change
    growth_gap = re.search(r"\b(?P<dir>growth|grow|grew|increase|decline|decrease|down)\b",
                           gap if anchor is None else "", re.I)  # fmt: skip
    # "It grew revenue 14% to $1.86 billion", "we increased EPS 9%": the verb before the metric
    verb_before = (
        re.search(
            r"\b(?P<dir>grew|grow|grown|growing|increased|decreased|reduced|expanded|cut)\s+"
            r"(?:our\s+|its\s+|total\s+|the\s+)?$",
            sentence[max(ca, metric_match.start - 25) : metric_match.start],
            re.I,
        )
        if anchor is None
        and metric_match.end <= fig.start
        and re.fullmatch(r"\s*(?:by\s+)?(?:approximately |about |nearly |roughly |almost )?", gap)
        else None
    )
    if (
        (growth_after or growth_gap or verb_before)
        and role != "comparison"
        and unit in ("percent", "bps")
        and (metric.level in ("money", "per_share") or unit == "bps")
    ):
        found_dir = growth_gap or verb_before
        word = found_dir.group("dir") if found_dir else "growth"
        own_word = re.search(r"\bgrowth$", sentence[metric_match.start : metric_match.end])
        if growth_after and own_word:
            word = "growth"
        elif growth_after:
            word = re.match(r"^\s*(\w+)", sentence[metric_match.end : cb]).group(1)  # type: ignore[union-attr]
        if not (role == "change" and up_down is not None and _DOWN.match(up_down.split()[0])):
            role, up_down = "change", word
    # "compared to net income of $14.6 million": a cue before the metric, after the last figure
    lead_in = sentence[max(ca, prev_fig_end) : min(metric_match.start, fig.start)]
    if anchor is None and re.search(r"\b(?:compared (?:to|with)|versus|vs\.?|against|relative "
                                    r"to)\b", lead_in, re.I):  # fmt: skip
        role = "comparison"
    # "the year-over-year increase in core deposits of $243 million": a change
    noun = re.search(
        r"\b(?P<dir>increase|decrease|decline|growth|improvement|rise|drop|reduction|expansion|"
        r"contraction|gain)s?\s+in\s+(?:[\w&'’-]+\s+){0,3}$",
        sentence[max(ca, metric_match.start - 50) : metric_match.start],
        re.IGNORECASE,
    )
    if anchor is None and noun is not None and role == "result" and metric_match.end <= fig.start:
        role, up_down = "change", noun.group("dir")
    # "$14.6 million, or $0.51 per diluted share": the same role and period as the figure before
    chained = prev is not None and bool(
        re.fullmatch(
            r"\s*,?\s*(?:or|and)\s+", sentence[prev.fig.start + len(prev.fig.text) : fig.start]
        )
    )
    if chained and prev is not None and prev.role == "comparison" and anchor is None:
        role = "comparison"
    if metric.level == "growth" and unit in ("percent", "bps") and role != "comparison":
        role = "change"
        if up_down is None:
            down = re.search(rf"\b(?:{_CHANGE_DOWN}|decline|decrease|negative)\b", gap, re.I)
            up_down = down.group(0) if down else "growth"
    if (
        anchor is not None
        and anchor.role == "change"
        and unit == "percent"
        and anchor.unit == "money"
        and re.fullmatch(
            r"\s*,?\s*or\s+(?:approximately |about |roughly |nearly |almost )?",
            sentence[anchor.fig.start + len(anchor.fig.text) : fig.start],
        )  # fmt: skip
    ):  # "Revenue is up $640 million or 7.3%": the same change, as a percent
        role, up_down = "change", "down" if anchor.value < 0 else "up"
    if (
        pair is not None
        and prev is not None
        and prev.fig.start in (paired or {})
        and prev.fig.start < fig.start
    ):  # "increasing 9% and 125%, respectively": the second as the first
        role = prev.role
        up_down = None if role != "change" else ("down" if prev.value < 0 else "up")
    if list_seg is not None and last is not None:
        minus = re.search(
            r"\b(?:minus|negative)\s+$", sentence[max(ca, fig.start - 12) : fig.start]
        )
        role, up_down = "change", "down" if minus else "up"
    if same_change and anchor is not None:
        role, up_down = "change", "down" if anchor.value < 0 else "up"
    if (
        role == "change"
        and unit == "money"
        and anchor is None
        and last is not None
        and last.role == "change"
        and last.unit == "percent"
        and last.metric is metric
        and not re.search(r"\bor\b|[,;]", sentence[last.fig.start + len(last.fig.text) : fig.start])
    ):  # "6% to 8% earnings per share growth of $3 to $3.06": the growth, then the level
        role, up_down = "result", None
    if is_flat(fig):  # "organic growth was flat": no change, of a level that is not a rate
        if metric.level == "rate" or anchor is not None:
            return None
        role, up_down = "change", "flat"
    if to_level:
        role, up_down = "result", None
    elif anchor is not None and role == "result":
        return None
    # "Foreign exchange is expected to reduce net sales growth by about 1 point": an effect on
    # the metric, not its change
    if re.search(
        r"\b(?:foreign exchange|foreign currency|currency|currencies|fx|translation|acquisitions?|"
        r"divestitures?|the (?:extra|additional|53rd) week)\b[^.;]{0,40}?\b(?:reduc|lower|add|hurt|"
        r"help|benefit|contribut|weigh|impact|increas|decreas|boost|drag)\w*\s+(?:our |the )?"
        r"(?:[\w-]+\s+){0,2}$",
        sentence[ca : metric_match.start],
        re.I,
    ):
        return None
    # an effect on a metric ("a currency headwind on revenue of $80 million") is not its level
    if re.search(
        r"\b(?:headwinds?|tailwinds?|impacts?|effects?|benefits?|contributions?|drag|savings|"
        r"synerg(?:y|ies)|"
        r"contributed|impacted|reduced|hurt|helped|added|dilution|accretion|accretive)\b",
        # not across a comma: "As we begin to lap the impact of COVID-19, we expect Merchant
        # revenue growth ..." is a reason, then the outlook
        sentence[max(ca, metric_match.start - 45) : metric_match.start].rpartition(",")[2],
        re.I,
    ):
        return None
    expense_rate = (
        metric.name == "expenses"
        and unit == "percent"
        and role == "result"
        and re.match(r"\s*(?:$|[,.;]|of (?:net )?(?:sales|revenues?)\b|in the quarter\b)", right)
        is not None
    )  # "Adjusted SG&A expense was 44.3%": expenses as a percent of sales, its usual measure
    if (
        unit == "percent"
        and metric.level in ("money", "per_share")
        and role != "change"
        and not expense_rate
    ):
        return None  # "40% of revenue" is a share; a percent of a money metric must be a change
    if not expense_rate and not fits(metric, unit, role, fig, sentence[end:]):
        return None
    # sign
    value = fig.value * (100 if unit == "bps" else 1)
    if role == "change":
        if up_down is not None and _DOWN.match(up_down.lower().split()[0]):
            value = -abs(value)
        elif (
            metric.name in _LOWER_IS_BETTER
            and up_down is not None
            and re.match(r"improv|better", up_down, re.I)
        ):
            value = -abs(value)  # "the combined ratio, an improvement of 2.7 points": it fell
        elif up_down is None:
            return None
    elif (
        _LOSS.search(sentence[metric_match.start : metric_match.end])
        or re.search(
            r"\b(?:loss|negative)\s+(?:of\s+)?(?:approximately |about )?$",
            sentence[max(ca, fig.start - 30) : fig.start],
            re.I,
        )
        or (chained and prev is not None and prev.value < 0 and prev.role == role)
    ):
        value = -abs(value)  # "a loss of $13.7 million or $0.20 per share": both are losses
    # segment
    segment: str | None
    if subject_seg is not None:
        segment = subject_seg
    elif part_of is not None:
        segment = part_of
    elif list_seg is not None:
        segment = list_seg
    elif anchor is not None:
        segment = anchor.segment
    elif times is not None and metric_match.start > fig.start:
        segment = None  # "1.3 times debt-to-EBITDA": leverage is the company's
    else:
        found_seg = np_segment(sentence, metric_match.start, company_words, metric.name) if (
            metric_match.end > metric_match.start
            # "low to mid single-digit organic growth": the figure's own words, not a part's
            and not (metric_match.start >= end and not sentence[end : metric_match.start].strip())
        ) else None  # fmt: skip
        if (
            found_seg is False
            and context.segment_heading
            and context.segment_age <= 1
            and metric.segmentable
            and _CAUSE_BEFORE.search(sentence, max(0, metric_match.start - 40), metric_match.start)
        ):  # "... our Technology segment. Licensing drove third quarter EBITDA to $155 million":
            # what drove the part's EBITDA, right after a heading naming the part
            found_seg = context.segment
        if found_seg is False:
            return None
        segment = found_seg if isinstance(found_seg, str) else None
        seg_after = SEGMENT_AFTER.match(sentence, metric_match.end) if (
            metric_match.end <= fig.start) else None  # fmt: skip
        if seg_after is not None and seg_after.end() <= fig.start:
            seg_name = segment_after(seg_after)
            if seg_name is None and segment is None:
                return None  # "revenue in our largest segment": a part the words do not name
            segment = segment or seg_name
        if segment is None and opener_seg is not None:
            segment = opener_seg
        if segment is None and geo is not None and ca <= geo.start() < cb and metric.segmentable:
            segment = geo.group(0)
        if (
            segment is None
            and metric.segmentable
            and _POSSESSOR.search(sentence, 0, metric_match.start) is not None
            and not _company_possessor(sentence, company_words, metric_match.start)
        ):
            return None  # "the Bank's loans ..., and deposits ...": a part, named by a pronoun
        its = re.search(
            r"\bits\s+(?:[\w-]+\s+){0,2}$",
            sentence[max(0, metric_match.start - 30) : metric_match.start],
            re.I,
        )
        if segment is None and its is not None and prev is not None and prev.segment:
            segment = prev.segment  # "FPL's capex was $1.5 billion, and we expect its ..."
        elif (
            segment is None
            and its is not None
            and metric.segmentable
            and not re.match(r"\s*(?:Its|Their)\b", sentence)  # the next rule's
        ):
            # "We expect North America to return to positive volume, and for the full year we
            # expect its organic revenue growth in the low single digits": the part named
            # before "its" in the sentence; "its" with no part named is left out, not the company
            its_at = max(0, metric_match.start - 30) + its.start()
            its_part = _ITS_PART.search(sentence, 0, its_at)
            its_seg = its_part.group("seg") if its_part is not None else None
            if its_seg is None or not _names_a_part(its_seg, company_words):
                return None
            segment = its_seg
        if (
            segment is None
            and metric.segmentable
            and re.match(
                r"\s*(?:And\s+|So\s+)?It\s+(?!(?:was|is|has been|will|would|should|"
                r"remains|seems|looks|also)\b)(?:[a-z]+ed|grew|rose|fell|saw|had|won|drove)\b",
                sentence,
            )
        ):  # "Our alternatives platform ... It ended the quarter with $74 billion of assets under
            # management": a part the sentence before named, not the company
            segment = _recent_part(context)
            if segment is None:
                return None
        if (
            segment is None
            and metric.segmentable
            and re.match(r"\s*(?:Its|Their)\s+(?:[\w-]+\s+){0,2}$", sentence[: metric_match.start])
        ):  # "Our industrial portfolio ... continues to lead. Its occupancy was 97.3%": the
            # part the sentence before named, not the company
            segment = _recent_part(context)
            if segment is None:
                return None  # no part named in the last sentences: whose is not said
        if (
            segment is None
            and metric.segmentable
            and re.match(
                r"\s*(?:And\s+|So\s+)?(?:This|The) (?:segment|division|business unit)\b", sentence
            )  # fmt: skip
        ):  # "Our Capital Market segment continues to exceed expectations ... This segment is
            # positioned for low to mid single-digit organic growth in 2021": the part just named
            segment = _recent_part(context)
            if segment is None:
                return None  # no part named in the last sentences: whose is not said
        subject = _PART_WILL.search(sentence, ca, min(metric_match.start, fig.start)) if (
            segment is None and metric.segmentable) else None  # fmt: skip
        if subject is not None:
            # "we project that the modern banking platform will generate in excess of $100
            # million of revenue in 2021": the part's, not the company's
            words = {w.lower() for w in subject.group("seg").split()}
            if words <= company_words | GENERIC_PART or metric_matches(subject.group("seg")):
                return None  # "our core business will generate": whose is not said
            segment = f"{subject.group('seg')} {subject.group('noun')}"
        part = _LOWER_PART.search(sentence, ca, min(metric_match.start, fig.start)) if (
            segment is None) else None  # fmt: skip
        if part is not None and not re.fullmatch(
            r"(?:core|overall|total|whole|entire|existing|base|underlying|combined)",
            part.group("seg"),
        ):  # "our cargo business posted an operating loss of $9 million": the part's
            segment = part.group("seg")
        if segment is None and chained and prev is not None and prev.segment:
            segment = prev.segment  # "earnings were $619 million or $0.31 per share": the part's
        if (
            segment is None
            and context.segment is not None
            and context.segment_heading
            and context.segment_age <= 1
            and metric.segmentable
        ):  # "... the performance of our Technology segment. Licensing drove EBITDA to $155
            # million": the sentence after a heading that names the part speaks of it
            segment = context.segment
        if (
            segment is None
            and context.segment is not None
            and context.segment != UNNAMED_SEGMENT
            and metric.name == "dividend"
            and "distribution" in sentence[metric_match.start : metric_match.end].lower()
        ):  # "Turning to NextEra Energy Partners ... our 2022 distribution growth of 12% to 15%":
            # a partnership's distributions, the one under discussion
            segment = context.segment
        named_for = _FOR_NAMED.match(sentence, metric_match.end) if (
            segment is None and metric.segmentable) else None  # fmt: skip
        if named_for is not None and _names_a_part(named_for.group("n"), company_words):
            return None  # "a 15% adjusted EBITDA margin for Homes by 2027": a part's
        if segment is None and context.segment is not None and metric.segmentable:
            return None  # a segment is under discussion: this may be the segment's figure
    # basis: words of the clause up to the figure (and "on an adjusted basis" after it)
    lo = max(ca, prev_fig_end, min(metric_match.start, fig.start) - 30)
    cut = max(sentence.rfind(" and ", lo, metric_match.start), sentence.rfind(",", lo,
              metric_match.start))  # fmt: skip
    lo = cut + 1 if cut != -1 and metric_match.end > metric_match.start else lo
    qualifier = _QUALIFIER_AFTER.match(sentence[max(end, metric_match.end) : cb])
    basis_text = sentence[lo : max(end, metric_match.end)] + " " + (
        qualifier.group(0) if qualifier else "")  # fmt: skip
    joint = re.search(
        r"\b(?:adjusted|non-gaap)\s+[\w&-]+\s+and\s+$",
        sentence[max(ca, metric_match.start - 40) : metric_match.start],
        re.I,
    )
    if joint is not None:  # "combined non-GAAP R&D and SG&A expenses of": both qualified
        basis_text = joint.group(0) + " " + basis_text
    if pair is not None:  # "adjusted earnings and adjusted EPS were ..., respectively"
        head = sentence[max(ca, pair.start - 30) : pair.start]
        head = re.split(r"\band\b|,", head)[-1]
        basis_text = head + sentence[pair.start : pair.end]
    opening = _BASIS_OPENING.match(sentence)
    if opening is not None:
        basis_text = opening.group(0) + " " + basis_text
    basis = anchor.basis if anchor is not None and role != "change" else _basis(
        basis_text, metric, role, call)  # fmt: skip
    if to_level and anchor is not None and basis not in ("adjusted", "gaap"):
        basis = anchor.basis if anchor.basis in ("adjusted", "gaap") else _basis(
            basis_text, metric, role, call)  # fmt: skip
    if anchor is not None and role == "change" and basis is None:
        basis = anchor.basis if anchor.basis in ("adjusted", "gaap") else None
    if (
        basis is None
        and metric.name == "eps"
        and re.search(
            r"\boperating (?:earnings|eps\b|income per)",
            sentence[ca : max(end, metric_match.end)],
            re.I,
        )
    ):  # "Operating earnings were $1.21 per share": a utility's or insurer's non-GAAP EPS
        basis = "adjusted"
    if list_seg is not None and last is not None:
        basis = last.basis  # the list's metric, as first named ("organic sales growth")
    if chained and prev is not None and basis is None and prev.role == role:
        basis = prev.basis  # "adjusted income of $61.3 million or $0.90 per share"
    if margin_of is not None and basis is None:  # "adjusted EBITDA was $882 million, a margin of"
        basis = _basis(sentence[max(ca, margin_of.start - 30) : margin_of.end], metric, role, call)
    # "excluding fuel, sales grew 5.0%", "Excluding fuel and a LIFO charge, gross margin
    # improved 12 basis points": a narrower measure than the one named; unless its words make
    # it adjusted, organic or constant-currency, which measure it is the call does not say
    if basis in (None, "gaap") and _EXCLUDING.search(sentence, ca, max(ca, fig.start)):
        return None
    # "Customers with more than $100,000 in ARR grew 31%": the customers grew, not ARR
    if _WITH_MORE_THAN.search(sentence, ca, max(ca, metric_match.start)):
        return None
    # period
    period = _figure_period(sentence, fig, metric_match, role, period_words, (ca, cb), figs, i,
                            call, forward, anchor, context.period)  # fmt: skip
    if period is False or period is True:
        return None
    if (
        metric.name == "dividend"
        and isinstance(period, Period)
        and period.kind == "Q"
        and period.year is not None
        and call.period is not None
        and call.period.kind == "Q"
        and call.period.year == period.year
        and period.n < call.period.n
        and re.search(r"\b(?:declared|payable|will be paid)\b", sentence, re.I)
        and any(
            m.period is not None and m.period.kind == "Q" and m.period.year is None
            for m in period_words
            if ca <= m.start < cb
        )
    ):  # "declared a first quarter dividend of $0.10 per share, payable on March 20, 2026" on a
        # fourth-quarter call: the coming first quarter's, not the one past
        period = Period("Q", period.n, period.year + 1)
    if role == "result" and _PRIOR_POSSESSIVE.search(
        sentence, ca, max(ca, min(fig.start, metric_match.start))
    ):  # "Last year's first-half net loss was $212 million": history, not this period's
        return None
    return Attributed(
        fig=fig, metric=metric, role=role, value=value, unit=unit, basis=basis, segment=segment,
        period=period or None,
        anchor=anchor.fig.start if anchor is not None and not same_change else None,
    )  # fmt: skip


def _figure_period(
    sentence: str,
    fig: Figure,
    metric_match: MetricMatch,
    role: str,
    period_words: Sequence[Mention],
    clause: tuple[int, int],
    figs: Sequence[Figure],
    i: int,
    call: CallIdentity,
    forward: bool,
    anchor: Attributed | None,
    context_period: Period | None = None,
) -> Period | None | bool:
    """The period a figure is for. Its own period words: in its noun phrase or between metric
    and figure, right after it (up to the next figure), or opening the sentence ("In the third
    quarter,"). Words after a comparison cue name the comparison's period. A comparison with no
    period of its own is left out; a result or change with none is the call's period, unless
    the sentence names another period it cannot be told apart from."""
    ca, cb = clause
    end = fig.start + len(fig.text)
    nxt = figs[i + 1].start if i + 1 < len(figs) else len(sentence)
    lo = min(metric_match.start, fig.start)
    np_start = max(0, lo - 40)
    own: list[Mention] = []
    after: list[Mention] = []
    # "off of a 2020 base": the year a rate is measured from, not the figure's
    period_words = [
        m
        for m in period_words
        if not re.match(r"\s+(?:base|baseline)\b", sentence[m.end :], re.I)
        # "our best result since 2021": a record's reach, not a period of the figure
        and not re.search(
            r"\bsince\s+(?:fiscal\s+)?$", sentence[max(0, m.start - 14) : m.start], re.I
        )
    ]
    reason = REASON.match(sentence)
    if reason is not None and fig.start >= reason.end():
        # "Given the price investments we are making in the fourth quarter, we now expect ...":
        # the reason's period is not the outlook's
        period_words = [m for m in period_words if m.start >= reason.end()]
    for m in period_words:
        if np_start <= m.start and m.end <= fig.start and m.start >= ca:
            if not _compared_before(sentence, m.start) and not (
                re.search(r"\bfrom\s+(?:the\s+)?$", sentence[max(0, m.start - 12) : m.start])
            ):
                own.append(m)
        elif (
            end <= m.start < min(nxt, cb)
            and m.start - end <= 60
            and not re.search(
                r"\b(?:and|but|while)\s+(?:we\s+)?(?:expect|see|anticipate|plan)",
                sentence[end : m.start],
            )  # fmt: skip
        ):  # not "$259 million in the quarter and expect Q3 to trend lower": another clause
            cue = _COMPARE_BEFORE.search(sentence[end : m.start])
            if cue is None or role == "comparison":
                after.append(m)
    opening = [m for m in period_words if m.end <= (figs[0].start if figs else 0)
               and re.match(r"^\s*(?:and\s+|so\s+|also\s+|now\s+)?(?:in|for|during|at|as of|"
                            r"through|over)\b", sentence[: m.start], re.I)
               and re.match(r"^[\s\w'’-]*,", sentence[m.end :])]  # fmt: skip
    if role == "comparison":
        base = [m for m in after if not m.is_base] or [m for m in after if m.is_base]
        if not base:
            base = [m for m in period_words if m.is_base and ca <= m.start < cb]
        if not base:
            return False
        first = base[0]
        if (
            first.period is not None
            and first.period.year is None
            and call.period is not None
            and call.period.year is not None
            and any(m.rel == "prior_y" for m in after)
        ):
            # "in the third quarter of last year"
            return replace(first.period, year=call.period.year - 1)  # fmt: skip
        if (
            first.rel == "prior_y"
            and anchor is not None
            and anchor.period is not None
            and anchor.period.kind in ("FY", "H", "9M", "6M")
            and anchor.period.year is not None
        ):  # "$4.86 for the fiscal year, versus $6.02 last year": last year's year
            return replace(anchor.period, year=anchor.period.year - 1)
        got = resolve(first, call.period, forward=False)
        if (
            got is not None
            and got.kind == "FY"
            and anchor is not None
            and (anchor.period is not None and anchor.period.kind == "Q")
        ):  # "$0.79 compared to $0.33 in fiscal '20": the same quarter of that year
            got = Period("Q", anchor.period.n, got.year)
        return got if got is not None else False
    own_ok = [m for m in own + after if not m.is_base]
    if anchor is not None:
        if anchor.period is None and forward:
            return None  # an outlook's: found from its sentence and the ones before
        return anchor_period(anchor)
    if metric_match.metric.name == "dividend" and not own_ok and not (forward and role == "change"):
        return False  # declared now, paid later: which period a dividend is for must be said
    chosen = own_ok or opening
    if (
        chosen
        and not forward
        and not PAST.search(sentence)
        and any(
            ((m.period is not None and m.period.year is None) or m.rel in ("ytd", "this_y"))
            and resolve(m, call.period) != call.period
            for m in chosen
        )
    ):
        return False  # "first half margin is down": a past half, or the coming one?
    if chosen:
        found = _period(sentence, chosen, call, forward)
        return found if found is not None else False
    # nothing bound: the call's period, unless the clause names another own period
    loose = [m for m in period_words if not m.is_base and ca <= m.start < cb]
    loose = [m for m in loose if not _compared_before(sentence, m.start)]
    others = {resolve(m, call.period, forward=forward) for m in loose}
    others.discard(None)
    if forward:
        return None  # an outlook's period is found from its sentence and the ones before
    if others and others != {call.period}:
        return False
    if others:
        return call.period
    named = {resolve(m, call.period) for m in period_words if not m.is_base
             and not _compared_before(sentence, m.start)}  # fmt: skip
    named.discard(None)
    if named == {call.period}:
        return call.period  # the sentence names the call's period, in another clause
    if named:
        return False
    if call.period is None or call.period.year is None:
        return False
    if call.period.kind == "Q" and _A_QUARTER.search(sentence):
        return call.period  # "PrimeLending had an outstanding quarter, with ...": this quarter
    if call.period.kind == "Q" and any(
        m.rel in ("prior_q", "cur_q") or (m.period is not None and m.period.kind == "Q")
        for m in period_words
    ):
        # "up 1.5% from the prior quarter", "compared to the fourth quarter of 2021": a quarter's
        # figure, whatever the paragraph before spoke of
        return call.period
    if context_period is None and call.period.kind == "Q" and call.period.n == 4:
        return False  # a fourth-quarter call speaks of the quarter and the year: say which
    if context_period is not None and context_period != call.period:
        # the sentences just before speak of another period ("Fiscal '22 was another record
        # year. EPS was ..."): a results sentence with none of its own continues it
        current_year = call.period is not None and context_period.year == call.period.year
        if context_period.kind == "FY" and current_year and call.period.n == 4:
            return context_period  # a Q4 call's full-year paragraph
        if context_period.kind in ("9M", "6M", "H") and current_year:
            return context_period  # "For the first nine months, ... Cash from operations ..."
        if (
            context_period.year is not None
            and call.period is not None
            and (call.period.year is not None and context_period.year < call.period.year)
        ):
            return call.period  # history told in passing; the call reports its own period
        return False
    return call.period


def anchor_period(anchor: Attributed) -> Period | None | bool:
    return anchor.period if anchor.period is not None else False
