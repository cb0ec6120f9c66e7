"""Safe debate (FinDebate Algorithm 1): Trust strengthens, Skeptic adds risk, Leader finalises."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from core.context import RunContext
from core.contract import DebateLog, DebateTurn
from core.llm.window import Fit
from core.roles import Role, roles
from core.state import PipelineState
from nodes.calls import say
from nodes.facts import verified
from nodes.parsing import write_draft
from nodes.specialists import analyses_fit
from nodes.tracing import traced

ROLES = roles(
    Role("trust", remote=3000, local=450),
    Role("skeptic", remote=3000, local=450),
    Role("leader", remote=3500, local=600),
)


def _analyses(state: PipelineState) -> Fit:
    return analyses_fit(state.get("analyses", {}))


def _turn(state: PipelineState, speaker: str) -> str:
    """`speaker`'s latest turn."""
    for turn in reversed(state.get("debate", [])):
        if turn.speaker == speaker:
            return turn.text
    raise KeyError(f"the {speaker} agent has not spoken yet")


def _round(state: PipelineState) -> int:
    """The round now being debated (1-based)."""
    return state.get("debate_round", 0) + 1


def current(state: PipelineState) -> str:
    """The report this round improves: the last round's accepted report, else the draft R0."""
    return state.get("final", state["draft"]).markdown


@traced("trust")
async def trust(state: PipelineState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """R1 = optimize(R0, A): more evidence and sharper argument, stance untouched."""
    text, model = await say(
        runtime.context, "trust", "findebate/trust", **verified(state), call=state["call"],
        report=current(state), analyses=_analyses(state),
    )  # fmt: skip
    return {"debate": [DebateTurn(speaker="trust", model=model, text=text, round=_round(state))]}


@traced("skeptic")
async def skeptic(state: PipelineState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """R2 = review(R1, A): risks, hedges and scenarios, stance untouched."""
    text, model = await say(
        runtime.context, "skeptic", "findebate/skeptic", **verified(state), call=state["call"],
        report=_turn(state, "trust"), analyses=_analyses(state),
    )  # fmt: skip
    turn = DebateTurn(speaker="skeptic", model=model, text=text, round=_round(state))
    return {"debate": [turn]}


@traced("leader")
async def leader(state: PipelineState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """R* = synthesize(R2, A): the final report from the original, both reviews and the five
    specialist analyses (the paper's full analytical context), then its recommendations parsed
    for the guard."""
    ctx = runtime.context
    n = _round(state)
    candidate, _ = await write_draft(
        ctx, "leader", "leader", "findebate/leader", **verified(state), call=state["call"],
        original=state["draft"].markdown,
        trust=_turn(state, "trust"),
        skeptic=_turn(state, "skeptic"),
        analyses=_analyses(state),
    )  # fmt: skip
    turn = DebateTurn(speaker="leader", model=candidate.model, text=candidate.markdown, round=n)
    return {
        "candidate": candidate,
        "debate": [turn],
        "debate_round": n,
        "debate_limit": ctx.options.debate_rounds,
    }


def debate_log(state: PipelineState) -> dict[str, Any]:
    """findebate's part of the Report: the debate's turns and the guard's decision."""
    decision = state.get("decision")
    skipped = "the draft has no parseable recommendations, so there is nothing to debate"
    log = DebateLog(
        turns=list(state.get("debate", [])),
        decision=decision,
        skipped_reason=None if decision else skipped,
    )
    return {"debate": log}
