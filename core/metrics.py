"""Deterministic report metrics (docs/evaluation.md): no model involved, same input ->
same number. Readability, abstractiveness, numeric grounding, gold-bullet coverage,
recommendation completeness, stance through the debate, decision accuracy against labels."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Literal

import textstat
from pydantic import BaseModel, Field

from core.contract import HORIZONS, Horizon, Position, Report
from core.facts import FACTS_END, FACTS_HEADING
from core.grounding import Figure, check_numbers, extract_figures, same_figure
from core.recommendations import RECOMMENDATIONS_HEADING

_WORD = re.compile(r"[a-z0-9]+(?:[.,'][a-z0-9]+)*")
_MD_NOISE = re.compile(r"^\s*(#{1,6}\s*|[-*+]\s+|\d+\.\s+|>\s*)|[*_`|]|\[\^[\w-]+\]", re.MULTILINE)


def plain_text(markdown: str) -> str:
    """Markdown without headings, list markers, emphasis, tables' pipes and footnote marks."""
    lines = [ln for ln in markdown.splitlines() if not re.fullmatch(r"\s*\|?[-:| ]+\|?\s*", ln)]
    return _MD_NOISE.sub(" ", "\n".join(lines))


_HEADER_LINE = re.compile(r"^(# .*|_Pipeline `.*|> \*\*Model note:\*\*.*)$")


def report_prose(report: Report) -> str:
    """The report's Markdown without what code wrote: the title/pipeline/model-note lines every
    report starts with, and the "Call facts" section."""
    lines, out, in_facts = report.markdown.splitlines(), [], False
    for ln in lines:
        if ln.strip() == FACTS_HEADING:
            in_facts = True
        elif in_facts and ln.strip() == FACTS_END:
            in_facts = False
        elif not in_facts and not _HEADER_LINE.match(ln):
            out.append(ln)
    return "\n".join(out)


_FOOTNOTE_DEF = re.compile(r"^\[\^[\w-]+\]:")
_FOOTNOTE_REF = re.compile(r"\[\^[\w-]+\]")


def judged_text(report: Report) -> str:
    """What a judge reads: the text the models wrote, without what code wrote around it (the
    header lines and the call facts, as `report_prose`, plus the grounding's footnotes and their
    marks and the recommendations table rendered from the structured recommendations), so a
    judge grades the writing, not the project's annotations."""
    out: list[str] = []
    in_table = False
    for ln in report_prose(report).splitlines():
        if ln.strip() == RECOMMENDATIONS_HEADING:
            in_table = True
            continue
        if in_table and ln.startswith("## "):
            in_table = False
        if in_table or _FOOTNOTE_DEF.match(ln):
            continue
        out.append(_FOOTNOTE_REF.sub("", ln))
    while out and out[-1].strip() in ("", "---"):  # the rule the footnotes stood under
        out.pop()
    return "\n".join(out)


class Readability(BaseModel):
    fkgl: float = Field(description="Flesch-Kincaid grade level")
    coleman_liau: float
    ari: float = Field(description="Automated Readability Index")


def readability(markdown: str) -> Readability | None:
    """US grade levels of the report's prose; None for a text without a sentence to read."""
    text = plain_text(markdown)
    if not _WORD.search(text.lower()):
        return None
    return Readability(
        fkgl=round(float(textstat.flesch_kincaid_grade(text)), 2),
        coleman_liau=round(float(textstat.coleman_liau_index(text)), 2),
        ari=round(float(textstat.automated_readability_index(text)), 2),
    )


def words(text: str) -> list[str]:
    """Lower-case word tokens; numbers keep their inner dots and commas ("1,543.1")."""
    return _WORD.findall(text.lower())


def ngrams(tokens: Sequence[str], n: int) -> list[tuple[str, ...]]:
    return [tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)]


def abstractiveness(report: str, transcript: str, n: int = 3) -> float | None:
    """Share of the report's n-grams (with repeats) that the transcript never contains; 0 = all
    copied, 1 = all new wording. None when the report has fewer than n words."""
    grams = ngrams(words(plain_text(report)), n)
    if not grams:
        return None
    source = set(ngrams(words(transcript), n))
    return round(sum(g not in source for g in grams) / len(grams), 4)


class Grounding(BaseModel):
    numbers: int
    grounded: int
    share: float | None = Field(description="grounded / numbers; None when no numbers")
    ungrounded: list[str] = Field(default_factory=list)


def grounding(report: str, sources: Sequence[str]) -> Grounding:
    """Share of the figures the report states that a source (transcript, financials) states."""
    checks = check_numbers(report, list(sources))
    ok = sum(c.grounded for c in checks)
    return Grounding(
        numbers=len(checks),
        grounded=ok,
        share=round(ok / len(checks), 4) if checks else None,
        ungrounded=[c.text for c in checks if not c.grounded],
    )


class Coverage(BaseModel):
    numbers: int
    covered: int
    share: float | None = Field(description="covered / numbers; None when the gold has none")
    missing: list[str] = Field(default_factory=list)


def _distinct(figures: Sequence[Figure]) -> list[Figure]:
    out: list[Figure] = []
    for f in figures:
        if not any(same_figure(f, g) and f.tolerance == g.tolerance for g in out):
            out.append(f)
    return out


def coverage(report: str, gold_summary: str) -> Coverage:
    """Share of the distinct figures in the gold bullets that the report states too (value,
    unit and scale normalised, within rounding)."""
    gold = _distinct(extract_figures(gold_summary))
    stated = extract_figures(report, skip_apparatus=True)
    missing = [g.text for g in gold if not any(same_figure(g, s) for s in stated)]
    covered = len(gold) - len(missing)
    return Coverage(
        numbers=len(gold),
        covered=covered,
        share=round(covered / len(gold), 4) if gold else None,
        missing=missing,
    )


def completeness(report: Report, *, min_rationale_words: int = 8) -> float:
    """Share of 12 checks met: per horizon, a position, a conviction, a rationale of at least
    `min_rationale_words` words, and at least one catalyst. A report without recommendations
    scores 0."""
    by_horizon = {r.horizon: r for r in report.recommendations}
    met = 0
    for h in HORIZONS:
        rec = by_horizon.get(h)
        if rec is None:
            continue
        met += 2  # position and conviction are typed: present whenever the horizon is
        met += len(rec.rationale.split()) >= min_rationale_words
        met += bool(rec.catalysts)
    return round(met / (4 * len(HORIZONS)), 4)


Stance = Literal["preserved", "reverted", "no_debate", "debate_skipped"]


def stance(report: Report) -> Stance:
    """Did the debate keep the leader's revision (preserved) or fall back to the draft?"""
    if report.debate is None:
        return "no_debate"
    if report.debate.decision is None:
        return "debate_skipped"
    return "reverted" if report.debate.decision.reverted else "preserved"


LABEL_KEYS: Mapping[Horizon, str] = {
    Horizon.DAY: "day",
    Horizon.WEEK: "week",
    Horizon.MONTH: "month",
}
Outcome = Literal["hit", "miss", "neutral", "unlabelled"]


class DecisionScore(BaseModel):
    per_horizon: dict[str, Outcome]
    hits: int
    misses: int
    neutral: int
    accuracy: float | None = Field(description="hits / (hits + misses); NEUTRAL not counted")


def decision_accuracy(report: Report, labels: Mapping[str, object]) -> DecisionScore | None:
    """LONG on a +1 (price up) horizon or SHORT on a -1 is a hit; the opposite a miss; NEUTRAL
    is counted apart, neither. None when the report has no recommendations."""
    if not report.recommendations:
        return None
    per: dict[str, Outcome] = {}
    for rec in report.recommendations:
        label = labels.get(LABEL_KEYS[rec.horizon])
        if label not in (1, -1):
            per[rec.horizon.value] = "unlabelled"
        elif rec.position is Position.NEUTRAL:
            per[rec.horizon.value] = "neutral"
        else:
            up = rec.position is Position.LONG
            per[rec.horizon.value] = "hit" if up == (label == 1) else "miss"
    hits = sum(v == "hit" for v in per.values())
    misses = sum(v == "miss" for v in per.values())
    return DecisionScore(
        per_horizon=per,
        hits=hits,
        misses=misses,
        neutral=sum(v == "neutral" for v in per.values()),
        accuracy=round(hits / (hits + misses), 4) if hits + misses else None,
    )
