"""Conversation (SI4Fin, seed 002; docs/pipelines/): the Client states its requirements, the
Writer drafts and edits, Analyst / Psychologist / Editor / Client give feedback in a fixed order,
at most N rounds, "TERMINATE" ends early."""

from __future__ import annotations

from langgraph.graph import StateGraph

from core.context import RunContext
from core.state import PipelineInput, PipelineOutput
from graphs._common import add_report, add_start, pipeline_graph
from nodes.conversation import (
    REVIEWERS,
    ConversationState,
    client_brief,
    client_verdict,
    finalize,
    make_reviewer,
    next_speaker,
)
from nodes.conversation import writer as writer_node

ConversationGraph = StateGraph[ConversationState, RunContext, PipelineInput, PipelineOutput]


def build_conversation() -> ConversationGraph:
    graph: ConversationGraph = pipeline_graph(ConversationState)
    add_start(graph, "client_brief")
    graph.add_node("client_brief", client_brief)
    graph.add_edge("client_brief", "writer")
    graph.add_node("writer", writer_node)
    for role in REVIEWERS:
        graph.add_node(role, make_reviewer(role))
    graph.add_node("finalize", finalize)
    add_report(graph)
    graph.add_conditional_edges("writer", next_speaker, {r: r for r in REVIEWERS})
    for role in ("analyst", "psychologist", "editor"):
        graph.add_edge(role, "writer")
    graph.add_conditional_edges(
        "client", client_verdict, {"revise": "writer", "finish": "finalize"}
    )
    graph.add_edge("finalize", "fact_check")
    return graph
