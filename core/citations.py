"""Evidence links: resolve the chunk ids a report cites, and the passage behind every grounded
figure, to where they sit in the call (section, speaker, character offsets)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from core.chunking import iter_sentences, recursive_chunks
from core.contract import Chunk, Citation, EvidencePassage, NumberCheck
from core.grounding import CITATION_RE
from core.llm.window import Fit
from core.metrics import words
from core.transcript import Transcript


@dataclass
class Links:
    citations: list[Citation]
    numbers: list[NumberCheck]
    unresolved: list[str]


def _around(text: str, start: int, end: int, width: int = 80) -> str:
    return " ".join(text[max(0, start - width) : min(len(text), end + width)].split())


class _Passages:
    """Where a chunk id or a transcript offset points: the run's retrieved passages first, then
    the transcript's recursive chunks (the findebate index's ids), chunked only if needed."""

    def __init__(
        self, transcript: Transcript, passages: Sequence[EvidencePassage], chunk_words: int
    ) -> None:
        self.transcript, self.passages, self.chunk_words = transcript, passages, chunk_words
        self.by_id: dict[str, Chunk | EvidencePassage] = {p.chunk_id: p for p in passages}
        self._chunks: list[Chunk] | None = None

    def chunks(self) -> list[Chunk]:
        if self._chunks is None:
            self._chunks = recursive_chunks(self.transcript, max_words=self.chunk_words)
            for c in self._chunks:
                self.by_id.setdefault(c.id, c)
        return self._chunks

    def resolve(self, chunk_id: str) -> Chunk | EvidencePassage | None:
        if chunk_id not in self.by_id:
            self.chunks()
        return self.by_id.get(chunk_id)

    def containing(self, offset: int) -> Chunk | EvidencePassage | None:
        for p in self.passages:
            if p.start <= offset < p.end:
                return p
        return next((c for c in self.chunks() if c.start <= offset < c.end), None)


class _Citations:
    """Citations without repeats (same chunk, same way, same claim)."""

    def __init__(self) -> None:
        self.items: list[Citation] = []
        self._seen: set[tuple[str, str, str]] = set()

    def add(
        self, target: Chunk | EvidencePassage, cid: str, via: str, claim: str, fig: str | None
    ) -> None:
        if (cid, via, claim) in self._seen:
            return
        self._seen.add((cid, via, claim))
        self.items.append(
            Citation(
                chunk_id=cid, section=target.section, speaker=target.speaker,
                start=target.start, end=target.end, via=via,  # type: ignore[arg-type]
                claim=claim, figure=fig,
            )
        )  # fmt: skip


def link_evidence(
    body: str,
    transcript: Transcript,
    passages: Sequence[EvidencePassage],
    numbers: Sequence[NumberCheck],
    *,
    chunk_words: int,
) -> Links:
    """Citations for every `[chunk-id]` in `body` and every figure grounded in the transcript.
    Ids resolve to the run's retrieved passages first, then to the transcript's recursive chunks
    (the same ids the findebate index uses); ids that resolve to nothing are returned apart."""
    where = _Passages(transcript, passages, chunk_words)
    citations = _Citations()
    unresolved: list[str] = []
    for m in CITATION_RE.finditer(body):
        cid = m.group(1)
        target = where.resolve(cid)
        if target is None:
            if cid not in unresolved:
                unresolved.append(cid)
            continue
        citations.add(target, cid, "cited", _around(body, m.start(), m.end()), None)
    linked: list[NumberCheck] = []
    for check in numbers:
        if check.grounded and check.source_index == 0 and check.source_start is not None:
            found = where.containing(check.source_start)
            if found is not None:
                cid = found.chunk_id if isinstance(found, EvidencePassage) else found.id
                check = check.model_copy(update={"chunk_id": cid})
                citations.add(found, cid, "figure", check.context, check.text)
        linked.append(check)
    return Links(citations.items, linked, unresolved)


def passages_for(
    transcript: Transcript, contexts: Sequence[str], *, cap_words: int | None = None
) -> Fit:
    """Transcript sentences sharing the most words with each context (up to three per context,
    round robin), in transcript order: what a fact-checker reads. When they must be cut to the
    model's window, each context's best sentences are kept first."""
    sentences = list(iter_sentences(transcript.text))
    vocab = [set(words(transcript.text[a:b])) for a, b in sentences]
    ranked: list[list[int]] = []
    for ctx in contexts:
        want = {w for w in words(ctx) if len(w) > 3 or any(ch.isdigit() for ch in w)}
        scores = [(len(want & v), i) for i, v in enumerate(vocab)]
        ranked.append([i for s, i in sorted(scores, key=lambda x: (-x[0], x[1])) if s > 0][:3])
    chosen: list[int] = []
    for rank in range(3):
        for ids in ranked:
            if rank < len(ids) and ids[rank] not in chosen:
                chosen.append(ids[rank])
    order = sorted(chosen)
    position = {i: n for n, i in enumerate(order)}
    return Fit.of(
        "fact-check passages",
        [transcript.text[slice(*sentences[i])] for i in order],
        [position[i] for i in chosen],
        joiner="\n",
        gap="",
        cap_words=cap_words,
        cap_name="evidence_words",
    )
