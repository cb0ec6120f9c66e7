"""The state every pipeline shares (input, output, the FinDebate family's keys) and the shared
models in it. Every key that parallel branches write has a reducer. A pipeline with keys of its
own extends `PipelineState` next to its nodes (e.g. nodes.conversation.ConversationState)."""

from __future__ import annotations

import dataclasses
import operator
from enum import Enum
from typing import (
    Annotated,
    Any,
    Literal,
    NotRequired,
    TypedDict,
    TypeVar,
    get_args,
    get_origin,
    get_type_hints,
    is_typeddict,
)

from pydantic import BaseModel, ConfigDict

from core.contract import (
    CallFacts,
    CallInfo,
    DebateTurn,
    EvidencePassage,
    FactCheck,
    NodeFailure,
    NodeTrace,
    Recommendation,
    Report,
    RevertDecision,
    TrackRecord,
    calls_line,
    clip,
)
from core.inputs import Financials, Prices
from core.transcript import Transcript

K = TypeVar("K")
V = TypeVar("V")


def merge_dicts(left: dict[K, V], right: dict[K, V]) -> dict[K, V]:
    """Reducer for dicts written by parallel branches (each writes its own keys)."""
    return {**left, **right}


class Analysis(BaseModel):
    """One specialist's analysis, as written by its model."""

    model_config = ConfigDict(frozen=True)

    role: str
    model: str
    text: str

    def summary(self) -> str:
        return clip(self.text, 120)


class Draft(BaseModel):
    """A report text and the recommendations parsed from it (None when the parse failed)."""

    model_config = ConfigDict(frozen=True)

    author: str
    model: str
    markdown: str
    recommendations: list[Recommendation] | None = None
    parse_error: str | None = None

    def summary(self) -> str:
        words = f"{len(self.markdown.split())} words"
        if self.recommendations:
            return f"{words}; {calls_line(self.recommendations)}"
        return f"{words}; recommendations unparseable: {self.parse_error}"


class PipelineInput(TypedDict):
    """What every pipeline is started with."""

    transcript: Transcript
    call: CallInfo
    pipeline: str
    financials: NotRequired[Financials | None]
    prices: NotRequired[Prices | None]


class PipelineOutput(TypedDict):
    report: Report


class PipelineState(TypedDict, total=False):
    """State shared by the FinDebate family of graphs (findebate and its baselines)."""

    transcript: Transcript
    call: CallInfo
    pipeline: str
    financials: Financials | None
    prices: Prices | None
    facts: CallFacts
    track_record: TrackRecord | None  # the company's earlier calls read against this one
    collection: str
    evidence: dict[str, list[EvidencePassage]]
    analyses: Annotated[dict[str, Analysis], merge_dicts]
    draft: Draft
    debate: Annotated[list[DebateTurn], operator.add]
    debate_round: int  # the round the leader last closed (1-based)
    debate_limit: int  # the run's debate_rounds
    candidate: Draft
    decision: RevertDecision
    final: Draft
    fact_check: FactCheck
    notes: Annotated[list[str], operator.add]
    extras: Annotated[dict[str, Any], merge_dicts]  # pipeline-specific parts of the Report
    trace: Annotated[list[NodeTrace], operator.add]
    failures: Annotated[list[NodeFailure], operator.add]
    report: Report


def checkpoint_types(*schemas: Any) -> tuple[type, ...]:
    """Every model, dataclass and enum graph state of these schemas (TypedDicts) can hold: the
    checkpoint serializer's msgpack allow-list, found by walking their type hints through model
    fields, lists, dicts, unions and Annotated, so a type added to a state is allowed without a
    list to keep. No schemas: the shared state; `graphs.state_types` passes every pipeline's."""
    found: dict[type, None] = {}
    for schema in schemas or (PipelineInput, PipelineState, PipelineOutput):
        _collect(schema, found)
    return tuple(found)


def _collect(hint: Any, found: dict[type, None]) -> None:
    """Add the types `hint` names (and the types their fields name) to `found`."""
    origin = get_origin(hint)
    if origin is Literal:
        return
    if origin is not None:  # Annotated (its metadata is skipped below), unions, containers
        for arg in get_args(hint):
            _collect(arg, found)
        return
    if not isinstance(hint, type) or hint in found:
        return
    if is_typeddict(hint):
        for inner in get_type_hints(hint, include_extras=True).values():
            _collect(inner, found)
    elif issubclass(hint, BaseModel):
        found[hint] = None
        for field in hint.model_fields.values():
            _collect(field.annotation, found)
    elif dataclasses.is_dataclass(hint):
        found[hint] = None
        for inner in get_type_hints(hint, include_extras=True).values():
            _collect(inner, found)
    elif issubclass(hint, Enum):
        found[hint] = None
