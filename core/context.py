"""The run context handed to every node (LangGraph `Runtime[RunContext]`): models, the transcript
index, the per-run options and word budgets, and the run's brakes. Frozen: a run's settings
never change under it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from core.llm import ModelSource
from core.options import RunOptions
from core.rag import TranscriptIndex


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
class WordBudget:
    """How many words of evidence and of transcript a prompt may hold for this run's models:
    the run's options when it sets them, else sized to the model by the engine."""

    evidence: int = 2500
    transcript: int = 60_000


@dataclass(frozen=True)
class RunContext:
    models: ModelSource
    index: TranscriptIndex
    options: RunOptions
    model_note: str | None = None
    control: RunControl = field(default_factory=RunControl)
    words: WordBudget = field(default_factory=WordBudget)
