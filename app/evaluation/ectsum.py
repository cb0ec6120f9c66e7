"""ECTSum's own measures for bullet summaries: ROUGE-1/2/L against the gold bullets (Google's
rouge-score package, Porter stemming), numeric precision (share of the bullets' figures stated in
the transcript or the gold bullets), gold-figure recall (share of the gold bullets' figures the
bullets state), and the LEAD baseline (the call's first sentences that carry figures)."""

from __future__ import annotations

import functools
from typing import Any

from core.chunking import iter_sentences
from core.grounding import Figure, extract_figures, same_figure
from core.transcript import Transcript


@functools.lru_cache(maxsize=1)
def _scorer() -> Any:
    from rouge_score import rouge_scorer

    return rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=True)


def rouge(bullets: list[str], gold: str) -> dict[str, float]:
    """F1 of ROUGE-1, -2 and -L: the bullets (one text) against the gold bullets."""
    scores = _scorer().score(gold, "\n".join(bullets))
    return {name: round(float(s.fmeasure), 4) for name, s in scores.items()}


def distinct_figures(figures: list[Figure]) -> list[Figure]:
    """One of each value (same-figure matching)."""
    out: list[Figure] = []
    for f in figures:
        if not any(same_figure(f, o) for o in out):
            out.append(f)
    return out


def gold_figure_recall(bullets: list[str], gold: str) -> float:
    """Share of the gold bullets' distinct figures that the bullets state (1.0 if none)."""
    want = distinct_figures(extract_figures(gold, skip_apparatus=True))
    if not want:
        return 1.0
    have = [f for b in bullets for f in extract_figures(b)]
    return round(sum(any(same_figure(w, h) for h in have) for w in want) / len(want), 4)


def numeric_precision(bullets: list[str], transcript: str, gold: str = "") -> float:
    """Share of the bullets' figures stated in the transcript or the gold bullets (1.0 if none)."""
    have = [f for b in bullets for f in extract_figures(b, skip_apparatus=True)]
    if not have:
        return 1.0
    sources = extract_figures(transcript) + extract_figures(gold)
    return round(sum(any(same_figure(h, s) for s in sources) for h in have) / len(have), 4)


def lead_baseline(transcript: Transcript, k: int) -> list[str]:
    """The first `k` sentences of the call that carry a figure (safe-harbor boilerplate aside)."""
    out: list[str] = []
    text = transcript.text
    for a, b in iter_sentences(text):
        sentence = " ".join(text[a:b].split())
        if "forward-looking" in sentence.lower() or not extract_figures(sentence):
            continue
        out.append(sentence)
        if len(out) == k:
            break
    return out
