"""The FinDebate paper's baselines and ablation (Table 1), each its own graph."""

from __future__ import annotations

from graphs._common import add_report, add_start
from graphs.findebate import PipelineGraph, add_multi_agent_draft, new_graph
from nodes.retrieval import make_ingest, make_retrieve
from nodes.synthesis import make_writer

# One generic query set for the standard-RAG baseline.
STANDARD_QUERIES: tuple[str, ...] = (
    "summary of the company's quarterly results and outlook",
    "key numbers revenue earnings guidance",
    "risks and challenges discussed on the call",
)


def build_zero_shot() -> PipelineGraph:
    """The transcript straight to one writer prompt; no retrieval, no agents."""
    graph = new_graph()
    add_start(graph, "synthesize")
    graph.add_node("synthesize", make_writer("transcript"))
    add_report(graph)
    graph.add_edge("synthesize", "fact_check")
    return graph


def build_standard_rag() -> PipelineGraph:
    """Fixed-size chunks, one generic query set, embeddings only (the paper's standard RAG),
    one writer over the retrieved passages."""
    graph = new_graph()
    add_start(graph, "ingest")
    graph.add_node("ingest", make_ingest("fixed", "general"))
    graph.add_node(
        "retrieve", make_retrieve({"standard": STANDARD_QUERIES}, "dense", embedding="general")
    )
    graph.add_node("synthesize", make_writer("evidence"))
    add_report(graph)
    graph.add_edge("ingest", "retrieve")
    graph.add_edge("retrieve", "synthesize")
    graph.add_edge("synthesize", "fact_check")
    return graph


def build_multi_agent() -> PipelineGraph:
    """FinDebate without the debate (the paper's ablation)."""
    graph = new_graph()
    add_multi_agent_draft(graph)
    add_report(graph)
    graph.add_edge("synthesize", "fact_check")
    return graph
