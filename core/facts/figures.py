"""Key figures and guidance: the attributed figures of management's prepared remarks, grouped
(a result with the change and comparison stated with it), ranked by what an analyst leads with,
and capped. Forward-looking figures go to guidance only when bound to a future period; their
direction only when the call states it about them."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import cast

from core.contract import Direction, GuidanceItem, KeyFigure, StatedFigure
from core.facts.attribution import (
    ADJUSTED_WORDS,
    GAAP_WORDS,
    IN_RANGE,
    REASON,
    Attributed,
    Context,
    attribute,
    clause_bounds,
)
from core.facts.call import CallIdentity
from core.facts.lexicon import BALANCES, METRIC_BY_NAME, PROPERTIES, metric_matches
from core.facts.outlook import PAST, PAST_EXPECTATION, is_forward
from core.facts.periods import Period, mentions, resolve
from core.facts.sentences import Sentence, figures_in, is_management, is_qa
from core.facts.units import WORDED, with_volume_unit, worded_bounds
from core.facts.verify import weak_rules
from core.grounding import Figure

MAX_KEY_FIGURES = 20
MAX_GUIDANCE = 20

_SAFE_HARBOR = re.compile(
    r"forward-looking statements|safe harbor|private securities litigation|actual results "
    r"(?:could|may) differ|risks and uncertainties|subject to (?:some |certain |a number of |"
    r"various )?risks",
    re.IGNORECASE,
)
# an outlook over several years, or a rate per year: no single future period to give it
_MULTI_YEAR = re.compile(
    r"\bover the (?:next|coming|following) (?:\w+ )?years\b|\b(?:per|a|each|every) year\b"
    r"(?![- ](?:over|on|ago|earlier|later|end)\b)|"
    r"\bannually\b|\bcompound annual\b|\bcagr\b|\blong[- ]term\b|\blong[- ]range\b",
    re.IGNORECASE,
)
# what makes a rate per year not one year's: a span of years or a compound rate
_MULTI_YEAR_SPAN = re.compile(
    r"\bover the (?:next|coming|following) (?:\w+ )?years\b|\bcompound annual\b|\bcagr\b|"
    r"\blong(?:er)?[- ]term\b|\blong[- ]range\b",
    re.IGNORECASE,
)
# a clause of its own with its own subject: "..., and we are extending our long-term target"
_OTHER_CLAUSE = re.compile(r"[;.]\s|,?\s+(?:and|while|but)\s+(?:we|our|the|it)\b", re.IGNORECASE)
# "per year through at least 2022": the last year the rate is given for
_THROUGH_YEAR = re.compile(
    r"\bthrough (?:at least )?(?P<y>(?:fiscal |fy ?)?(?:19|20)\d{2})\b", re.IGNORECASE
)
# a rate reached at a period's end, not the period's own
_EXIT = re.compile(
    r"\b(?:by|at|before) (?:the )?end of (?:the )?(?:fiscal )?(?:year|(?:19|20)\d{2}|['’]\d{2}|"
    r"fy ?\d{2,4})\b|\bexit(?:ing)?\b|\bby year[- ]end\b|\brun[- ]rate\b|"
    r"\b(?:end|finish|close) (?:the |this )?(?:fiscal )?year (?:with|at)\b",
    re.IGNORECASE,
)
# a run rate at a stated year's end: "year-end 2022 run rate adjusted EBITDA", "By year-end 2022,
# we expect the run rate for adjusted EBITDA to be ...": its own period, "FY 2022 exit"
_RUN_RATE_AT = re.compile(
    r"\b(?:year[- ]end|end of)\s+(?:fiscal\s+)?(?P<y>(?:19|20)\d{2})\b[^.;]{0,40}?\b"
    r"(?:run[- ]rate|exit rate)|\b(?:run[- ]rate|exit rate)\b[^.;]{0,40}?\b(?:at|by) (?:the )?"
    r"(?:year[- ]end|end of)\s+(?:fiscal\s+)?(?P<y2>(?:19|20)\d{2})\b",
    re.IGNORECASE,
)
# trends since the quarter ended, told on the call: not the quarter's results
_INTERIM = re.compile(
    r"\b(?:quarter|month)[- ]to[- ]date\b|^\W*(?:(?:And|So|Now),?\s+)?(?:Through|Thru|So far "
    r"in|Thus far in|Since the start of)\s+(?:January|February|March|April|May|June|July|August|"
    r"September|October|November|December)\b",
    re.IGNORECASE,
)
# balances at a date: "by year-end" is the year's end
# a floor or a cap on an outlook: "at least $2.4 billion", "up to $4 billion"
_BOUND = re.compile(
    r"\b(?P<b>at least|more than|over|above|in excess of|greater than|north of|up to|as much as|"
    r"no more than|less than|under|below)\s+(?:approximately |about |roughly )?$",
    re.IGNORECASE,
)
_FLOORS = frozenset(
    ["at least", "more than", "over", "above", "in excess of", "greater than", "north of"]
)
# a long-term model's figure ("your evergreen model is 8% EPS growth"), in its clause
_MODEL = re.compile(
    r"\bevergreen\b|\b(?:financial|growth|earnings|long[- ]term) (?:algorithm|model|framework)\b",
    re.IGNORECASE,
)
_RESULTS_ONLY = re.compile(r"\b(?:year[- ]to[- ]date|ytd|trailing|so far this year)\b", re.I)
_GUIDANCE_OBJECT = r"(?:guidance|outlook|forecast|expectations?|target|estimate|view|plan)"
_DIRECTIONS: tuple[tuple[Direction, re.Pattern[str]], ...] = tuple(
    (cast(Direction, d), re.compile(p, re.IGNORECASE))
    for d, p in (
        (
            "withdrawn",
            rf"\b(?:withdr[ae]w\w*|suspend\w*|pull(?:ed|ing)?)\b[^.]{{0,30}}"
            rf"\b{_GUIDANCE_OBJECT}",
        ),
        (
            "raised",
            rf"\b(?:rais(?:e|es|ed|ing)|increas(?:e|es|ed|ing)|lift(?:s|ed|ing)?|"
            rf"boost(?:s|ed|ing)?|upgrad(?:e|es|ed|ing))\b(?:\s+[\w'-]+){{0,8}}\s+"
            rf"{_GUIDANCE_OBJECT}s?\b|\b{_GUIDANCE_OBJECT}s? (?:is |was |has been )?"
            rf"(?:raised|increased)\b|\bnow expect[^.]{{0,80}}\b(?:above|higher than|up "
            r"from) (?:our )?(?:prior|previous|earlier)",
        ),
        (
            "lowered",
            rf"\b(?:lower(?:s|ed|ing)?|reduc(?:e|es|ed|ing)|cut(?:s|ting)?|trimm?(?:ed|"
            rf"ing)?|revis(?:e|ed|ing) down)\b(?:\s+[\w'-]+){{0,8}}\s+{_GUIDANCE_OBJECT}s?\b|"
            rf"\b{_GUIDANCE_OBJECT}s? (?:is |was |has been )?(?:lowered|reduced|cut)\b|"
            r"\bnow expect[^.]{0,80}\b(?:below|lower than|down from) (?:our )?(?:prior|"
            r"previous|earlier)",
        ),
        (
            "reaffirmed",
            r"\b(?:continue|continues|still) to (?:expect|target|see|anticipate|"
            r"project)\b|\bstill (?:expect|anticipate|project|target|see)\b|"
            # "our effective tax rate guidance remains in the range of 35% to 40%"
            r"\b(?:remains?|to remain) (?:in|within) (?:the|our|that|this) (?:[\w-]+ )?range\b|"
            rf"\b(?:reaffirm\w*|reiterat\w*|maintain\w*|confirm\w*)\b(?:\s+[\w'-]+){{0,8}}"
            rf"\s+{_GUIDANCE_OBJECT}s?\b|\b{_GUIDANCE_OBJECT}s? (?:is |remains? |"
            r"was )?(?:unchanged|reaffirmed|reiterated|intact)\b|"
            rf"\b{_GUIDANCE_OBJECT}s?\b[^.]{{0,40}}\b(?:remains?|is|are|stays?) (?:unchanged|"
            r"intact)\b|"
            # "an adjusted effective tax rate of 24% to 26%, unchanged from our prior outlook";
            # "free cash flow of $90 million to $110 million for fiscal 2026, which is unchanged"
            r"\bunchanged from (?:our |the )?(?:prior|previous|earlier|last|original)\b|"
            r",\s*which (?:is|remains) unchanged\b",
        ),
        (
            "introduced",
            rf"\b(?:initiat\w*|introduc\w*|establish\w*|issu(?:e|es|ed|ing)|reinstat\w*)\b"
            rf"(?:\s+[\w'-]+){{0,8}}\s+{_GUIDANCE_OBJECT}s?\b|"
            # "we are providing initial 2021 guidance", "our initial outlook for the year"
            rf"\binitial\s+(?:[\w'-]+\s+){{0,3}}{_GUIDANCE_OBJECT}s?\b",
        ),
    )
)


# words lost in transcription: a figure in such a sentence may be bound to the wrong words
# ("revenue [Indecipherable] $1.2 billion"), so the sentence gives no row (fewer rows, never
# wrong ones); "[Phonetic]" marks a name's spelling and is kept
_GARBLED = re.compile(
    r"\[(?:indecipherable|inaudible|unintelligible|technical (?:issues?|difficult(?:y|ies))|"
    r"audio gap|crosstalk|ph)\]",
    re.IGNORECASE,
)


def _eligible(s: Sentence) -> bool:
    """What management says: its prepared remarks and its answers (or a transcript without
    speakers), never an analyst's question or the operator; never a sentence with words lost
    in transcription."""
    if _SAFE_HARBOR.search(s.text) or _GARBLED.search(s.text):
        return False
    if s.turn.speaker:
        return is_management(s.turn.speaker)
    return not is_qa(s.turn.section)  # a Q&A section without speakers: questions and answers


def _lower_first(label: str) -> str:
    """ "Operating margin" -> "operating margin"; an acronym stays ("FFO per share", "EBITDA")."""
    first = label.split(" ", 1)[0]
    acronym = len(first) > 1 and any(c.isupper() for c in first[1:])  # "FFO", "RevPAR"
    return label if acronym else label[:1].lower() + label[1:]


def _label(a: Attributed) -> str:
    base = a.metric.label
    if a.metric.name == "ffo" and a.basis == "adjusted":
        base = "Core FFO per share"  # a REIT's own adjusted FFO (not AFFO, another measure)
    elif a.metric.name == "eps" and a.basis == "adjusted":
        base = "Adjusted EPS"
    elif a.metric.name == "eps" and a.basis == "gaap":
        base = "GAAP EPS"
    elif a.basis == "adjusted" and a.metric.name != "ffo":
        base = f"Adjusted {_lower_first(base)}"
    elif a.basis == "organic":
        base = f"Organic {_lower_first(base)}"
    elif a.basis == "constant_currency":
        base = f"{base} (constant currency)"
    if a.segment:
        base = f"{a.segment}: {_lower_first(base)}"
    return base


def _stated(a: Attributed, offset: int) -> StatedFigure:
    return StatedFigure(
        role=a.role, text=a.fig.text, value=a.value, unit=a.unit,  # type: ignore[arg-type]
        basis=a.basis,  # type: ignore[arg-type]
        period=a.period.label() if a.period else None,
        start=offset + a.fig.start, end=offset + a.fig.start + len(a.fig.text),
        rules=a.chain,
    )  # fmt: skip


def _groups(found: Sequence[Attributed]) -> list[list[Attributed]]:
    """A result (or a change stated alone) with the changes and comparisons bound to it."""
    groups: list[list[Attributed]] = []
    by_start: dict[int, list[Attributed]] = {}
    for a in found:
        if a.anchor is not None and a.anchor in by_start:
            by_start[a.anchor].append(a)
            by_start[a.fig.start] = by_start[a.anchor]
            continue
        if a.role == "comparison":
            continue  # compared with nothing the call attributes
        group = [a]
        groups.append(group)
        by_start[a.fig.start] = group
    return groups


def _comparison_words(change: StatedFigure | None, prior: StatedFigure | None) -> str | None:
    parts = []
    if change is not None:
        sign = "+" if change.value > 0 else ""
        unit = {"percent": "%", "bps": " bps"}.get(change.unit, "")
        value = change.text if change.unit == "money" else f"{sign}{change.value:g}{unit}"
        if change.unit == "money" and change.value < 0:
            value = f"down {change.text}"
        elif change.unit == "money":
            value = f"up {change.text}"
        parts.append(value)
    if prior is not None:
        parts.append(f"vs {prior.text}" + (f" in {prior.period}" if prior.period else ""))
    return ", ".join(parts) or None


def key_figures(
    sents: Sequence[Sentence], call: CallIdentity
) -> tuple[list[KeyFigure], list[KeyFigure]]:
    """Headline figures: company-wide results first, ranked by metric, at most 20 (six of them
    segments); one row per metric, basis, segment and period. Two lists: the verified rows
    (every rule that decided them has earned it: core.facts.verify) and the unconfirmed ones
    (each names its `weak_rules`), selected apart so one never crowds out the other."""
    rows: list[KeyFigure] = []
    bases: list[str | None] = []
    context = Context()
    speaker: str | None = None
    was_forward = False
    outlook_age = 99
    total = max(1, len(sents))
    for n, s in enumerate(sents):
        if s.turn.speaker != speaker:
            context, speaker, was_forward = Context(), s.turn.speaker, False
        if s.opens_paragraph and context.period is not None and context.period != call.period:
            context.period = context.section  # "For the full year, ..." ended with its paragraph
        if not _eligible(s):
            continue
        forward = is_forward(s.text, was_forward) or _plans_the_year(s.text, call)
        was_forward = is_forward(s.text)
        outlook_age = 0 if was_forward else outlook_age + 1
        found = attribute(s.text, call, context, forward=forward and not _RESULTS_ONLY.search(
            s.text))  # fmt: skip
        if outlook_age <= 3 and not PAST.search(s.text) and not _names_the_call(s.text, call):
            continue  # in the outlook, a sentence with no past tense may be more outlook
        if _INTERIM.search(s.text):
            continue  # "Through July 21, U.S. payments volume was up 6%": the next quarter so far
        for group in _groups([a for a in found if not a.forward]):
            primary = next((a for a in group if a.role == "result"), group[0])
            if primary.role == "comparison" or primary.period is None:
                continue
            if _is_future(primary.period, call.period):
                continue  # a future period's figure is an outlook, never a result
            if _is_history(primary.period, call.period):
                continue  # "In the third quarter of 2023, NOI grew 5.6%": history, not a result
            change = next((a for a in group if a.role == "change" and a is not primary), None)
            prior = next((a for a in group if a.role == "comparison"), None)
            changed = _stated(change, s.start) if change is not None else None
            priored = _stated(prior, s.start) if prior is not None else None
            shown = primary.fig.text
            if primary.metric.level == "volume":
                shown = with_volume_unit(primary.fig, s.text)  # "3 Bcfe per day"
            score = primary.metric.weight + (1.0 if primary.segment is None else 0.0)
            score += (0.6 if primary.role == "result" else 0.3) + (1.0 - 0.6 * n / total)
            score += 0.3 if is_management(s.turn.speaker) else 0.0
            score -= 0.4 if primary.period.kind not in ("Q", "FY") else 0.0
            base = _change_base(s.text, primary) if primary.role == "change" else None
            score += 0.1 if base == "year" else 0.0  # an analyst leads with the annual change
            bases.append(base)
            rows.append(
                KeyFigure(
                    metric=primary.metric.name, label=_label(primary), text=shown,
                    value=primary.value, kind=primary.fig.kind,
                    unit=primary.unit,  # type: ignore[arg-type]
                    role=primary.role,  # type: ignore[arg-type]
                    basis=primary.basis,  # type: ignore[arg-type]
                    segment=primary.segment, period=primary.period.label(),
                    change=changed, prior=priored, comparison=_comparison_words(changed, priored),
                    speaker=s.turn.speaker, section=s.turn.section,
                    start=s.start + primary.fig.start,
                    end=s.start + primary.fig.start + len(shown),
                    sentence=s.text, salience=round(score, 3), rules=primary.chain,
                    weak_rules=weak_rules([primary.chain] + [x.rules for x in (changed, priored)
                                                             if x is not None]),
                )
            )  # fmt: skip
    rows = [_called_adjusted_elsewhere(r, sents) for r in rows]
    return (
        _select([r for r in rows if not r.weak_rules], [b for r, b in zip(rows, bases,
                strict=True) if not r.weak_rules]),
        _select([r for r in rows if r.weak_rules], [b for r, b in zip(rows, bases, strict=True)
                                                    if r.weak_rules]),
    )  # fmt: skip


_ADJUSTED_AFTER = re.compile(
    r"^[^.;]{0,40}?\bon an? (?:adjusted|non-gaap|underlying|core|operating) basis\b", re.IGNORECASE
)


def _called_adjusted_elsewhere(row: KeyFigure, sents: Sequence[Sentence]) -> KeyFigure:
    """ "First quarter earnings per share increased 36% to $1.25" is adjusted when the call
    states the same figure as adjusted elsewhere ("we reported first quarter adjusted earnings
    of $1.25 per diluted share", "$0.55 of earnings per share on an underlying basis"): one
    figure, one measure. Earnings measures only; never against a GAAP statement of it."""
    if row.basis is not None or PROPERTIES[row.metric].basis_class != "earnings":
        return row
    figure = re.compile(rf"(?<![\d.]){re.escape(row.text)}(?![\d])")
    called: set[str] = set()
    for s in sents:
        if s.text == row.sentence or not _eligible(s):
            continue
        for m in figure.finditer(s.text):
            before = s.text[max(0, m.start() - 60) : m.start()]
            after = s.text[m.end() : m.end() + 60]
            per_share = bool(re.match(r"\s+(?:of\s+earnings\s+)?per\s+(?:diluted\s+)?share", after))
            if (row.metric == "eps") != per_share:
                continue  # the same number for another kind of figure
            if ADJUSTED_WORDS.search(before) or _ADJUSTED_AFTER.match(after):
                called.add("adjusted")
            elif GAAP_WORDS.search(before):
                called.add("gaap")
    if called != {"adjusted"}:
        return row
    label = "Adjusted EPS" if row.metric == "eps" else f"Adjusted {_lower_first(row.label)}"
    rules = {**row.rules, "basis": "basis.same_figure_called_adjusted"}
    change = row.change
    if change is not None and change.basis is None:
        change = change.model_copy(update={"basis": "adjusted"})
    return row.model_copy(update={"basis": "adjusted", "label": label, "rules": rules,
                                  "change": change,
                                  "weak_rules": weak_rules([rules] + [x.rules for x in (
                                      change, row.prior) if x is not None])})  # fmt: skip


# what a change is measured against: "over the previous quarter" / "year-over-year"
_QUARTER_BASE = re.compile(
    r"\b(?:sequential(?:ly)?|linked[- ]quarter|(?:previous|prior|last|third|second|first) "
    r"quarter|quarter[- ]over[- ]quarter)\b",
    re.IGNORECASE,
)
_YEAR_BASE = re.compile(
    r"\b(?:year[- ](?:over|on)[- ]year|a year ago|(?:prior|last|previous) year|year[- ]ago)\b",
    re.IGNORECASE,
)


def _change_base(sentence: str, change: Attributed) -> str | None:
    """ "quarter" or "year": the base a change names in the words up to the next clause."""
    end = change.fig.start + len(change.fig.text)
    words = sentence[end : end + 80]  # to the next change: "$82 million or 1.9% over ... and by"
    words = re.split(r"\band\b|[;:]|,\s+(?:while|but|which)\b", words, maxsplit=1)[0]
    if _QUARTER_BASE.search(words):
        return "quarter"
    return "year" if _YEAR_BASE.search(words) else None


def _names_the_call(text: str, call: CallIdentity) -> bool:
    """The sentence names the call's own period ("organic growth of 3% in the quarter") and
    no other: its figures are results, whatever tense it is in."""
    found = {resolve(m, call.period) for m in mentions(text) if not m.is_base}
    return call.period is not None and found == {call.period}


def _select(rows: list[KeyFigure], bases: Sequence[str | None]) -> list[KeyFigure]:
    """At most MAX_KEY_FIGURES by salience, one per metric, basis, segment, period and role
    (a change against a quarter and one against a year are two)."""
    base_of = {id(r): b for r, b in zip(rows, bases, strict=True)}
    rows = sorted(rows, key=lambda r: (-r.salience, r.start))
    kept: list[KeyFigure] = []
    seen: set[tuple[object, ...]] = set()
    per_metric: dict[str, int] = {}
    segments = 0
    for r in rows:
        rate = bool(re.search(r"\b(?:per|a) (?:day|week|month|quarter|year)$", r.text))
        key = (r.metric, r.label, r.basis, (r.segment or "").lower(), r.period, r.role, rate,
               base_of[id(r)])  # fmt: skip
        if key in seen:
            continue
        if r.segment is None and per_metric.get(r.metric, 0) >= 3:
            continue
        if r.segment is not None and segments >= 6:
            continue
        seen.add(key)
        if r.segment is None:
            per_metric[r.metric] = per_metric.get(r.metric, 0) + 1
        else:
            segments += 1
        kept.append(r)
        if len(kept) == MAX_KEY_FIGURES:
            break
    return kept


_FROM_PRIOR = re.compile(
    r"\bfrom (?:our |the |its )?(?:prior|previous|earlier|initial|original)(?: guidance| outlook|"
    r" range| expectations?| forecast| guide)?(?: range)?(?: of)?\s+(?:approximately |about )?",
    re.IGNORECASE,
)


def _midpoint(item: Attributed) -> float:
    return (item.value + (item.high if item.high is not None else item.value)) / 2


def _old_midpoint(text: str, kind: str) -> float | None:
    """The midpoint of the earlier outlook that opens `text`: "7% to 9% ...", "$4.10", or "flat
    to down 2%"; None when it does not open with one of the item's kind."""
    flat_to = re.match(r"flat to (?P<d>down|up) (?:approximately |about )?(?P<v>\d[\d.]*)%", text,
                       re.I)  # fmt: skip
    if flat_to is not None and kind == "percent":
        return float(flat_to.group("v")) / 2 * (-1 if flat_to.group("d") == "down" else 1)
    worded = WORDED.match(text)  # "up from the mid single digits we expected in January"
    if worded is not None and kind == "percent":
        bounds = worded_bounds(worded.group("q"))
        if bounds is not None:
            return (bounds[0] + bounds[1]) / 2
    opening = _opening_figures(text)
    if not opening or opening[0].kind != kind:
        return None
    return sum(f.value for f in opening) / len(opening)


def _opening_figures(text: str) -> list[Figure]:
    """The figure that opens `text`, or both ends of the range that does ("7% to 9%")."""
    old = figures_in(text)
    if not old or old[0].start != 0:
        return []
    if len(old) > 1 and re.fullmatch(r"\s*(?:to|-|–)\s*", text[len(old[0].text) : old[1].start]):
        return old[:2]
    return old[:1]


def _compared(new_mid: float, old_mid: float) -> Direction:
    return "raised" if new_mid > old_mid else "lowered" if new_mid < old_mid else "reaffirmed"


# "We now expect full-year adjusted EBITDA of approximately $5.6 billion, up from approximately
# $5.35 billion": a revised outlook set against the old one (not "..., up from $5.1 billion last
# year": a result it is compared with)
_REVISED_FROM = re.compile(r"\b(?:now|are raising|are lowering|raised|lowered) (?:expect|see|"
                           r"anticipate|project|guide|our)\b", re.IGNORECASE)  # fmt: skip
_RESULT_BASE = re.compile(
    r"\s*(?:in |for |during )?(?:the )?(?:last|prior|previous|a)[- ](?:year|quarter)|"
    r"\s*(?:in |for )?(?:fiscal )?(?:19|20)\d{2}\b|\s*(?:a )?year[- ]ago|"
    r"\s*(?:in |for )?(?:the )?(?:first|second|third|fourth) quarter|\s*(?:in )?(?:q[1-4]|fy)",
    re.IGNORECASE,
)


def _after_old(text: str) -> str:
    """What follows the old figure (or range) that opens `text`."""
    opening = _opening_figures(text)
    return text[opening[-1].start + len(opening[-1].text) :] if opening else text


def _direction(sentence: str, item: Attributed | None = None) -> Direction | None:
    """Only what the sentence states: one direction word bound to guidance, or the new range
    set against the prior one ("to 7% to 8% from the prior 9%")."""
    return _direction_named(sentence, item)[0]


def _direction_named(sentence: str, item: Attributed | None = None) -> tuple[Direction | None, str]:
    """`_direction`, and the rule that gave it."""
    if item is not None:
        end = item.fig.start + len(item.fig.text)
        prior = _FROM_PRIOR.search(sentence, end)
        if prior is not None and prior.start() - end <= 40:
            old = figures_in(sentence[prior.end() :])
            if old and old[0].start == 0 and old[0].kind == item.fig.kind:
                return _compared(_midpoint(item), old[0].value), "direction.from_prior_range"
        moved = _FROM_OLD.match(sentence, end)
        if moved is not None and (
            _PREVIOUSLY.search(moved.group(0))
            or _PREVIOUSLY.search(sentence, moved.end(), moved.end() + 60)
            or _REVISED_FROM.search(sentence, 0, item.fig.start)
            and not _RESULT_BASE.match(_after_old(sentence[moved.end() :]))
        ):
            old_mid = _old_midpoint(sentence[moved.end() :], item.fig.kind)
            if old_mid is not None:
                if moved.group("dir") and re.search(r"decline|decrease|down", moved.group("dir"),
                                                    re.I):  # fmt: skip
                    old_mid = -abs(old_mid)  # "a decline of 1% to 3%"
                return _compared(_midpoint(item), old_mid), "direction.against_old_figure"
        than = _THAN_OLD.match(sentence, end)
        if than is not None and (
            _PREVIOUSLY.search(sentence, than.end(), than.end() + 80)
            or _PRIOR_GUIDE.search(than.group(0))
        ):
            # "8% to 9%, which is higher than the 7% to 9% range that we initially expected"
            old_mid = _old_midpoint(sentence[than.end() :], item.fig.kind)
            up = than.group("dir").lower() in ("higher", "above", "better", "up")
            if old_mid is not None and _compared(_midpoint(item), old_mid) == (
                "raised" if up else "lowered"
            ):
                return ("raised" if up else "lowered"), "direction.than_old_figure"
    if _RATING.search(sentence):
        # "upgrading our credit ratings and indicating a stable outlook": an agency's
        return None, "direction.rating_agency"
    said = sentence
    if item is not None:
        # "We are reaffirming our revenue guidance of $X, and we now expect year-end membership of
        # about 18 million": the direction of the clause that states the item
        cuts = [0, *(m.end() for m in _WE_CLAUSE.finditer(sentence)), len(sentence)]
        at = max(c for c in cuts[:-1] if c <= item.fig.start)
        said = sentence[at : min(c for c in cuts if c > item.fig.start)]
        colon = sentence.find(": ", 0, item.fig.start)
        if colon != -1 and not {d for d, p in _DIRECTIONS if p.search(said)}:
            # "we are providing initial 2021 guidance as follows: revenue of ...; effective tax
            # rate of ...": the list's items have the heading's direction
            heading = {d for d, p in _DIRECTIONS if p.search(sentence[:colon])}
            if len(heading) == 1:
                return heading.pop(), "direction.list_heading"
    found = {d for d, p in _DIRECTIONS if p.search(said)}
    if len(found) == 1:
        return found.pop(), "direction.word"
    return None, "direction.words_disagree" if found else "direction.none_stated"


# an announcement about some elements of the outlook, not all: "several elements of"
_PARTLY = re.compile(r"\b(?:several|some|certain|a few|a number of|parts?|elements?|a couple)\b",
                     re.IGNORECASE)  # fmt: skip
_NOW = re.compile(r"\bnow\b", re.IGNORECASE)


# where a sentence starts a new statement of its own: ", and we now expect", "; we"
_WE_CLAUSE = re.compile(r"(?:,\s*and|;|, while|, but|\s+and|\s+while)\s+(?=(?:we|our)\b)",
                        re.IGNORECASE)  # fmt: skip


# a rating agency's outlook is not the company's
_RATING = re.compile(r"\b(?:credit ratings?|S&P|Moody's|Moody’s|Fitch|rating agenc\w+)\b")


_THAN_OLD = re.compile(
    r"\s*(?:[\w ]{0,30}?)?,?\s*(?:(?:which|that) (?:is|are) )?(?:slightly |a bit |well |just )?"
    r"(?P<dir>higher|above|better|lower|below|worse)(?: (?:than|from))? (?:the |our )?"
    r"(?:(?:prior|previous|earlier|original|initial) (?:range|guidance|outlook|expectations?|"
    r"framework|target|view)(?: range)?(?: of)? )?(?:approximately |about )?",
    re.IGNORECASE,
)
# what says the old figures were an earlier outlook: "our prior range of", "the 2% to 3% we
# indicated in April", "the 2% to 3% framework"
_PRIOR_GUIDE = re.compile(
    r"\b(?:prior|previous|earlier|original|initial) (?:range|guidance|outlook|expectations?|"
    r"framework|target|view)",
    re.IGNORECASE,
)


# "$1.10 to $1.30, down from $1.80 to $2.00 previously", "versus our prior guidance of a
# decline of 1% to 3%": a new range against the old one
_FROM_OLD = re.compile(
    r"\s*(?:[\w' ]{0,40}?,\s*)?,?\s*(?:(?:up|down|revised|changed|increased|decreased|lowered|"
    r"raised|an? (?:improvement|increase|reduction|decrease))?\s*(?:from|over)(?: the| our)?|"
    r"(?:[\w' ]{0,40}?,\s*)?(?:versus|vs\.?|compared (?:to|with))\s+(?:our |the )?"
    r"(?:prior|previous|earlier|original|initial) (?:guidance|outlook|range|expectations?|"
    r"forecast)(?: range)?(?: of)?|"
    # "$2.20 to $2.25 compared to $2.15 to $2.20 previously": a figure right after the cue
    r"\s*(?:compared (?:to|with)|versus|vs\.?)(?=\s+(?:approximately |about )?[$€£]?\d))"
    r"\s+(?:approximately |about |at least |more than |over )?"
    r"(?P<dir>(?:an? )?(?:decline|decrease|increase|growth) of\s+|down\s+)?",
    re.IGNORECASE,
)
_PREVIOUSLY = re.compile(
    r"\b(?:previously|(?:prior|previous|earlier)(?![- ](?:year|quarter|period|fiscal)\b)|"
    r"initially|originally|last quarter|in (?:our|the) "
    r"(?:last|prior) (?:call|update)|we (?:had )?(?:indicated|guided|gave|provided|said|shared|"
    r"communicated|laid out|discussed|outlined|announced|set out)|framework|investor day)\b",
    re.IGNORECASE,
)


def _is_history(period: Period, call: Period | None) -> bool:
    """A period before the call's year (a quarter or year told as background)."""
    if call is None or call.year is None or period.year is None:
        return False
    return (
        period.year < call.year
        and period.kind in ("Q", "FY", "H")
        and not (
            period.kind == "FY"
            and call.kind == "Q"
            and call.n == 1
            and period.year == call.year - 1
        )
    )  # a first-quarter call may still report the year just ended


def _is_future(period: Period, call: Period | None) -> bool:
    if call is None or call.year is None or period.year is None:
        return False
    if period.year != call.year:
        return period.year > call.year
    if period.kind == "FY":
        return not (call.kind == "Q" and call.n == 4) and call.kind != "FY"
    if period.kind == "Q":
        return call.kind == "Q" and period.n > call.n
    if period.kind == "H":
        return call.kind == "Q" and (period.n == 2 and call.n <= 2)
    return False


def _without_reason(text: str) -> str:
    """ "Given the investments we make in the fourth quarter, we now expect ...": the sentence
    without its reason, whose period is not the outlook's."""
    reason = REASON.match(text)
    return text[reason.end() :] if reason is not None else text


def _outlook_period(s: Sentence, recent: Sequence[Sentence], call: CallIdentity) -> Period | None:
    """A forward-looking sentence's period when its figure names none: the one future period
    the sentence names, else the one the sentences just before set up ("For 2021, ...")."""
    own = _without_reason(s.text)
    # "That implies fourth-quarter sales of roughly $7.9 billion": what the year's outlook
    # implies for a quarter does not open that quarter's outlook
    before = [_without_reason(r.text) for r in reversed(recent) if not _IMPLIES.match(r.text)]
    for text in (own, *before):
        found = {resolve(m, call.period, forward=True) for m in mentions(text) if not m.is_base}
        found = {p for p in found if p is not None and _is_future(p, call.period)}
        if len(found) == 1:
            return found.pop()
        if len(found) > 1 and text is own:
            return None  # the sentence itself names two future periods: which is not said
    c = call.period
    if (
        _GOING_FORWARD.match(own)
        and c is not None
        and c.year is not None
        and (c.kind == "FY" or (c.kind, c.n) == ("Q", 4))
    ):  # "Going forward, we expect that effective tax rate to be in the 24% to 26% range." on
        # a fourth-quarter call: the year ahead, the first the call's outlook speaks of
        return Period("FY", 0, c.year + 1)
    return None


_IMPLIES = re.compile(
    r"\s*(?:That|This|Which|It|These|Those)\s+(?:would\s+)?(?:implies|imply|means|translates)\b",
    re.I,
)
_GOING_FORWARD = re.compile(r"\s*(?:So,?\s+|And\s+)?(?:going forward|looking ahead),", re.I)


def _basis_stated_elsewhere(
    item: GuidanceItem, scored: Sequence[tuple[float, GuidanceItem]], sents: Sequence[Sentence]
) -> GuidanceItem:
    """An unqualified outlook for an income metric is adjusted when the call qualifies the
    same metric's outlook as adjusted (and never as GAAP): "6% to 8% EPS growth" in the
    remarks and "adjusted EPS growth of 6% to 8%" in the answers are one outlook."""
    kind = PROPERTIES[item.metric].kind
    if item.basis is not None or kind == "other":
        return item
    metric = METRIC_BY_NAME[item.metric].pattern
    if kind == "cash":
        # "adjusted free cash flow came in at ...": the call's own name for the measure,
        # wherever it states it, and never a GAAP one
        called = {
            "adjusted" if ADJUSTED_WORDS.fullmatch(q.group(1).strip()) else "gaap"
            for s in sents
            for q in re.finditer(rf"\b(adjusted|non-gaap|gaap|reported)\s+(?={metric.pattern})",
                                 s.text, re.IGNORECASE)
        }  # fmt: skip
        if called != {"adjusted"}:
            return item
        label = f"Adjusted {_lower_first(item.label)}"
        rules = {**item.rules, "basis": "basis.cash_flow_named_adjusted"}
        return item.model_copy(update={"basis": "adjusted", "label": label, "rules": rules})
    bases = {g.basis for _, g in scored if g.metric == item.metric and g.basis in ("adjusted",
             "gaap")}  # fmt: skip
    for other in (g for _, g in scored if g.metric == item.metric):
        for s in sents:
            at = s.text.find(other.text)
            if at == -1:
                continue
            lead = s.text[max(0, at - 80) : at]
            named = metric.search(lead)
            # the words of the metric's own name ("adjusted EPS"), not of another metric after it
            words = lead[max(0, named.start() - 25) : named.end()] if named is not None else ""
            if named is not None and ADJUSTED_WORDS.search(words):
                bases.add("adjusted")
            elif named is not None and GAAP_WORDS.search(words):
                bases.add("gaap")
    if bases == {"adjusted"}:
        label = _lower_first(item.label)
        label = "Adjusted EPS" if item.metric == "eps" else f"Adjusted {label}"
        rules = {**item.rules, "basis": "basis.outlook_called_adjusted_elsewhere"}
        return item.model_copy(update={"basis": "adjusted", "label": label, "rules": rules})
    return item


# a sentence that opens the outlook, for a stated period: "Okay, moving to the 2021 outlook.",
# "So here's a detailed outlook for 2021."
_OUTLOOK_HEADING = re.compile(
    r"^(?:(?:okay|ok|so|now|and),?\s+)*(?:(?:moving|turning|switching|shifting|let me turn|let's "
    r"turn|let me move|I'll turn|I will turn)\s+(?:now\s+)?(?:on\s+)?to\s+|here's\s+|here is\s+|"
    r"let's (?:talk about|look at)\s+)(?:our\s+|the\s+|a\s+|an\s+)?(?:[\w'’-]+\s+){0,3}"
    r"(?:outlook|guidance)\b",
    re.IGNORECASE,
)
# how long an outlook section lasts without a past-tense sentence or another topic
_HEADING_LIFE = 12
_TOPIC_TURN = re.compile(
    r"^(?:(?:okay|ok|so|now|and),?\s+)*(?:(?:moving|turning|switching|shifting|let me turn|let's "
    r"turn)\s+(?:now\s+)?(?:on\s+)?to\b|here's\s+|here is\s+)",
    re.IGNORECASE,
)


_PLAN = re.compile(r"\b(?:targeted|targeting|planned|planning|budgeted|budgeting|"
                   r"investing|spending)\b", re.IGNORECASE)  # fmt: skip


def _plans_the_year(text: str, call: CallIdentity) -> bool:
    """ "We're heavily investing ... with a targeted R&D spend of over $2.7 billion this fiscal
    year" on a second-quarter call: the year is not over, so a plan for it is an outlook (not
    what was spent, nor the year so far)."""
    c = call.period
    if c is None or c.kind != "Q" or c.n == 4 or c.year is None or not _PLAN.search(text):
        return False
    if PAST.search(text) or _RESULTS_ONLY.search(text) or not figures_in(text):
        return False
    years = {resolve(m, c) for m in mentions(text) if not m.is_base}
    return Period("FY", 0, c.year) in years


def guidance(
    sents: Sequence[Sentence], call: CallIdentity
) -> tuple[list[GuidanceItem], list[GuidanceItem]]:
    """Forward-looking figures and ranges bound to a metric and a future period, management's:
    the ones that weigh most (headline metrics, company-wide, a stated direction), in the order
    the call states them. Two lists, as `key_figures`: verified and unconfirmed."""
    scored: list[tuple[float, GuidanceItem]] = []
    context = Context()
    speaker: str | None = None
    recent: list[Sentence] = []
    was_forward = False
    carried_next: Direction | None = None
    heading: Sentence | None = None  # "Okay, moving to the 2021 outlook.": its sentences follow
    heading_age = 0
    # "We are raising several elements of our fiscal 2021 outlook.", "we are introducing the
    # following guidance.": the direction of the outlook's sentences after it (of those that say
    # "now" when only some elements moved)
    announced: Direction | None = None
    announced_partly = False
    announced_age = 0
    # a call that says its outlook moved ("we are raising our guidance"): an item it states
    # without a direction is a case of its own; when it moved one way only, an item the call
    # "now expects" moved that way ("Adjusted EPS is now expected to be $3.52 to $3.68")
    moves = {d for s in sents if _eligible(s) and (d := _direction(s.text)) in ("raised",
             "lowered") and re.search(rf"\b{_GUIDANCE_OBJECT}s?\b", s.text, re.I)}  # fmt: skip
    moved = bool(moves)
    one_way: Direction | None = next(iter(moves)) if len(moves) == 1 else None
    for s in sents:
        if s.turn.speaker != speaker:
            context, speaker, recent, was_forward = Context(), s.turn.speaker, [], False
            carried_next, heading = None, None
        if s.turn.speaker != speaker or s.opens_paragraph:
            announced = None
        if not _eligible(s):
            continue
        forward = is_forward(s.text, was_forward) or _plans_the_year(s.text, call)
        was_forward = is_forward(s.text)
        if _OUTLOOK_HEADING.search(s.text) and not figures_in(s.text):
            heading = s if _outlook_period(s, [], call) is not None else None
            heading_age = 0
        elif heading is not None:
            heading_age += 1
            if heading_age > _HEADING_LIFE or _TOPIC_TURN.search(s.text):
                heading = None
            elif not forward and not PAST.search(s.text):
                # "Gross margin is up 50 basis points.", in the section the heading opened: its
                # outlook, for the heading's period
                forward = True
                recent = [heading]
            if heading is not None and forward and heading not in recent:
                recent = [heading, *recent]  # the section's period, after any nearer one
        said = carried_next
        # "Our expectations remain unchanged." with no figure: the direction of the outlook
        # stated in the next sentence
        # (not "We are raising our EPS growth outlook to the mid teens.": that names its item)
        carried_next = (
            _direction(s.text)
            if not figures_in(s.text) and re.search(rf"\b{_GUIDANCE_OBJECT}s?\b", s.text, re.I)
            else None
        )  # (about the outlook: not "We continue to anticipate meaningful margin expansion")
        if (
            carried_next is not None
            and not metric_matches(s.text)
            and (carried_next == "introduced" or carried_next in ("raised", "lowered")
                 and _PARTLY.search(s.text))
        ):  # fmt: skip
            # (a whole outlook "remains unchanged" or "is raised": the next sentence only, as
            # `carried`; "we are introducing the following guidance" and "raising several
            # elements" speak of the sentences after it)
            # (about the outlook as a whole: "We are raising our EPS guidance." names its item)
            announced, announced_age = carried_next, 0
            announced_partly = bool(_PARTLY.search(s.text))
        elif not forward or announced_age >= 4:
            announced = None  # a result, or a fifth sentence: the announcement is behind
        announced_age += 1
        if carried_next is not None and metric_matches(s.text):
            carried_next = None
        carried = said
        if not forward:
            attribute(s.text, call, context)  # keeps the segment context current
            sets_up = not figures_in(s.text) and _outlook_period(s, [], call) is not None
            # "And in 2021, it is no different.": a future period the next outlook speaks of
            recent = (recent + [s])[-4:] if (forward or sets_up or PAST_EXPECTATION.search(
                s.text)) else []  # fmt: skip
            continue
        found = [a for a in attribute(s.text, call, context, forward=True) if a.forward]
        through = _THROUGH_YEAR.search(s.text)
        through_period = (
            resolve(mentions(through.group("y"))[0], call.period, forward=True)
            if through is not None and mentions(through.group("y"))
            else None
        )
        per_year_through = (
            through_period is not None
            and _is_future(through_period, call.period)
            and not _MULTI_YEAR_SPAN.search(s.text)
            # "8% to 11% a year through fiscal 2028" on a fiscal 2026 call: a rate for two
            # years, not the last one's
            and (
                call.period is None
                or call.period.year is None
                or through_period.year is None
                or through_period.year <= call.period.year + 1
            )
        )  # "to grow our dividends at roughly 10% per year through at least 2022": each year's
        if _MULTI_YEAR.search(s.text) and not per_year_through:
            recent = (recent + [s])[-8:]
        for a in found:
            if a.role == "comparison":
                continue  # the figure an outlook is compared with; a change bound to a level
                # ("revenue of $428 million to $432 million, representing growth of 20% to 21%")
                # is an item of its own, as the level is
            ca, cb = clause_bounds(s.text, a.fig.start, a.fig.start + len(a.fig.text))
            if not per_year_through and (
                _MULTI_YEAR.search(s.text, ca, cb)
                or not _OTHER_CLAUSE.search(s.text, 0, ca)
                and _MULTI_YEAR.search(s.text, 0, ca)
                or not _OTHER_CLAUSE.search(s.text, cb)
                and _MULTI_YEAR.search(s.text, cb)
            ):
                continue  # a multi-year rate or a long-term model's; but "2026 guidance of $3.82
                # to $3.92, and we are extending our long-term target of 6% to 8%" keeps 2026's
            fig_end = a.fig.start + len(a.fig.text)
            stop = re.search(r"\b(?:while|and|but|whereas)\b", s.text[fig_end : fig_end + 60])
            upto = fig_end + stop.start() if stop else min(cb, a.fig.start + 60)
            if _RESULTS_ONLY.search(s.text, max(ca, a.fig.start - 80), min(cb, upto)):
                # "year-to-date revenue of $X": a result (not "growth of 12% while maintaining
                # a trailing payout ratio")
                continue
            if _MODEL.search(s.text, ca, cb):
                continue  # a long-term model's, for no single year
            exit_rate = bool(_EXIT.search(s.text, ca, cb)) and a.metric.name not in BALANCES
            if exit_rate and not _RUN_RATE_AT.search(s.text):
                continue  # "a gross margin of 60% by the end of fiscal 2025": an exit rate, not
                # the year's (a balance "by year-end" is the year's end, and stays)
            chain = a.chain
            direction, chain["direction"] = _direction_named(s.text, a)
            if direction is None and moved and chain["direction"] == "direction.none_stated":
                chain["direction"] = "direction.none_stated_outlook_moved"
                if one_way is not None and _NOW.search(s.text):
                    direction, chain["direction"] = one_way, "direction.now_as_the_outlook_moved"
            if direction is None and carried is not None:
                direction, chain["direction"] = carried, "direction.carried_from_before"
            elif (
                direction is None
                and announced is not None
                and (not announced_partly or _NOW.search(s.text))
            ):
                direction, chain["direction"] = announced, "direction.announced_before"
            basis = a.basis
            if basis is None and call.adjusted_guidance and a.metric.properties.kind == "income":
                basis, chain["basis"] = "adjusted", "basis.adjusted_guidance"
            period = through_period if per_year_through else a.period
            if per_year_through:
                chain["period"] = "period.through_year"
            exit_label = None
            if exit_rate:
                run = _RUN_RATE_AT.search(s.text)
                assert run is not None
                period = Period("FY", 0, int(run.group("y") or run.group("y2")))
                exit_label = f"{period.label()} exit"
                chain["period"] = "period.exit_rate"
            if period is not None and not _is_future(period, call.period):
                continue  # a stated past or current period: a result, not guidance
            if period is None:
                period = _outlook_period(s, recent, call)
                chain["period"] = "period.outlook_context"
            if period is None:
                continue
            if not any(m.period is not None and m.period.year == period.year
                       for m in mentions(s.text)):  # fmt: skip
                chain["identity"] = call.period_rule  # dated by the call's own period
            low: float | None = a.value
            high: float | None = a.high if a.high is not None else a.value
            if high is not None and low is not None and high < low:
                low, high = high, low
            low, high = (x + 0.0 if x is not None else None for x in (low, high))  # no -0.0
            text, at = a.fig.text, a.fig.start
            if a.metric.level == "volume" and a.high is None:
                text = with_volume_unit(a.fig, s.text)  # "8.5 million MMBtu"
            bound = _BOUND.search(s.text, max(0, a.fig.start - 30), a.fig.start)
            if bound is not None and a.high is None and not a.qualitative:
                # "free cash flow of at least $2.4 billion": a floor; "up to $4 billion": a cap
                text, at = (
                    s.text[bound.start("b") : a.fig.start + len(a.fig.text)],
                    bound.start("b"),
                )
                floor = bound.group("b").lower() in _FLOORS
                up = (a.value >= 0) == floor
                low, high = (a.value, None) if up else (None, a.value)
            where = IN_RANGE.search(s.text, max(ca, a.fig.start - 90), a.fig.start)
            if where is not None and a.high is not None and low is not None and high is not None:
                # "in the upper half of the allowed band of 9.25% to 11.25%": 10.25% to 11.25%;
                # "at the high end of our range of $2.40 to $2.54": the range, said with its end
                at = where.start("b")
                text = s.text[at : a.fig.start + len(a.fig.text)]
                if (where.group("part") or "").lower() == "half":
                    mid = round((low + high) / 2, 6)
                    upper = where.group("pos").lower() in ("upper", "top", "high")
                    low, high = (mid, high) if upper else (low, mid)
            item = GuidanceItem(
                metric=a.metric.name, label=_label(a), text=text, low=low, high=high,
                kind=a.fig.kind, unit=a.unit,  # type: ignore[arg-type]
                role=a.role,  # type: ignore[arg-type]
                basis=basis,  # type: ignore[arg-type]
                segment=a.segment, qualitative=a.qualitative,
                period=exit_label or period.label(),
                direction=direction, speaker=s.turn.speaker, section=s.turn.section,
                start=s.start + at, end=s.start + at + len(text),
                sentence=s.text, rules=chain,
            )  # fmt: skip
            weight = a.metric.weight + (1.0 if a.segment is None else 0.0)
            weight += (0.5 if a.high is not None else 0.0) + (0.5 if direction else 0.0)
            scored.append((weight, item))
        recent = (recent + [s])[-8:]
    scored = [(w, _basis_stated_elsewhere(g, scored, sents)) for w, g in scored]
    scored = [(w, g.model_copy(update={"weak_rules": weak_rules([g.rules])})) for w, g in scored]
    return (
        _best([(w, g) for w, g in scored if not g.weak_rules]),
        _best([(w, g) for w, g in scored if g.weak_rules]),
    )


def _best(scored: Sequence[tuple[float, GuidanceItem]]) -> list[GuidanceItem]:
    """At most MAX_GUIDANCE, the weightiest, one per item, in the order the call states them."""
    best = sorted(scored, key=lambda x: (-x[0], x[1].start))
    kept: list[GuidanceItem] = []
    seen: set[tuple[object, ...]] = set()
    for _, g in best:
        key = (g.metric, g.basis, (g.segment or "").lower(), g.period, g.role, g.low, g.high)
        if key in seen:
            continue
        seen.add(key)
        kept.append(g)
        if len(kept) == MAX_GUIDANCE:
            break
    return sorted(kept, key=lambda g: g.start)
