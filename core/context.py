"""The run context handed to every node (LangGraph `Runtime[RunContext]`): models, the transcript
index, the per-run options and word caps, and the run's brakes. Frozen: a run's settings
never change under it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from core.contract import EvidencePassage
from core.cpu import offload
from core.llm.chat import ModelSource
from core.llm.window import CALL_QUERY, Fit, passages_fit, transcript_fit
from core.memory import CompanyMemory
from core.options import RunOptions
from core.rag import TranscriptIndex
from core.transcript import Transcript


class RunStopped(Exception):
    """Raised at a node boundary when the run was cancelled or went over its token budget."""

    def __init__(self, reason: Literal["cancelled", "budget"], detail: str) -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail


@dataclass
class RunControl:
    """One run's brakes from outside and its tally: cancel (the service sets it), and the
    tokens spent so far. The budget they are checked against is the run's option
    (`RunContext.check`), never a copy of it."""

    tokens_used: int = 0
    cancelled: bool = False

    def check(self, node: str, token_budget: int | None) -> None:
        if self.cancelled:
            raise RunStopped("cancelled", f"cancelled before {node}")
        if token_budget is not None and self.tokens_used >= token_budget:
            raise RunStopped(
                "budget",
                f"token budget exhausted before {node}: "
                f"{self.tokens_used:,} used of {token_budget:,}",
            )

    def spend(self, tokens: int) -> None:
        self.tokens_used += tokens


@dataclass(frozen=True)
class WordBudget:
    """Word caps the run's options set on top of the models' windows (`evidence_words`,
    `transcript_words`); None: the model's context window alone decides (`core.llm.window`)."""

    evidence: int | None = None
    transcript: int | None = None


# Which embedding model a retrieval uses (FinDebate's contrast: general vs financial).
Embedding = Literal["general", "financial"]


@dataclass(frozen=True)
class RunContext:
    models: ModelSource
    index: TranscriptIndex
    options: RunOptions
    # findebate's index when a financial embedding model is configured (none: `index`)
    financial_index: TranscriptIndex | None = None
    model_note: str | None = None
    control: RunControl = field(default_factory=RunControl)
    # the company's stored calls (issue 40): the run's key's store; None: no track record
    memory: CompanyMemory | None = None

    @property
    def words(self) -> WordBudget:
        """The run's word caps, as its options give them (resolved when the run was accepted)."""
        return WordBudget(
            evidence=self.options.evidence_words, transcript=self.options.transcript_words
        )

    def check(self, node: str) -> None:
        """Before a node starts: stop the run if it was cancelled or is over its token budget
        (the `token_budget` option)."""
        self.control.check(node, self.options.token_budget)

    def index_for(self, embedding: Embedding) -> TranscriptIndex:
        """The index a pipeline's retrieval uses: the general embedding model's (standard_rag,
        the paper's baseline) or, for findebate, the financial one when configured."""
        if embedding == "financial" and self.financial_index is not None:
            return self.financial_index
        return self.index

    async def call_text(self, transcript: Transcript, query: str = CALL_QUERY) -> Fit:
        """The call for a prompt: whole when the model's window holds it, else cut by relevance
        to `query` (and within the run's `transcript_words`, if set). Chunking and ranking a
        long call is CPU-bound: done in a worker thread, so the event loop keeps answering."""
        return await offload(transcript_fit, transcript, query, cap_words=self.words.transcript)

    def passages(self, ranked: Sequence[EvidencePassage]) -> Fit:
        """Retrieved passages (best first) for a prompt, the best kept when they must be cut."""
        return passages_fit(ranked, cap_words=self.words.evidence)
