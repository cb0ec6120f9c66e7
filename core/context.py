"""The run context handed to every node (LangGraph `Runtime[RunContext]`): models, the transcript
index and the per-run options. Frozen: a run's settings never change under it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, get_args

from core.llm import ModelSource
from core.rag import Retriever, TranscriptIndex

WriterVariant = Literal[
    "simple_writer", "advanced_writer", "simple_feedback", "advanced_feedback", "ensemble"
]
# What `ensemble` can combine: every variant but itself.
ENSEMBLE_MEMBERS: tuple[str, ...] = tuple(v for v in get_args(WriterVariant) if v != "ensemble")


@dataclass(frozen=True)
class RunOptions:
    """Per-run knobs; the app fills them from settings, a request may override them."""

    parse_retries: int = 2
    max_conviction_shift: int = 10
    chunk_words: int = 150
    retrieval_k: int = 4
    evidence_per_dimension: int = 8
    evidence_words: int = 900
    transcript_words: int = 60_000
    conversation_rounds: int = 3
    writer_variant: WriterVariant = "advanced_feedback"
    ensemble_variants: tuple[str, ...] = ENSEMBLE_MEMBERS
    feedback_iterations: int = 3
    fact_check: bool = True
    retriever: Retriever = "hybrid"

    def __post_init__(self) -> None:
        if self.parse_retries < 0:
            raise ValueError("parse_retries must be >= 0")
        if not 0 <= self.max_conviction_shift <= 100:
            raise ValueError("max_conviction_shift must be between 0 and 100")
        for name in (
            "chunk_words",
            "retrieval_k",
            "evidence_per_dimension",
            "evidence_words",
            "transcript_words",
            "conversation_rounds",
            "feedback_iterations",
        ):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1")
        if self.writer_variant not in get_args(WriterVariant):
            raise ValueError(
                f"writer_variant {self.writer_variant!r} is not one of "
                f"{', '.join(get_args(WriterVariant))}"
            )
        if self.retriever not in get_args(Retriever):
            raise ValueError(
                f"retriever {self.retriever!r} is not one of {', '.join(get_args(Retriever))}"
            )
        unknown = [v for v in self.ensemble_variants if v not in ENSEMBLE_MEMBERS]
        if unknown or len(set(self.ensemble_variants)) < 2:
            raise ValueError(
                "ensemble_variants must name at least two distinct variants of "
                f"{', '.join(ENSEMBLE_MEMBERS)}"
                + (f" (unknown: {', '.join(unknown)})" if unknown else "")
            )


class RunStopped(Exception):
    """Raised at a node boundary when the run was cancelled or went over its token budget."""

    def __init__(self, reason: Literal["cancelled", "budget"], detail: str) -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail


@dataclass
class RunControl:
    """One run's brakes, checked before every node starts: cancel, and a token budget."""

    token_budget: int | None = None
    tokens_used: int = 0
    cancelled: bool = False

    def check(self, node: str) -> None:
        if self.cancelled:
            raise RunStopped("cancelled", f"cancelled before {node}")
        if self.token_budget is not None and self.tokens_used >= self.token_budget:
            raise RunStopped(
                "budget",
                f"token budget exhausted before {node}: "
                f"{self.tokens_used:,} used of {self.token_budget:,}",
            )

    def spend(self, tokens: int) -> None:
        self.tokens_used += tokens


@dataclass(frozen=True)
class RunContext:
    models: ModelSource
    index: TranscriptIndex
    options: RunOptions
    model_note: str | None = None
    control: RunControl = field(default_factory=RunControl)
