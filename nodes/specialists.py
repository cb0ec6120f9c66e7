"""The five FinDebate specialists: one node each, differing only by prompt and evidence."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from core.context import RunContext
from core.llm import complete
from core.rag import format_passages, interleave, take_words
from core.state import Analysis, PipelineState
from nodes.tracing import NodeFn, traced
from prompts import render

# Specialist -> the retrieval dimensions (paper Table 2) its evidence is drawn from.
SPECIALISTS: dict[str, tuple[str, ...]] = {
    "earnings_analyst": ("general_performance", "specialized_metrics"),
    "market_predictor": ("general_performance", "multi_query"),
    "sentiment_analyst": ("sentiment_risk", "multi_query"),
    "valuation_analyst": ("general_performance", "specialized_metrics"),
    "risk_analyst": ("sentiment_risk", "specialized_metrics"),
}


def make_specialist(role: str) -> NodeFn[PipelineState]:
    """A node that writes `role`'s analysis from its dimensions' evidence; one LLM call."""
    if role not in SPECIALISTS:
        raise KeyError(f"unknown specialist {role!r}")
    dimensions = SPECIALISTS[role]

    @traced(role)
    async def specialist(state: PipelineState, runtime: Runtime[RunContext]) -> dict[str, Any]:
        ctx = runtime.context
        evidence = state.get("evidence", {})
        ranked = interleave([evidence.get(d, []) for d in dimensions])
        passages = take_words(ranked, ctx.options.evidence_words)
        prompt = render(
            f"findebate/{role}",
            call=state["call"],
            evidence=format_passages(passages) or "(no passages were retrieved)",
        )
        handle = ctx.models.chat(role)
        text = await complete(handle, prompt.messages(), role=role)
        return {"analyses": {role: Analysis(role=role, model=handle.name, text=text)}}

    return specialist
