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
    return {"decision": decision}


def core_compromised(state: PipelineState) -> Literal["revert", "accept"]:
    """Algorithm 1 line 13: revert to R0 when the debate changed the core conclusions."""
    return "revert" if state["decision"].reverted else "accept"


@traced("accept")
async def accept(state: PipelineState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """Keep the leader's report R*."""
    return {"final": state["candidate"]}


@traced("revert")
async def revert(state: PipelineState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """Return R0 unchanged; the reasons stay in the decision and the notes."""
    reasons = "; ".join(state["decision"].reasons)
    return {
        "final": state["draft"],
        "notes": [f"debate reverted to the original report: {reasons}"],
    }
