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
from dataclasses import replace
from typing import Any

from core.facts.binding import (
    _ANAPHOR,
    _CAUSE_WORDS,
    _CHANGE_AFTER,
    _SLIDE,
    _TURN_TO,
    ADJUSTED_WORDS,
    GAAP_WORDS,
    IN_RANGE,
    REASON,
    _compared_before,
    _gap_ok,
    anchor_period,
    basis_of,
    bind,
    clause_bounds,
    word_start,
)
from core.facts.call import CallIdentity
from core.facts.clause import BOTH, UNNAMED_SEGMENT, Attributed, Clause, Context
from core.facts.lexicon import MetricMatch, metric_matches
from core.facts.memo import Same, remembered
from core.facts.outlook import FORWARD, PAST
from core.facts.periods import Mention, mentions, resolve
from core.facts.segments import (
    COMPANY_CUE,
    GEO,
    NOT_SEGMENT,
    SEGMENT_AT,
    SEGMENT_CALLED,
    SEGMENT_NAMED,
    SEGMENT_OPENER,
    SEGMENT_OPENER_WORDS,
    SEGMENT_SUBJECT,
    TOPIC,
    TOPIC_TURN,
    TRANSITION,
)
from core.facts.units import fits, signed, units
from core.grounding import Figure

__all__ = [
    "ADJUSTED_WORDS",
    "GAAP_WORDS",
    "IN_RANGE",
    "REASON",
    "Attributed",
    "Context",
    "anchor_period",
    "attribute",
    "clause_bounds",
]

# bounds that keep attribution linear in the call's length: each sentence's work is bounded
MAX_SENTENCE = 1500  # characters
MAX_FIGURES = 24  # figures in one sentence


_LEGAL = frozenset({"inc", "corp", "corporation", "company", "co", "ltd", "limited", "plc",
                    "llc", "lp", "holdings", "group", "sa", "nv", "ag", "the"})  # fmt: skip


def _initials(company: str | None) -> frozenset[str]:
    """The company's initials, as calls name themselves ("AAM" for American Axle &
    Manufacturing), without its legal form; nothing for a one-word name."""
    words = [w for w in re.findall(r"[A-Za-z][\w'’-]*", company or "")
             if w.lower().rstrip(".") not in _LEGAL]  # fmt: skip
    if len(words) < 2 or not all(w[0].isupper() for w in words):
        return frozenset()
    return frozenset({"".join(w[0] for w in words).lower()})


def attribute(
    sentence: str,
    call: CallIdentity,
    context: Context,
    *,
    forward: bool = False,
    left_out: dict[int, str] | None = None,
) -> list[Attributed]:
    """`_attribute`, answered once per call for the same sentence read in the same context (the
    key figures and the guidance read every sentence; core.facts.memo): the rows, and the
    context the sentence leaves for the next one, as the first reading left them."""
    if left_out is not None:
        return _attribute(sentence, call, context, forward=forward, left_out=left_out)
    before = _context_key(context)

    def read() -> tuple[list[Attributed], dict[str, Any]]:
        rows = _attribute(sentence, call, context, forward=forward)
        return rows, dict(vars(context))

    rows, after = remembered(("attribute", sentence, Same(call), before, forward), read)
    vars(context).update(after)
    return list(rows)


def _context_key(context: Context) -> tuple[Any, ...]:
    """The context as a key: its values (the row it holds by identity: rows are not hashable)."""
    return tuple(Same(v) if isinstance(v, Attributed) else v for v in vars(context).values())


def _attribute(
    sentence: str,
    call: CallIdentity,
    context: Context,
    *,
    forward: bool = False,
    left_out: dict[int, str] | None = None,
) -> list[Attributed]:
    """The figures of one sentence that its words attribute, in order, each with the named rules
    that decided its fields; unattributable ones are left out (with the rule that left each out
    in `left_out`, by the figure's start, when given). Updates `context` (the segment under
    discussion) for the next sentence."""
    # (a possessive dropped, never a name's own final "s": "Loews" stays "loews")
    company_words = frozenset(
        w.lower().removesuffix("'s").removesuffix("’s").rstrip("'’")
        for w in (call.company or "").split()
    ) | _initials(call.company)
    opener = (SEGMENT_OPENER.match(sentence) or SEGMENT_OPENER_WORDS.match(sentence)
              or SEGMENT_NAMED.search(sentence) or SEGMENT_SUBJECT.search(sentence)
              or SEGMENT_CALLED.match(sentence))  # fmt: skip
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
    turn = TRANSITION.match(sentence) or TOPIC_TURN.match(sentence)
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
        clause = Clause(
            sentence=sentence, fig=fig, i=i, figs=figs, metrics=metrics,
            period_words=period_words, ca=ca, cb=cb, last=last, prev=prev, call=call,
            company_words=company_words, opener_seg=own_seg, context=context, forward=fw,
            geo=geo, paired=paired, earlier=tuple(out),
        )  # fmt: skip
        got = bind(clause, left_out)
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
            got = _left_out(left_out, fig, "guard.second_end_of_range")
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
            # "$10 million and $12 million": which is which is not said
            got = _left_out(left_out, fig, "guard.list_without_names")
        if (
            i
            and got is not None
            and (prev is None or prev.fig is not figs[i - 1])
            and re.fullmatch(
                r"\s*,?\s*or\s+", sentence[figs[i - 1].start + len(figs[i - 1].text) : fig.start]
            )
        ):
            # "$67 million or $0.81 per share": whatever the first was, so is this
            got = _left_out(left_out, fig, "guard.or_after_left_out")
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
            if got.segment is not None and BOTH in got.segment:
                first_seg, second_seg = got.segment.split(BOTH)
                got = replace(got, segment=first_seg).decided("segment", "segment.both_parts")
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
        if BOTH not in seg and seg.lower() in sentence.lower():
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
    head = re.split(
        r"\band\b|,", sentence[word_start(sentence, max(0, first.start - 30), 0) : first.start]
    )[-1]
    basis, how = basis_of(head + sentence[first.start : first.end], first.metric, got.role, call)
    if got.basis in ("constant_currency", "organic"):
        basis, how = got.basis, "basis.joint_qualifier"  # the qualifier after is both metrics'
    twin = replace(got, metric=first.metric, basis=basis)
    return twin.decided("metric", "metric.joint").decided("basis", how)


def _left_out(left_out: dict[int, str] | None, fig: Figure, rule: str) -> Attributed | None:
    if left_out is not None:
        left_out[fig.start] = rule
    return None


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
