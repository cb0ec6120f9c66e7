"""Pipeline registry: name -> graph factory. Graphs are compiled by the app, once, at startup."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from graphs.baselines import build_multi_agent, build_standard_rag, build_zero_shot
from graphs.conversation import build_conversation
from graphs.findebate import build_findebate


@dataclass(frozen=True)
class PipelineSpec:
    name: str
    summary: str
    build: Callable[[], Any]  # () -> StateGraph of that pipeline's state


PIPELINES: dict[str, PipelineSpec] = {
    spec.name: spec
    for spec in (
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
    )
}


def get_pipeline(name: str) -> PipelineSpec:
    try:
        return PIPELINES[name]
    except KeyError:
        raise KeyError(
            f"unknown pipeline {name!r}; choose one of: {', '.join(PIPELINES)}"
        ) from None
