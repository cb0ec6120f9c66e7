"""Report writers: the FinDebate synthesizer and the baselines' single-prompt writers. Each writes
the draft report R0, then parses its recommendation block."""

from __future__ import annotations

from typing import Any, Literal

from langgraph.runtime import Runtime

from core.context import RunContext
from core.rag import interleave
from core.roles import Role, roles
from core.state import PipelineState
from nodes.facts import verified
from nodes.parsing import unparseable, write_draft
from nodes.specialists import analyses_fit
from nodes.tracing import NodeFn, traced

ROLES = roles(
    Role("synthesizer", remote=3000, local=600),
)


Source = Literal["analyses", "evidence", "transcript"]
WRITER_ROLE = "synthesizer"


async def _prompt(
    source: Source, state: PipelineState, ctx: RunContext
) -> tuple[str, dict[str, Any]]:
    """The writer's prompt template and variables (long parts as `Fit`s, sized when sent)."""
    call = state["call"]
    if source == "analyses":
        analyses = analyses_fit(state.get("analyses", {}))
        return "findebate/synthesizer", {**verified(state), "call": call, "analyses": analyses}
    if source == "evidence":
        ranked = interleave(list(state.get("evidence", {}).values()))
        return "baselines/standard_rag", {
            **verified(state), "call": call, "evidence": ctx.passages(ranked),
        }  # fmt: skip
    # the zero-shot baseline: the call and the synthesizer's task, no additional information
    return "baselines/zero_shot", {
        "call": call, "transcript": await ctx.call_text(state["transcript"]),
    }  # fmt: skip


def make_writer(source: Source) -> NodeFn[PipelineState]:
    """Write R0 from specialist analyses, retrieved evidence, or the transcript itself."""

    @traced("synthesize")
    async def synthesize(state: PipelineState, runtime: Runtime[RunContext]) -> dict[str, Any]:
        ctx = runtime.context
        template, variables = await _prompt(source, state, ctx)
        draft, parsed = await write_draft(ctx, WRITER_ROLE, "synthesize", template, **variables)
        update: dict[str, Any] = {"draft": draft}
        if not parsed.ok:
            update["failures"] = [unparseable("synthesize", "recommendations", parsed)]
        return update

    return synthesize
