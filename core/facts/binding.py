"""Binding a figure to what its words say: an ordered table of small named rules over one
frozen `Clause` (core.facts.clause), stage by stage: guards that leave a figure out, the metric
(first match), its role, sign, segment (first match), basis and period. Each rule has a name and
the example sentence it exists for (tests/core/test_facts_rules.py runs every example), and the
row records which rule decided which field (`Attributed.rules`), so a wrong field can be charged
to its rule (`python -m bench.facts --rules`). Precision before recall: a figure no rule binds,
or one a guard vetoes, is left out."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import cast

from core.facts.call import CallIdentity
from core.facts.clause import UNNAMED_SEGMENT, Attributed, Clause, Context
from core.facts.lexicon import METRIC_BY_NAME, Metric, MetricMatch, metric_matches
from core.facts.outlook import PAST
from core.facts.periods import Mention, Period, mentions, resolve
from core.facts.segments import GEO, NOT_SEGMENT, SEGMENT_AFTER, np_segment, segment_after
from core.facts.units import fits, is_flat, with_volume_unit
from core.facts.words import CONNECT, FORWARD_CONNECT, OBJECT_VERBS, PART_WORDS
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
        or _OVER_AFTER_FIGURE.search(sentence[max(0, at - 40) : at])
    )


# "revenue increased approximately $6.5 million over Q2 '21": a figure, then "over" and the
# period it is measured against (not "over the next year", which is a horizon: no figure right
# before "over", or a coming period, which the caller resolves forward)
_OVER_AFTER_FIGURE = re.compile(
    r"\d(?:\s*(?:million|billion|thousand|%|percent|basis points|bps|points))?\s+over\s+"
    r"(?:the\s+|last\s+year'?s\s+|the\s+prior\s+year'?s\s+)?$",
    re.IGNORECASE,
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
    r"margin|gross|free cash|tax rate|revenues?|basis))|normalized|underlying|pro forma|"
    # a mortgage REIT's "economic net interest income": its non-GAAP measure (not "economic
    # conditions")
    r"economic(?= (?:net interest income|interest expense|net interest spread|(?:net )?"
    r"earnings\b))|"
    r"excluding (?:[\w-]+ ){0,2}items|ex-items|before (?:special|notable) items|"
    # "Adjusting for nonrecurring transaction costs, the effective tax rate was 24.7%" (not for
    # currency: a constant-currency figure)
    r"(?:adjusting|if we adjust|after adjusting) for(?!\s+(?:[\w$ ]{0,50}\s+)?(?:currency|"
    r"currencies|fx|foreign exchange)))\b",
    re.IGNORECASE,
)
ADJUSTED_WORDS = _ADJUSTED  # for the outlook's basis (figures.py)
_GAAP = re.compile(r"(?<!non-)(?<!non )\b(?:gaap|as reported|on an? reported basis)\b", re.I)
GAAP_WORDS = _GAAP
_BASIS_OPENING = re.compile(
    r"^(?:On|Excluding [\w\s-]{3,40}?,?\s+on)\s+an?\s+(?P<b>adjusted|non-gaap|normalized|core|gaap|"
    r"reported|organic|constant[- ]currency|comparable|underlying|currency[- ]neutral|"
    r"fx[- ]neutral)\s+basis\s*,|"
    # "Adjusting for currency translation effects, net sales declined by 13.6%", "If we adjust
    # for the sales, PPP and line draws, average loans were up 1%", "Excluding FX, ..."
    r"^(?:(?:After\s+)?[Aa]djusting|If we adjust|Excluding)\s+(?:for\s+)?[^,]{2,160},",
    re.IGNORECASE,
)
_ORGANIC = re.compile(r"\borganic(?:ally)?\b", re.IGNORECASE)
_CC = re.compile(
    r"\b(?:constant[- ]currency|fx[- ]neutral|currency[- ]neutral|in local currenc(?:y|ies)|"
    r"operationally|operational "
    r"(?:basis|revenue growth|sales growth|growth)|(?:excluding|ex-|adjusting "
    r"for|adjusted for|after adjusting for)\s+(?:the\s+)?(?:(?:impact|effects?) of\s+)?"
    r"(?:[\w$ ]{0,50}\s+)?(?:fx|foreign exchange|foreign currency|currency|currencies))\b",
    re.I,
)


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
# "the Bank's": a part of the company named by a definite description
_POSSESSOR = re.compile(r"\b(?:the|this|that) (?P<who>[A-Z][\w&.-]*(?: [A-Z][\w&.-]*)?)['’]s\s")


def recent_part(context: Context) -> str | None:
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


def basis_of(text: str, metric: Metric, role: str, call: CallIdentity) -> tuple[str | None, str]:
    """The basis the words `text` give a figure of `metric`, and the rule that gave it: the
    words themselves (adjusted, non-GAAP, GAAP, reported, constant currency, organic), else
    what the call declares (organic revenue growth, its own "comparable" measures, "adjusted
    unless noted" for earnings, margins, expenses and tax: `Properties.basis_class`, its
    non-GAAP list)."""
    if metric.name == "ffo" and re.search(r"\bnareit\b", text, re.I):
        return None, "basis.nareit"  # the standard definition, not a REIT's own "core FFO"
    adjusted = [m for m in _ADJUSTED.finditer(text)]
    gaap = [m.start() for m in _GAAP.finditer(text)] + [
        m.start() for m in _REPORTED_ADJ.finditer(text)]  # fmt: skip
    sales_like = metric.properties.basis_class == "sales"
    cc = [m.start() for m in _CC.finditer(text)]
    last_adjusted = max((m.start() for m in adjusted), default=-1)
    if cc and max(cc) > max(last_adjusted, max(gaap, default=-1)):
        # "growing by 9% as reported and by 7% in constant currency": the nearer word (a
        # level so qualified too: "$89 million, excluding FX")
        return "constant_currency", "basis.constant_currency_words"
    if adjusted or gaap:
        if last_adjusted > max(gaap, default=-1):
            words = {m.group(0).lower() for m in adjusted}
            if sales_like and role == "change" and words == {"underlying"}:
                # "underlying revenue growth was 10%": growth without acquisitions and currency
                return "organic", "basis.underlying_growth"
            return "adjusted", "basis.adjusted_words"
        return "gaap", "basis.gaap_words"
    if cc:
        return "constant_currency", "basis.constant_currency_words"
    if role == "change" and sales_like and _ORGANIC.search(text):
        return "organic", "basis.organic_words"
    if (
        role == "change"
        and metric.name == "revenue"
        and call.organic_revenue_by_default
        and not re.search(r"\b(?:as )?reported\b|\bincluding (?:foreign )?currency\b", text, re.I)
    ):  # not "Including currency, we now expect reported revenue growth of 5%"
        return "organic", "basis.organic_by_default"
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
        return "adjusted", "basis.call_defined_words"
    if (
        call.adjusted_by_default
        and metric.name not in call.adjusted_except
        and metric.properties.basis_class == "earnings"
    ):
        return "adjusted", "basis.adjusted_by_default"
    if metric.name in call.non_gaap_metrics:
        return "adjusted", "basis.call_non_gaap_list"  # "non-GAAP measures, including ..."
    if (
        "operating_income" in call.non_gaap_metrics
        and metric.level in ("rate", "per_share")
        and re.search(r"\boperating (?:income |earnings )?(?:return|eps|earnings per)|\bon "
                      r"operating (?:income|earnings)\b", text, re.I)
    ):  # fmt: skip
        return "adjusted", "basis.operating_non_gaap"  # "operating return on equity"
    if metric.properties.basis_class == "earnings":
        # an earnings measure with no basis word: a case of its own, where calls often mean
        # their adjusted one
        return None, "basis.none_stated_earnings"
    return None, "basis.none_stated"


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
    r"^\s*,?\s*(?:(?:for|in) (?:fiscal |the )?[\w' ]{2,20}?\s+|(?:year[- ]over[- ]year|"
    r"sequentially|organically)\s+)?(?:on an? [\w-]+(?: [\w-]+)? "
    r"basis|in (?:constant|local) currenc(?:y|ies)|organically|excluding [^,.;]{3,40})",
    re.IGNORECASE,
)


# what may follow "$X of <metric>" for the figure to be that metric's level
_AFTER_METRIC = re.compile(
    r"^\s*(?:$|,|\.|in the (?:quarter|period|year)|for\b|during|this|compared|versus|vs|up|down|"
    r"an? |which|year|over|from|as\b|(?:in|by) (?:fiscal |fy ?)?(?:'?\d{2}\b|(?:19|20)\d{2}|"
    r"q[1-4])|(?:and|or)\s+(?:approximately |about )?[$€£]?\d)",
    re.IGNORECASE,
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
    r"lower(?:ing)?|rais(?:e|ing)|boost(?:ing)?)\s+(?:our |the |its |total |net )?"
    r"(?:(?:adjusted|non-gaap|gaap|core|diluted|organic) )*$",
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


# what drove a total, then its own growth: " by continued strength in e-commerce, up "
_PART_THAT_DROVE = re.compile(
    r"\s*by\s+(?:(?:continued|strong|solid|robust|double-digit|further|higher|the)\s+)*"
    r"(?:(?:strength|growth|gains?|momentum|increases?|demand|sales)\s+(?:in|at|of|from)\s+)?"
    r"(?:our\s+|the\s+)?(?P<seg>[\w&'’.-]+(?:\s+[\w&'’.-]+){0,2}?),\s+(?:up|down)\s+"
    r"(?:approximately\s+|about\s+|nearly\s+|over\s+|more than\s+)?$",
    re.IGNORECASE,
)


_EXCLUDING = re.compile(r"\b(?:excluding|ex-(?!dividend))(?!\s+(?:[\w-]+\s+){0,2}items\b)", re.I)
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


# -- the rule table --------------------------------------------------------------------------


class _Veto:
    """A rule's answer that leaves the figure out."""

    def __repr__(self) -> str:
        return "VETO"


VETO = _Veto()


@dataclass(frozen=True)
class Set:
    """A rule's answer that decides its field (the value may be None: "the whole company");
    `name`: a finer name for the case, measured on its own (else the rule's)."""

    value: object
    name: str | None = None


@dataclass(frozen=True)
class Example:
    """The sentence a rule exists for, and what it makes of one of its figures: `expect` holds
    the row's fields ({"metric": "eps", "role": "change", ...}), or {"left_out": True} for a
    guard. `before`: sentences said before it (the context); `forward`: an outlook's."""

    sentence: str
    figure: str
    expect: dict[str, object]
    forward: bool = False
    before: tuple[str, ...] = ()
    period: str = "Q3 2021"
    company: str = "Acme"
    chain: str | None = None  # the name the row's chain shows, when a dispatcher's (basis.words)
    call: tuple[
        tuple[str, object], ...
    ] = ()  # more of the call's identity: ("flows_business", True)


@dataclass(frozen=True)
class Rule:
    """One named rule: the field it decides (or "guard": it leaves a figure out), the function,
    and the example it exists for."""

    name: str
    field: str
    fn: Callable[..., object]
    example: Example | None = None


@dataclass
class Bound:
    """What the stages found so far for one figure."""

    mm: MetricMatch  # the metric phrase (or the figure's own place, for a metric implied)
    anchor: Attributed | None = None  # the figure this one is the change/comparison of
    subject_seg: str | None = None  # "we expect Neurosciences to grow 9%": the outlook's part
    growth_after: bool = False  # "6% revenue growth": the metric's growth word after it
    margin_of: MetricMatch | None = None  # "$1.25 billion of adjusted EBITDA for a margin of"
    part_of: str | None = None  # "This included 2.4 Bcf per day of gas": the part of a total
    list_seg: str | None = None  # "..., 14.9% for international": a list of parts
    to_level: bool = False  # "up 9% to $539 million": the level the change reached
    same_change: bool = False  # "... and by $371 million": the same change, another base
    metric: Metric | None = None
    role: str = "result"
    up_down: str | None = None
    value: float = 0.0
    segment: str | None = None
    basis: str | None = None
    period: Period | None = None
    rules: list[tuple[str, str]] = field(default_factory=list)
    name: str | None = None  # a metric rule's finer name for the case, measured on its own

    def decide(self, field_name: str, rule: str) -> None:
        self.rules = [(f, r) for f, r in self.rules if f != field_name] + [(field_name, rule)]

    @property
    def m(self) -> Metric:
        assert self.metric is not None
        return self.metric


def _mm(metric: str | Metric, at: int, end: int | None = None) -> MetricMatch:
    m = METRIC_BY_NAME[metric] if isinstance(metric, str) else metric
    return MetricMatch(m, at, at if end is None else end)


# -- guards before the metric ----------------------------------------------------------------


def _which_change(c: Clause) -> bool:
    last = c.last
    return last is not None and _WHICH_CHANGE.fullmatch(
        c.sentence, last.fig.start + len(last.fig.text), c.fig.start) is not None  # fmt: skip


def g_other_clause(c: Clause) -> bool:
    """ ", which was able to deliver ...": its subject is in another clause (not "$2.7 billion
    this fiscal year, which is an increase of over 10%": its change)."""
    return (
        c.ca > 0
        and bool(re.match(r"^\s*(?:which|who|that|where)\b", c.sentence[c.ca :])
                 or re.search(r"\b(?:which|who|where)\s*$", c.sentence[: c.ca]))
        and not _which_change(c)
    )  # fmt: skip


def g_threshold(c: Clause) -> bool:
    """ "customers with ARR over $100,000": a threshold, not a level (not "free cash flow of at
    least $2.4 billion", nor "to exit the year with ARR above $1.70 billion": a floor)."""
    threshold = None if _which_change(c) else _THRESHOLD.search(c.sentence, c.ca, c.fig.start)
    if threshold is not None and re.search(
        r"\b(?:exit|end|finish|close)\s+(?:the\s+|this\s+)?(?:fiscal\s+)?(?:year|quarter|"
        r"(?:19|20)\d{2})\s+$",
        c.sentence[: threshold.start()],
        re.I,
    ):
        return False
    return threshold is not None and not (
        threshold.group(0).lower().startswith("of")
        and any(c.sentence[m.end : threshold.start()].strip() == "" for m in c.metrics)
    )


# -- the metric (first match) ----------------------------------------------------------------


def m_respectively(c: Clause) -> Bound | _Veto | None:
    """ "adjusted earnings and adjusted EPS were $1.48 billion and $0.75 per share,
    respectively": the metrics in the order of the figures; one of a list whose other list the
    sentence does not give is left out."""
    if c.paired and c.fig.start in c.paired and c.paired[c.fig.start] is None:
        return VETO
    return Bound(c.pair) if c.pair is not None else None


def _per_share(c: Clause) -> bool:
    return _PER_SHARE_AFTER.match(c.right) is not None


def m_per_share_named(c: Clause) -> Bound | None:
    """ "Core FFO was $0.61 per share": a per-share measure named before it."""
    if not _per_share(c):
        return None
    lo = max(c.ca, c.fig.start - 60)
    per_share = [m for m in c.metrics if lo <= m.start and m.end <= c.fig.start
                 and m.metric.level == "per_share" and m.metric.name != "eps"]  # fmt: skip
    if per_share and _gap_ok(c.sentence[per_share[-1].end : c.fig.start], c.forward):
        return Bound(per_share[-1])
    return None


def m_per_share_dividend(c: Clause) -> Bound | None:
    """ "a quarterly dividend of $0.30 per share"."""
    near = c.sentence[max(c.ca, c.fig.start - 60) : c.fig.start]
    if _per_share(c) and re.search(r"dividend", near, re.I):
        return Bound(_mm("dividend", c.fig.start))
    return None


def m_per_share_book_value(c: Clause) -> Bound | None:
    """ "book value increased to $41.20 per share"."""
    near = c.sentence[max(c.ca, c.fig.start - 60) : c.fig.start]
    if _per_share(c) and re.search(r"book value", near, re.I):
        return Bound(_mm("book_value_per_share", c.fig.start))
    return None


def m_per_share_item(c: Clause) -> _Veto | None:
    """ "amortization of acquired intangibles of $0.24 per share": an item, not EPS."""
    if _per_share(c) and _ITEM_PER_SHARE.search(c.sentence, max(c.ca, c.fig.start - 80),
                                                c.fig.start):  # fmt: skip
        return VETO
    return None


def m_per_share_earnings(c: Clause) -> Bound | None:
    """ "$5.25 per share of earnings", "net income of $14.6 million or $0.51 per diluted share"."""
    if _per_share(c) and re.search(r"earn|income|eps|loss|profit", c.sentence[c.ca : c.cb], re.I):
        return Bound(_mm("eps", c.fig.start))
    return None


def m_per_share_unknown(c: Clause) -> _Veto | None:
    """ "$1.10 per share" of what, the clause does not say."""
    return VETO if _per_share(c) else None


def m_consensus(c: Clause) -> Bound | None:
    """ "we believe that the mean of analyst estimates of $6.81 is reasonable": the year's EPS
    guided by the analysts' figure."""
    if (
        c.forward
        and c.unit == "money"
        and abs(c.fig.value) < 100
        and _CONSENSUS.search(c.sentence, c.ca, c.fig.start)
        and re.search(r"\b(?:earnings|eps)\b", c.sentence[c.ca : c.cb], re.I)
    ):
        return Bound(_mm("eps", c.fig.start))
    return None


def m_part_outlook_growth(c: Clause) -> Bound | None:
    """ "we expect Neurosciences to grow 9% to 10%, Neuroscience 4% to 5%": a part's growth in
    an outlook is its sales growth."""
    if not (c.forward and c.unit == "percent"):
        return None
    seg = _segment_growth(c.sentence, c.fig, c.ca, c.last, c.company_words)
    return Bound(_mm("revenue", c.fig.start), subject_seg=seg) if seg is not None else None


def m_part_that_drove(c: Clause) -> Bound | None:
    """ "revenue was $539 million, up 9%, driven by continued strength in e-commerce, up 144%":
    the growth of the part that drove the sales just stated."""
    last = c.last
    if (
        c.unit == "percent"
        and last is not None
        and last.metric.name == "revenue"
        and last.segment is None
        and re.search(r"\b(?:driven|led|helped|fueled|boosted)\s*$", c.sentence[: c.ca], re.I)
    ):
        drove = _PART_THAT_DROVE.match(c.sentence, c.ca, c.fig.start)
        seg = drove.group("seg") if drove is not None else None
        if seg is not None and _is_part(seg, c.company_words):
            return Bound(MetricMatch(last.metric, c.fig.start, c.fig.start), subject_seg=seg)
    return None


def m_earned(c: Clause) -> Bound | None:
    """ "Cullen/Frost earned $109.8 million or $1.73 per share": what a company earned."""
    if c.unit == "money" and _EARNED.search(c.sentence, c.ca, c.fig.start):
        return Bound(_mm("net_income", c.fig.start))
    return None


def m_bought_back(c: Clause) -> Bound | None:
    """ "we repurchased 1.2 million shares for $95 million": what it spent on buybacks."""
    if c.unit == "money" and _BOUGHT_BACK.search(c.sentence, c.ca, c.fig.start):
        return Bound(_mm("buyback", c.fig.start))
    return None


def m_invested_capital(c: Clause) -> Bound | None:
    """ "we invested $259 million of capital in the quarter": capital expenditures."""
    if (
        c.unit == "money"
        and _INVESTED.search(c.sentence, c.ca, c.fig.start)
        and re.match(r"\s+(?:of\s+capital|in\s+capital\s+expenditures?)\b", c.right)
    ):
        return Bound(_mm("capex", c.fig.start))
    return None


def m_margin_of(c: Clause) -> Bound | None:
    """ "$1.25 billion of adjusted EBITDA for a margin of 40%": the margin of the money metric
    just named (with its basis)."""
    if c.unit == "percent" and _A_MARGIN.search(c.sentence, c.ca, c.fig.start):
        named = [m for m in c.metrics if c.ca <= m.start and m.end <= c.fig.start]
        if named and named[-1].metric.margin is not None:
            src = named[-1]
            assert src.metric.margin is not None
            return Bound(_mm(src.metric.margin, src.start, src.end), margin_of=src)
    return None


def m_growth_named_after(c: Clause) -> Bound | None:
    """ "6% revenue growth", "a 43% comparable sales increase", "11% domestic organic sales
    growth": the metric named right after a percent, with its growth word."""
    if c.unit != "percent":
        return None
    lead = re.match(
        r"^\s*(?:(?:organic|adjusted|reported|total|net|core|diluted|domestic|international|"
        r"constant[- ]currency|year[- ]over[- ]year)\s+)*",
        c.right,
        re.I,
    )
    at = c.end + (lead.end() if lead else 0)
    nxt = next((m for m in c.metrics if m.start == at), None)
    if nxt is not None and re.match(
        rf"^\s*(?P<dir>growth|increase|decline|decrease|{_CHANGE_UP}|{_CHANGE_DOWN})\b",
        c.sentence[nxt.end : c.cb],
        re.I,
    ):
        return Bound(nxt, growth_after=True)
    return None


def m_own_growth_word(c: Clause) -> Bound | None:
    """ "positioned for 4% organic growth in 2021": the growth word is the metric's own (not
    "excited about International and committed to our 6% organic growth target": a name before
    it in the clause may be the part whose growth it is)."""
    if c.unit != "percent":
        return None
    own = next(
        (m for m in c.metrics if m.start == c.end + len(c.right) - len(c.right.lstrip())), None
    )
    if (
        own is not None
        and re.search(r"\bgrowth$", c.sentence[own.start : own.end], re.I)
        and not [
            w
            for w in re.findall(r"(?<=\s)[A-Z][\w&'’.-]*", c.sentence[c.ca : c.fig.start])
            if w.lower() not in c.company_words and w not in ("I", "I'm", "I've")
        ]
    ):
        return Bound(own, growth_after=True)
    return None


def m_metric_before(c: Clause) -> Bound | None:
    """ "Revenue was $539 million": the metric before the figure, through connecting words
    only ("the tax rate on core earnings is 25%": the rate)."""
    before = [m for m in c.metrics if c.ca <= m.start and m.end <= c.fig.start
              and m.end >= c.prev_fig_end]  # fmt: skip
    if not (before and _gap_ok(c.sentence[before[-1].end : c.fig.start], c.forward)):
        return None
    found = before[-1]
    if c.i > 0 and re.fullmatch(
        r"\s+(?:in|of)\s+(?:[\w-]+\s+)?", c.sentence[c.prev_fig_end : found.start]
    ):  # "$1.2 billion to $1.4 billion in cash from operations and $900 million in free cash
        # flow": the metric named after the figure before is that figure's
        return None
    if (
        len(before) > 1
        and before[-2].metric.level == "rate"
        and found.metric.level != "rate"
        and re.fullmatch(r"\s+(?:on|of|for)\s+(?:[\w-]+\s+)?",
                         c.sentence[before[-2].end : found.start])
    ):  # fmt: skip
        found = before[-2]
        return Bound(found)
    adjacent = re.fullmatch(
        r"\s*(?:(?:was|were|is|are|of|at|totaled|totalled|reached|came in at|stood at|ended at|"
        r"ended the quarter at|of approximately|of about|was approximately|was about|were "
        r"approximately|were about)\s+)?(?:approximately |about |roughly |nearly |a record |"
        r"record )?",
        c.sentence[found.end : c.fig.start],
        re.I,
    )  # "Revenue was $539 million": the figure right after its metric, a case of its own
    return Bound(found, name="metric.before_adjacent" if adjacent else None)


def m_ratio_named_after(c: Clause) -> Bound | None:
    """ "a 1:1 book-to-bill", "a 1.2 book-to-bill"."""
    if c.unit != "number" or c.times is not None:
        return None
    ratio = re.match(r"^(?::1)?\s+", c.right)
    if ratio is None:
        return None
    found = next((m for m in c.metrics if m.start == c.end + ratio.end()
                  and m.metric.name == "book_to_bill"), None)  # fmt: skip
    return Bound(found) if found is not None else None


def m_count_named_after(c: Clause) -> Bound | None:
    """ "1.9 million carloads", "4.1 million medical members": a count named after it."""
    if c.unit != "number" or c.fig.kind == "money":
        return None
    at = c.end + len(c.right) - len(c.right.lstrip())
    found = next((m for m in c.metrics if m.start == at and m.metric.level == "number"
                  and m.metric.name != "book_to_bill"), None)  # fmt: skip
    return Bound(found) if found is not None else None


def m_multiple_named_after(c: Clause) -> Bound | None:
    """ "1.3 times debt-to-EBITDA"."""
    if c.times is None:
        return None
    found = next((m for m in c.metrics if m.start == c.end + c.times.end()
                  and m.metric.level == "multiple"), None)  # fmt: skip
    return Bound(found) if found is not None else None


def m_metric_after(c: Clause) -> Bound | _Veto | None:
    """ "$2.7 billion of EBITDA", "a 9% increase in revenue", "$539 million in Journeys revenue"
    (one modifier word); not "Europe was $214 million of revenue": a part's, or whose?"""
    after = re.match(
        r"^\s*(?:(?:year[- ]over[- ]year |sequential )?(?:increase|decrease|decline|growth|"
        r"improvement|rise|drop|reduction|expansion|gain)\s+)?(?:of|in|on)\s+"
        r"(?:our |the |total |"
        r"net |adjusted |gaap |non-gaap |consolidated |core |diluted |organic |reported )*",
        c.right,
        re.IGNORECASE,
    )
    if after is None:
        return None
    at = c.end + after.end()
    nxt = next((m for m in c.metrics if m.start == at), None)
    if nxt is None:
        nxt = next((m for m in c.metrics if at < m.start <= at + 30 and m.end <= c.cb
                    and re.fullmatch(r"\s*[\w&'’.-]+(?:\s+[\w&'’.-]+)?\s*",
                                     c.sentence[at : m.start])), None)  # fmt: skip
    verb = re.search(r"(\w+)\s+(?:(?:approximately|about|nearly|roughly|almost|over|"
                     r"more than|a record|record|just over|a|an)\s+)*$",
                     c.sentence[c.ca : c.fig.start])  # fmt: skip
    tail = c.sentence[nxt.end : c.cb] if nxt is not None else ""
    listed = verb is not None and verb.group(1).lower() in ("and", "or") and (
        c.prev is not None and c.i > 0 and c.prev.fig is c.figs[c.i - 1])  # fmt: skip
    moved = re.match(rf"^\s*(?:{_CHANGE_UP}|{_CHANGE_DOWN})\b", tail, re.I) if (
        c.unit in ("bps", "percent")) else None  # fmt: skip
    on_up = (
        verb is not None
        and verb.group(1).lower() in ("up", "down")
        and bool(re.match(r"\s*on\b", c.right))
    )  # "we're up 100 basis points on operating margin"
    if (
        nxt is not None
        and (verb is None or verb.group(1).lower() in OBJECT_VERBS or listed or on_up)
        and (  # fmt: skip
            _AFTER_METRIC.match(tail) or moved
        )
    ):
        subject = _NAMED_SUBJECT.match(c.sentence[c.ca : c.fig.start])
        who = {w.lower() for w in subject.group("who").split()} if subject else set()
        if subject is not None and not who <= c.company_words | {"we", "it"}:
            return VETO
        return Bound(nxt, growth_after=moved is not None)
    return None


def m_rate_named_after(c: Clause) -> Bound | None:
    """ "a 30% tax rate", "a 5.4% non-GAAP operating income rate", "45% adjusted EBITDA
    margins": a rate named right after its level."""
    if c.unit != "percent":
        return None
    lead = re.match(r"^\s*(?:(?:adjusted|non-gaap|gaap|core|effective|reported|total|"
                    r"consolidated)\s+)*", c.right, re.I)  # fmt: skip
    at = c.end + (lead.end() if lead else 0)
    nxt = next((m for m in c.metrics if m.start == at and m.metric.level == "rate"), None)
    if nxt is not None and not re.match(
        r"^\s*(?:growth|increase|decline|decrease|expansion|contraction|improvement|"
        r"change|impact|headwind|tailwind|benefit)\b",
        c.sentence[nxt.end : c.cb],
        re.I,
    ):
        return Bound(nxt)
    return None


def m_part_of_total(c: Clause) -> Bound | None:
    """ "Total production was 3 Bcfe per day. This included 2.4 Bcf per day of gas ... and
    104,000 barrels per day of oil and NGLs": the parts of the volume stated just before."""
    total = c.context.total
    if (
        total is not None
        and c.unit == "number" == total.unit
        and (volume := with_volume_unit(c.fig, c.sentence)) != c.fig.text
        and _INCLUDED.match(c.sentence)
        and (of := _OF_PART.match(c.sentence[c.fig.start + len(volume) : c.cb])) is not None
        and not NOT_SEGMENT.match(of.group("seg"))
        and not metric_matches(of.group("seg"))
        and not mentions(of.group("seg"))
    ):
        return Bound(MetricMatch(total.metric, c.fig.start, c.fig.start), part_of=of.group("seg"))
    return None


def m_list_for_part(c: Clause) -> Bound | None:
    """ "11% domestic organic sales growth, 14.9% for international and minus 1.2% for SPD":
    the list goes on with the same metric's change for other parts."""
    last = c.last
    if (
        last is not None
        and last.role == "change"
        and last.segment is not None
        and last.unit == c.unit
        and re.fullmatch(
            r"[^\d;:()]{0,60}?(?:,\s*(?:and\s+)?|\s+and\s+)(?:minus\s+|negative\s+)?",
            c.sentence[last.fig.start + len(last.fig.text) : c.fig.start],
        )  # fmt: skip
        and (
            part := re.match(
                r"\s+for\s+(?P<seg>[A-Za-z][\w&'’.-]*(?:\s+[A-Z][\w&'’.-]*){0,2})"
                r"(?=\s*(?:,|\.|$|\band\b))",
                c.right,
            )
        )  # fmt: skip
        and not NOT_SEGMENT.match(part.group("seg"))
        and not metric_matches(part.group("seg"))
        and not mentions(part.group("seg"))
    ):
        return Bound(MetricMatch(last.metric, c.fig.start, c.fig.start),
                     list_seg=part.group("seg").rstrip("."))  # fmt: skip
    return None


def m_list_named_part(c: Clause) -> Bound | None:
    """ "Organic was 9.5%, domestic was 10.7%, international 8.6% and SPD was 0.4%": a part
    named before each figure of the list."""
    last = c.last
    if (
        last is not None
        and last.role == "change"
        and last.unit == c.unit
        and (
            part_named := re.fullmatch(
                r"[^\d;:()]{0,40}?(?:,\s*(?:and\s+)?|\s+and\s+)(?P<seg>[A-Za-z][\w&'’.-]*(?:\s+"
                r"[A-Za-z][\w&'’.-]*){0,2}?)\s+(?:was\s+|were\s+|at\s+)?(?:minus\s+|negative\s+)?",
                c.sentence[last.fig.start + len(last.fig.text) : c.fig.start],
            )
        )  # fmt: skip
        and not _NOT_A_PART.search(part_named.group("seg"))
        # a part's name: capitalised ("SPD") or a word for a part ("domestic", "international")
        and all(w[:1].isupper() or w.lower() in PART_WORDS for w in part_named.group("seg").split())
        and not NOT_SEGMENT.match(part_named.group("seg"))
        and not metric_matches(part_named.group("seg"))
        and not mentions(part_named.group("seg"))
    ):
        return Bound(MetricMatch(last.metric, c.fig.start, c.fig.start),
                     list_seg=part_named.group("seg"))  # fmt: skip
    return None


def _between_last(c: Clause) -> str:
    """The words between the figure attributed last and this one (the level's own words
    dropped)."""
    last = c.last
    assert last is not None
    between = c.sentence[last.fig.start + len(last.fig.text) : c.fig.start]
    # "$512 million in the quarter, up 21%": the quarter's words are the level's
    between = re.sub(r"^\s*(?:in|for|during) (?:the|this) (?:quarter|period)\b", "", between)
    if last.metric.level == "number" and last.unit == "number":
        # "1.9 million carloads, up 3%": the count's own noun, then its change
        between = last.metric.pattern.sub("", between, count=1) if re.match(
            rf"\s*(?:{last.metric.words})\b", between, re.I) else between  # fmt: skip
    return between


def m_volume_restated(c: Clause) -> Bound | None:
    """ "276 Bcfe or 3 Bcfe per day": the same volume as a rate (its own row)."""
    last = c.last
    if last is None or last.metric.level != "volume":
        return None
    between = _between_last(c)
    if re.fullmatch(
        r"\s*,?\s*or\s+(?:approximately |about |roughly )?",
        between[len(with_volume_unit(last.fig, c.sentence)) - len(last.fig.text) :],
    ):
        return Bound(MetricMatch(last.metric, last.fig.start, last.fig.start), to_level=True)
    return None


def m_same_change_other_base(c: Clause) -> Bound | None:
    """ "increased by $82 million over the previous quarter and by $371 million": the same
    metric's change against another base."""
    last = c.last
    if last is None or last.role != "change":
        return None
    if re.fullmatch(r"[^\d;:()$%]{0,40}?\band\s+by\s+(?:approximately |about |"
                    r"nearly |roughly |almost )?", _between_last(c)):  # fmt: skip
        return Bound(MetricMatch(last.metric, last.fig.start, last.fig.start), anchor=last,
                     same_change=True)  # fmt: skip
    return None


def m_change_to_level(c: Clause) -> Bound | None:
    """ "grew 9% to $539 million": the level the change reached."""
    last = c.last
    if last is None or last.role != "change":
        return None
    if re.fullmatch(
        r"\s*(?:(?:year[- ](?:over|on)[- ]year|sequentially|organically|in the quarter|"
        r"on an? [\w-]+ basis)\s+)?"
        r"to\s+(?:a record |record |approximately |about |nearly |roughly |(?:a|the) range "
        r"of |between )?",
        _between_last(c),
        re.IGNORECASE,
    ):
        return Bound(MetricMatch(last.metric, last.fig.start, last.fig.start), anchor=last,
                     to_level=True)  # fmt: skip
    return None


def m_appositive_change(c: Clause) -> Bound | None:
    """ "EBITDA was $2.7 billion, a year-over-year improvement of $1.8 billion", ", up 9%", "or
    7.3%", ", up from $81 million", ", which is an increase of over 10%": the change or
    comparison of the figure before."""
    last = c.last
    if last is None:
        return None
    between = _between_last(c)
    if (
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
            and (after := _CHANGE_AFTER.match(c.right)) is not None
            and re.match(r"\s+(?:than|from|compared|versus|vs\b|over|year)", c.right[after.end() :])
        )  # "10%, 70 basis points lower than the year-ago quarter": its change
    ):
        return Bound(MetricMatch(last.metric, last.fig.start, last.fig.start), anchor=last)
    return None


def m_same_subject_ahead(c: Clause) -> Bound | None:
    """ "Capital expenditures were $262 million in the quarter, and we expect about $1.2
    billion for the full year": the clause's subject is the one just stated, for another
    period."""
    last = c.last
    if (
        c.forward
        and last is not None
        and last.role == "result"
        and last.unit == c.unit
        and _SAME_SUBJECT_AHEAD.fullmatch(c.sentence, c.ca, c.fig.start)
        and _PERIOD_ONLY_AFTER.match(c.right)
    ):
        return Bound(MetricMatch(last.metric, c.fig.start, c.fig.start),
                     subject_seg=last.segment)  # fmt: skip
    return None


# -- guards after the metric -----------------------------------------------------------------


def g_cost_of_sales(c: Clause, b: Bound) -> bool:
    """ "Cost of sales was $14.9 million": a cost, not sales."""
    return b.m.name == "revenue" and bool(re.search(
        r"\bcosts?\s+of\s+(?:goods\s+)?$", c.sentence[max(0, b.mm.start - 20) : b.mm.start], re.I
    ))  # fmt: skip


def g_part_margin(c: Clause, b: Bound) -> bool:
    """ "gross margin on product sales was 88.6%": a part's margin, not the company's."""
    return b.m.level == "rate" and bool(re.match(
        r"\s+(?:on|for|of)\s+(?:[\w-]+\s+){1,2}(?:sales|revenues?)\b", c.sentence[b.mm.end :], re.I
    ))  # fmt: skip


def g_volume_sales(c: Clause, b: Bound) -> bool:
    """ "Weather-normalized retail electric sales grew 2.4%": volumes, not revenue."""
    return b.m.name == "revenue" and _VOLUME_SALES.search(c.sentence) is not None


def g_flows_organic(c: Clause, b: Bound) -> bool:
    """An asset manager's "organic growth": of assets, from net flows, not revenue."""
    return (
        c.call.flows_business
        and b.m.name == "revenue"
        and c.sentence[b.mm.start : b.mm.end].lower().startswith("organic")
    )


def g_multi_year_rate(c: Clause, b: Bound) -> bool:
    """ "a compound growth rate of 14%", "a 12% CAGR": a rate over several years, for no single
    period."""
    return bool(re.search(r"\bcompound(?:ed)?\s+(?:annual\s+)?growth\s+rate\b|\bcagr\b",
                          c.sentence[c.ca : c.cb], re.I))  # fmt: skip


_MONTH = (
    r"(?:January|February|March|April|May|June|July|August|September|October|November|"
    r"December)"
)


def g_a_month(c: Clause, b: Bound) -> bool:
    """ "June occupancy was 83%", "In July, occupancy was 86%", "Our April performance was
    stronger, with a RevPAR decline of 4%": a month's figure, not the quarter's (not "At June
    30, loans were ...": a date, the quarter's end)."""
    head = c.sentence[max(0, b.mm.start - 20) : b.mm.start]
    return bool(
        re.search(rf"\b{_MONTH}\s+(?:[\w-]+\s+)?$", head)
        or re.match(rf"\s*(?:In|For|During)\s+(?:the\s+month\s+of\s+)?{_MONTH}\b(?!\s+\d)",
                    c.sentence)
        or re.match(rf"\s*(?:Our|The)\s+{_MONTH}\s+(?:performance|results|trends?|sales)\b",
                    c.sentence)
    )  # fmt: skip


def g_several_periods(c: Clause, b: Bound) -> bool:
    """ "On a trailing 12-month basis", "During the last two quarters, this segment has
    generated ...": a figure over several periods, for none the format can write."""
    return bool(re.search(
        r"\btrailing(?:[- ](?:twelve|12)[- ]months?)?\b|\bttm\b|\b(?:last|past|prior|previous)\s+"
        r"(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\d+)\s+(?:quarters|months|"
        r"years)\b",
        c.sentence[: c.fig.start], re.I))  # fmt: skip


def g_purpose(c: Clause, b: Bound) -> bool:
    """ "executing several kaizens to increase output by 30%", "SCE is requesting an ROE of
    10.53%", "our focus is to maintain our leverage at 5.5 times or below": an aim, a request or
    a policy, not a result."""
    if c.forward:
        return False
    before = c.sentence[max(c.ca, b.mm.start - 60) : c.fig.start]
    return bool(
        re.search(r"\b(?:in order to|so as to|aimed? (?:at|to)|designed to|to (?:increase|"
                  r"improve|reduce|grow|raise|lower|expand|maintain|keep))\b", before, re.I)
        or re.search(r"\b(?:request(?:s|ed|ing)?|propos(?:es|ed|ing)|seek(?:s|ing)?|fil(?:ed|ing) "
                     r"for|asking for)\b", c.sentence[: c.fig.start], re.I)
    )  # fmt: skip


def g_effect_of_an_item(c: Clause, b: Bound) -> bool:
    """ "The lower rate this quarter ... increased adjusted earnings per share by $0.12": what an
    item did to the metric, not the metric's own change (not "we increased EPS by 9%")."""
    verb = re.search(
        r"\b(?:increased|decreased|reduced|lowered|raised|boosted|improved|lifted|added to)\s+"
        r"(?:our\s+|the\s+)?(?:[\w-]+\s+){0,2}$",
        c.sentence[max(0, b.mm.start - 40) : b.mm.start],
        re.I,
    )
    if verb is None or not re.fullmatch(
        r"\s+(?:per (?:diluted )?share\s+)?by\s+(?:approximately |about |nearly |roughly )?",
        c.sentence[b.mm.end : c.fig.start],
    ):  # (not "improved our leverage ratio by almost half a turn to 2.6 times": the level)
        return False
    subject = c.sentence[: max(0, b.mm.start - 40) + verb.start()]
    return not re.search(r"\b(?:we|it|i)\s+(?:also\s+|have\s+|had\s+)?$", subject, re.I)


def g_economy(c: Clause, b: Bound) -> bool:
    """ "industrial production increased by 5.5%": the economy's measure, not the company's."""
    return b.m.name == "production" and bool(re.search(
        r"\b(?:industrial|manufacturing|economic|global|u\.?s\.?|world)\s+$",
        c.sentence[max(0, b.mm.start - 16) : b.mm.start], re.I))  # fmt: skip


def g_provision_not_credit(c: Clause, b: Bound) -> bool:
    """ "Our title claims paid of $56 million were $41 million lower than our provision of $97
    million": a provision that is not for credit losses (the sentence does not speak of credit)."""
    named = c.sentence[b.mm.start : b.mm.end].lower()
    return (
        b.m.name == "provision"
        and not re.search(r"\b(?:loan|credit)\b", named)
        and not re.search(r"\b(?:credit|loans?|charge-?offs?|allowance|reserves?|acl|cecl|"
                          r"borrowers?|delinquenc\w*)\b", c.sentence, re.I)
    )  # fmt: skip


def g_new_loans(c: Clause, b: Bound) -> bool:
    """ "We generated $286 million in new loans": originations, not the loan balance."""
    return b.m.name == "loans" and bool(
        re.search(r"\bnew\s+$", c.sentence[max(0, b.mm.start - 5) : b.mm.start], re.I)
    )


def _chained(c: Clause) -> bool:
    """ "$14.6 million, or $0.51 per diluted share": the figure goes on from the one before."""
    return c.prev is not None and bool(
        re.fullmatch(
            r"\s*,?\s*(?:or|and)\s+",
            c.sentence[c.prev.fig.start + len(c.prev.fig.text) : c.fig.start],
        )
    )


def _gap(c: Clause, b: Bound) -> str:
    if b.anchor is None:
        return c.sentence[b.mm.end : c.fig.start]
    return c.sentence[b.anchor.fig.start + len(b.anchor.fig.text) : c.fig.start]


def x_same_per_share_earnings(c: Clause, b: Bound) -> Metric | None:
    """ "$6.35 in core earnings per share or 13% earnings growth": the same per-share earnings
    (a metric rule that corrects the one found)."""
    prev = c.prev
    if (
        b.m.name == "net_income"
        and prev is not None
        and prev.metric.name == "eps"
        and c.sentence[b.mm.start : b.mm.end].lower() == "earnings"
        and re.fullmatch(
            r"[^\d;:]{0,40}?\bor\s+", c.sentence[prev.fig.start + len(prev.fig.text) : c.fig.start]
        )
    ):
        return prev.metric
    return None


# -- the role: the first of a group, then rules that override --------------------------------

Role = tuple[str, str | None]  # (role, its direction word)


def r_part_outlook_growth(c: Clause, b: Bound) -> Role | None:
    """ "we expect Neurosciences to grow 9% to 10%": the part's growth."""
    if b.subject_seg is None:
        return None
    down = re.search(r"\b(?:down|decline|decrease)\s+(?:by\s+)?(?:approximately |about )?$",
                     c.sentence[max(c.ca, c.fig.start - 30) : c.fig.start], re.I)  # fmt: skip
    return ("change", "down" if down else "growth")


def _change_after(c: Clause) -> re.Match[str] | None:
    found = _CHANGE_AFTER.match(c.right)
    if found is not None and re.match(
        r"\s*(?:by\s+)?(?:approximately |about |nearly |almost |"
        r"over |more than )?(?:[$€£]?\d|(?:one|two|three|four|five|six|seven|eight|nine|ten|"
        r"eleven|twelve|fifteen|twenty|thirty|forty|fifty|a (?:half|quarter))\b)",
        c.right[found.end() :],
        re.I,
    ):
        return None  # "$14.5 billion up 5.8%": the change is the next figure's
    if found is not None and re.match(r"\s*from\b", c.right[found.end() :], re.I):
        return None  # "$126 million up from $79 million": a level, set against the one before
    return found


def _level_to(c: Clause, b: Bound) -> bool:
    gap = _gap(c, b)
    return bool(re.search(r"(?<!\bup )\bto\s+(?:\w+\s+)?$", gap)) and not re.search(
        r"\b(?:compared|relative)\s+to\s+(?:\w+\s+)?$", gap)  # fmt: skip


def r_compared_before(c: Clause, b: Bound) -> Role | None:
    """ "compared with $1.78 a year ago", "up from $81 million": a level to compare with."""
    near = c.sentence[max(c.ca, c.fig.start - 40) : c.fig.start]
    if _COMPARE_BEFORE.search(near) and not _level_to(c, b):
        return ("comparison", None)
    return None


def r_level_reached(c: Clause, b: Bound) -> Role | None:
    """ "increased 9% to $539 million": the level it reached."""
    if (
        _level_to(c, b)
        and _TO_BEFORE.search(c.sentence[max(c.ca, c.fig.start - 25) : c.fig.start])
        and c.unit != "bps"
    ):
        return ("result", None)
    return None


def r_change_word_before(c: Clause, b: Bound) -> Role | None:
    """ "revenue increased 9%", "margin expanded by 40 basis points"."""
    found = _CHANGE_BEFORE.search(c.sentence[max(c.ca, c.fig.start - 40) : c.fig.start])
    return ("change", found.group("dir")) if found is not None else None


def r_changed_by(c: Clause, b: Bound) -> Role | None:
    """ "EPS improved year over year by $0.21": a change verb in the gap, then "by"."""
    if re.search(
        r"\bby\s+(?:approximately |about |nearly |roughly |almost |over |more than )?$",
        c.sentence[max(c.ca, c.fig.start - 30) : c.fig.start],
        re.I,
    ) and (verb := re.search(rf"\b({_CHANGE_UP}|{_CHANGE_DOWN})\b", _gap(c, b), re.I)):
        return ("change", verb.group(1))
    return None


def r_change_word_after(c: Clause, b: Bound) -> Role | None:
    """ "revenue was 9% higher", "a 9% increase"."""
    found = _change_after(c)
    return ("change", found.group("dir")) if found is not None else None


def r_verb_metric_by(c: Clause, b: Bound) -> Role | None:
    """ "reducing debt by $4 billion", "grow revenue by 5%": the metric's change."""
    if (
        b.anchor is None
        and re.fullmatch(
            r"\s+(?:per (?:common )?(?:share|unit)\s+)?(?:by|at(?:\s+an?)?)\s+(?:up to |"
            r"approximately |about |nearly |roughly |almost |around )?",
            _gap(c, b),
        )
        and (c.unit == "percent" or not re.search(r"\bat\b", _gap(c, b)))  # "at roughly 10%"
        and (verb := _VERB_BEFORE.search(c.sentence, max(c.ca, b.mm.start - 30), b.mm.start))
    ):
        return ("change", verb.group(1))
    return None


def r_margins_listed(c: Clause, b: Bound) -> Role | None:
    """ "improvement in our margins, 360 basis points on gross margin"."""
    if c.unit == "bps" and (
        listing := _MARGINS_LISTED.search(c.sentence, max(0, c.fig.start - 90), c.fig.start)
    ):
        return ("change", listing.group("dir"))
    return None


def r_bps_list(c: Clause, b: Bound) -> Role | None:
    """ "... 360 basis points on gross margin and 470 basis points on operating margin"."""
    prev = c.prev
    if (
        c.unit == "bps"
        and prev is not None
        and c.i > 0
        and prev.fig is c.figs[c.i - 1]
        and prev.role == "change"
        and prev.unit == "bps"
        and re.fullmatch(
            r"[^\d;:]*?,?\s+and\s+", c.sentence[prev.fig.start + len(prev.fig.text) : c.fig.start]
        )
    ):
        return ("change", "down" if prev.value < 0 else "up")
    return None


def r_bps_without_direction(c: Clause, b: Bound) -> _Veto | None:
    """ "margin of 40 basis points": basis points with no direction, not a level, not a known
    change."""
    return VETO if c.unit == "bps" and not b.growth_after else None


def r_growth_of_money_metric(c: Clause, b: Bound) -> Role | None:
    """ "6% revenue growth", "It grew revenue 14% to $1.86 billion", "we increased EPS 9%": a
    percent of a money metric with a growth word is its change."""
    gap = _gap(c, b)
    growth_gap = re.search(r"\b(?P<dir>growth|grow|grew|increase|decline|decrease|down)\b",
                           gap if b.anchor is None else "", re.I)  # fmt: skip
    verb_before = (
        re.search(
            r"\b(?P<dir>grew|grow|grown|growing|increased|decreased|reduced|expanded|cut)\s+"
            r"(?:our\s+|its\s+|total\s+|the\s+)?$",
            c.sentence[max(c.ca, b.mm.start - 25) : b.mm.start],
            re.I,
        )
        if b.anchor is None
        and b.mm.end <= c.fig.start
        and re.fullmatch(r"\s*(?:by\s+)?(?:approximately |about |nearly |roughly |almost )?", gap)
        else None
    )
    if not (
        (b.growth_after or growth_gap or verb_before)
        and b.role != "comparison"
        and c.unit in ("percent", "bps")
        and (b.m.level in ("money", "per_share") or c.unit == "bps")
    ):
        return None
    found_dir = growth_gap or verb_before
    word = found_dir.group("dir") if found_dir else "growth"
    own_word = re.search(r"\bgrowth$", c.sentence[b.mm.start : b.mm.end])
    if b.growth_after and own_word:
        word = "growth"
    elif b.growth_after:
        word = re.match(r"^\s*(\w+)", c.sentence[b.mm.end : c.cb]).group(1)  # type: ignore[union-attr]
    if b.role == "change" and b.up_down is not None and _DOWN.match(b.up_down.split()[0]):
        return None
    return ("change", word)


def r_compared_lead_in(c: Clause, b: Bound) -> Role | None:
    """ "compared to net income of $14.6 million": a cue before the metric, after the last
    figure."""
    lead_in = c.sentence[max(c.ca, c.prev_fig_end) : min(b.mm.start, c.fig.start)]
    if b.anchor is None and re.search(r"\b(?:compared (?:to|with)|versus|vs\.?|against|relative "
                                      r"to)\b", lead_in, re.I):  # fmt: skip
        return ("comparison", b.up_down)
    if b.anchor is None and re.search(
        r"\b(?:up|down|increase|decrease|improvement|decline|higher|lower)\b[^.;]{0,60}?\bfrom\s+"
        r"(?:an?|the|our)\s+(?:[\w-]+\s+){0,3}$",
        c.sentence[max(c.ca, b.mm.start - 90) : b.mm.start],
        re.I,
    ):  # "up 120 basis points from an adjusted gross margin of 34.1% last year": the base
        return ("comparison", b.up_down)
    return None


def r_change_noun(c: Clause, b: Bound) -> Role | None:
    """ "the year-over-year increase in core deposits of $243 million": a change."""
    noun = re.search(
        r"\b(?P<dir>increase|decrease|decline|growth|improvement|rise|drop|reduction|expansion|"
        r"contraction|gain)s?\s+in\s+(?:[\w&'’-]+\s+){0,3}$",
        c.sentence[max(c.ca, b.mm.start - 50) : b.mm.start],
        re.IGNORECASE,
    )
    reached = re.search(
        r"\bto\s+(?:approximately |about |a record |record |(?:a|the) range of |between )?$",
        _gap(c, b),
    )  # "a 19% to 48% increase in Q4 adjusted EBITDA to a range of $45 million to $56 million"
    if (
        b.anchor is None
        and noun is not None
        and b.role == "result"
        and b.mm.end <= c.fig.start
        and reached is None  # "an increase in full-year EBITDA to $37.3 million": the level
    ):
        return ("change", noun.group("dir"))
    return None


def r_chained_comparison(c: Clause, b: Bound) -> Role | None:
    """ "compared with $56 million or $0.83 per share": the second is a comparison too."""
    if _chained(c) and c.prev is not None and c.prev.role == "comparison" and b.anchor is None:
        return ("comparison", b.up_down)
    return None


def r_growth_metric(c: Clause, b: Bound) -> Role | None:
    """ "same-store sales were up 4%", "organic growth of 6%": a metric that is a growth rate."""
    if b.m.level == "growth" and c.unit in ("percent", "bps") and b.role != "comparison":
        up_down = b.up_down
        if up_down is None:
            down = re.search(rf"\b(?:{_CHANGE_DOWN}|decline|decrease|negative)\b", _gap(c, b),
                             re.I)  # fmt: skip
            up_down = down.group(0) if down else "growth"
        return ("change", up_down)
    return None


def r_same_change_as_percent(c: Clause, b: Bound) -> Role | None:
    """ "Revenue is up $640 million or 7.3%": the same change, as a percent."""
    a = b.anchor
    if (
        a is not None
        and a.role == "change"
        and c.unit == "percent"
        and a.unit == "money"
        and re.fullmatch(
            r"\s*,?\s*or\s+(?:approximately |about |roughly |nearly |almost )?",
            c.sentence[a.fig.start + len(a.fig.text) : c.fig.start],
        )  # fmt: skip
    ):
        return ("change", "down" if a.value < 0 else "up")
    return None


def r_respectively_as_first(c: Clause, b: Bound) -> Role | None:
    """ "increasing 9% and 125%, respectively": the second as the first."""
    prev = c.prev
    if (
        c.pair is not None
        and prev is not None
        and prev.fig.start in c.paired
        and prev.fig.start < c.fig.start
    ):
        return (prev.role, None if prev.role != "change" else ("down" if prev.value < 0 else "up"))
    return None


def r_list_of_parts(c: Clause, b: Bound) -> Role | None:
    """ "..., 14.9% for international and minus 1.2% for SPD": each part's change."""
    if b.list_seg is not None and c.last is not None:
        minus = re.search(
            r"\b(?:minus|negative)\s+$", c.sentence[max(c.ca, c.fig.start - 12) : c.fig.start]
        )
        return ("change", "down" if minus else "up")
    return None


def r_same_change_other_base(c: Clause, b: Bound) -> Role | None:
    """ "... and by $371 million": the same change against another base."""
    if b.same_change and b.anchor is not None:
        return ("change", "down" if b.anchor.value < 0 else "up")
    return None


def r_level_after_growth(c: Clause, b: Bound) -> Role | None:
    """ "6% to 8% earnings per share growth of $3 to $3.06": the growth, then the level."""
    last = c.last
    if (
        b.role == "change"
        and c.unit == "money"
        and b.anchor is None
        and last is not None
        and last.role == "change"
        and last.unit == "percent"
        and last.metric is b.metric
        and not re.search(
            r"\bor\b|[,;]", c.sentence[last.fig.start + len(last.fig.text) : c.fig.start]
        )  # fmt: skip
    ):
        return ("result", None)
    return None


def r_flat(c: Clause, b: Bound) -> Role | _Veto | None:
    """ "organic growth was flat": no change, of a level that is not a rate."""
    if not is_flat(c.fig):
        return None
    if b.m.level == "rate" or b.anchor is not None:
        return VETO
    return ("change", "flat")


def r_to_level(c: Clause, b: Bound) -> Role | _Veto | None:
    """ "up 9% to $539 million" (the level reached); a figure bound to another that is neither
    its change nor the level it reached is left out."""
    if b.to_level:
        return ("result", None)
    if b.anchor is not None and b.role == "result":
        return VETO
    return None


# -- guards after the role -------------------------------------------------------------------


def g_effect_of_currency(c: Clause, b: Bound) -> bool:
    """ "Foreign exchange is expected to reduce net sales growth by about 1 point": an effect
    on the metric, not its change."""
    return bool(re.search(
        r"\b(?:foreign exchange|foreign currency|currency|currencies|fx|translation|acquisitions?|"
        r"divestitures?|the (?:extra|additional|53rd) week)\b[^.;]{0,40}?\b(?:reduc|lower|add|hurt|"
        r"help|benefit|contribut|weigh|impact|increas|decreas|boost|drag)\w*\s+(?:our |the )?"
        r"(?:[\w-]+\s+){0,2}$",
        c.sentence[c.ca : b.mm.start],
        re.I,
    ))  # fmt: skip


def g_effect_on_metric(c: Clause, b: Bound) -> bool:
    """ "a currency headwind on revenue of $80 million": an effect on a metric, not its level
    (not across a comma: "As we begin to lap the impact of COVID-19, we expect ...")."""
    return bool(re.search(
        r"\b(?:headwinds?|tailwinds?|impacts?|effects?|benefits?|contributions?|drag|savings|"
        r"synerg(?:y|ies)|"
        r"contributed|impacted|reduced|hurt|helped|added|dilution|accretion|accretive)\b",
        c.sentence[max(c.ca, b.mm.start - 45) : b.mm.start].rpartition(",")[2],
        re.I,
    ))  # fmt: skip


def _expense_rate(c: Clause, b: Bound) -> bool:
    """ "Adjusted SG&A expense was 44.3%": expenses as a percent of sales, its usual measure."""
    return (
        b.m.name == "expenses"
        and c.unit == "percent"
        and b.role == "result"
        and re.match(r"\s*(?:$|[,.;]|of (?:net )?(?:sales|revenues?)\b|in the quarter\b)",
                     c.right) is not None
    )  # fmt: skip


def g_share_of_money_metric(c: Clause, b: Bound) -> bool:
    """ "40% of revenue" is a share; a percent of a money metric must be a change."""
    return (
        c.unit == "percent"
        and b.m.level in ("money", "per_share")
        and b.role != "change"
        and not _expense_rate(c, b)
    )


def g_unit_does_not_fit(c: Clause, b: Bound) -> bool:
    """A level of revenue is money, of a margin a percent: a figure of another unit is not it."""
    return not _expense_rate(c, b) and not fits(b.m, c.unit, b.role, c.fig, c.sentence[c.end :])


# -- the sign (first match) ------------------------------------------------------------------


def s_down_word(c: Clause, b: Bound) -> float | None:
    """ "revenue declined 4%": a decline is negative."""
    if b.role == "change" and b.up_down is not None and _DOWN.match(b.up_down.lower().split()[0]):
        return -abs(b.value)
    return None


def s_lower_is_better(c: Clause, b: Bound) -> float | None:
    """ "the combined ratio, an improvement of 2.7 points": a ratio where lower is better fell."""
    if (
        b.role == "change"
        and b.m.better == "less"
        and b.m.level == "rate"
        and b.up_down is not None
        and re.match(r"improv|better", b.up_down, re.I)
    ):
        return -abs(b.value)
    return None


def s_no_direction(c: Clause, b: Bound) -> _Veto | None:
    """A change whose direction the words do not give."""
    return VETO if b.role == "change" and b.up_down is None else None


def s_up_word(c: Clause, b: Bound) -> float | None:
    """ "revenue increased 9%": as stated."""
    return b.value if b.role == "change" else None


def s_loss(c: Clause, b: Bound) -> float | None:
    """ "a loss of $13.7 million or $0.20 per share": both are losses."""
    prev = c.prev
    if (
        _LOSS.search(c.sentence[b.mm.start : b.mm.end])
        or re.search(
            r"\b(?:loss|negative)\s+(?:of\s+)?(?:approximately |about )?$",
            c.sentence[max(c.ca, c.fig.start - 30) : c.fig.start],
            re.I,
        )
        or (_chained(c) and prev is not None and prev.value < 0 and prev.role == b.role)
    ):
        return -abs(b.value)
    return None


def s_as_stated(c: Clause, b: Bound) -> float | None:
    """A level as stated."""
    return b.value


# -- the segment (first match; a rule may decide "the whole company": Set(None)) -------------


def p_part_outlook(c: Clause, b: Bound) -> Set | None:
    """ "we expect Neurosciences to grow 9% to 10%": the subject part of the outlook."""
    return Set(b.subject_seg) if b.subject_seg is not None else None


def p_part_of_total(c: Clause, b: Bound) -> Set | None:
    """ "This included 2.4 Bcf per day of gas": the part of the total."""
    return Set(b.part_of) if b.part_of is not None else None


def p_list_of_parts(c: Clause, b: Bound) -> Set | None:
    """ "..., 14.9% for international": the part the list names."""
    return Set(b.list_seg) if b.list_seg is not None else None


def p_anchor(c: Clause, b: Bound) -> Set | None:
    """ "Journeys revenue was $300 million, up 9%": the change is the level's part's, decided by
    the rule that decided the level's (named in the chain: a wrong part is that rule's)."""
    if b.anchor is None:
        return None
    return Set(b.anchor.segment, b.anchor.chain.get("segment"))


def p_leverage_company(c: Clause, b: Bound) -> Set | None:
    """ "1.3 times debt-to-EBITDA": leverage is the company's."""
    return Set(None) if c.times is not None and b.mm.start > c.fig.start else None


def p_noun_phrase(c: Clause, b: Bound) -> Set | _Veto | None:
    """ "Journeys revenue", "O&P Americas EBITDA", "online sales": the part named in the
    metric's noun phrase; a phrase with words that make it another measure or a verb is left
    out ("pre-provision net revenue"), unless the sentence right after a heading naming the part
    says what drove it ("... our Technology segment. Licensing drove EBITDA to $155
    million")."""
    found = np_segment(c.sentence, b.mm.start, c.company_words, b.m.name) if (
        b.mm.end > b.mm.start
        # "low to mid single-digit organic growth": the figure's own words, not a part's
        and not (b.mm.start >= c.end and not c.sentence[c.end : b.mm.start].strip())
    ) else None  # fmt: skip
    if found is False:
        ctx = c.context
        if (
            ctx.segment_heading
            and ctx.segment_age <= 1
            and b.m.segmentable
            and _CAUSE_BEFORE.search(c.sentence, max(0, b.mm.start - 40), b.mm.start)
        ):
            return Set(ctx.segment)
        return VETO
    return Set(found) if isinstance(found, str) else None


def p_named_after(c: Clause, b: Bound) -> Set | _Veto | None:
    """ "revenue in our Aviation segment", "revenue in our largest segment, Business &
    Industry,": the part named after the metric (left out when the words only rank it)."""
    # (matched on the rest of the sentence: SEGMENT_AFTER is anchored at its start)
    rest = c.sentence[b.mm.end :]
    seg_after = SEGMENT_AFTER.match(rest) if b.mm.end <= c.fig.start else None
    if seg_after is None or b.mm.end + seg_after.end() > c.fig.start:
        return None
    name = segment_after(seg_after)
    return VETO if name is None else Set(name)


def p_geography_after(c: Clause, b: Bound) -> Set | None:
    """ "In North America, comp sales increased 20% in the U.S. and 12% in Canada": the place
    right after the figure is its part (nearer than the sentence's opening)."""
    geo = GEO.match(c.sentence[c.end : c.cb], 1) if c.sentence[c.end : c.end + 1] == " " else None
    return Set(geo.group(0)) if geo is not None and b.m.segmentable else None


_AT_PART = re.compile(r"\s+at\s+(?P<seg>[A-Z][\w&'’.-]*(?:\s+[A-Z][\w&'’.-]*){0,2})\b")


def p_part_at_after(c: Clause, b: Bound) -> Set | None:
    """ "Gross profit increased $7.6 million at GRE": the part named right after the figure."""
    at = _AT_PART.match(c.sentence, c.end, c.cb)
    if at is None or not b.m.segmentable or re.match(_MONTH, at.group("seg")):
        return None
    seg = at.group("seg").rstrip(".")
    return Set(seg) if _names_a_part(seg, c.company_words) else None


_SEGMENT_IN_CLAUSE = re.compile(
    r"\b(?:at|in|for|within|from)\s+(?:our|the)\s+(?P<seg>[\w&'’.-]+(?:\s+[\w&'’.-]+){0,3}?)\s+"
    r"(?:segment|business|division|unit)\b",
    re.IGNORECASE,
)


def p_segment_in_clause(c: Clause, b: Bound) -> Set | None:
    """ "Earnings at our water segment increased $0.04 per share": the part the clause names,
    before the figure, when the metric is the figure's own ("per share")."""
    if not (b.mm.start == b.mm.end == c.fig.start and b.m.name == "eps"):
        return None
    found = list(_SEGMENT_IN_CLAUSE.finditer(c.sentence, c.ca, c.fig.start))
    if len(found) != 1:
        return None
    seg = found[0].group("seg")
    # (named with "segment": a part even when its word is in the company's name, "our water
    # segment" on American States Water's call)
    return (
        Set(seg)
        if _names_a_part(seg, frozenset())
        and not re.fullmatch(
            r"(?:largest|biggest|smallest|other|each|every|core|main|key)", seg, re.I
        )
        else None
    )


_SHARED_PART = re.compile(
    r"\b(?P<seg>[A-Z][\w&'’.-]*(?:\s+[A-Z][\w&'’.-]*){0,2})\s+(?:adjusted\s+|non-gaap\s+)?"
    r"(?P<m>[\w&'’ -]{2,40}?)\s+(?:(?:was|were)\s+[^,;]{1,40}?\s+)?and\s+(?:adjusted\s+|"
    r"non-gaap\s+|gaap\s+)?$"
)


def p_shared_part(c: Clause, b: Bound) -> Set | None:
    """ "Timberlands earnings and adjusted EBITDA improved by approximately 5%", "Legacy WESCO
    adjusted operating margin was 3.8% for the quarter and adjusted earnings per share was
    $1.04": the part named before the first metric is the second's too."""
    if not b.m.segmentable and b.m.name != "eps":
        return None
    head = c.sentence[max(0, b.mm.start - 90) : b.mm.start]
    found = _SHARED_PART.search(head)
    if found is None or not metric_matches(found.group("m")):
        return None
    seg = found.group("seg")
    names = seg.split()
    if names[0] in ("The", "Our", "Its", "This", "That", "And", "So") or not _is_part(
            seg, c.company_words):  # fmt: skip
        return None
    return Set(seg)


def g_segment_measure_without_part(c: Clause, b: Bound) -> bool:
    """ "with segment margins of 5.3%": a segment's measure, whose segment the words do not
    name (left out, not the company's)."""
    return (
        b.segment is None
        and re.search(r"\bsegment\b", c.sentence[b.mm.start : b.mm.end], re.I) is not None
    )


def p_opener(c: Clause, b: Bound) -> Set | None:
    """ "In Aerospace, revenue was ...", "PrimeLending had ...": the part the sentence opens
    with."""
    return Set(c.opener_seg) if c.opener_seg is not None else None


def p_geography(c: Clause, b: Bound) -> Set | None:
    """ "revenue in Europe grew 4%": a geography in the figure's clause."""
    geo = c.geo
    if geo is not None and c.ca <= geo.start() < c.cb and b.m.segmentable:
        return Set(geo.group(0))
    return None


def p_possessor(c: Clause, b: Bound) -> _Veto | None:
    """ "the Bank's loans ..., and deposits ...": a part named by a definite description."""
    if (
        b.m.segmentable
        and _POSSESSOR.search(c.sentence, 0, b.mm.start) is not None
        and not _company_possessor(c.sentence, c.company_words, b.mm.start)
    ):
        return VETO
    return None


def _its(c: Clause, b: Bound) -> re.Match[str] | None:
    return re.search(r"\bits\s+(?:[\w-]+\s+){0,2}$",
                     c.sentence[max(0, b.mm.start - 30) : b.mm.start], re.I)  # fmt: skip


def p_its_figure_before(c: Clause, b: Bound) -> Set | None:
    """ "FPL's capex was $1.5 billion, and we expect its ...": the part of the figure before."""
    if _its(c, b) is not None and c.prev is not None and c.prev.segment:
        return Set(c.prev.segment)
    return None


def p_its_part_named(c: Clause, b: Bound) -> Set | _Veto | None:
    """ "We expect North America to return to positive volume, and for the full year we expect
    its organic revenue growth in the low single digits": the part named before "its"; "its"
    with no part named is left out, not the company."""
    its = _its(c, b)
    if its is None or not b.m.segmentable or re.match(r"\s*(?:Its|Their)\b", c.sentence):
        return None
    its_at = max(0, b.mm.start - 30) + its.start()
    its_part = _ITS_PART.search(c.sentence, 0, its_at)
    its_seg = its_part.group("seg") if its_part is not None else None
    if its_seg is None or not _names_a_part(its_seg, c.company_words):
        return VETO
    return Set(its_seg)


def p_it_recent_part(c: Clause, b: Bound) -> Set | _Veto | None:
    """ "Our alternatives platform ... It ended the quarter with $74 billion of assets under
    management": a part the sentence before named, not the company."""
    if b.m.segmentable and re.match(
        r"\s*(?:And\s+|So\s+)?It\s+(?!(?:was|is|has been|will|would|should|"
        r"remains|seems|looks|also)\b)(?:[a-z]+ed|grew|rose|fell|saw|had|won|drove)\b",
        c.sentence,
    ):
        seg = recent_part(c.context)
        return VETO if seg is None else Set(seg)
    return None


def p_its_recent_part(c: Clause, b: Bound) -> Set | _Veto | None:
    """ "Our industrial portfolio ... continues to lead. Its occupancy was 97.3%": the part the
    sentence before named; none named: whose is not said."""
    if b.m.segmentable and re.match(r"\s*(?:Its|Their)\s+(?:[\w-]+\s+){0,2}$",
                                    c.sentence[: b.mm.start]):  # fmt: skip
        seg = recent_part(c.context)
        return VETO if seg is None else Set(seg)
    return None


def p_this_segment(c: Clause, b: Bound) -> Set | _Veto | None:
    """ "Our Capital Market segment continues to exceed expectations ... This segment is
    positioned for low to mid single-digit organic growth in 2021": the part just named."""
    if b.m.segmentable and re.match(
        r"\s*(?:And\s+|So\s+)?(?:This|The) (?:segment|division|business unit)\b", c.sentence
    ):
        seg = recent_part(c.context)
        return VETO if seg is None else Set(seg)
    return None


def p_part_will(c: Clause, b: Bound) -> Set | _Veto | None:
    """ "we project that the modern banking platform will generate in excess of $100 million of
    revenue in 2021": the part's; "our core business will generate": whose is not said."""
    if not b.m.segmentable:
        return None
    subject = _PART_WILL.search(c.sentence, c.ca, min(b.mm.start, c.fig.start))
    if subject is None:
        return None
    names = {w.lower() for w in subject.group("seg").split()}
    if names <= c.company_words | GENERIC_PART or metric_matches(subject.group("seg")):
        return VETO
    return Set(f"{subject.group('seg')} {subject.group('noun')}")


def p_lower_case_part(c: Clause, b: Bound) -> Set | None:
    """ "our cargo business posted an operating loss of $9 million": the part's."""
    part = _LOWER_PART.search(c.sentence, c.ca, min(b.mm.start, c.fig.start))
    if part is not None and not re.fullmatch(
        r"(?:core|overall|total|whole|entire|existing|base|underlying|combined)", part.group("seg")
    ):
        return Set(part.group("seg"))
    return None


def p_chained(c: Clause, b: Bound) -> Set | None:
    """ "Journeys earnings were $619 million or $0.31 per share": the part of the figure
    before."""
    if _chained(c) and c.prev is not None and c.prev.segment:
        return Set(c.prev.segment)
    return None


def p_after_heading(c: Clause, b: Bound) -> Set | None:
    """ "... the performance of our Technology segment. Licensing drove EBITDA to $155
    million": the sentence after a heading that names the part speaks of it."""
    ctx = c.context
    if ctx.segment is not None and ctx.segment_heading and ctx.segment_age <= 1 and (
            b.m.segmentable):  # fmt: skip
        return Set(ctx.segment)
    return None


def p_partnership_distribution(c: Clause, b: Bound) -> Set | None:
    """ "Turning to NextEra Energy Partners ... our 2022 distribution growth of 12% to 15%": a
    partnership's distributions, the one under discussion."""
    ctx = c.context
    if (
        ctx.segment is not None
        and ctx.segment != UNNAMED_SEGMENT
        and b.m.name == "dividend"
        and "distribution" in c.sentence[b.mm.start : b.mm.end].lower()
    ):
        return Set(ctx.segment)
    return None


def p_named_for(c: Clause, b: Bound) -> _Veto | None:
    """ "a 15% adjusted EBITDA margin for Homes by 2027": a part's."""
    named_for = _FOR_NAMED.match(c.sentence, b.mm.end) if b.m.segmentable else None
    if named_for is not None and _names_a_part(named_for.group("n"), c.company_words):
        return VETO
    return None


def p_part_under_discussion(c: Clause, b: Bound) -> _Veto | None:
    """A segment is under discussion: this may be the segment's figure (left out)."""
    return VETO if c.context.segment is not None and b.m.segmentable else None


def p_company(c: Clause, b: Bound) -> Set:
    """No part named and none under discussion: the whole company (a case of its own when a
    part was named in the last sentences: "segment.company_after_a_part")."""
    ctx = c.context
    recent = (ctx.segment not in (None, UNNAMED_SEGMENT) and ctx.segment_age <= 8) or (
        ctx.part_age <= 8)  # fmt: skip
    if recent and b.m.segmentable:
        return Set(None, "segment.company_after_a_part")
    return Set(None)


# -- the basis: the words' basis, then rules that override -----------------------------------


def word_start(s: str, lo: int, floor: int) -> int:
    """`lo` moved back to the start of the word it cuts (never before `floor`): a window that
    begins inside "Non-GAAP" must not read "n-GAAP" as GAAP."""
    while lo > floor and not s[lo - 1].isspace():
        lo -= 1
    return lo


def _basis_text(c: Clause, b: Bound) -> str:
    """Words of the clause up to the figure (and "on an adjusted basis" after it)."""
    s, mm = c.sentence, b.mm
    lo = word_start(s, max(c.ca, c.prev_fig_end, min(mm.start, c.fig.start) - 30), c.ca)
    cut = max(s.rfind(" and ", lo, mm.start), s.rfind(",", lo, mm.start))
    lo = cut + 1 if cut != -1 and mm.end > mm.start else lo
    qualifier = _QUALIFIER_AFTER.match(s[max(c.end, mm.end) : c.cb])
    text = s[lo : max(c.end, mm.end)] + " " + (qualifier.group(0) if qualifier else "")
    joint = re.search(r"\b(?:adjusted|non-gaap)\s+[\w&-]+\s+and\s+$",
                      s[max(c.ca, mm.start - 40) : mm.start], re.I)  # fmt: skip
    if joint is not None:  # "combined non-GAAP R&D and SG&A expenses of": both qualified
        text = joint.group(0) + " " + text
    if c.pair is not None:  # "adjusted earnings and adjusted EPS were ..., respectively"
        head = s[max(c.ca, c.pair.start - 30) : c.pair.start]
        head = re.split(r"\band\b|,", head)[-1]
        text = head + s[c.pair.start : c.pair.end]
    if mm.end == mm.start == c.fig.start and b.m.name == "eps":
        # "adjusted earnings to be between breakeven and a loss of $0.08 per share": the
        # earnings the clause names before the figure, with their qualifier
        named = list(_EARNINGS_NAMED.finditer(s, c.ca, c.fig.start))
        qualified = [m for m in named if m.group("q")]
        if named:
            text = (qualified or named)[-1].group(0) + " " + text
    opening = _BASIS_OPENING.match(s)
    if opening is not None:
        text = opening.group(0) + " " + text
    elif c.i == 0:
        # "In Machine Clothing, also adjusting for currency translation effects, net sales were
        # down 6.6%": a currency qualifier before the sentence's first figure is its
        lead = list(_CC.finditer(s, 0, min(mm.start, c.fig.start)))
        if lead:
            text = lead[-1].group(0) + " " + text
    trailing = _CC_AFTER.match(s, c.cb)
    if trailing is not None:  # "Digital revenue was up 39.3% to $89 million, excluding FX"
        text = text + " " + trailing.group(0)
    return text


_CC_AFTER = re.compile(
    r"\s*,\s*(?:excluding|ex-|before)\s+(?:the\s+)?(?:(?:impact|effects?) of\s+)?(?:fx|foreign "
    r"exchange|foreign currency|currency|currencies)\b|\s*,\s*in constant currency\b",
    re.IGNORECASE,
)
_EARNINGS_NAMED = re.compile(
    r"\b(?:(?P<q>adjusted|non-gaap|gaap|core|underlying|operating|normalized)\s+)?"
    r"(?:(?:diluted|net)\s+)?(?:earnings|eps|income|loss)\b",
    re.IGNORECASE,
)


Basis = tuple[str | None, str]  # (basis, the rule that gave it)


def b_words(c: Clause, b: Bound) -> Basis | None:
    """The basis the clause's words give (see `basis_of`); a comparison keeps its level's."""
    if b.anchor is not None and b.role != "change":
        return (b.anchor.basis, b.anchor.chain.get("basis", "basis.as_its_level"))
    text = _basis_text(c, b)
    reported = _REPORTED_ONLY.search(text)
    if (
        reported is not None
        and not re.search(r"\bgaap\b", text, re.I)
        and _CC.search(c.sentence)
        and not _CC.search(text)
    ):
        # "Adjusted net income decreased 2% on a reported basis and increased 4%
        # operationally": "reported" set against the currency view of an adjusted measure, not
        # GAAP (a measure not named adjusted stays GAAP as reported, per the labelling rules)
        basis, _ = basis_of(text[: reported.start()] + text[reported.end() :], b.m, b.role, c.call)
        if basis == "adjusted" or (basis is None and b.anchor is not None
                                   and b.anchor.basis == "adjusted"):  # fmt: skip
            return ("adjusted", "basis.reported_against_currency")
    return basis_of(text, b.m, b.role, c.call)


_REPORTED_ONLY = re.compile(r"\b(?:as reported|on an? reported basis)\b", re.I)


def b_to_level(c: Clause, b: Bound) -> Basis | None:
    """ "adjusted EPS grew 9% to $1.20": the level reached has the change's basis."""
    a = b.anchor
    if b.to_level and a is not None and b.basis not in ("adjusted", "gaap"):
        if a.basis in ("adjusted", "gaap"):
            return (a.basis, "basis.to_level")
        return basis_of(_basis_text(c, b), b.m, b.role, c.call)
    return None


def b_change_of_level(c: Clause, b: Bound) -> Basis | None:
    """ "adjusted EPS was $1.20, up 9%": the change of an adjusted or GAAP level is so too."""
    a = b.anchor
    if a is not None and b.role == "change" and b.basis is None:
        return (a.basis if a.basis in ("adjusted", "gaap") else None, "basis.change_of_level")
    return None


def b_operating_earnings(c: Clause, b: Bound) -> Basis | None:
    """ "Operating earnings were $1.21 per share": a utility's or insurer's non-GAAP EPS."""
    if (
        b.basis is None
        and b.m.name == "eps"
        and re.search(
            r"\boperating (?:earnings|eps\b|income per)",
            c.sentence[c.ca : max(c.end, b.mm.end)],
            re.I,
        )
    ):
        return ("adjusted", "basis.operating_earnings")
    return None


def b_list_of_parts(c: Clause, b: Bound) -> Basis | None:
    """The list's metric, as first named ("organic sales growth")."""
    if b.list_seg is not None and c.last is not None:
        return (c.last.basis, "basis.list_of_parts")
    return None


def b_chained(c: Clause, b: Bound) -> Basis | None:
    """ "adjusted income of $61.3 million or $0.90 per share"."""
    if _chained(c) and c.prev is not None and b.basis is None and c.prev.role == b.role:
        return (c.prev.basis, "basis.chained")
    return None


def b_margin_of(c: Clause, b: Bound) -> Basis | None:
    """ "adjusted EBITDA was $882 million, a margin of 40%": the money metric's basis."""
    src = b.margin_of
    if src is not None and b.basis is None:
        lo = word_start(c.sentence, max(c.ca, src.start - 30), c.ca)
        return basis_of(c.sentence[lo : src.end], b.m, b.role, c.call)
    return None


def g_excluding(c: Clause, b: Bound) -> bool:
    """ "excluding fuel, sales grew 5.0%": a narrower measure than the one named; unless its
    words make it adjusted, organic or constant-currency, which one the call does not say."""
    return b.basis in (None, "gaap") and _EXCLUDING.search(
        c.sentence, c.ca, max(c.ca, c.fig.start)) is not None  # fmt: skip


# -- the period: the figure's own period words (figure_period), then rules that adjust -------


def t_dividend_next_year(c: Clause, b: Bound) -> Period | None:
    """ "declared a first quarter dividend of $0.10 per share, payable on March 20, 2026" on a
    fourth-quarter call: the coming first quarter's, not the one past."""
    period, call = b.period, c.call.period
    if (
        b.m.name == "dividend"
        and period is not None
        and period.kind == "Q"
        and period.year is not None
        and call is not None
        and call.kind == "Q"
        and call.year == period.year
        and period.n < call.n
        and re.search(r"\b(?:declared|payable|will be paid)\b", c.sentence, re.I)
        and any(
            m.period is not None and m.period.kind == "Q" and m.period.year is None
            for m in c.period_words
            if c.ca <= m.start < c.cb
        )
    ):
        return Period("Q", period.n, period.year + 1)
    return None


def g_prior_year_possessive(c: Clause, b: Bound) -> bool:
    """ "Last year's first-half net loss was $212 million": history, not this period's."""
    return b.role == "result" and _PRIOR_POSSESSIVE.search(
        c.sentence, c.ca, max(c.ca, min(c.fig.start, b.mm.start))) is not None  # fmt: skip


def g_per_share_growth(c: Clause, b: Bound) -> bool:
    """ "free cash flow was $80 million, an increase of 20% on a per share basis": the growth of
    the per-share figure, not of the money metric named."""
    return (
        b.role == "change"
        and b.m.level == "money"
        and re.match(r"\s*,?\s*(?:on an? per[- ]share basis|per (?:diluted )?share)\b",
                     c.sentence[c.end :], re.I) is not None
    )  # fmt: skip


_TRAILING = re.compile(
    r"\b(?:LTM|TTM|(?:trailing|last|past)[- ](?:twelve|12)[- ]months?(?:'|’)?)\b", re.IGNORECASE
)


def g_trailing_twelve_months(c: Clause, b: Bound) -> bool:
    """ "LTM adjusted EBITDA of $930.2 million": twelve months to date, not the quarter or the
    fiscal year (no row states a trailing period)."""
    lo = max(c.ca, min(b.mm.start, c.fig.start) - 40)
    return _TRAILING.search(c.sentence, lo, c.end) is not None


_MONTH_AFTER = re.compile(
    r"\s*(?:in|during|for)\s+(?:the\s+month\s+of\s+)?(?:January|February|March|April|May|June|"
    r"July|August|September|October|November|December)\b(?!\s+\d{1,2}\b)(?!\s+(?:19|20)\d\d)"
)


def g_a_months_figure(c: Clause, b: Bound) -> bool:
    """ "Same-store occupancy grew 40 basis points in October, compared to the third quarter":
    a month's figure, not the quarter's or the year's (no row states a month)."""
    return b.role != "comparison" and not c.forward and _MONTH_AFTER.match(
        c.sentence, c.end) is not None  # fmt: skip


# -- the tables ------------------------------------------------------------------------------

E = Example

GUARDS_BEFORE: tuple[Rule, ...] = (
    Rule("guard.other_clause", "guard", g_other_clause, E(
        "Our Aviation team, which was able to deliver revenue of $250 million, did well.",
        "$250 million", {"left_out": True})),
    Rule("guard.threshold", "guard", g_threshold, E(
        "Customers with ARR over $100,000 grew to 1,200.", "$100,000", {"left_out": True})),
)  # fmt: skip

METRIC_RULES: tuple[Rule, ...] = (
    Rule("metric.respectively", "metric", m_respectively, E(
        "Adjusted net income and adjusted EPS were $1.48 billion and $0.75 per share, "
        "respectively.", "$1.48 billion", {"metric": "net_income", "basis": "adjusted"})),
    Rule("metric.per_share_named", "metric", m_per_share_named, E(
        "Core FFO was $0.61 per share.", "$0.61", {"metric": "ffo", "basis": "adjusted"})),
    Rule("metric.per_share_dividend", "metric", m_per_share_dividend, E(
        "The board raised the third quarter dividend by 5.5% to $0.71 per share.", "$0.71",
        {"metric": "dividend", "role": "result", "period": "Q3 2021"})),
    Rule("metric.per_share_book_value", "metric", m_per_share_book_value, E(
        "Book value was $41.20 per share at the end of the quarter.", "$41.20",
        {"metric": "book_value_per_share"})),
    Rule("metric.per_share_item", "metric", m_per_share_item, E(
        "Amortization of acquired intangibles was $0.24 per share.", "$0.24",
        {"left_out": True})),
    Rule("metric.per_share_earnings", "metric", m_per_share_earnings, E(
        "We earned net income of $14.6 million or $0.51 per diluted share.", "$0.51",
        {"metric": "eps", "role": "result"})),
    Rule("metric.per_share_unknown", "metric", m_per_share_unknown, E(
        "That works out to $1.10 per share.", "$1.10", {"left_out": True})),
    Rule("metric.consensus", "metric", m_consensus, E(
        "For 2022, we believe that the mean of analyst estimates of $6.81 for earnings is "
        "reasonable.", "$6.81", {"metric": "eps"}, forward=True)),
    Rule("metric.part_outlook_growth", "metric", m_part_outlook_growth, E(
        "For fiscal 2022, we expect Neurosciences to grow 9% to 10%.", "9%",
        {"metric": "revenue", "segment": "Neurosciences", "role": "change"}, forward=True)),
    Rule("metric.part_that_drove", "metric", m_part_that_drove, E(
        "Revenue was $539 million, up 9%, driven by continued strength in e-commerce, up 144%.",
        "144%", {"metric": "revenue", "segment": "e-commerce", "role": "change"})),
    Rule("metric.earned", "metric", m_earned, E(
        "In the third quarter, Acme earned $109.8 million.", "$109.8 million",
        {"metric": "net_income"})),
    Rule("metric.bought_back", "metric", m_bought_back, E(
        "In the quarter, we repurchased 1.2 million shares for $95 million.", "$95 million",
        {"metric": "buyback"})),
    Rule("metric.invested_capital", "metric", m_invested_capital, E(
        "In the quarter we invested $259 million of capital.", "$259 million",
        {"metric": "capex"})),
    Rule("metric.margin_of", "metric", m_margin_of, E(
        "We generated $1.25 billion of adjusted EBITDA for a margin of 40%.", "40%",
        {"metric": "ebitda_margin", "basis": "adjusted"})),
    Rule("metric.growth_named_after", "metric", m_growth_named_after, E(
        "We delivered 6% revenue growth in the quarter.", "6%",
        {"metric": "revenue", "role": "change"})),
    Rule("metric.own_growth_word", "metric", m_own_growth_word, E(
        "We are positioned for 4% organic growth in 2022.", "4%",
        {"metric": "revenue", "basis": "organic", "role": "change"}, forward=True)),
    Rule("metric.before", "metric", m_metric_before, E(
        "Revenue was $539 million.", "$539 million", {"metric": "revenue", "role": "result"},
        chain="metric.before_adjacent")),
    Rule("metric.ratio_named_after", "metric", m_ratio_named_after, E(
        "We had a 1.2 book-to-bill in the quarter.", "1.2", {"metric": "book_to_bill"})),
    Rule("metric.count_named_after", "metric", m_count_named_after, E(
        "We moved 1.9 million carloads in the quarter.", "1.9 million",
        {"metric": "production"})),
    Rule("metric.multiple_named_after", "metric", m_multiple_named_after, E(
        "We ended the quarter at 1.3 times debt-to-EBITDA.", "1.3", {"metric": "leverage"})),
    Rule("metric.after", "metric", m_metric_after, E(
        "We generated $2.7 billion of EBITDA in the quarter.", "$2.7 billion",
        {"metric": "ebitda"})),
    Rule("metric.rate_named_after", "metric", m_rate_named_after, E(
        "We recorded a 24% tax rate in the quarter.", "24%", {"metric": "tax_rate"})),
    Rule("metric.part_of_total", "metric", m_part_of_total, E(
        "This included 2.4 Bcf per day of gas.", "2.4", {"metric": "production",
        "segment": "gas"}, before=("Total production was 3 Bcfe per day.",))),
    Rule("metric.list_for_part", "metric", m_list_for_part, E(
        "We delivered 11% domestic organic sales growth, 14.9% for International and minus 1.2% "
        "for SPD.", "14.9%", {"metric": "revenue", "segment": "International", "role": "change"})),
    Rule("metric.list_named_part", "metric", m_list_named_part, E(
        "Organic growth was 9.5%, domestic was 10.7% and SPD was 0.4%.", "10.7%",
        {"metric": "revenue", "segment": "domestic", "role": "change"})),
    Rule("metric.volume_restated", "metric", m_volume_restated, E(
        "Total production was 276 Bcfe or 3 Bcfe per day.", "3", {"metric": "production"})),
    Rule("metric.same_change_other_base", "metric", m_same_change_other_base, E(
        "Deposits increased by $82 million over the previous quarter and by $371 million over "
        "the prior year.", "$371 million", {"metric": "deposits", "role": "change"})),
    Rule("metric.change_to_level", "metric", m_change_to_level, E(
        "Revenue grew 9% to $539 million.", "$539 million",
        {"metric": "revenue", "role": "result"})),
    Rule("metric.appositive_change", "metric", m_appositive_change, E(
        "EBITDA was $2.7 billion, a year-over-year improvement of $1.8 billion.", "$1.8 billion",
        {"metric": "ebitda", "role": "change"})),
    Rule("metric.same_subject_ahead", "metric", m_same_subject_ahead, E(
        "Capital expenditures were $262 million in the quarter, and we expect about $1.2 "
        "billion for the full year.", "$1.2 billion", {"metric": "capex", "period": "FY 2021"},
        forward=True)),
)  # fmt: skip

GUARDS_AFTER_METRIC: tuple[Rule, ...] = (
    Rule("guard.multi_year_rate", "guard", g_multi_year_rate, E(
        "Earnings per share grew 12% on a compound annual growth rate basis since 2016.", "12%",
        {"left_out": True})),
    Rule("guard.a_month", "guard", g_a_month, E(
        "June occupancy was 83%.", "83%", {"left_out": True})),
    Rule("guard.several_periods", "guard", g_several_periods, E(
        "On a trailing 12-month basis, adjusted EBITDA was $1 billion.", "$1 billion",
        {"left_out": True})),
    Rule("guard.purpose", "guard", g_purpose, E(
        "The utility is requesting an ROE of 10.53% in its rate case.", "10.53%",
        {"left_out": True})),
    Rule("guard.effect_of_an_item", "guard", g_effect_of_an_item, E(
        "The lower tax rate increased adjusted earnings per share by $0.12 this quarter.",
        "$0.12", {"left_out": True})),
    Rule("guard.economy", "guard", g_economy, E(
        "Industrial production increased by 5.5% in the quarter.", "5.5%", {"left_out": True})),
    Rule("guard.provision_not_credit", "guard", g_provision_not_credit, E(
        "Title claims paid of $56 million were lower than our provision of $97 million.",
        "$97 million", {"left_out": True})),
    Rule("guard.new_loans", "guard", g_new_loans, E(
        "We generated a total of $286 million in new loans.", "$286 million",
        {"left_out": True})),
    Rule("guard.cost_of_sales", "guard", g_cost_of_sales, E(
        "Cost of sales was $14.9 million.", "$14.9 million", {"left_out": True})),
    Rule("guard.part_margin", "guard", g_part_margin, E(
        "Gross margin on product sales was 88.6%.", "88.6%", {"left_out": True})),
    Rule("guard.volume_sales", "guard", g_volume_sales, E(
        "Weather-normalized retail electric sales grew 2.4%.", "2.4%", {"left_out": True})),
    Rule("guard.flows_organic", "guard", g_flows_organic, E(
        "Organic growth was 4% in the quarter.", "4%", {"left_out": True},
        call=(("flows_business", True),))),
)  # fmt: skip

METRIC_FIXES: tuple[Rule, ...] = (
    Rule("metric.same_per_share_earnings", "metric", x_same_per_share_earnings, E(
        "We delivered $6.35 in core earnings per share or 13% earnings growth.", "13%",
        {"metric": "eps", "role": "change"})),
)  # fmt: skip

ROLE_FIRST: tuple[Rule, ...] = (
    Rule("role.compared_before", "role", r_compared_before, E(
        "The net interest margin was 3.29%, down 17 basis points from 3.46% in the first "
        "quarter.", "3.46%", {"metric": "net_interest_margin", "role": "comparison",
        "period": "Q1 2021"})),
    Rule("role.level_reached", "role", r_level_reached, E(
        "Tangible book value per share rose to $31.84, an increase of 3% from the prior "
        "quarter.", "$31.84", {"role": "result", "metric": "book_value_per_share"})),
    Rule("role.change_word_before", "role", r_change_word_before, E(
        "Revenue increased 9% in the quarter.", "9%", {"role": "change", "value": 9})),
    Rule("role.changed_by", "role", r_changed_by, E(
        "EPS improved year over year by $0.21.", "$0.21", {"role": "change", "metric": "eps"})),
    Rule("role.change_word_after", "role", r_change_word_after, E(
        "Backlog was 12% higher than a year ago.", "12%", {"role": "change", "value": 12})),
    Rule("role.verb_metric_by", "role", r_verb_metric_by, E(
        "In the quarter we cut debt by $400 million.", "$400 million",
        {"role": "change", "metric": "debt", "value": -400e6})),
    Rule("role.margins_listed", "role", r_margins_listed, E(
        "We saw an expansion in our margins, 360 basis points on gross margin.",
        "360 basis points", {"role": "change", "metric": "gross_margin"})),
    Rule("role.bps_list", "role", r_bps_list, E(
        "We saw an improvement in our margins, 360 basis points on gross margin and 470 basis "
        "points on operating margin.", "470 basis points",
        {"role": "change", "metric": "operating_margin"})),
    Rule("role.bps_without_direction", "guard", r_bps_without_direction, E(
        "Gross margin was 40 basis points.", "40 basis points", {"left_out": True})),
)  # fmt: skip

ROLE_OVERRIDES: tuple[Rule, ...] = (
    Rule("role.growth_of_money_metric", "role", r_growth_of_money_metric, E(
        "Average deposits grew 2.4% from the first quarter, to $14.3 billion.", "2.4%",
        {"role": "change", "metric": "deposits"})),
    Rule("role.compared_lead_in", "role", r_compared_lead_in, E(
        "Operating earnings were $1.21 per share, compared with $1.12 per share in the third "
        "quarter of 2020.", "$1.12", {"role": "comparison", "period": "Q3 2020"})),
    Rule("role.change_noun", "role", r_change_noun, E(
        "The increase in total loans of $243 million was broad-based.", "$243 million",
        {"role": "change", "metric": "loans"})),
    Rule("role.chained_comparison", "role", r_chained_comparison, E(
        "Net income was $70 million, compared with net income of $56 million or $0.83 per share "
        "in the third quarter of 2020.", "$0.83", {"role": "comparison", "period": "Q3 2020"})),
    Rule("role.growth_metric", "role", r_growth_metric, E(
        "Same-store sales were up 4% in the quarter.", "4%",
        {"metric": "same_store_sales", "role": "change"})),
    Rule("role.same_change_as_percent", "role", r_same_change_as_percent, E(
        "Revenue is up $640 million or 7.3%.", "7.3%", {"role": "change", "value": 7.3})),
    Rule("role.respectively_as_first", "role", r_respectively_as_first, E(
        "Revenue and EBITDA grew 9% and 12%, respectively.", "12%",
        {"role": "change", "metric": "ebitda"})),
    Rule("role.list_of_parts", "role", r_list_of_parts, E(
        "We delivered 11% domestic organic sales growth, 14.9% for International and minus 1.2% "
        "for SPD.", "1.2%", {"role": "change", "value": -1.2, "segment": "SPD"})),
    Rule("role.same_change_other_base", "role", r_same_change_other_base, E(
        "Deposits increased by $82 million over the previous quarter and by $371 million over "
        "the prior year.", "$371 million", {"role": "change", "value": 371e6})),
    Rule("role.level_after_growth", "role", r_level_after_growth, E(
        "For 2022 we expect 6% to 8% earnings per share growth of $3 to $3.06.", "$3",
        {"role": "result", "metric": "eps"}, forward=True)),
    Rule("role.flat", "role", r_flat, E(
        "Revenue was flat year over year.", "flat", {"role": "change", "value": 0})),
    Rule("role.to_level", "role", r_to_level, E(
        "Revenue grew 9% year over year to $539 million.", "$539 million", {"role": "result"})),
)  # fmt: skip

GUARDS_AFTER_ROLE: tuple[Rule, ...] = (
    Rule("guard.effect_of_currency", "guard", g_effect_of_currency, E(
        "Foreign exchange is expected to reduce net sales growth by about 1%.", "1%",
        {"left_out": True}, forward=True)),
    Rule("guard.effect_on_metric", "guard", g_effect_on_metric, E(
        "We had a currency headwind on revenue of $80 million.", "$80 million",
        {"left_out": True})),
    Rule("guard.share_of_money_metric", "guard", g_share_of_money_metric, E(
        "Nonperforming assets were 0.41% of total assets at the end of the quarter.", "0.41%",
        {"left_out": True})),
    Rule("guard.unit_does_not_fit", "guard", g_unit_does_not_fit, E(
        "Gross margin was $40 million.", "$40 million", {"left_out": True})),
)  # fmt: skip

SIGN_RULES: tuple[Rule, ...] = (
    Rule("sign.down_word", "sign", s_down_word, E(
        "Revenue declined 4% year over year.", "4%", {"value": -4})),
    Rule("sign.lower_is_better", "sign", s_lower_is_better, E(
        "The combined ratio was 94.1%, an improvement of 2.7 points.", "2.7 points",
        {"value": -2.7, "metric": "combined_ratio"})),
    Rule("sign.no_direction", "guard", s_no_direction, None),
    Rule("sign.up_word", "sign", s_up_word, E(
        "Revenue increased 9% in the quarter.", "9%", {"value": 9})),
    Rule("sign.loss", "sign", s_loss, E(
        "We reported a net loss of $5 million for the quarter.", "$5 million",
        {"value": -5e6, "metric": "net_income"})),
    Rule("sign.as_stated", "sign", s_as_stated, E(
        "Revenue was $539 million.", "$539 million", {"value": 539e6})),
)  # fmt: skip

SEGMENT_RULES: tuple[Rule, ...] = (
    Rule("segment.part_outlook", "segment", p_part_outlook, E(
        "For fiscal 2022, we expect Neurosciences to grow 9% to 10%.", "9%",
        {"segment": "Neurosciences"}, forward=True)),
    Rule("segment.part_of_total", "segment", p_part_of_total, E(
        "This included 2.4 Bcf per day of gas.", "2.4", {"segment": "gas"},
        before=("Total production was 3 Bcfe per day.",))),
    Rule("segment.list_of_parts", "segment", p_list_of_parts, E(
        "We delivered 11% domestic organic sales growth, 14.9% for International and minus 1.2% "
        "for SPD.", "14.9%", {"segment": "International"})),
    Rule("segment.as_its_level", "segment", p_anchor, E(
        "Journeys revenue was $300 million, up 9%.", "9%", {"segment": "Journeys"},
        chain="segment.noun_phrase")),
    Rule("segment.leverage_company", "segment", p_leverage_company, E(
        "We ended the quarter at 1.3 times debt-to-EBITDA.", "1.3", {"segment": None})),
    Rule("segment.noun_phrase", "segment", p_noun_phrase, E(
        "Journeys revenue was $300 million.", "$300 million", {"segment": "Journeys"})),
    Rule("segment.named_after", "segment", p_named_after, E(
        "Revenue in our Aviation segment was $200 million.", "$200 million",
        {"segment": "Aviation"})),
    Rule("segment.geography_after", "segment", p_geography_after, E(
        "In North America, comparable sales increased 20% in the U.S. and were up 12% in "
        "Canada.", "20%", {"segment": "in the U.S", "metric": "same_store_sales"})),
    Rule("segment.part_at_after", "segment", p_part_at_after, E(
        "Gross profit increased $7.6 million at Keystone Retail.", "$7.6 million",
        {"segment": "Keystone Retail", "role": "change"})),
    Rule("segment.in_clause", "segment", p_segment_in_clause, E(
        "Earnings at our water segment increased $0.04 per share for the quarter.", "$0.04",
        {"segment": "water", "metric": "eps"})),
    Rule("segment.shared_part", "segment", p_shared_part, E(
        "Timberlands earnings and adjusted EBITDA improved by approximately 5% compared with the "
        "first quarter.", "5%", {"segment": "Timberlands", "metric": "ebitda"})),
    Rule("segment.opener", "segment", p_opener, E(
        "In Aerospace, revenue was $2.1 billion.", "$2.1 billion", {"segment": "Aerospace"})),
    Rule("segment.geography", "segment", p_geography, E(
        "Revenue grew 4% year over year across the Americas.", "4%",
        {"segment": "across the Americas"})),
    Rule("segment.possessor", "segment", p_possessor, E(
        "We saw the Bank's customers grow, and deposits were $2 billion.", "$2 billion",
        {"left_out": True})),
    Rule("segment.its_figure_before", "segment", p_its_figure_before, None),
    Rule("segment.its_part_named", "segment", p_its_part_named, E(
        "We expect North America to return to positive volume, and for the full year we expect "
        "its organic revenue growth of 2%.", "2%", {"segment": "North America"},
        forward=True)),
    Rule("segment.it_recent_part", "segment", p_it_recent_part, E(
        "It ended the quarter with $74 billion of assets under management.", "$74 billion",
        {"segment": "Alternatives"}, before=("Our Alternatives segment had a strong quarter.",))),
    Rule("segment.its_recent_part", "segment", p_its_recent_part, E(
        "Its occupancy was 97.3%.", "97.3%", {"segment": "Industrial"},
        before=("Our Industrial segment continues to lead.",))),
    Rule("segment.this_segment", "segment", p_this_segment, E(
        "This segment had revenue of $500 million.", "$500 million", {"segment": "Capital"},
        before=("Our Capital segment continues to exceed expectations.",))),
    Rule("segment.part_will", "segment", p_part_will, E(
        "We project that the modern banking platform will generate $100 million of revenue in "
        "2022.", "$100 million", {"segment": "modern banking platform"}, forward=True)),
    Rule("segment.lower_case_part", "segment", p_lower_case_part, E(
        "Our cargo business posted an operating loss of $9 million.", "$9 million",
        {"segment": "cargo"})),
    Rule("segment.chained", "segment", p_chained, None),
    Rule("segment.after_heading", "segment", p_after_heading, E(
        "Segment revenue was $1.93 billion, down 2.4% year over year.", "$1.93 billion",
        {"segment": "Business Solutions"},
        before=("Our Business Solutions segment had a tougher quarter.",))),
    Rule("segment.partnership_distribution", "segment", p_partnership_distribution, None),
    Rule("segment.named_for", "segment", p_named_for, E(
        "We target a 15% adjusted EBITDA margin for Homes by 2027.", "15%", {"left_out": True},
        forward=True)),
    Rule("segment.part_under_discussion", "segment", p_part_under_discussion, E(
        "Gross margin was 40%.", "40%", {"left_out": True},
        before=("Turning to Marine Systems.", "Demand was strong across the fleet."))),
    Rule("segment.company", "segment", p_company, E(
        "Our revenue was $539 million.", "$539 million", {"segment": None})),
)  # fmt: skip

BASIS_RULES: tuple[Rule, ...] = (
    Rule("basis.words", "basis", b_words, E(
        "Adjusted EPS was $1.20.", "$1.20", {"basis": "adjusted"},
        chain="basis.adjusted_words")),
    Rule("basis.to_level", "basis", b_to_level, None),
    Rule("basis.change_of_level", "basis", b_change_of_level, E(
        "Adjusted EPS was $1.20, up 9%.", "9%", {"basis": "adjusted"})),
    Rule("basis.operating_earnings", "basis", b_operating_earnings, E(
        "Operating earnings were $1.21 per share.", "$1.21", {"basis": "adjusted"})),
    Rule("basis.list_of_parts", "basis", b_list_of_parts, E(
        "We delivered 11% domestic organic sales growth, 14.9% for International and minus 1.2% "
        "for SPD.", "14.9%", {"basis": "organic"})),
    Rule("basis.chained", "basis", b_chained, E(
        "Period-end loans were $12.1 billion, up $286 million, or 9.8% annualized.", "9.8%",
        {"basis": None, "role": "change"})),
    Rule("basis.margin_of", "basis", b_margin_of, None),
)  # fmt: skip

GUARDS_AFTER_BASIS: tuple[Rule, ...] = (
    Rule("guard.per_share_growth", "guard", g_per_share_growth, E(
        "Free cash flow was $80 million, an increase of 18% on a per share basis.", "18%",
        {"left_out": True})),
    Rule("guard.segment_measure_without_part", "guard", g_segment_measure_without_part, E(
        "Results were in line with our expectations, with segment margins of 5.3%.", "5.3%",
        {"left_out": True})),
    Rule("guard.excluding", "guard", g_excluding, E(
        "Excluding fuel, sales grew 5.0%.", "5.0%", {"left_out": True})),
)  # fmt: skip

PERIOD_FIXES: tuple[Rule, ...] = (
    Rule("period.dividend_next_year", "period", t_dividend_next_year, E(
        "We declared a first quarter dividend of $0.10 per share, payable on March 20, 2022.",
        "$0.10", {"period": "Q1 2022"}, period="Q4 2021")),
)  # fmt: skip

GUARDS_AFTER_PERIOD: tuple[Rule, ...] = (
    Rule("guard.trailing_twelve_months", "guard", g_trailing_twelve_months, E(
        "We ended the quarter with net debt of $2.4 billion and LTM adjusted EBITDA of $910 "
        "million.", "$910 million", {"left_out": True})),
    Rule("guard.a_months_figure", "guard", g_a_months_figure, E(
        "Same-store average occupancy grew 30 basis points in November, compared to the third "
        "quarter.", "30 basis points", {"left_out": True})),
    Rule("guard.prior_year_possessive", "guard", g_prior_year_possessive, E(
        "Last year's first-half net loss was $212 million.", "$212 million",
        {"left_out": True})),
)  # fmt: skip

TABLES: tuple[tuple[Rule, ...], ...] = (
    GUARDS_BEFORE, METRIC_RULES, GUARDS_AFTER_METRIC, METRIC_FIXES, ROLE_FIRST, ROLE_OVERRIDES,
    GUARDS_AFTER_ROLE, SIGN_RULES, SEGMENT_RULES, BASIS_RULES, GUARDS_AFTER_BASIS, PERIOD_FIXES,
    GUARDS_AFTER_PERIOD,
)  # fmt: skip


def all_rules() -> list[Rule]:
    """Every rule of the tables, in the order they run."""
    return [r for table in TABLES for r in table]


# -- running the tables ----------------------------------------------------------------------


def bind(c: Clause, left_out: dict[int, str] | None = None) -> Attributed | None:
    """The figure of `c` as its words attribute it, with the rule that decided each field; None
    when no rule binds it or a guard leaves it out (the guard's name goes to `left_out`, by the
    figure's start, when given)."""

    def veto(name: str) -> Attributed | None:
        if left_out is not None:
            left_out[c.fig.start] = name
        return None

    for rule in GUARDS_BEFORE:
        if rule.fn(c):
            return veto(rule.name)
    found: Bound | None = None
    for rule in METRIC_RULES:
        got = rule.fn(c)
        if got is VETO:
            return veto(rule.name)
        if isinstance(got, Bound):
            found = got
            found.decide("metric", got.name or rule.name)
            break
    if found is None:
        return veto("metric.none")
    b = found
    b.metric = b.mm.metric
    for rule in GUARDS_AFTER_METRIC:
        if rule.fn(c, b):
            return veto(rule.name)
    for rule in METRIC_FIXES:
        fixed = rule.fn(c, b)
        if isinstance(fixed, Metric):
            b.metric = fixed
            b.decide("metric", rule.name)
    b.decide("role", "role.level")
    got_role = r_part_outlook_growth(c, b)
    if got_role is not None:
        b.role, b.up_down = got_role
        b.decide("role", "role.part_outlook_growth")
    for rule in ROLE_FIRST:
        decided = rule.fn(c, b)
        if decided is VETO:
            return veto(rule.name)
        if decided is not None:
            b.role, b.up_down = decided  # type: ignore[misc]
            b.decide("role", rule.name)
            break
    for rule in ROLE_OVERRIDES:
        decided = rule.fn(c, b)
        if decided is VETO:
            return veto(rule.name)
        if decided is not None:
            b.role, b.up_down = decided  # type: ignore[misc]
            b.decide("role", rule.name)
    for rule in GUARDS_AFTER_ROLE:
        if rule.fn(c, b):
            return veto(rule.name)
    b.value = c.fig.value * (100 if c.unit == "bps" else 1)
    for rule in SIGN_RULES:
        signed_value = rule.fn(c, b)
        if signed_value is VETO:
            return veto(rule.name)
        if signed_value is not None:
            b.value = signed_value  # type: ignore[assignment]
            b.decide("sign", rule.name)
            break
    for rule in SEGMENT_RULES:
        seg = rule.fn(c, b)
        if seg is VETO:
            return veto(rule.name)
        if isinstance(seg, Set):
            b.segment = seg.value  # type: ignore[assignment]
            b.decide("segment", seg.name or rule.name)
            break
    for rule in BASIS_RULES:
        given = cast("Basis | None", rule.fn(c, b))
        if given is not None:
            basis, how = given
            b.basis = basis
            b.decide("basis", how if how.startswith("basis.") else rule.name)
    for rule in GUARDS_AFTER_BASIS:
        if rule.fn(c, b):
            return veto(rule.name)
    period, how = figure_period(c, b)
    if period is False or period is True:
        return veto(how)
    if isinstance(period, Period) and period.year is None:
        # "for the quarter" on a call that does not state its year: rows keep only the periods
        # their own words give
        return veto("period.year_not_stated")
    b.period = period
    b.decide("period", how)
    for rule in PERIOD_FIXES:
        moved = rule.fn(c, b)
        if moved is not None:
            b.period = moved  # type: ignore[assignment]
            b.decide("period", rule.name)
    for rule in GUARDS_AFTER_PERIOD:
        if rule.fn(c, b):
            return veto(rule.name)
    if b.period is not None and not _own_year(c, b.period):
        b.decide("identity", c.call.period_rule)  # dated by the call's own period
    anchor = b.anchor.fig.start if b.anchor is not None and not b.same_change else None
    last = c.last
    if anchor is None and b.role == "comparison" and last is not None and last.metric is b.metric:
        # "Gross margin improved to 36.1%, ... from an adjusted gross margin of 35.2% last year":
        # what the figure before is compared with
        anchor = last.fig.start
    return Attributed(
        fig=c.fig, metric=b.m, role=b.role, value=b.value, unit=c.unit, basis=b.basis,
        segment=b.segment, period=b.period or None, anchor=anchor, rules=tuple(b.rules),
    )  # fmt: skip


# -- the period: a cascade of named exits ----------------------------------------------------

PeriodFound = tuple["Period | None | bool", str]


# "down from $43.6 million in the prior year quarter": a quarter's figure, against a quarter
_YEAR_AGO_QUARTER = re.compile(
    r"\b(?:(?:prior|previous|last)[- ]year(?:['’]s)?|year[- ]ago|same)\s+quarter\b|"
    r"\bquarter\s+(?:a|one)\s+year\s+(?:ago|earlier)\b",
    re.IGNORECASE,
)


def figure_period(c: Clause, b: Bound) -> PeriodFound:
    """The period a figure is for, and the rule that said so (False: left out). Its own period
    words: in its noun phrase or between metric and figure, right after it (up to the next
    figure), or opening the sentence ("In the third quarter,"). Words after a comparison cue
    name the comparison's period. A comparison with no period of its own is left out; a result
    or change with none is the call's period, unless the sentence names another period it
    cannot be told apart from."""
    sentence, fig, role, call, forward, anchor = (
        c.sentence, c.fig, b.role, c.call, c.forward, b.anchor)  # fmt: skip
    # "net income was $58.3 million for the full year, compared to $59.5 million in the prior
    # year": a comparison's "prior year" is the year before that of the level it is set against
    level = anchor or next((a for a in reversed(c.earlier) if a.metric is b.metric
                            and a.role != "comparison"), None)  # fmt: skip
    ca, cb = c.ca, c.cb
    figs, i = c.figs, c.i
    end = c.end
    nxt = figs[i + 1].start if i + 1 < len(figs) else len(sentence)
    j = i + 1
    while (
        role == "comparison"
        and j < len(figs)
        and re.fullmatch(
            r"\s*,?\s*(?:or|and)\s+",
            sentence[figs[j - 1].start + len(figs[j - 1].text) : figs[j].start],
        )
    ):  # "compared with $56 million or $0.83 per share in the third quarter of 2020": the
        # period after the figures it is said with is theirs
        j += 1
        nxt = figs[j].start if j < len(figs) else len(sentence)
    lo = min(b.mm.start, fig.start)
    np_start = max(0, lo - 40)
    own: list[Mention] = []
    after: list[Mention] = []
    # "off of a 2020 base": the year a rate is measured from, not the figure's
    period_words = [
        m
        for m in c.period_words
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
    # "declined 2% linked quarter, driven by seasonal impacts in Q1": the cause's period
    period_words = [
        m for m in period_words if m.start < end or not _CAUSE_WORDS.search(sentence, end, m.start)
    ]
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
            cue = _COMPARE_BEFORE.search(sentence[end : m.start]) or _OVER_AFTER_FIGURE.search(
                sentence[max(0, m.start - 40) : m.start]
            )
            if cue is None or role == "comparison":
                after.append(m)
    opening = [m for m in period_words if m.end <= (figs[0].start if figs else 0)
               and re.match(r"^\s*(?:and\s+|so\s+|also\s+|now\s+)?(?:in|for|during|at|as of|"
                            r"through|over)\b", sentence[: m.start], re.I)
               and re.match(r"^[\s\w'’-]*,", sentence[m.end :])]  # fmt: skip
    # "Fourth-quarter 2020 consolidated adjusted operating income of $9.6 million was the best
    # quarterly performance in 2020": the period that opens the clause and names its metric
    lead = [
        m
        for m in period_words
        if m.start < np_start
        and m.start >= ca
        and m.end <= b.mm.start
        and re.fullmatch(r"\s*(?:(?:and|so|now|our|the|in|for)\s+)*", sentence[ca : m.start], re.I)
        and re.fullmatch(r"(?:'s|’s)?\s+(?:[\w-]+\s+){0,3}", sentence[m.end : b.mm.start])
    ]
    if role == "comparison":
        base = [m for m in after if not m.is_base] or [m for m in after if m.is_base]
        if not base:
            base = [m for m in period_words if m.is_base and ca <= m.start < cb]
        prev = c.prev
        if not base and _chained(c) and prev is not None and prev.role == "comparison" and (
                prev.period is not None):  # fmt: skip
            # "compared with $56 million in the third quarter of 2020, or $0.83 per share"
            return prev.period, "period.chained_comparison"
        if not base:
            return False, "period.comparison_without_period"
        first = base[0]
        if (
            first.period is not None
            and first.period.year is None
            and call.period is not None
            and call.period.year is not None
            and any(m.rel == "prior_y" for m in after)
        ):
            # "in the third quarter of last year"
            return replace(first.period, year=call.period.year - 1), "period.comparison_last_year"
        if (
            first.rel == "prior_y"
            and level is not None
            and level.period is not None
            and level.period.kind in ("FY", "H", "9M", "6M")
            and level.period.year is not None
        ):  # "$4.86 for the fiscal year, versus $6.02 last year": last year's year
            last_year = replace(level.period, year=level.period.year - 1)
            return last_year, "period.comparison_last_year"
        got = resolve(first, call.period, forward=False)
        if (
            got is not None
            and got.kind == "FY"
            and anchor is not None
            and (anchor.period is not None and anchor.period.kind == "Q")
        ):  # "$0.79 compared to $0.33 in fiscal '20": the same quarter of that year
            return Period("Q", anchor.period.n, got.year), "period.comparison_same_quarter"
        return (got, "period.comparison_words") if got is not None else (
            False, "period.comparison_unresolved")  # fmt: skip
    if forward:
        # "EPS of $0.30 to $0.34, as the third quarter's outperformance flows through": words after
        # an outlook's figure that name a period already reported are a reason's, not the figure's
        after = [m for m in after if (p := resolve(m, call.period, forward=True)) is None
                 or _after_the_call(p, call.period)]  # fmt: skip
    own_ok = [m for m in (lead or own + after) if not m.is_base]
    if anchor is not None:
        if anchor.period is None and forward:
            return None, "period.outlook_of_its_level"  # found from its sentence and before
        got_anchor = anchor_period(anchor)
        return got_anchor, anchor.chain.get("period", "period.as_its_level")
    if b.m.name == "dividend" and not own_ok and not (forward and role == "change"):
        return False, "period.dividend_unstated"  # declared now, paid later: which, must be said
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
        return False, "period.past_or_coming"  # "first half margin is down": which half?
    if chosen:
        found = _period(sentence, chosen, call, forward)
        how = "period.own_words" if own_ok else "period.sentence_opening"
        return (found, how) if found is not None else (False, "period.own_words_disagree")
    # nothing bound: the call's period, unless the clause names another own period
    loose = [m for m in period_words if not m.is_base and ca <= m.start < cb]
    loose = [m for m in loose if not _compared_before(sentence, m.start)]
    others = {resolve(m, call.period, forward=forward) for m in loose}
    others.discard(None)
    if forward:
        return None, "period.outlook_context"  # found from its sentence and the ones before
    if others and others != {call.period}:
        return False, "period.clause_names_another"
    if others:
        return call.period, "period.clause_names_the_call"
    named = {resolve(m, call.period) for m in period_words if not m.is_base
             and not _compared_before(sentence, m.start)}  # fmt: skip
    named.discard(None)
    if named == {call.period}:
        return call.period, "period.sentence_names_the_call"  # in another clause
    if named:
        return False, "period.sentence_names_another"
    if call.period is None or call.period.year is None:
        return False, "period.call_period_unknown"
    if call.period.kind == "Q" and _A_QUARTER.search(sentence):
        return call.period, "period.a_quarter"  # "PrimeLending had an outstanding quarter"
    if call.period.kind == "Q" and (any(
        m.rel in ("prior_q", "cur_q") or (m.period is not None and m.period.kind == "Q")
        for m in period_words
    ) or _YEAR_AGO_QUARTER.search(sentence)):  # fmt: skip
        # "up 1.5% from the prior quarter", "compared to the fourth quarter of 2021": a quarter's
        # figure, whatever the paragraph before spoke of
        return call.period, "period.quarter_base"
    context_period = c.context.period
    if context_period is None and call.period.kind == "Q" and call.period.n == 4:
        return False, "period.q4_quarter_or_year"  # a fourth-quarter call: say which
    if context_period is not None and context_period != call.period:
        # the sentences just before speak of another period ("Fiscal '22 was another record
        # year. EPS was ..."): a results sentence with none of its own continues it
        current_year = context_period.year == call.period.year
        if context_period.kind == "FY" and current_year and call.period.n == 4:
            return context_period, "period.q4_year_paragraph"
        if context_period.kind in ("9M", "6M", "H") and current_year:
            if b.m.properties.measure == "balance" and call.period.kind == "Q":
                # "at quarter end, we had $507 million in debt" after a year-to-date paragraph:
                # a balance is at a date, the quarter's end, not over the months so far
                return call.period, "period.balance_at_quarter_end"
            return context_period, "period.year_to_date_paragraph"
        if context_period.year is not None and (
            call.period.year is not None and context_period.year < call.period.year
        ):
            return call.period, "period.call_after_history"  # history told in passing
        return False, "period.paragraph_of_another"
    if call.period.kind == "Q" and call.period.n == 4:
        return call.period, "period.call_default_q4"  # a fourth quarter's call: quarter or year
    return call.period, "period.call_default"


def _after_the_call(p: Period, call: Period | None) -> bool:
    """A period that ends after the call's (not one reported by it or before it)."""
    if call is None or call.year is None or p.year is None:
        return True
    if p.year != call.year:
        return p.year > call.year
    if p.kind == "Q" and call.kind == "Q":
        return p.n > call.n
    return p.kind in ("FY", "H") and call.kind == "Q"


def _own_year(c: Clause, period: Period) -> bool:
    """The sentence itself names the period's year ("in the third quarter of 2021")."""
    return any(m.period is not None and m.period.year == period.year for m in c.period_words)


def anchor_period(anchor: Attributed) -> Period | None | bool:
    return anchor.period if anchor.period is not None else False
