"""Graph state types. Every key that parallel branches write has a reducer."""

from __future__ import annotations

import operator
from typing import Annotated, Any, NotRequired, TypedDict, TypeVar

from pydantic import BaseModel, ConfigDict

from core.contract import (
    CallInfo,
    DebateTurn,
    EvidencePassage,
    FactCheck,
    NodeFailure,
    NodeTrace,
    Recommendation,
    Report,
    RevertDecision,
    calls_line,
    clip,
)
from core.inputs import Financials, Prices
from core.judging import Challenges, RebuttalAssessment, Verdict
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


class ConversationTurn(BaseModel):
    """One speaker's turn in the conversation pipeline."""

    model_config = ConfigDict(frozen=True)

    speaker: str
    round: int
    model: str
    text: str

    def summary(self) -> str:
        return f"{self.speaker}: " + clip(self.text, 140)


class Review(BaseModel):
    """One reviewer's verdict on a writer_feedback draft."""

    model_config = ConfigDict(frozen=True)

    reviewer: str
    iteration: int
    model: str
    text: str
    approved: bool

    def summary(self) -> str:
        return f"{self.reviewer}: " + clip(self.text, 140)


class Grade(BaseModel):
    """The ensemble judge's grade of one candidate (no scores when its verdict never parsed)."""

    model_config = ConfigDict(frozen=True)

    variant: str
    model: str
    scores: dict[str, int] | None = None
    overall: float | None = None
    comment: str | None = None
    error: str | None = None


class Argument(BaseModel):
    """One speech in the adversarial debate."""

    model_config = ConfigDict(frozen=True)

    speaker: str  # one of SPEAKER_ORDER
    act: str  # one of DEBATE_ORDER
    model: str
    text: str

    def summary(self) -> str:
        return f"{self.speaker}: " + clip(self.text, 140)


DEBATE_ORDER: tuple[str, ...] = (
    "opening", "cross_examination", "rebuttal", "assessment", "press", "closing", "verdict",
    "weakest_link",
)  # fmt: skip
SPEAKER_ORDER: tuple[str, ...] = ("bull", "bear", "devils_advocate", "judge", "stress_analyst")


def in_debate_order(left: list[Argument], right: list[Argument]) -> list[Argument]:
    """Reducer: speeches written in parallel (Bull and Bear) land in one fixed order, acts
    first, then Bull before Bear, so every later prompt reads the same history."""

    def key(a: Argument) -> tuple[int, int]:
        return DEBATE_ORDER.index(a.act), SPEAKER_ORDER.index(a.speaker)

    return sorted([*left, *right], key=key)


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
    fact_check: FactCheck
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


class WriterFeedbackState(PipelineState, total=False):
    """writer_feedback (seed 001): the variants to run, each one's final report (`candidates`),
    the simple writer's first report shared by the feedback variants, every review, the grades."""

    variants: list[str]
    simple_draft: Draft
    panel_draft: Draft
    panel_iteration: int
    reviews: Annotated[list[Review], operator.add]
    candidates: Annotated[dict[str, Draft], merge_dicts]
    grades: list[Grade]
    chosen: str


class AdversarialState(PipelineState, total=False):
    """adversarial (seed 004): the CIO briefing, every speech, the parsed cross-examination,
    rebuttal assessment and verdict (None when unparseable), the stress test."""

    briefing: str
    arguments: Annotated[list[Argument], in_debate_order]
    challenges: Challenges | None
    assessment: RebuttalAssessment | None
    verdict: Verdict | None
    stress: str


def checkpoint_types() -> tuple[type, ...]:
    """Every type stored in graph state: the checkpoint serializer's msgpack allow-list."""
    from core import contract, inputs
    from core.transcript import Transcript, Turn

    return (
        ConversationTurn,
        Review,
        Grade,
        Argument,
        Challenges,
        RebuttalAssessment,
        Verdict,
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
        contract.Citation,
        contract.FactCheck,
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
