"""Safe debate (FinDebate Algorithm 1): Trust strengthens, Skeptic adds risk, Leader finalises."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from core.context import RunContext
from core.contract import DebateLog, DebateTurn
from core.roles import Role, roles
from core.state import PipelineState
from nodes.calls import say
from nodes.facts import verified
from nodes.parsing import write_draft
from nodes.specialists import SPECIALISTS
from nodes.tracing import traced

ROLES = roles(
    Role("trust", remote=3000, local=450),
    Role("skeptic", remote=3000, local=450),
    Role("leader", remote=3500, local=600),
)


def _analyses(state: PipelineState) -> list[Any]:
    analyses = state.get("analyses", {})
    return [analyses[r] for r in SPECIALISTS if r in analyses]


def _turn(state: PipelineState, agent: str) -> str:
    for turn in state.get("debate", []):
        if turn.agent == agent:
            return turn.text
    raise KeyError(f"the {agent} agent has not spoken yet")


@traced("trust")
async def trust(state: PipelineState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """R1 = optimize(R0, A): more evidence and sharper argument, stance untouched."""
    text, model = await say(
        runtime.context, "trust", "findebate/trust", **verified(state),
        report=state["draft"].markdown, analyses=_analyses(state),
    )  # fmt: skip
    return {"debate": [DebateTurn(agent="trust", model=model, text=text)]}


@traced("skeptic")
async def skeptic(state: PipelineState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """R2 = review(R1, A): risks, hedges and scenarios, stance untouched."""
    text, model = await say(
        runtime.context, "skeptic", "findebate/skeptic", **verified(state),
        report=_turn(state, "trust"), analyses=_analyses(state),
    )  # fmt: skip
    return {"debate": [DebateTurn(agent="skeptic", model=model, text=text)]}


@traced("leader")
async def leader(state: PipelineState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """R* = synthesize(R2, A): the final report, then its recommendations parsed for the guard."""
    ctx = runtime.context
    candidate, _ = await write_draft(
        ctx, "leader", "leader", "findebate/leader", **verified(state),
        original=state["draft"].markdown,
        trust=_turn(state, "trust"),
        skeptic=_turn(state, "skeptic"),
    )  # fmt: skip
    return {
        "candidate": candidate,
        "debate": [DebateTurn(agent="leader", model=candidate.model, text=candidate.markdown)],
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
