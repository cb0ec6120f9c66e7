"""Chunking with character offsets: recursive (paragraph > line > sentence > word) and fixed-size.

The recursive splitter never cuts inside a sentence unless that sentence alone is longer than the
chunk size, and never lets a chunk cross a speaker turn, so section/speaker metadata stays true.
Sizes are in words: ~150 words keeps a chunk inside all-MiniLM-L6-v2's 256-token window.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from core.contract import Chunk
from core.transcript import Transcript, Turn

Span = tuple[int, int]

# Separator levels, coarsest first. The sentence boundary is whitespace after . ! ? (optionally
# followed by a closing quote or bracket).
_LEVELS: tuple[re.Pattern[str], ...] = (
    re.compile(r"\n[ \t]*\n\s*"),
    re.compile(r"\n\s*"),
    re.compile(r"(?<=[.!?])[\"')\]]?\s+"),
    re.compile(r"\s+"),
)
_WORD_RE = re.compile(r"\S+")


def _words(text: str, span: Span) -> int:
    return len(_WORD_RE.findall(text, span[0], span[1]))


def _strip(text: str, span: Span) -> Span:
    start, end = span
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _pieces(text: str, span: Span, sep: re.Pattern[str]) -> list[Span]:
    out: list[Span] = []
    cursor = span[0]
    for m in sep.finditer(text, span[0], span[1]):
        if m.start() > cursor:
            out.append((cursor, m.start()))
        cursor = m.end()
    if cursor < span[1]:
        out.append((cursor, span[1]))
    return [p for p in (_strip(text, s) for s in out) if p[0] < p[1]]


def _split(text: str, span: Span, max_words: int, level: int) -> list[Span]:
    if _words(text, span) <= max_words:
        return [span]
    if level >= len(_LEVELS):  # a single "word" longer than the limit: keep it whole
        return [span]
    pieces = _pieces(text, span, _LEVELS[level])
    if len(pieces) <= 1:
        return _split(text, span, max_words, level + 1)
    out: list[Span] = []
    group: Span | None = None
    group_words = 0
    for piece in pieces:
        n = _words(text, piece)
        if n > max_words:
            if group:
                out.append(group)
                group, group_words = None, 0
            out.extend(_split(text, piece, max_words, level + 1))
            continue
        if group and group_words + n <= max_words:
            group, group_words = (group[0], piece[1]), group_words + n
        else:
            if group:
                out.append(group)
            group, group_words = piece, n
    if group:
        out.append(group)
    return out


def recursive_chunks(transcript: Transcript, *, max_words: int = 150) -> list[Chunk]:
    """Split each turn recursively; chunk ids are stable for the same text and size."""
    if max_words < 1:
        raise ValueError("max_words must be >= 1")
    spans: list[tuple[Turn, Span]] = []
    for turn in transcript.turns:
        for span in _split(transcript.text, (turn.start, turn.end), max_words, 0):
            spans.append((turn, span))
    return _to_chunks(transcript, spans)


def fixed_chunks(transcript: Transcript, *, words: int = 150) -> list[Chunk]:
    """Plain fixed-size windows of `words` words over the whole text (the standard-RAG baseline)."""
    if words < 1:
        raise ValueError("words must be >= 1")
    matches = list(_WORD_RE.finditer(transcript.text))
    spans: list[tuple[Turn, Span]] = []
    for i in range(0, len(matches), words):
        window = matches[i : i + words]
        span = (window[0].start(), window[-1].end())
        spans.append((_turn_at(transcript, span[0]), span))
    return _to_chunks(transcript, spans, tag="f")


def _turn_at(transcript: Transcript, offset: int) -> Turn:
    best = transcript.turns[0]
    for turn in transcript.turns:
        if turn.start <= offset:
            best = turn
    return best


def _to_chunks(
    transcript: Transcript, spans: list[tuple[Turn, Span]], *, tag: str = ""
) -> list[Chunk]:
    """Ids are `<sha prefix>-<n>` for recursive chunks and `<sha prefix>-f<n>` for fixed ones,
    so an id names one passage whichever scheme produced it."""
    prefix = transcript.sha256[:12]
    return [
        Chunk(
            id=f"{prefix}-{tag}{i:04d}",
            section=turn.section,
            speaker=turn.speaker,
            start=start,
            end=end,
            text=transcript.text[start:end],
        )
        for i, (turn, (start, end)) in enumerate(spans)
    ]


def iter_sentences(text: str) -> Iterator[Span]:
    """Sentence spans of a text (used by tests and grounding)."""
    for line in _pieces(text, (0, len(text)), _LEVELS[1]):
        yield from _pieces(text, line, _LEVELS[2])
