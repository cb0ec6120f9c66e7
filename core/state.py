"""Graph state types. Every key that parallel branches write has a reducer."""

from __future__ import annotations

import operator
from typing import Annotated, Any, NotRequired, TypedDict, TypeVar

from pydantic import BaseModel, ConfigDict

from core.contract import (
    CallInfo,
    DebateTurn,
    EvidencePassage,
    NodeFailure,
    NodeTrace,
    Recommendation,
    Report,
    RevertDecision,
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


class Draft(BaseModel):
    """A report text and the recommendations parsed from it (None when the parse failed)."""

    model_config = ConfigDict(frozen=True)

    author: str
    model: str
    markdown: str
    recommendations: list[Recommendation] | None = None
    parse_error: str | None = None


class ConversationTurn(BaseModel):
    """One speaker's turn in the conversation pipeline."""

    model_config = ConfigDict(frozen=True)

    speaker: str
    round: int
    model: str
    text: str


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
    collection: str
    evidence: dict[str, list[EvidencePassage]]
    analyses: Annotated[dict[str, Analysis], merge_dicts]
    draft: Draft
    debate: Annotated[list[DebateTurn], operator.add]
    candidate: Draft
    decision: RevertDecision
    final: Draft
    notes: Annotated[list[str], operator.add]
    extras: Annotated[dict[str, Any], merge_dicts]  # pipeline-specific parts of the Report
    trace: Annotated[list[NodeTrace], operator.add]
    failures: Annotated[list[NodeFailure], operator.add]
    report: Report


class ConversationState(PipelineState, total=False):
    """The conversation pipeline (seed 002): the writer's manuscript, every turn, the round."""

    manuscript: str
    turns: Annotated[list[ConversationTurn], operator.add]
    round: int
    round_limit: int


def checkpoint_types() -> tuple[type, ...]:
    """Every type stored in graph state: the checkpoint serializer's msgpack allow-list."""
    from core import contract, inputs
    from core.transcript import Transcript, Turn

    return (
        ConversationTurn,
        inputs.Financials,
        inputs.QuarterStatement,
        inputs.Prices,
        inputs.PriceSeries,
        inputs.PriceBar,
        Analysis,
        Draft,
        Transcript,
        Turn,
        contract.CallInfo,
        contract.Chunk,
        contract.DebateLog,
        contract.DebateTurn,
        contract.Evidence,
        contract.EvidencePassage,
        contract.Horizon,
        contract.NodeFailure,
        contract.NodeTrace,
        contract.NumberCheck,
        contract.Position,
        contract.Recommendation,
        contract.Report,
        contract.RevertDecision,
    )
