"""A stance per horizon from transparent rules over the call's facts, no language model: the
baseline every model pipeline must beat. Each rule that fires says why, quoting the call."""

from __future__ import annotations

from dataclasses import dataclass

from core.contract import (
    CallFacts,
    Horizon,
    KeyFigure,
    Position,
    Recommendation,
    TrackRecord,
    markdown_text,
)
from core.facts.text import excerpt

# Metrics where more is better: a stated rise is good news (a cost, debt or a loss ratio that
# rises is not, so those never fire).
MORE_IS_BETTER = frozenset(
    {
        "revenue", "eps", "net_income", "operating_income", "pretax_income", "ebitda",
        "gross_profit", "gross_margin", "operating_margin", "ebitda_margin", "free_cash_flow",
        "operating_cash_flow", "same_store_sales", "net_interest_income", "net_interest_margin",
        "backlog", "orders", "aum",
    }
)  # fmt: skip


@dataclass(frozen=True)
class Signal:
    """One rule that fired: its name, its weight toward LONG (+) or SHORT (-), and the words of
    the call it rests on."""

    rule: str
    weight: float
    evidence: str
    fundamental: bool  # guidance and reported growth weigh more over a month


def _quote(text: str, figures: tuple[str, ...] = (), n: int = 180) -> str:
    """The call's words, cut at word boundaries around its figures (never inside one)."""
    return excerpt(text, figures, n)


def _moved(k: KeyFigure) -> float:
    """The sign of a company-wide result's stated change: the change stated with it, or the
    row itself when it is a change; 0 when the call states none."""
    if k.segment is not None or k.metric not in MORE_IS_BETTER:
        return 0.0
    if k.role == "change":
        return k.value
    return k.change.value if k.change is not None else 0.0


def _growth_signals(facts: CallFacts) -> list[Signal]:
    """At most two metrics up and two down, each quoted from the sentence that states it."""
    out: list[Signal] = []
    for sign, word in ((1.0, "up"), (-1.0, "down")):
        metrics: list[str] = []
        for k in facts.key_figures:
            if _moved(k) * sign > 0 and k.metric not in metrics and len(metrics) < 2:
                metrics.append(k.metric)
                figures = tuple(x.text for x in (k, k.change) if x is not None)
                why = _quote(k.sentence, figures)  # its period is in the quote, not the rule's name
                out.append(Signal(f"{k.label} {word}", sign, why, fundamental=True))
    return out


def _record_signals(record: TrackRecord) -> list[Signal]:
    """The company's earlier calls against this one (only comparisons of two stated, verified
    figures of a line where more is better): an outlook the numbers show raised or lowered where
    the call's own words did not say so, and a result that beat or missed what was guided."""
    out: list[Signal] = []
    for r in record.revisions:
        if r.metric in MORE_IS_BETTER and r.verdict in ("raised", "lowered") and not r.call_says:
            out.append(Signal(
                f"{r.metric.replace('_', ' ')} outlook {r.verdict} against the previous call's "
                f"({r.period})", 1.5 if r.verdict == "raised" else -1.5,
                f"`{r.earlier}` then, `{r.now}` now: {_quote(r.now_quote or '', (r.now or '',))}",
                fundamental=True))  # fmt: skip
    for d in record.delivered:
        if d.metric in MORE_IS_BETTER and d.verdict in ("beat", "missed"):
            out.append(Signal(
                f"{d.metric.replace('_', ' ')} {d.verdict} the outlook ({d.period})",
                1.0 if d.verdict == "beat" else -1.0,
                f"guided `{d.guided}` ({d.guided_period}), delivered `{d.actual}`",
                fundamental=True))  # fmt: skip
    return out


def signals(facts: CallFacts, record: TrackRecord | None = None) -> list[Signal]:
    """Every rule that fires on these facts (and on the company's track record, when given)."""
    out: list[Signal] = []
    weights = {"raised": 2.0, "lowered": -2.0, "withdrawn": -2.0, "reaffirmed": 0.5}
    for g in facts.guidance:
        w = weights.get(g.direction or "")
        if w is not None:
            out.append(Signal(f"guidance {g.direction} ({g.label})", w,
                              _quote(g.sentence, (g.text,)), fundamental=True))  # fmt: skip
    out += _growth_signals(facts)
    if record is not None:
        out += _record_signals(record)
    if facts.tone is not None:
        out += _tone_signals(facts)
    questions = [q for t in facts.qa_themes for q in t.questions]
    if len(questions) >= 3:
        unanswered = sum(not q.answered_with_figure for q in questions) / len(questions)
        if unanswered > 0.6:
            why = f"`{unanswered:.0%}` of `{len(questions)}` questions"
            out.append(Signal("questions mostly answered without figures", -0.5, why, False))
    return out


def _tone_signals(facts: CallFacts) -> list[Signal]:
    assert facts.tone is not None
    out = []
    groups = {g.group: g for g in facts.tone.groups}
    mgmt = groups.get("management") or groups.get("whole call")
    if mgmt is not None and mgmt.positive + mgmt.negative >= 5:
        tone = f"net tone `{mgmt.net_tone:+.2f}` ({mgmt.group})"
        if mgmt.net_tone >= 0.2:
            out.append(Signal("management's tone positive", 1.0, tone, False))
        elif mgmt.net_tone <= -0.1:
            out.append(Signal("management's tone negative", -1.0, tone, False))
    qa = groups.get("Q&A")
    if qa is not None and qa.words >= 200 and qa.uncertainty_per_1k >= 15:
        why = f"`{qa.uncertainty_per_1k:.1f}` uncertainty words per thousand"
        out.append(Signal("uncertain Q&A", -0.5, why, False))
    return out


def _position(score: float) -> tuple[Position, int]:
    if score >= 1.5:
        return Position.LONG, min(80, int(40 + 10 * score))
    if score <= -1.5:
        return Position.SHORT, min(80, int(40 - 10 * score))
    return Position.NEUTRAL, 50


def stance(
    facts: CallFacts, record: TrackRecord | None = None
) -> tuple[list[Recommendation], list[Signal]]:
    """1d and 1w weigh every signal alike; 1m weighs fundamentals (guidance, reported growth,
    the track record) one and a half times and tone half. No signal, no conviction: NEUTRAL at
    50%."""
    fired = signals(facts, record)
    recs = []
    for horizon in (Horizon.DAY, Horizon.WEEK, Horizon.MONTH):
        month = horizon is Horizon.MONTH

        def scale(s: Signal, month: bool = month) -> float:
            return (1.5 if s.fundamental else 0.5) if month else 1.0

        score = sum(s.weight * scale(s) for s in fired)
        position, conviction = _position(score)
        top = sorted(fired, key=lambda s: -abs(s.weight * scale(s)))[:2]
        # each rule as it counts toward this horizon's score: "Revenue up (+1 x 1.5)"
        why = (
            "; ".join(
                # inside the code span: a weight and its factor are apparatus, not figures
                f"{s.rule} (`{s.weight:+g}" + (f" x {scale(s):g}" if scale(s) != 1.0 else "") + "`)"
                for s in top
            )
            or "no rule fired"
        )
        rationale = f"Rules score `{score:+.2f}`: {why}."
        catalysts = [s.evidence for s in top][:3]
        recs.append(Recommendation(horizon=horizon, position=position, conviction=conviction,
                                   rationale=rationale, catalysts=catalysts))  # fmt: skip
    return recs, fired


def stance_markdown(recs: list[Recommendation], fired: list[Signal]) -> str:
    """The report body: the rules that fired, with the words of the call they rest on."""
    lines = [
        "## Rule-based outlook",
        "",
        "No language model wrote this report. Each horizon's stance is the sum of the rules "
        "below (LONG at `+1.5` or more, SHORT at `-1.5` or less, otherwise NEUTRAL; over a "
        "month, what the call's numbers say (guidance, reported growth, the track record) weighs "
        "`1.5x` and how it was said (tone, the Q&A) `0.5x`). They read only the "
        "verified rows the code attributed (never the unconfirmed ones): guidance the call says "
        "it raised, lowered, reaffirmed or withdrew, company-wide results whose stated change is "
        "up or down (metrics where more is better), and, when the company has earlier stored "
        "calls, an outlook the numbers show raised or lowered against the previous call's where "
        "the call's words did not say so, and a result that beat or missed what was guided.",
        "",
    ]
    if fired:
        lines += ["| Rule | Weight | From the call |", "|---|---|---|"]
        for s in fired:
            rule, evidence = (markdown_text(" ".join(x.split())) for x in (s.rule, s.evidence))
            lines.append(f"| {rule} | `{s.weight:+g}` | {evidence} |")
    else:
        lines.append("No rule fired: the facts give no directional signal.")
    names = {Horizon.DAY: "1 day", Horizon.WEEK: "1 week", Horizon.MONTH: "1 month"}
    lines += ["", *(f"- **{names[r.horizon]}**: {r.position.value}, {r.rationale}" for r in recs)]
    return "\n".join(lines)
