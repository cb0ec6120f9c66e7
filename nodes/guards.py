"""Safe-debate guards: the routes (has_recommendations, core_compromised) and the nodes that
record the integrity verdict and accept or revert."""

from __future__ import annotations

from typing import Any, Literal

from langgraph.runtime import Runtime

from core.context import RunContext
from core.recommendations import integrity_check as compare_recommendations
from core.state import PipelineState
from nodes.tracing import traced


def has_recommendations(state: PipelineState) -> Literal["debate", "skip"]:
    """Algorithm 1 line 2: debate only a draft whose recommendations parsed."""
    draft = state.get("draft")
    return "debate" if draft is not None and draft.recommendations else "skip"


@traced("integrity_check")
async def integrity_check(state: PipelineState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """Algorithm 1 line 12: compare R* with R0 horizon by horizon (no model involved)."""
    original = state["draft"].recommendations
    if not original:
        raise RuntimeError("integrity_check reached without parsed draft recommendations")
    decision = compare_recommendations(
        original,
        state["candidate"].recommendations,
        max_conviction_shift=runtime.context.options.max_conviction_shift,
    )
    return {"decision": decision.model_copy(update={"round": state.get("debate_round", 1)})}


def core_compromised(state: PipelineState) -> Literal["revert", "accept"]:
    """Algorithm 1 line 13: revert to R0 when the debate changed the core conclusions."""
    return "revert" if state["decision"].reverted else "accept"


@traced("accept")
async def accept(state: PipelineState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """Keep the leader's report R*."""
    return {"final": state["candidate"]}


def another_round(state: PipelineState) -> Literal["debate", "done"]:
    """After an accepted round: debate again (from the accepted report) until the run's
    `debate_rounds`; the guard has checked every round."""
    return "debate" if state.get("debate_round", 1) < state.get("debate_limit", 1) else "done"


@traced("revert")
async def revert(state: PipelineState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """Keep the last report that passed the guard: R0 in the first round, else the previous
    round's accepted report; the reasons stay in the decision and the notes."""
    reasons = "; ".join(state["decision"].reasons)
    n = state.get("debate_round", 1)
    if n <= 1 or "final" not in state:
        return {
            "final": state["draft"],
            "notes": [f"debate reverted to the original report: {reasons}"],
        }
    return {"notes": [f"debate round {n} reverted to round {n - 1}'s accepted report: {reasons}"]}
