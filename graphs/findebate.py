"""FinDebate (Cai et al. 2025; docs/pipelines/): RAG, five parallel specialists, synthesis,
safe debate."""

from __future__ import annotations

from langgraph.graph import StateGraph

from core.context import RunContext
from core.state import PipelineInput, PipelineOutput, PipelineState
from graphs._common import add_report, add_start, pipeline_graph
from nodes.debate import debate_log, leader, skeptic, trust
from nodes.guards import (
    accept,
    another_round,
    core_compromised,
    has_recommendations,
    integrity_check,
    revert,
)
from nodes.retrieval import make_ingest, make_retrieve
from nodes.specialists import FINDEBATE_DIMENSIONS, SPECIALISTS, make_specialist
from nodes.synthesis import make_writer

PipelineGraph = StateGraph[PipelineState, RunContext, PipelineInput, PipelineOutput]


def new_graph() -> PipelineGraph:
    return pipeline_graph(PipelineState)


def add_multi_agent_draft(graph: PipelineGraph) -> None:
    """Steps 1-4: (the call's facts) -> ingest -> retrieve -> five specialists in one super-step
    -> synthesize."""
    add_start(graph, "ingest")
    # the financial embedding model when configured; standard_rag keeps the general one
    graph.add_node("ingest", make_ingest("recursive", "financial"))
    graph.add_node("retrieve", make_retrieve(FINDEBATE_DIMENSIONS, embedding="financial"))
    graph.add_edge("ingest", "retrieve")
    for role in SPECIALISTS:
        graph.add_node(role, make_specialist(role))
        graph.add_edge("retrieve", role)
    graph.add_node("synthesize", make_writer("analyses"))
    graph.add_edge(list(SPECIALISTS), "synthesize")


def build_findebate() -> PipelineGraph:
    graph = new_graph()
    add_multi_agent_draft(graph)
    graph.add_node("trust", trust)
    graph.add_node("skeptic", skeptic)
    graph.add_node("leader", leader)
    graph.add_node("integrity_check", integrity_check)
    graph.add_node("accept", accept)
    graph.add_node("revert", revert)
    graph.add_conditional_edges(
        "synthesize", has_recommendations, {"debate": "trust", "skip": "fact_check"}
    )
    graph.add_edge("trust", "skeptic")
    graph.add_edge("skeptic", "leader")
    graph.add_edge("leader", "integrity_check")
    graph.add_conditional_edges(
        "integrity_check", core_compromised, {"accept": "accept", "revert": "revert"}
    )
    add_report(graph, parts=debate_log)
    # debate_rounds > 1 (the paper's ablation): another round from the accepted report
    graph.add_conditional_edges("accept", another_round, {"debate": "trust", "done": "fact_check"})
    graph.add_edge("revert", "fact_check")
    return graph
