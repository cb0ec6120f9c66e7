"""facts: the call's facts and a stance from transparent rules over them, no language model.
The baseline every model pipeline must beat; runs in well under a second."""

from __future__ import annotations

from langgraph.graph import END

from graphs._common import add_start
from graphs.findebate import PipelineGraph, new_graph
from nodes.facts import NO_MODEL_NOTE, stance
from nodes.report import make_report


def build_facts() -> PipelineGraph:
    graph = new_graph()
    add_start(graph, "stance")
    graph.add_node("stance", stance)
    graph.add_node("report", make_report(model_note=NO_MODEL_NOTE))
    graph.add_edge("stance", "report")
    graph.add_edge("report", END)
    return graph
