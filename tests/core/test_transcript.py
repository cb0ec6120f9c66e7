from __future__ import annotations

from pathlib import Path

import pytest

from core.transcript import TranscriptError, decode_transcript, parse_transcript

MARKDOWN = """## Financial Earnings Call

### Prepared remarks
**CEO**
: Revenue grew 5%.
We are pleased.

**CFO**
: Margin was 20%.

### Q&A
**Analyst-1**
: What about costs?

**CFO**
: Costs rose.
"""


def test_markdown_sections_and_turns() -> None:
    t = parse_transcript(MARKDOWN)
    assert t.format == "markdown"
    assert [(x.section, x.speaker) for x in t.turns] == [
        ("Prepared remarks", "CEO"),
        ("Prepared remarks", "CFO"),
        ("Q&A", "Analyst-1"),
        ("Q&A", "CFO"),
    ]
    assert t.turn_text(t.turns[0]) == "Revenue grew 5%.\nWe are pleased."
    assert t.turn_text(t.turns[3]) == "Costs rose."
    assert t.sections == ["Prepared remarks", "Q&A"]


def test_plain_text_is_one_turn() -> None:
    t = parse_transcript("  Revenue grew 5%.\nWe are pleased.\n\n")
    assert t.format == "plain"
    assert len(t.turns) == 1 and t.turns[0].speaker is None
    assert t.turn_text(t.turns[0]) == "Revenue grew 5%.\nWe are pleased."


def test_crlf_normalised_and_hash_stable() -> None:
    a = parse_transcript("Line one.\r\nLine two.")
    b = parse_transcript("Line one.\nLine two.")
    assert a.sha256 == b.sha256 and a.text == b.text


@pytest.mark.parametrize("text", ["", "   \n\t \n"])
def test_empty_refused(text: str) -> None:
    with pytest.raises(TranscriptError, match="empty"):
        parse_transcript(text)


def test_non_utf8_refused() -> None:
    with pytest.raises(TranscriptError, match="not valid UTF-8"):
        decode_transcript(b"Revenue \xff\xfe grew")


def test_over_limit_refused() -> None:
    with pytest.raises(TranscriptError, match="limit is 10 bytes"):
        decode_transcript(b"x" * 11, max_bytes=10)
    with pytest.raises(TranscriptError, match="limit"):
        parse_transcript("y" * 11, max_bytes=10)


def test_nul_refused() -> None:
    with pytest.raises(TranscriptError, match="NUL"):
        parse_transcript("abc\x00def")


def test_bom_stripped() -> None:
    assert decode_transcript("\ufeffHello.".encode()) == "Hello."


def test_real_ectsum_files_parse(ectsum: Path) -> None:
    for path in sorted(ectsum.glob("*.txt")):
        if path.name.endswith(".summary.txt"):
            continue
        t = parse_transcript(path.read_text(encoding="utf-8"))
        assert t.format == "plain" and t.n_words > 100, path.name
    fulls = sorted(ectsum.glob("*.full.md"))
    assert fulls
    for path in fulls:
        t = parse_transcript(path.read_text(encoding="utf-8"))
        assert t.format == "markdown", path.name
        assert "Q&A" in t.sections and len(t.turns) > 5, path.name
        assert all(x.speaker for x in t.turns)
        assert all(not t.turn_text(x).startswith(":") for x in t.turns)


def test_visible_goes_by_unicode_category() -> None:
    """Issue 27, 3: a character shows when it is a letter, number, punctuation or symbol (and
    not a blank one such as U+3164 or U+2800); marks show only on a base."""
    from core.transcript import visible

    for shows in ("e\u0301", "5", "?", "$", "\u2603", "\u00e9", "\u4e2d"):
        assert visible(shows), repr(shows)
    for blank in ("\u3164", "\u2800", "\ufe0f", "\u0301", "\u20dd", "\u200b", " \n\t", ""):
        assert not visible(blank), repr(blank)
