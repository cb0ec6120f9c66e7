"""writer_feedback (Jetsons, seed 001; docs/pipelines/): simple (transcript-only) / advanced
writer, the simple writer with the run's financial data opening the feedback flows, the skeptical
panel loop, three parallel reviewers with one rewrite, and an ensemble judged on five weighted
metrics. One graph holds every variant; the run's `writer_variant` option picks the branches
that run."""

from __future__ import annotations

from langgraph.graph import StateGraph

from core.context import RunContext
from core.state import PipelineInput, PipelineOutput
from graphs._common import add_report, add_start, pipeline_graph
from nodes import writer_feedback as wf
from nodes.writer_feedback import WriterFeedbackState

WriterFeedbackGraph = StateGraph[WriterFeedbackState, RunContext, PipelineInput, PipelineOutput]


def build_writer_feedback() -> WriterFeedbackGraph:
    graph: WriterFeedbackGraph = pipeline_graph(WriterFeedbackState)
    add_start(graph, "plan")
    graph.add_node("plan", wf.plan)
    graph.add_node("simple_writer", wf.simple_writer)
    graph.add_node("feedback_writer", wf.feedback_writer)
    graph.add_node("advanced_writer", wf.advanced_writer)
    graph.add_node("panel", wf.panel)
    graph.add_node("revise", wf.revise)
    for role in wf.REVIEWERS:
        graph.add_node(role, wf.make_reviewer(role))
    graph.add_node("tally_reviews", wf.tally_reviews)
    graph.add_node("rewriter", wf.rewriter)
    # the ensemble's branches have different lengths: the judge waits for all of them
    graph.add_node("judge", wf.judge, defer=True)
    graph.add_node("finalize", wf.finalize)
    add_report(graph)

    graph.add_conditional_edges(
        "plan", wf.route_start, ["simple_writer", "feedback_writer", "advanced_writer"]
    )
    graph.add_conditional_edges(
        "simple_writer", wf.route_simple, ["panel", *wf.REVIEWERS, "judge", "finalize"]
    )
    graph.add_conditional_edges("feedback_writer", wf.route_feedback, ["panel", *wf.REVIEWERS])
    graph.add_conditional_edges("advanced_writer", wf.done, ["judge", "finalize"])
    graph.add_conditional_edges("panel", wf.route_panel, ["revise", "judge", "finalize"])
    graph.add_conditional_edges("revise", wf.route_revise, ["panel", "judge", "finalize"])
    graph.add_edge(list(wf.REVIEWERS), "tally_reviews")
    graph.add_conditional_edges("tally_reviews", wf.route_tally, ["rewriter", "judge", "finalize"])
    graph.add_conditional_edges("rewriter", wf.done, ["judge", "finalize"])
    graph.add_edge("judge", "finalize")
    graph.add_edge("finalize", "fact_check")
    return graph
