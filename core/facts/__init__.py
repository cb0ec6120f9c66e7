"""Call facts: what an analyst asks first, answered from the transcript by code, no language
model. The call's identity (company, ticker, fiscal period, date; core.facts.call), key figures
and guidance attributed clause by clause (metric, segment, basis, period, role; a row that cannot
be attributed is left out: core.facts.attribution, core.facts.figures), the call's tone
(Loughran-McDonald word lists; core.facts.tone), the analysts' questions grouped by theme
(core.facts.qa), and ECTSum-style highlights built from those rows (core.facts.text). Every
figure is one the transcript states, with its quote."""

from __future__ import annotations

from core.contract import CallFacts, CallIdentityFacts, CallInfo
from core.facts.call import identify
from core.facts.figures import guidance, key_figures
from core.facts.memo import per_call
from core.facts.periods import mentions
from core.facts.qa import qa_questions, themes
from core.facts.sentences import is_analyst, is_management, is_qa, sentences
from core.facts.text import FACTS_END, FACTS_HEADING, facts_block, facts_markdown, highlights
from core.facts.tone import tone_of
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
    "mentions",
    "qa_questions",
]


def call_facts(
    transcript: Transcript,
    *,
    question_vectors: list[list[float]] | None = None,
    call: CallInfo | None = None,
) -> CallFacts:
    """Every fact of the call. `question_vectors` are embeddings of `qa_questions(...)` texts
    (the run's embedding model); without them questions are grouped by shared words. What the
    user stated about the call (`call`: company, ticker, period) wins over what the call says."""
    sents = sentences(transcript)
    given = call or CallInfo()
    with per_call():  # each sentence's repeated questions answered once (core.facts.memo)
        identity = identify(sents, company=given.company, ticker=given.ticker, period=given.period)
        figures, unconfirmed_figures = key_figures(sents, identity)
        outlook, unconfirmed_outlook = guidance(sents, identity)
    questions = qa_questions(transcript)
    notes = list(identity.notes)
    if not figures:
        notes.append("key figures: no figure the call states could be attributed to a metric "
                     "and period by rules that have earned it (rows that cannot be attributed "
                     "are left out)")  # fmt: skip
    if not outlook:
        notes.append("guidance: no forward-looking figure or range bound to a future period "
                     "by rules that have earned it")  # fmt: skip
    if unconfirmed_figures or unconfirmed_outlook:
        notes.append(f"unconfirmed: {len(unconfirmed_figures)} key figures and "
                     f"{len(unconfirmed_outlook)} guidance rows were read by code with a rule "
                     "whose measured precision is below the threshold; they are listed apart, "
                     "not as verified figures")  # fmt: skip
    if not any(t.speaker for t in transcript.turns):
        notes.append("speakers: the transcript has no speaker labels, so tone is for the whole "
                     "call and there are no Q&A themes")  # fmt: skip
    elif not questions:
        notes.append("Q&A: no analyst questions were found")
    return CallFacts(
        call=CallIdentityFacts(
            company=identity.company,
            ticker=identity.ticker,
            period=identity.period_label,
            call_date=identity.call_date,
            adjusted_by_default=identity.adjusted_by_default,
        ),  # fmt: skip
        key_figures=figures,
        guidance=outlook,
        unconfirmed_key_figures=unconfirmed_figures,
        unconfirmed_guidance=unconfirmed_outlook,
        tone=tone_of(transcript, sents),
        qa_themes=themes(questions, question_vectors, background=[s.text for s in sents])
        if questions
        else [],
        highlights=highlights(figures, outlook),
        notes=notes,
    )
