"""Prompts sized to the model's window: the cut by relevance (`core.llm.window.Fit`), the fitting of
a whole prompt (`nodes.calls.fitted`), and the real tokenizers and window table."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.llm.local import bundled_model_path
from app.llm.tokens import (
    ESTIMATE_FACTOR,
    UNKNOWN_WINDOW,
    context_window,
    llama_vocab,
    openai_counter,
)
from core.contract import CallInfo, EvidencePassage
from core.llm.chat import CallStats, ChatHandle, current_stats
from core.llm.fake import FakeModels, Script
from core.llm.window import (
    ContextError,
    Fit,
    Scaled,
    Window,
    WordCounter,
    passages_fit,
    transcript_fit,
)
from core.transcript import parse_transcript
from nodes.calls import fitted

SAMPLE = Path(__file__).parents[2] / "samples" / "northwind_q2_2026.md"


def test_fit_keeps_the_most_relevant_pieces_in_document_order() -> None:
    fit = Fit.of("notes", ["alpha one", "beta two", "gamma three", "delta four"], [2, 0])
    text, kept = fit.within(8, WordCounter())  # 3 per piece (words + joiner), 2 for gaps
    # priority 2 then 0 fit; 1 and 3 do not: document order with each gap marked
    assert text == "alpha one\n\n[...]\n\ngamma three\n\n[...]"
    assert 0 < kept < 1
    assert fit.within(100, WordCounter()) == (fit.whole(), 1.0)


def test_transcript_fit_whole_is_the_call_and_cuts_keep_the_opening() -> None:
    transcript = parse_transcript(SAMPLE.read_text(encoding="utf-8"))
    fit = transcript_fit(transcript, "guidance outlook full year")
    assert fit.whole() == transcript.text  # nothing lost or added when it fits
    text, kept = fit.within(200, WordCounter())
    assert text.startswith(fit.pieces[0]) and "\n[...]\n" in text and kept < 0.5
    assert len(text.split()) <= 200


def test_passages_fit_shows_transcript_order_keeps_the_best() -> None:
    def p(cid: str, start: int, words: int) -> EvidencePassage:
        return EvidencePassage(
            chunk_id=cid, section="Q&A", speaker=None, start=start, end=start + 1,
            text=" ".join(["w"] * words), dimensions=[], score=0.0,
        )  # fmt: skip

    fit = passages_fit([p("best", 900, 10), p("second", 10, 10), p("third", 500, 10)])
    whole = fit.whole()
    assert whole.index("[second]") < whole.index("[third]") < whole.index("[best]")
    text, _ = fit.within(28, WordCounter())  # 13 words a passage
    assert "[best]" in text and "[second]" in text and "[third]" not in text


def _handle(tokens: int, answer: int = 50) -> ChatHandle:
    """A handle whose window counts words (fitting never calls its model)."""
    return FakeModels(default=Script.of(default="-"), window=Window(tokens, answer)).chat("any")


def test_fitted_sends_everything_when_the_window_holds_it() -> None:
    transcript = parse_transcript(SAMPLE.read_text(encoding="utf-8"))
    variables = {"call": CallInfo(), "transcript": transcript_fit(transcript, "revenue")}
    stats = CallStats()
    token = current_stats.set(stats)
    try:
        prompt = fitted(_handle(100_000), "baselines/zero_shot", variables)
    finally:
        current_stats.reset(token)
    assert transcript.text.strip()[-60:] in prompt.system  # the shared context, before the role
    assert stats.cuts == []


def test_fitted_cuts_to_a_small_window_and_records_the_share() -> None:
    transcript = parse_transcript(SAMPLE.read_text(encoding="utf-8"))
    variables = {"call": CallInfo(), "transcript": transcript_fit(transcript, "revenue")}
    handle = _handle(700, answer=100)
    stats = CallStats()
    token = current_stats.set(stats)
    try:
        prompt = fitted(handle, "baselines/zero_shot", variables)
    finally:
        current_stats.reset(token)
    assert handle.window is not None
    used = len(prompt.system.split()) + len(prompt.user.split())
    assert used <= handle.window.prompt_room
    [cut] = stats.cuts
    assert cut.label == "transcript" and 0 < cut.kept < 1 and cut.unit == "tokens"
    note = cut.note("synthesize")
    assert (
        note.startswith("synthesize: transcript cut by relevance to ")
        and "fake:any's 700-token" in note
    )


def test_fitted_refuses_a_window_too_small_for_the_fixed_part() -> None:
    transcript = parse_transcript(SAMPLE.read_text(encoding="utf-8"))
    variables = {"call": CallInfo(), "transcript": transcript_fit(transcript, "revenue")}
    with pytest.raises(ContextError, match="without its transcript"):
        fitted(_handle(300, answer=250), "baselines/zero_shot", variables)


def test_window_table_overrides_and_unknown_models() -> None:
    assert context_window("gpt-4o-mini-2024-07-18", {}) == (128_000, True)
    assert context_window("gpt-4.1-nano", {}) == (1_047_576, True)
    assert context_window("gpt-4o-mini", {"gpt-4o-mini": 9000}) == (9000, True)
    assert context_window("qwen2.5:7b", {"qwen2.5": 32768}) == (32768, True)
    assert context_window("SmolLM2", {}) == (UNKNOWN_WINDOW, False)


def test_openai_models_count_with_tiktoken_offline() -> None:
    counter = openai_counter("gpt-4o-mini")
    assert counter.name == "tiktoken:o200k_base"
    assert counter.count("hello world") == 2
    assert openai_counter("gpt-4").name == "tiktoken:cl100k_base"
    other = openai_counter("SmolLM2-135M-Instruct")  # an open model behind an OpenAI API
    assert isinstance(other, Scaled) and other.factor == ESTIMATE_FACTOR


def test_the_local_model_counts_with_its_own_tokenizer() -> None:
    vocab = llama_vocab(bundled_model_path())
    text = SAMPLE.read_text(encoding="utf-8")
    n = vocab.count(text)
    # the GGUF's own vocabulary: about 1.1-1.2 tokens per o200k token on English calls
    assert 1.0 < n / openai_counter("gpt-4o").count(text) < ESTIMATE_FACTOR


def test_analyses_cut_keeps_every_voice_before_any_at_length() -> None:
    from core.state import Analysis
    from nodes.specialists import SPECIALISTS, analyses_fit

    analyses = {
        r: Analysis(role=r, model="m", text=f"{r} lead point.\n\n" + "detail " * 40)
        for r in SPECIALISTS
    }
    fit = analyses_fit(analyses)
    text, kept = fit.within(60, WordCounter())
    assert all(f"{r} lead point." in text for r in SPECIALISTS) and "detail" not in text
    assert kept < 0.3


def test_specialists_write_to_the_papers_length_when_the_budget_allows() -> None:
    from nodes.specialists import target_length

    assert target_length(None).startswith("1,000-1,500 words")
    assert target_length(Window(128_000, 2000)).startswith("1,000-1,500 words")
    assert target_length(Window(4096, 300)) == (
        "about 200 words (what this model's 300-token answer budget holds)"
    )
