"""Prompts sized to the model's context window, in the model's own tokens.

A chat handle carries its model's `Window`: the context size in tokens, the room kept for the
answer, and a `TokenCounter` (tiktoken for OpenAI models, the llama.cpp tokenizer for the local
model, words for the fakes). A node hands the long parts of a prompt (the call, retrieved
passages, a debate history) as `Fit` values; `nodes.calls` renders the prompt whole when it
fits and otherwise cuts each `Fit` by relevance, keeping its most relevant pieces in their
original order, and reports the share kept (`Cut`)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from core.chunking import recursive_chunks
from core.contract import EvidencePassage
from core.rag import LexicalIndex, format_passages
from core.transcript import Transcript

# the chat template's per-message tokens and rounding between the counter and the server
TEMPLATE_TOKENS = 16
GAP = "[...]"
# what a reader of a whole call looks for first, when the call must be cut to fit
CALL_QUERY = (
    "revenue sales earnings per share eps margin net income cash flow guidance outlook expect "
    "full year quarter growth demand backlog orders pricing costs risk question analyst"
)


class TokenCounter(Protocol):
    """Counts tokens as one model does."""

    @property
    def name(self) -> str: ...

    def count(self, text: str) -> int: ...


@dataclass(frozen=True)
class WordCounter:
    """One token per whitespace-separated word: the scripted fakes' tokenizer."""

    name: str = "words"

    def count(self, text: str) -> int:
        return len(text.split())


@dataclass(frozen=True)
class Scaled:
    """Another model's tokenizer scaled up, for a model whose own tokenizer is unknown (an
    OpenAI-compatible server running an open model): an estimate that errs on the long side."""

    inner: TokenCounter
    factor: float

    @property
    def name(self) -> str:
        return f"{self.inner.name} x{self.factor:g} (estimate)"

    def count(self, text: str) -> int:
        return int(self.inner.count(text) * self.factor) + 1


@dataclass(frozen=True)
class Window:
    """A model's context: `tokens` in all, `answer` of them kept for its reply."""

    tokens: int
    answer: int
    counter: TokenCounter = field(default_factory=WordCounter)

    @property
    def prompt_room(self) -> int:
        """Tokens a prompt may take: the window less the answer and the chat template's share."""
        return self.tokens - self.answer - 2 * TEMPLATE_TOKENS


@dataclass(frozen=True)
class Cut:
    """What fitting one prompt dropped: the share of `label` kept, and the limit it had to fit
    (a model's context window, or a word cap the run's options set)."""

    label: str
    kept: float
    total: int
    unit: str  # "tokens" | "words"
    limit: str  # e.g. "openai:gpt-4o-mini's 128,000-token context window"

    def note(self, node: str) -> str:
        return (
            f"{node}: {self.label} cut by relevance to {self.kept:.0%} of "
            f"{self.total:,} {self.unit} to fit {self.limit}"
        )


@dataclass(frozen=True)
class Fit:
    """Long prompt text that is sent whole when the window allows, else cut by relevance.

    `pieces` are in document order; `priority` lists their indices most relevant first (pieces
    it leaves out come last, in document order). A cut keeps the most relevant pieces that fit
    and joins them in document order, marking each gap."""

    label: str
    pieces: tuple[str, ...]
    priority: tuple[int, ...] = ()
    joiner: str = "\n\n"
    gap: str = GAP
    # a word cap the run's options set (EDESK_TRANSCRIPT_WORDS / EDESK_EVIDENCE_WORDS)
    cap_words: int | None = None
    cap_name: str = "transcript_words"

    @classmethod
    def of(
        cls,
        label: str,
        pieces: Iterable[str],
        priority: Iterable[int] = (),
        *,
        joiner: str = "\n\n",
        gap: str = GAP,
        cap_words: int | None = None,
        cap_name: str = "transcript_words",
    ) -> Fit:
        return cls(label, tuple(pieces), tuple(priority), joiner, gap, cap_words, cap_name)

    def whole(self) -> str:
        return self.joiner.join(self.pieces)

    def order(self) -> list[int]:
        """Piece indices, most relevant first."""
        seen = set(self.priority)
        return list(self.priority) + [i for i in range(len(self.pieces)) if i not in seen]

    def capped(self) -> tuple[str, Cut | None]:
        """The text within the run's word cap (if any), and what the cap cut."""
        words = [len(p.split()) for p in self.pieces]
        total = sum(words)
        if self.cap_words is None or total <= self.cap_words:
            return self.whole(), None
        keep = self._select(words, self.cap_words)
        share = sum(words[i] for i in keep) / max(1, total)
        limit = f"the {self.cap_words:,}-word cap ({self.cap_name})"
        return self._join(keep), Cut(self.label, share, total, "words", limit)

    def within(self, tokens: int, counter: TokenCounter) -> tuple[str, float]:
        """The most relevant pieces that fit `tokens` (and the word cap), in document order,
        and the share kept (of this Fit's tokens)."""
        sizes = [counter.count(p) + counter.count(self.joiner) + 1 for p in self.pieces]
        keep = self._select(sizes, tokens - counter.count(self.gap) - 1)
        if self.cap_words is not None:
            capped = set(self._select([len(p.split()) for p in self.pieces], self.cap_words))
            keep = [i for i in keep if i in capped]
        return self._join(keep), sum(sizes[i] for i in keep) / max(1, sum(sizes))

    def _select(self, sizes: Sequence[int], budget: int) -> list[int]:
        keep: list[int] = []
        used = 0
        for i in self.order():
            if used + sizes[i] <= budget:
                keep.append(i)
                used += sizes[i]
        return sorted(keep)

    def _join(self, keep: Sequence[int]) -> str:
        out: list[str] = []
        last = -1
        for i in keep:
            if i != last + 1 and self.gap:
                out.append(self.gap)
            out.append(self.pieces[i])
            last = i
        if last != len(self.pieces) - 1 and self.gap:
            out.append(self.gap)
        return self.joiner.join(out)


class ContextError(ValueError):
    """A prompt cannot fit its model's window even with every cuttable part emptied."""


def transcript_fit(
    transcript: Transcript, query: str, *, cap_words: int | None = None, label: str = "transcript"
) -> Fit:
    """The call as a `Fit`: whole when it fits; else its opening and then the passages that
    best match `query` (BM25 over ~120-word chunks), in the order they were said."""
    chunks = recursive_chunks(transcript, max_words=120)
    text = transcript.text
    if len(chunks) < 2:
        return Fit.of(label, [text], cap_words=cap_words)
    cuts = [0] + [c.end for c in chunks[:-1]] + [len(text)]
    pieces = [text[a:b] for a, b in zip(cuts, cuts[1:], strict=False)]
    index = {c.id: i for i, c in enumerate(chunks)}
    ranked = [index[c.id] for c, _ in LexicalIndex(chunks).search(query, k=len(chunks))]
    return Fit.of(label, pieces, [0, *ranked], joiner="", gap="\n[...]\n", cap_words=cap_words)


def passages_fit(
    ranked: Sequence[EvidencePassage],
    *,
    cap_words: int | None = None,
    label: str = "retrieved passages",
    empty: str = "(no passages were retrieved)",
) -> Fit:
    """Retrieved passages (given best first) as a `Fit`: shown in transcript order, the best
    kept when they must be cut."""
    if not ranked:
        return Fit.of(label, [empty])
    order = sorted(range(len(ranked)), key=lambda i: (ranked[i].start, i))
    position = {i: n for n, i in enumerate(order)}
    pieces = [format_passages([ranked[i]]) for i in order]
    return Fit.of(
        label, pieces, [position[i] for i in range(len(ranked))], gap="", cap_words=cap_words,
        cap_name="evidence_words",
    )  # fmt: skip


def recent_fit(blocks: Sequence[str], *, label: str, cap_words: int | None = None) -> Fit:
    """A history (speeches, turns) as a `Fit`: whole when it fits, else the newest kept."""
    return Fit.of(
        label, blocks, range(len(blocks) - 1, -1, -1), gap="[earlier turns omitted for length]",
        cap_words=cap_words,
    )  # fmt: skip
