"""Pipeline registry: name -> graph factory. Graphs are compiled by the app, once, at startup."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from core.state import checkpoint_types
from graphs.adversarial import build_adversarial
from graphs.baselines import build_multi_agent, build_standard_rag, build_zero_shot
from graphs.conversation import build_conversation
from graphs.facts import build_facts
from graphs.findebate import build_findebate
from graphs.writer_feedback import build_writer_feedback


@dataclass(frozen=True)
class PipelineSpec:
    name: str
    summary: str
    build: Callable[[], Any]  # () -> StateGraph of that pipeline's state


PIPELINES: dict[str, PipelineSpec] = {
    spec.name: spec
    for spec in (
        PipelineSpec(
            "facts",
            "call facts by code and a stance from transparent rules; no language model (the "
            "baseline)",
            build_facts,
        ),
        PipelineSpec(
            "findebate",
            "RAG, five specialists in parallel, synthesis, single-round safe debate with revert",
            build_findebate,
        ),
        PipelineSpec("multi_agent", "FinDebate without the debate (ablation)", build_multi_agent),
        PipelineSpec(
            "standard_rag",
            "fixed-size chunks, one generic query set, one writer (baseline)",
            build_standard_rag,
        ),
        PipelineSpec(
            "zero_shot", "the transcript straight to one writer (baseline)", build_zero_shot
        ),
        PipelineSpec(
            "conversation",
            "Writer edits; Analyst, Psychologist, Editor, Client give feedback; <= 3 rounds",
            build_conversation,
        ),
        PipelineSpec(
            "writer_feedback",
            "simple/advanced writer, skeptical panel loop or three reviewers + rewrite, or an "
            "ensemble picked by a five-metric judge (option writer_variant)",
            build_writer_feedback,
        ),
        PipelineSpec(
            "adversarial",
            "briefing by three analysts, Bull/Bear debate with a Devil's Advocate who presses "
            "weak rebuttals, judge, stress test, lead analyst",
            build_adversarial,
        ),
    )
}


def state_types(builders: Iterable[Any] | None = None) -> tuple[type, ...]:
    """Every type any pipeline keeps in graph state (read off each graph's state, input and
    output schemas): what checkpoints may revive. `builders`: the pipelines' uncompiled graphs
    when the caller has built them already (the engine), else built here."""
    if builders is None:
        builders = [spec.build() for spec in PIPELINES.values()]
    schemas = dict.fromkeys(s for builder in builders for s in builder.schemas)
    return checkpoint_types(*schemas)


def draw(compiled: Any) -> Any:
    """The compiled graph's drawable `Graph`, keeping only the edges the builder declares.

    LangGraph infers drawn edges by a dry run; next to a deferred node (writer_feedback's judge)
    it adds spurious ones (e.g. report -> judge). Declared edges are the truth.
    """
    builder = compiled.builder
    static = set(builder.edges) | {(s, t) for sources, t in builder.waiting_edges for s in sources}
    routed = {
        (src, end)
        for src, branches in builder.branches.items()
        for branch in branches.values()
        for end in (branch.ends or {}).values()
    }
    graph = compiled.get_graph()
    graph.edges = [
        e._replace(conditional=(e.source, e.target) not in static)
        for e in graph.edges
        if (e.source, e.target) in static | routed
    ]
    return graph


def get_pipeline(name: str) -> PipelineSpec:
    try:
        return PIPELINES[name]
    except KeyError:
        raise KeyError(
            f"unknown pipeline {name!r}; choose one of: {', '.join(PIPELINES)}"
        ) from None
