"""The transcript as sentences with their turn (section, speaker), who speaks for the company,
and which numbers in a sentence are figures at all (years, dates, counts of stores or days,
product names and pass codes are not)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from core.chunking import iter_sentences
from core.facts.memo import memoized
from core.grounding import Figure, extract_figures
from core.transcript import Transcript, Turn


@dataclass(frozen=True)
class Sentence:
    start: int
    end: int
    text: str
    turn: Turn
    opens_paragraph: bool = False  # a blank line before it: what the lines before said is done


# a stop that ends an abbreviation, not a sentence: "U.S. payments volume", "vs. last year"
_ABBREVIATION = re.compile(r"(?:\b[A-Z]\.[A-Z]\.|\b(?:vs|No|Mr|Ms|Dr|Mt|St)\.)$")


def _joined(body: str, spans: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """The sentence spans with those cut after an abbreviation joined to the next one."""
    out: list[tuple[int, int]] = []
    for a, b in spans:
        if out and _ABBREVIATION.search(body, out[-1][0], out[-1][1]):
            out[-1] = (out[-1][0], b)
        else:
            out.append((a, b))
    return out


# The longest sentence of the shared and review calls is ~600 characters. A longer "sentence"
# (a table flattened to one line, an adversarial run of numbers) is cut into pieces of at most
# this many, at a space where there is one, so the figure and period look-ups stay linear in
# the call's length and no single regex scan holds the interpreter for seconds.
MAX_SENTENCE = 2_000


def _pieces(body: str, a: int, b: int) -> Iterable[tuple[int, int]]:
    """The span (a, b) of `body` in pieces of at most MAX_SENTENCE characters."""
    while b - a > MAX_SENTENCE:
        cut = body.rfind(" ", a + MAX_SENTENCE // 2, a + MAX_SENTENCE)
        cut = cut if cut > a else a + MAX_SENTENCE
        yield a, cut
        a = cut
    yield a, b


def sentences(transcript: Transcript) -> list[Sentence]:
    """The transcript's sentences with the turn (section, speaker) each belongs to."""
    out: list[Sentence] = []
    for turn in transcript.turns:
        # a sentence wrapped over lines is one sentence (same length: offsets hold)
        body = transcript.text[turn.start : turn.end].replace("\n", " ")
        spans = _joined(body, iter_sentences(body))
        for a, b in (piece for x, y in spans for piece in _pieces(body, x, y)):
            text = body[a:b].strip()
            if text:
                lead = len(body[a:b]) - len(body[a:b].lstrip())
                start = turn.start + a + lead
                before = transcript.text[out[-1].end : start] if out else ""
                out.append(Sentence(start, start + len(text), text, turn,
                                    bool(re.search(r"\n[ \t]*\n", before))))  # fmt: skip
    return out


def is_management(speaker: str | None) -> bool:
    """Executives speak for the company; analysts and the operator do not."""
    if not speaker:
        return False
    s = speaker.lower()
    return not (s.startswith("analyst") or s.startswith("operator") or s == "participant")


def is_analyst(speaker: str | None) -> bool:
    return bool(speaker) and str(speaker).lower().startswith("analyst")


def is_qa(section: str) -> bool:
    return bool(re.search(r"\bq\s*&\s*a\b|question", section, re.IGNORECASE))


# -- which numbers are figures ------------------------------------------------------------------

_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_DATE_BEFORE = re.compile(rf"\b{_MONTH}\s+$", re.IGNORECASE)
_DATE_AFTER = re.compile(rf"^(?:st|nd|rd|th)?\s*(?:of\s+)?{_MONTH}\b", re.IGNORECASE)
_ORDINAL_AFTER = re.compile(r"^(?:st|nd|rd|th)\b", re.IGNORECASE)
# a name with digits: COVID-19, Title 42, 5G, slide 12, Model 3, Phase 2
_NAME_BEFORE = re.compile(
    r"(?:\b(?:covid|sars-cov|title|slide|slides|page|pages|chapter|section|model|phase|"
    r"item|note|form|rule|tier|class|series|version|gen|generation|number|no\.|#|code|"
    r"level|step|stage|year)\s*-?\s*$)|[a-z]-$",
    re.IGNORECASE,
)
# counts of things that are not figures: stores, days, people, years...
_COUNT_AFTER = re.compile(
    r"^\s*(?:[-\w]+\s+){0,2}?(?:stores?|locations?|doors|shops|restaurants|branch(?:es)?|"
    r"offices|employees|associates|team members|people|colleagues|workers|teammates|"
    r"days?|weeks?|months?|years?|quarters?|hours?|minutes?|decades?|"
    r"countries|states|cities|markets|plants|facilities|sites|sessions|consecutive|"
    r"analysts?|questions?|calls?|times? (?:in a row|per)|patients|hospitals|physicians|"
    r"events|steps|points? of (?:view|contact)|pillars|priorities|ways|things|"
    r"acquisitions|deals|transactions|products|launches|approvals|brands)\b",
    re.IGNORECASE,
)
# a rate per day or year is a measure, not a count of days: "3 Bcfe per day"
_RATE_AFTER = re.compile(r"^\s*(?:[-\w]+\s+){0,2}?(?:per|a|each)\s+(?:day|week|month|year)\b",
                         re.IGNORECASE)  # fmt: skip
_PHONE = re.compile(r"^\d{5,}$")  # pass codes, phone numbers: no thousands separators


# the most numbers in one sentence of the shared and review calls is 7 figures (with their
# dates, ~15 digit runs); a sentence with many more is a table or a list, not prose
MAX_NUMBERS = 60
_DIGIT_RUN = re.compile(r"\d+")


@memoized
def figures_in(sentence: str) -> list[Figure]:
    """The figures of a sentence: numbers that measure something. Years, dates, ordinals,
    names with digits, counts of stores, people or days, and pass codes are left out."""
    from core.facts.periods import mentions  # periods read sentences' words only

    if len(_DIGIT_RUN.findall(sentence)) > MAX_NUMBERS:
        return []  # a flattened table or a run of numbers: no clause to attribute them by
    named = [(m.start, m.end) for m in mentions(sentence) if m.period is not None]
    out = []
    for f in extract_figures(sentence):
        if f.kind == "plain" and any(a <= f.start < b for a, b in named):
            continue  # fiscal '22, Q3 2021, FY22
        digits = f.text.lstrip("$€£ ").split()[0] if f.text.strip("$€£ ") else f.text
        plain = f.kind == "plain" and not re.search(r"[a-zA-Z]", f.text)
        after = sentence[f.start + len(f.text) :]
        before = sentence[max(0, f.start - 20) : f.start]
        if plain and re.fullmatch(r"(?:19|20)\d{2}", digits):
            continue  # a year
        if plain and (_DATE_BEFORE.search(before) or _DATE_AFTER.match(after)):
            continue  # a date
        if _ORDINAL_AFTER.match(after) or _NAME_BEFORE.search(before):
            continue  # 28th, COVID-19, slide 12
        if plain and _PHONE.match(digits.replace(".", "")):
            continue  # a pass code or phone number
        if plain and _COUNT_AFTER.match(after) and not _RATE_AFTER.match(after):
            continue  # 1,100 stores, 11 consecutive quarters, 90 days (not "3 Bcf per day")
        if re.match(r"^'?s\b|^-(?:year|month|week|day|quarter)", after):
            continue  # the 1990s, a 3-year plan
        out.append(f)
    return out
