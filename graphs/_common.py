"""What every pipeline graph shares: the run context, the input and the output schemas."""

from __future__ import annotations

from typing import Any, TypeVar

from langgraph.graph import END, START, StateGraph

from core.context import RunContext
from core.state import PipelineInput, PipelineOutput
from nodes.factcheck import fact_check
from nodes.facts import facts
from nodes.report import ReportParts, make_report

S = TypeVar("S", bound=Any)


def pipeline_graph(state: type[S]) -> StateGraph[S, RunContext, PipelineInput, PipelineOutput]:
    """A StateGraph over `state`, started with `PipelineInput`, returning `PipelineOutput`."""
    return StateGraph(
        state, context_schema=RunContext, input_schema=PipelineInput, output_schema=PipelineOutput
    )


def add_start(
    graph: StateGraph[Any, RunContext, PipelineInput, PipelineOutput], *firsts: str
) -> None:
    """Every pipeline's beginning: `START -> facts -> firsts`. The call's facts are computed by
    code before any model writes, so every prompt can carry them."""
    graph.add_node("facts", facts)
    graph.add_edge(START, "facts")
    for first in firsts:
        graph.add_edge("facts", first)


def add_report(
    graph: StateGraph[Any, RunContext, PipelineInput, PipelineOutput],
    parts: ReportParts | None = None,
) -> None:
    """Every pipeline's ending: `fact_check -> report -> END`. Route the final text into
    `fact_check`; `parts` adds what this pipeline puts in its Report besides the shared parts."""
    graph.add_node("fact_check", fact_check)
    graph.add_node("report", make_report(parts))
    graph.add_edge("fact_check", "report")
    graph.add_edge("report", END)
