"""Call facts: what an analyst asks first, answered from the transcript by code, no language
model. Key figures and guidance (each with its period, comparison, speaker and character span;
core.facts_figures), the call's tone (Loughran-McDonald word lists; core.tone), the analysts'
questions grouped by theme (core.facts_qa), and ECTSum-style highlights built from those rows
(core.facts_text). Every figure is one the transcript states: values go through the grounding
normaliser (core.grounding)."""

from __future__ import annotations

from core.contract import CallFacts
from core.facts_figures import (
    guidance,
    is_analyst,
    is_management,
    is_qa,
    key_figures,
    period_of,
    sentences,
)
from core.facts_qa import qa_questions, themes
from core.facts_text import FACTS_END, FACTS_HEADING, facts_block, facts_markdown, highlights
from core.tone import tone_of
from core.transcript import Transcript

__all__ = [
    "FACTS_END",
    "FACTS_HEADING",
    "call_facts",
    "facts_block",
    "facts_markdown",
    "is_analyst",
    "is_management",
    "is_qa",
    "period_of",
    "qa_questions",
]


# -- all together -------------------------------------------------------------------------------


def call_facts(
    transcript: Transcript, *, question_vectors: list[list[float]] | None = None
) -> CallFacts:
    """Every fact of the call. `question_vectors` are embeddings of `qa_questions(...)` texts
    (the run's embedding model); without them questions are grouped by shared words."""
    sents = sentences(transcript)
    figures = key_figures(transcript, sents)
    outlook = guidance(sents)
    questions = qa_questions(transcript)
    notes = []
    if not figures:
        notes.append("key figures: the call states no figure tied to a known metric")
    if not outlook:
        notes.append("guidance: no forward-looking figure or range was found")
    if not any(t.speaker for t in transcript.turns):
        notes.append("speakers: the transcript has no speaker labels, so tone is for the whole "
                     "call and there are no Q&A themes")  # fmt: skip
    elif not questions:
        notes.append("Q&A: no analyst questions were found")
    return CallFacts(
        key_figures=figures,
        guidance=outlook,
        tone=tone_of(transcript, sents),
        qa_themes=themes(questions, question_vectors, background=[s.text for s in sents])
        if questions
        else [],
        highlights=highlights(figures, outlook),
        notes=notes,
    )
