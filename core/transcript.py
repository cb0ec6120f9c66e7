"""Transcript input: decode and validate raw bytes, then parse into sections and speaker turns.

Two formats are accepted:
- plain text, one or more sentences per line (ECTSum `*.txt`);
- the markdown call format: `### Prepared remarks` / `### Q&A` sections and `**ROLE**` turns
  whose text follows on the next line(s), usually after a leading `: ` (ECTSum `*.full.md`).
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Callable
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from core.contract import TurnBase

DEFAULT_MAX_BYTES = 1_000_000
DEFAULT_MAX_LINES = 20_000
PLAIN_SECTION = "transcript"

_SECTION_RE = re.compile(r"^#{2,4}\s+(?P<title>.+?)\s*$")
_SPEAKER_RE = re.compile(r"^\*\*(?P<speaker>[^*\n]{1,80})\*\*\s*:?\s*$")
# the speaker lines of the common published format: "Jane Doe -- Chief Financial Officer",
# "John Roe -- Acme Securities -- Analyst", "Operator", and its section lines
_NAMED_SPEAKER_RE = re.compile(
    r"^(?P<name>[A-Z][\w.'’-]*(?:\s+[A-Z][\w.'’-]*){0,4})\s+--\s+(?P<title>[^:\n]{2,100}?)\s*:?$"
    r"|^(?P<operator>Operator)\s*:?$"
)
_NAMED_SECTION_RE = re.compile(
    r"^(?P<title>Prepared Remarks|Questions (?:&|and) Answers|Call Participants)\s*:?$", re.I
)


class TranscriptError(ValueError):
    """The input is not a transcript we can analyse; the message says why, for the user."""


class TranscriptTooLarge(TranscriptError):
    """Over the size bound (EDESK_MAX_TRANSCRIPT_BYTES): what a run may hold in memory."""


class TranscriptTooManyLines(TranscriptError):
    """Over the line bound (EDESK_MAX_TRANSCRIPT_LINES): what line-by-line parsing and the
    per-line scans may be asked to read (1 MB of newlines is a million lines)."""


def check_bounds(
    text: str | bytes, *, max_bytes: int = DEFAULT_MAX_BYTES, max_lines: int = DEFAULT_MAX_LINES
) -> None:
    """A transcript within its bounds, or the error naming the one it breaks (every intake:
    the API's, the LangGraph routes', evaluations' and the CLI's)."""
    size = len(text) if isinstance(text, bytes) else len(text.encode("utf-8", "surrogatepass"))
    if size > max_bytes:
        raise TranscriptTooLarge(
            f"transcript is {size:,} bytes; the limit is {max_bytes:,} bytes "
            f"(EDESK_MAX_TRANSCRIPT_BYTES={max_bytes})"
        )
    newline = b"\n" if isinstance(text, bytes) else "\n"
    # lines as an editor counts them: a final newline ends the last line, it opens none
    lines = text.count(newline) + (0 if text.endswith(newline) else 1)  # type: ignore[arg-type]
    if lines > max_lines:
        raise TranscriptTooManyLines(
            f"transcript has {lines:,} lines; the limit is {max_lines:,} lines "
            f"(EDESK_MAX_TRANSCRIPT_LINES={max_lines})"
        )


class Turn(TurnBase):
    """One stretch of the call by one speaker (or one section of a plain transcript, with no
    speaker)."""

    section: str
    start: int = Field(ge=0)
    end: int = Field(ge=0)


class Transcript(BaseModel):
    model_config = ConfigDict(frozen=True)

    text: str
    format: Literal["plain", "markdown"]
    turns: list[Turn]
    sha256: str

    @property
    def n_words(self) -> int:
        return len(self.text.split())

    @property
    def sections(self) -> list[str]:
        seen: list[str] = []
        for t in self.turns:
            if t.section not in seen:
                seen.append(t.section)
        return seen

    def turn_text(self, turn: Turn) -> str:
        return self.text[turn.start : turn.end]


def decode_transcript(
    data: bytes, *, max_bytes: int = DEFAULT_MAX_BYTES, max_lines: int = DEFAULT_MAX_LINES
) -> str:
    """Bytes -> text, refusing oversized or non-UTF-8 input with a message for the user."""
    check_bounds(data, max_bytes=max_bytes, max_lines=max_lines)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise TranscriptError(
            f"transcript is not valid UTF-8 (byte {exc.start}: "
            f"{data[exc.start : exc.start + 1]!r}); "
            "save it as UTF-8 text or markdown"
        ) from None
    return text


def normalize_newlines(text: str) -> str:
    """The text the pipelines read (and every character offset in a report refers to)."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def transcript_sha256(text: str) -> str:
    """The id of a call's text, as a report's `transcript_sha256` gives it."""
    return hashlib.sha256(normalize_newlines(text).encode("utf-8")).hexdigest()


def check_text(text: str, what: str) -> None:
    """Text must be encodable UTF-8: a lone surrogate (e.g. JSON's "\\ud800") is refused."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise TranscriptError(
            f"{what} is not valid Unicode: a lone surrogate {text[exc.start]!r} at character "
            f"{exc.start}"
        ) from None


# Letters and symbols that draw nothing: the Hangul fillers (category Lo) and the braille
# blank (So). Every other invisible character is told by its category (`_SHOWS`).
_BLANK_GRAPHICS = frozenset("\u115f\u1160\u3164\uffa0\u2800")
# Letters, numbers, punctuation and symbols render; separators (Z*), controls and format
# characters (C*: zero-width spaces and joiners, BOMs, direction marks) and marks (M*:
# combining marks and variation selectors such as U+FE0F, drawn only on a base) do not.
_SHOWS = frozenset("LNPS")


def visible(text: str) -> bool:
    """Whether any character would show on its own: a letter, number, punctuation mark or
    symbol by its Unicode category, and not one of the few that draw a blank."""
    return any(unicodedata.category(ch)[0] in _SHOWS and ch not in _BLANK_GRAPHICS for ch in text)


def parse_transcript(
    text: str, *, max_bytes: int = DEFAULT_MAX_BYTES, max_lines: int = DEFAULT_MAX_LINES
) -> Transcript:
    """Validate and parse transcript text; raises TranscriptError for unusable input."""
    text = normalize_newlines(text)
    check_text(text, "transcript")
    check_bounds(text, max_bytes=max_bytes, max_lines=max_lines)
    if not visible(text):
        raise TranscriptError(
            "transcript is empty (only whitespace or invisible characters such as U+200B)"
        )
    if "\x00" in text:
        raise TranscriptError("transcript contains NUL bytes; is it a binary file?")
    sha = transcript_sha256(text)
    lines = text.split("\n")
    is_markdown = any(_SPEAKER_RE.match(ln.strip()) for ln in lines) or any(
        _SECTION_RE.match(ln.strip()) for ln in lines
    )
    named = sum(bool(_NAMED_SPEAKER_RE.match(ln.strip())) for ln in lines[:5000])
    if not is_markdown and named >= 2:
        turns = _named_turns(text)
        if turns:
            return Transcript(text=text, format="markdown", turns=turns, sha256=sha)
    if is_markdown:
        turns = _markdown_turns(text)
        if turns:
            return Transcript(text=text, format="markdown", turns=turns, sha256=sha)
    turns = _inline_turns(text)
    if not turns and (unglued := _unglued(text)) != text:
        turns = _inline_turns(unglued)
    if turns:
        return Transcript(text=text, format="markdown", turns=turns, sha256=sha)
    start, end = _strip_span(text, 0, len(text))
    return Transcript(
        text=text,
        format="plain",
        turns=[Turn(section=PLAIN_SECTION, speaker=None, start=start, end=end)],
        sha256=sha,
    )


LAYOUT_NOT_RECOGNISED = (
    'no speaker layout was recognised (markdown **Speaker** lines, "Name -- Title" lines, or '
    '"Speaker: text" lines), so the call was read as one text with no speakers and no Q&A: '
    "the Q&A themes and management's answers are missing"
)


def layout_note(transcript: Transcript) -> str | None:
    """What the report and the CLI say when no speaker layout was recognised (plain text, or
    sections with no speaker named in any of them)."""
    if transcript.format == "plain" or not any(t.speaker for t in transcript.turns):
        return LAYOUT_NOT_RECOGNISED
    return None


def _strip_span(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


Line = tuple[str, str] | None  # ("section", title) | ("title", "") | ("speaker", name) | None

# -- the pasted layout: "Speaker: text" on one line ----------------------------------------------

# "Jane Doe -- Chief Financial Officer: ...", "CEO: ...", "Operator: ...", "Jane Doe: ..." (a
# name that speaks on two lines or more: the roster the call itself gives)
_INLINE_RE = re.compile(r"^(?P<who>[A-Z][^:\n]{0,79}?)\s*:\s+(?P<body>\S)")
_TITLE_WORDS = re.compile(
    r"^(?:(?:the\s+)?(?:CEO|CFO|COO|CTO|CAO|President|Chair(?:man|woman)?|Moderator|Host|Operator|"
    r"Analyst|Investor Relations|Head of Investor Relations|IR|Treasurer|Controller|Director|"
    r"(?:Executive |Senior )?Vice President[\w ,&-]*|Chief [A-Z][\w ]*Officer))$"
)
_PERSON = re.compile(r"^[A-Z][\w.'’-]*(?:\s+(?:[A-Z][\w.'’-]*|de|van|von|del|da)){0,4}$")
_INLINE_SECTION = re.compile(
    r"^(?:(?P<qa>Question[- ]and[- ]Answer Session|Questions? (?:&|and) Answers?|Q\s*&\s*A"
    r"(?: Session)?)|(?P<pr>Prepared Remarks|Presentation))\s*:?$",
    re.IGNORECASE,
)
QA_SECTION = "Questions and Answers"


def _inline_speaker(who: str, roster: set[str]) -> str | None:
    """The speaker an inline label names, or None when the label is not a speaker ("Revenue
    for the quarter: up 8%" is a sentence)."""
    who = " ".join(who.split())
    if who.lower() == "operator":
        return "Operator"
    if "--" in who:
        name, _, title = who.partition("--")
        name, title = name.strip(), title.strip()
        if _PERSON.match(name):
            parts = [p.strip() for p in title.split("--")]
            if parts[-1].lower() == "analyst":
                firm = " -- ".join(parts[:-1])
                return f"Analyst {name}" + (f" ({firm})" if firm else "")
            return f"{name} ({title})"
        return None
    if _TITLE_WORDS.match(who):
        return "Analyst" if who.lower() == "analyst" else who
    if who in roster:
        return who
    return None


def _add_turn(
    turns: list[Turn],
    text: str,
    section: str,
    speaker: str | None,
    body_start: int | None,
    body_end: int,
) -> None:
    """A turn of `text[body_start:body_end]` without its edge whitespace (and the ": " ECTSum
    opens a turn's body with), when anything is left."""
    if body_start is None:
        return
    start, end = _strip_span(text, body_start, body_end)
    if start < end and text[start] == ":":
        start, end = _strip_span(text, start + 1, end)
    if start < end:
        turns.append(Turn(section=section, speaker=speaker, start=start, end=end))


def _inline_turns(text: str) -> list[Turn]:
    """The turns of a call pasted as "Speaker: text" lines (with "Question-and-Answer Session"
    style section lines): at least three labelled turns by at least two speakers, else none.
    In the Q&A, a named speaker who did not speak in the prepared remarks is an analyst."""
    lines = text.split("\n")
    labels = [m.group("who").strip() for ln in lines if (m := _INLINE_RE.match(ln.strip()))]
    counts: dict[str, int] = {}
    for label in labels:
        counts[label] = counts.get(label, 0) + 1
    roster = {w for w, n in counts.items() if n >= 2 and _PERSON.match(w)}
    turns: list[Turn] = []
    section = "Prepared Remarks"
    prepared: set[str] = set()
    speaker: str | None = None
    body_start: int | None = None
    body_end = offset = 0

    def close() -> None:
        _add_turn(turns, text, section, speaker, body_start, body_end)

    for line in lines:
        line_end = offset + len(line)
        stripped = line.strip()
        lead = len(line) - len(line.lstrip())
        sec = _INLINE_SECTION.match(stripped)
        m = _INLINE_RE.match(stripped)
        named = _inline_speaker(m.group("who"), roster) if m else None
        if sec is not None:
            close()
            body_start, speaker = None, None
            section = QA_SECTION if sec.group("qa") else "Prepared Remarks"
        elif m is not None and named is not None:
            close()
            if section == QA_SECTION and named not in prepared and _PERSON.match(named) and (
                    named not in ("Operator",)):  # fmt: skip
                named = f"Analyst {named}"
            if section != QA_SECTION:
                prepared.add(named)
            speaker = named
            body_start = offset + lead + m.start("body")
            body_end = line_end
        elif stripped:
            if body_start is None:
                body_start = offset
            body_end = line_end
        offset = line_end + 1
    close()
    speakers = {t.speaker for t in turns if t.speaker}
    if sum(t.speaker is not None for t in turns) < 3 or len(speakers) < 2:
        return []
    return turns


# A call pasted with its line breaks lost ("... to the call. CFO: Revenue grew ..."): a label
# that starts a sentence is a turn's start when it is a title, "Operator", "Name -- Title" or a
# section marker; a bare name is not (on one line there is no roster to tell it from a phrase).
_GLUED = re.compile(
    r"(?<=[.!?\"”’)\]])(?P<gap>\s+)(?=(?P<label>Operator|Question[- ]and[- ]Answer Session|"
    r"[A-Z][\w.'’-]*(?:\s+[A-Z][\w.'’-]*){0,4}\s+--\s+[^:\n]{1,60}?|"
    r"(?:the\s+)?(?:CEO|CFO|COO|CTO|CAO|President|Chair(?:man|woman)?|Moderator|Analyst|"
    r"Chief [A-Z][\w ]{0,40}Officer))\s*:?\s)"
)

# ... and the section marker ends its own line ("... ago. Question-and-Answer Session Operator:")
_GLUED_SECTION = re.compile(
    r"(?<=Question-and-Answer Session|Question and Answer Session)(?P<gap>\s+)(?=[A-Z])"
)


def _unglued(text: str) -> str:
    """`text` with a line break in place of the last blank before each glued label, so the
    pasted layout's reader sees one label a line; the same length, so every turn's span is a
    span of the text as given."""

    def cut(m: re.Match[str]) -> str:
        gap = m.group("gap")
        return gap[:-1] + "\n"

    if text.count("\n") > 3 * max(1, len(_GLUED.findall(text))):
        return text  # a call with its lines: not glued
    return _GLUED_SECTION.sub(cut, _GLUED.sub(cut, text))


def _named_line(stripped: str) -> Line:
    """A line of the speaker-per-line layout: its sections ("Questions and Answers:") and
    speakers ("Jane Doe -- Chief Financial Officer", "Operator"); an analyst's turn is named
    "Analyst <name> (<firm>)" so it is told apart."""
    if sec := _NAMED_SECTION_RE.match(stripped):
        return ("section", sec.group("title"))
    spk = _NAMED_SPEAKER_RE.match(stripped)
    if spk is None:
        return None
    if spk.group("operator"):
        return ("speaker", "Operator")
    name, title = spk.group("name"), spk.group("title").strip()
    parts = [p.strip() for p in title.split("--")]
    if parts[-1].lower() == "analyst":
        firm = " -- ".join(parts[:-1])
        return ("speaker", f"Analyst {name}" + (f" ({firm})" if firm else ""))
    return ("speaker", f"{name} ({title})")


def _markdown_line(stripped: str) -> Line:
    """A line of the markdown layout: "### Section", a higher title ("## Financial Earnings
    Call": not a section), "**Speaker**"."""
    if sec := _SECTION_RE.match(stripped):
        return ("section", sec.group("title")) if stripped.startswith("###") else ("title", "")
    if spk := _SPEAKER_RE.match(stripped):
        return ("speaker", spk.group("speaker").strip())
    return None


def _named_turns(text: str) -> list[Turn]:
    return _turns(text, "Prepared Remarks", _named_line)


def _markdown_turns(text: str) -> list[Turn]:
    return _turns(text, "Call", _markdown_line)


def _turns(text: str, section: str, classify: Callable[[str], Line]) -> list[Turn]:
    """The turns of a transcript whose lines `classify` tells apart: a section, a title, a
    speaker, or body text (a turn's body runs from its first non-empty line to its last)."""
    turns: list[Turn] = []
    speaker: str | None = None
    body_start: int | None = None
    body_end = offset = 0

    def close() -> None:
        _add_turn(turns, text, section, speaker, body_start, body_end)

    for line in text.split("\n"):
        line_end = offset + len(line)
        stripped = line.strip()
        kind = classify(stripped)
        if kind is not None:
            close()
            body_start = None
            if kind[0] == "section":
                section, speaker = kind[1], None
            elif kind[0] == "speaker":
                speaker = kind[1]
        else:
            if body_start is None and stripped:
                body_start = offset
            body_end = line_end
        offset = line_end + 1
    close()
    return turns
