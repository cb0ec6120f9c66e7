"""writer_feedback (seed 001): a simple or an advanced writer, a skeptical panel that loops until it
answers exactly "ALL GOOD" (at most N iterations), three parallel expert reviewers with one
rewrite, and an ensemble whose judge grades every candidate on five weighted metrics.

The simple writer variant is the paper's transcript-only baseline: the call and its call facts
(extracted from the call by code), never the financial data. The run's financial data goes, as in
the paper, to the advanced writer and to the feedback flows, which start from the simple writer's
report written with it (`feedback_writer`); a run without financial data gives both the same
prompt, so `simple_writer` writes that report once for all. Each variant's final report lands in
`candidates`."""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, Any, Literal

from langgraph.runtime import Runtime
from pydantic import BaseModel, ConfigDict, Field

from core.context import RunContext
from core.contract import NodeFailure, Position, clip
from core.cpu import counted
from core.inputs import comparison_table, raw_statements
from core.judging import ReportGrade
from core.llm.chat import Structured
from core.options import Profile
from core.roles import Role, roles
from core.state import Draft, PipelineState, merge_dicts
from nodes.calls import ask, say
from nodes.facts import verified
from nodes.parsing import parse_recommendations, unparseable
from nodes.tracing import NodeFn, traced

ROLES = roles(
    Role("simple_writer", remote=3000, local=500),
    Role("advanced_writer", remote=4000, local=600),
    Role("panel", remote=1500, local=200),
    Role("financial_expert", remote=1200, local=150),
    Role("risk_reviewer", remote=1200, local=150),
    Role("persuasiveness", remote=1200, local=150),
    Role("rewriter", remote=4000, local=600),
    Role("grader", remote=800, local=200),
)


class Review(BaseModel):
    """One reviewer's verdict on a writer_feedback draft."""

    model_config = ConfigDict(frozen=True)

    reviewer: str
    iteration: int
    model: str
    text: str
    approved: bool

    def summary(self) -> str:
        return f"{self.reviewer}: " + clip(self.text, 140)


class Grade(BaseModel):
    """The ensemble judge's grade of one candidate (no scores when its verdict never parsed)."""

    model_config = ConfigDict(frozen=True)

    variant: str
    model: str
    scores: dict[str, int] | None = None
    overall: float | None = None
    comment: str | None = None
    error: str | None = None
    band: str | None = None
    flags: list[str] = Field(default_factory=list)  # Critical / Warning / Review


class WriterFeedbackState(PipelineState, total=False):
    """writer_feedback (seed 001): the variants to run, each one's final report (`candidates`),
    the simple writer's first report shared by the feedback variants, every review, the grades."""

    variants: list[str]
    simple_draft: Draft
    panel_draft: Draft
    panel_iteration: int
    reviews: Annotated[list[Review], operator.add]
    candidates: Annotated[dict[str, Draft], merge_dicts]
    grades: list[Grade]
    chosen: str


ALL_GOOD = "ALL GOOD"
APPROVED = "APPROVED"
Reviewer = Literal["financial_expert", "risk_reviewer", "persuasiveness"]
REVIEWERS: tuple[Reviewer, ...] = ("financial_expert", "risk_reviewer", "persuasiveness")
FEEDBACK = ("simple_feedback", "advanced_feedback")
Start = Literal["simple_writer", "feedback_writer", "advanced_writer"]
Flow = Literal["panel", "financial_expert", "risk_reviewer", "persuasiveness"]
AfterSimple = Literal[
    "panel", "financial_expert", "risk_reviewer", "persuasiveness", "judge", "finalize"
]
Done = Literal["judge", "finalize"]


def _financials(state: WriterFeedbackState, profile: Profile) -> str:
    """The writer's data: the computed comparison table and the vendor's consensus (`desk`), or
    the paper's three quarters of statement lines as given, nothing computed (`paper`)."""
    financials = state.get("financials")
    if financials is None:
        return "Not supplied: use the figures the call states."
    return raw_statements(financials) if profile == "paper" else comparison_table(financials)


def simple_inputs(
    state: WriterFeedbackState, *, with_data: bool, profile: Profile = "desk"
) -> dict[str, Any]:
    """What the simple writer reads besides the call's text: the call's identity and its call
    facts, plus, `with_data`, the run's financial data (the computed comparison table, the
    vendor's consensus) and the call facts' filing check. Without it, nothing from outside the
    call: the paper's "single-agent writer baseline that only uses the earnings call
    transcripts"."""
    financials = state.get("financials") if with_data else None
    inputs: dict[str, Any] = {"call": state["call"], **verified(state, filing=with_data)}
    if financials is not None:
        inputs["financials"] = _financials(state, profile)
    return inputs


def _flows(state: WriterFeedbackState) -> bool:
    return any(v in FEEDBACK for v in state["variants"])


def _has_data(state: WriterFeedbackState) -> bool:
    return state.get("financials") is not None


def _candidate(variant: str, draft: Draft) -> dict[str, Draft]:
    return {variant: draft.model_copy(update={"author": variant})}


@traced("plan")
async def plan(state: WriterFeedbackState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """Which variants this run writes: one, or the ensemble's members."""
    options = runtime.context.options
    variants = (
        list(options.ensemble_variants)
        if options.writer_variant == "ensemble"
        else [options.writer_variant]
    )
    return {"variants": variants, "notes": [f"writer_feedback: {', '.join(variants)}"]}


def route_start(state: WriterFeedbackState) -> list[Start]:
    """The transcript-only simple writer for its variant, and for the feedback flows when the
    run has no financial data (their writer's prompt is then the same); with data, the simple
    writer given it (`feedback_writer`) opens the flows; the advanced writer for its variant."""
    variants = state["variants"]
    starts: list[Start] = []
    if "simple_writer" in variants or (_flows(state) and not _has_data(state)):
        starts.append("simple_writer")
    if _flows(state) and _has_data(state):
        starts.append("feedback_writer")
    if "advanced_writer" in variants:
        starts.append("advanced_writer")
    return starts


def done(state: WriterFeedbackState) -> Done:
    """A finished variant goes to the judge in an ensemble, straight to finalize otherwise."""
    return "judge" if len(state["variants"]) > 1 else "finalize"


async def _write(ctx: RunContext, role: str, template: str, **variables: Any) -> Draft:
    text, model = await say(ctx, role, f"writer_feedback/{template}", **variables)
    return Draft(author=role, model=model, markdown=text)


async def _first_report(ctx: RunContext, state: WriterFeedbackState, *, with_data: bool) -> Draft:
    return await _write(
        ctx,
        "simple_writer",
        "simple_writer",
        **simple_inputs(state, with_data=with_data, profile=ctx.options.profile),
        transcript=await ctx.call_text(state["transcript"]),
        draft=None,
        review=None,
    )


def _opens_flows(draft: Draft) -> dict[str, Any]:
    return {"simple_draft": draft, "panel_draft": draft, "panel_iteration": 0}


@traced("simple_writer")
async def simple_writer(state: WriterFeedbackState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """The transcript-only baseline: the call and its call facts, never the financial data;
    without financial data in the run, the feedback flows start from this report too."""
    draft = await _first_report(runtime.context, state, with_data=False)
    update: dict[str, Any] = {}
    if _flows(state) and not _has_data(state):
        update.update(_opens_flows(draft))
    if "simple_writer" in state["variants"]:
        update["candidates"] = _candidate("simple_writer", draft)
        if _has_data(state):
            update["notes"] = [
                "simple_writer: the transcript-only baseline; the run's financial data goes to "
                "the advanced writer and the feedback flows, not to it"
            ]
    return update


@traced("feedback_writer")
async def feedback_writer(
    state: WriterFeedbackState, runtime: Runtime[RunContext]
) -> dict[str, Any]:
    """The simple writer's first report for the feedback flows, given the run's financial data
    (the paper gave its data to the advanced writer and to all multi-agent flows)."""
    return _opens_flows(await _first_report(runtime.context, state, with_data=True))


def _flow_starts(state: WriterFeedbackState) -> list[Flow]:
    variants = state["variants"]
    nexts: list[Flow] = []
    if "simple_feedback" in variants:
        nexts.append("panel")
    if "advanced_feedback" in variants:
        nexts.extend(REVIEWERS)
    return nexts


def route_simple(state: WriterFeedbackState) -> list[AfterSimple]:
    """After the transcript-only report: the feedback flows when they start from it (no
    financial data in the run), else the judge or finalize."""
    nexts: list[AfterSimple] = [] if _has_data(state) else list(_flow_starts(state))
    return nexts or [done(state)]


def route_feedback(state: WriterFeedbackState) -> list[Flow]:
    """The feedback writer's report goes to the panel and/or the three reviewers."""
    return _flow_starts(state)


@traced("advanced_writer")
async def advanced_writer(
    state: WriterFeedbackState, runtime: Runtime[RunContext]
) -> dict[str, Any]:
    ctx = runtime.context
    draft = await _write(
        ctx,
        "advanced_writer",
        "advanced_writer",
        **verified(state),
        call=state["call"],
        transcript=await ctx.call_text(state["transcript"]),
        financials=_financials(state, ctx.options.profile),
    )
    notes = []
    if state.get("financials") is None:
        notes.append(
            "advanced_writer: no financials supplied, so its quarter-over-quarter and "
            "year-over-year comparisons rest on the call alone"
        )
    return {"candidates": _candidate("advanced_writer", draft), "notes": notes}


# -- simple feedback: the skeptical panel loop ------------------------------------------------


@traced("panel")
async def panel(state: WriterFeedbackState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """The skeptical panel reviews the current draft; exactly "ALL GOOD" accepts it."""
    ctx = runtime.context
    iteration = state["panel_iteration"] + 1
    text, model = await say(
        ctx, "panel", "writer_feedback/panel", **verified(state),
        call=state["call"],
        report=state["panel_draft"].markdown,
        transcript=await ctx.call_text(state["transcript"]),
        # the writer's data: claims must trace to it (desk; the paper's panel reads the report
        # and the transcript)
        financials=_financials(state, ctx.options.profile),
    )  # fmt: skip
    approved = text.strip() == ALL_GOOD
    review = Review(
        reviewer="panel", iteration=iteration, model=model, text=text, approved=approved
    )
    update: dict[str, Any] = {"reviews": [review], "panel_iteration": iteration}
    if approved:
        update["candidates"] = _candidate("simple_feedback", state["panel_draft"])
        update["notes"] = [f"simple_feedback: the panel answered ALL GOOD at iteration {iteration}"]
    return update


def route_panel(state: WriterFeedbackState) -> Literal["revise", "judge", "finalize"]:
    if "simple_feedback" in state.get("candidates", {}):
        return done(state)
    return "revise"


@traced("revise")
async def revise(state: WriterFeedbackState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """The simple writer answers the panel's last review, with the flow's data (as its first
    report); the last allowed revision is final."""
    ctx = runtime.context
    review = next(r for r in reversed(state["reviews"]) if r.reviewer == "panel")
    draft = await _write(
        ctx,
        "simple_writer",
        "simple_writer",
        **simple_inputs(state, with_data=True, profile=ctx.options.profile),
        transcript=await ctx.call_text(state["transcript"]),
        draft=state["panel_draft"].markdown,
        review=review.text,
    )
    update: dict[str, Any] = {"panel_draft": draft}
    limit = ctx.options.feedback_iterations
    if state["panel_iteration"] >= limit:
        update["candidates"] = _candidate("simple_feedback", draft)
        update["notes"] = [
            f"simple_feedback: no ALL GOOD after {limit} iteration(s); the last revision is used"
        ]
    return update


def route_revise(state: WriterFeedbackState) -> Literal["panel", "judge", "finalize"]:
    if "simple_feedback" in state.get("candidates", {}):
        return done(state)
    return "panel"


# -- advanced feedback: three reviewers in parallel, one rewrite ---------------------------------


def make_reviewer(role: Reviewer) -> NodeFn[WriterFeedbackState]:
    @traced(role)
    async def reviewer(state: WriterFeedbackState, runtime: Runtime[RunContext]) -> dict[str, Any]:
        ctx = runtime.context
        text, model = await say(
            ctx, role, f"writer_feedback/{role}", **verified(state),
            call=state["call"],
            report=state["simple_draft"].markdown,
            financials=_financials(state, ctx.options.profile),
            transcript=await ctx.call_text(state["transcript"]),
        )  # fmt: skip
        review = Review(
            reviewer=role, iteration=1, model=model, text=text, approved=text.strip() == APPROVED
        )
        return {"reviews": [review]}

    return reviewer


def _expert_reviews(state: WriterFeedbackState) -> list[Review]:
    return [r for r in state.get("reviews", []) if r.reviewer in REVIEWERS]


@traced("tally_reviews")
async def tally_reviews(state: WriterFeedbackState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """All three approved: the simple report stands; otherwise the rewriter runs once."""
    reviews = _expert_reviews(state)
    rejected = [r.reviewer for r in reviews if not r.approved]
    if rejected:
        return {"notes": [f"advanced_feedback: not approved by {', '.join(rejected)}; rewriting"]}
    return {
        "candidates": _candidate("advanced_feedback", state["simple_draft"]),
        "notes": ["advanced_feedback: all three reviewers approved; no rewrite"],
    }


def route_tally(state: WriterFeedbackState) -> Literal["rewriter", "judge", "finalize"]:
    if "advanced_feedback" in state.get("candidates", {}):
        return done(state)
    return "rewriter"


@traced("rewriter")
async def rewriter(state: WriterFeedbackState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    ctx = runtime.context
    order = {r: i for i, r in enumerate(REVIEWERS)}
    draft = await _write(
        ctx,
        "rewriter",
        "rewriter",
        **verified(state),
        call=state["call"],
        report=state["simple_draft"].markdown,
        reviews=sorted(_expert_reviews(state), key=lambda r: order[r.reviewer]),
        financials=_financials(state, ctx.options.profile),
        transcript=await ctx.call_text(state["transcript"]),
    )
    return {"candidates": _candidate("advanced_feedback", draft)}


# -- ensemble judge and the final parse ------------------------------------------------------------


def _grade(variant: str, model: str, result: Structured[ReportGrade]) -> Grade:
    if result.value is None:
        return Grade(variant=variant, model=model, error=result.error)
    g = result.value
    return Grade(variant=variant, model=model, scores=g.scores(), overall=g.overall(),
                 comment=g.comment, band=g.band(), flags=g.flags())  # fmt: skip


@traced("judge")
async def judge(state: WriterFeedbackState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """Grade every candidate (in parallel) and keep the highest overall grade; an unparseable
    grade stays missing, never a middle score."""
    ctx = runtime.context
    candidates = state["candidates"]
    order = [v for v in state["variants"] if v in candidates]
    transcript = await ctx.call_text(state["transcript"])

    async def grade(variant: str) -> Grade:
        result, model = await ask(
            ctx, "grader", ReportGrade, "writer_feedback/grader", **verified(state),
            report=candidates[variant].markdown, transcript=transcript,
        )  # fmt: skip
        return _grade(variant, model, result)

    grades = list(await asyncio.gather(*(counted(grade(v)) for v in order)))
    graded = [g for g in grades if g.overall is not None]
    update: dict[str, Any] = {"grades": grades}
    if not graded:
        update["chosen"] = order[0]
        update["failures"] = [NodeFailure(
            node="judge",
            reason="no candidate could be graded: "
                   + "; ".join(f"{g.variant}: {g.error}" for g in grades),
        )]  # fmt: skip
        update["notes"] = [f"ensemble: no grade parsed; {order[0]} kept (first in order)"]
        return update
    best = max(graded, key=lambda g: (g.overall or 0.0, -order.index(g.variant)))
    update["chosen"] = best.variant
    summary = ", ".join(
        f"{g.variant} {g.overall:.2f}" if g.overall is not None else f"{g.variant} ungraded"
        for g in grades
    )
    update["notes"] = [f"ensemble: {best.variant} chosen ({summary}; scale 1-5)"] + [
        f"judge: {g.variant}: {flag}" for g in graded for flag in g.flags
    ]
    return update


@traced("finalize")
async def finalize(state: WriterFeedbackState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """The chosen report becomes the draft; its recommendations are parsed (failure recorded)."""
    candidates = state["candidates"]
    chosen = state.get("chosen") or state["variants"][0]
    report = candidates[chosen]
    parsed = await parse_recommendations(runtime.context, report.markdown)
    draft = report.model_copy(update={"recommendations": parsed.value, "parse_error": parsed.error})
    grades = {g.variant: g for g in state.get("grades", [])}
    extras = {
        "writer_feedback": {
            "variant": runtime.context.options.writer_variant,
            "variants": state["variants"],
            "chosen": chosen,
            "panel_iterations": state.get("panel_iteration"),
            "reviews": [r.model_dump(mode="json") for r in state.get("reviews", [])],
            "candidates": {
                v: {
                    "model": d.model,
                    "words": len(d.markdown.split()),
                    "grade": grades[v].model_dump(mode="json") if v in grades else None,
                    "markdown": d.markdown,
                }
                for v, d in candidates.items()
            },
        }
    }
    update: dict[str, Any] = {"draft": draft, "extras": extras}
    if not parsed.ok:
        update["failures"] = [unparseable("finalize", "recommendations", parsed)]
    elif runtime.context.options.profile == "paper" and (
        outside := [r.horizon.value for r in parsed.value or [] if r.position is Position.NEUTRAL]
    ):
        # Jetsons' answer space is Long or Short: a NEUTRAL the report states is kept as written
        # (never turned into a side) and the run says it fell outside the paper's space
        update["failures"] = [NodeFailure(
            node="finalize",
            reason=f"the report answers NEUTRAL for {', '.join(outside)}: outside the Jetsons "
            "answer space (LONG or SHORT) that the paper profile asks for; kept as written, "
            "counted as no decision",
        )]  # fmt: skip
    return update
