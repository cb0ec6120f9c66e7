"""What every pipeline graph shares: the run context, the input and the output schemas."""

from __future__ import annotations

from typing import Any, TypeVar

from langgraph.graph import StateGraph

from core.context import RunContext
from core.state import PipelineInput, PipelineOutput

S = TypeVar("S", bound=Any)


def pipeline_graph(state: type[S]) -> StateGraph[S, RunContext, PipelineInput, PipelineOutput]:
    """A StateGraph over `state`, started with `PipelineInput`, returning `PipelineOutput`."""
    return StateGraph(
        state, context_schema=RunContext, input_schema=PipelineInput, output_schema=PipelineOutput
    )
