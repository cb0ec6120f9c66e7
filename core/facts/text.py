"""The call facts as text: ECTSum-style highlights, the report's "Call facts" section, and the
verified data block every model gets."""

from __future__ import annotations

import re
from collections.abc import Sequence

from core.contract import CallFacts, GuidanceItem, Highlight, KeyFigure, QaTheme

# -- highlights ---------------------------------------------------------------------------------

_SHORT_SCALE = (
    (re.compile(r"\s*billion\b", re.I), " bln"),
    (re.compile(r"\s*million\b", re.I), " mln"),
    (re.compile(r"\s*(?:percent|per cent)\b", re.I), "%"),
)


def telegram(text: str) -> str:
    for pattern, short in _SHORT_SCALE:
        text = pattern.sub(short, text)
    return " ".join(text.split())


def highlights(figures: list[KeyFigure], outlook: list[GuidanceItem]) -> list[Highlight]:
    """5-8 bullets: the strongest key figures, then guidance, in ECTSum's telegram style."""
    out: list[Highlight] = []
    for g in outlook[:3]:
        period = (g.period or "").lower()
        verb = {"raised": "raises", "lowered": "lowers", "reaffirmed": "reaffirms",
                "withdrawn": "withdraws"}.get(g.direction or "", "sees")  # fmt: skip
        text = f"{verb} {period} {g.label.lower()} {telegram(g.text)}"
        out.append(
            Highlight(text=" ".join(text.split()), source="guidance", spans=[(g.start, g.end)])
        )
    room = max(5, 8 - len(out)) if len(figures) >= 5 else len(figures)
    bullets: list[Highlight] = []
    for f in figures[: min(room, 8 - len(out))]:
        period = (f.period or "").lower()
        text = f"{period} {f.label.lower()} {telegram(f.text)}"
        if f.comparison:
            text += f", {telegram(f.comparison)}"
        bullets.append(
            Highlight(text=" ".join(text.split()), source="key_figure", spans=[(f.start, f.end)])
        )
    return bullets + out


# -- as text: the report's section and the models' verified data block -------------------------

FACTS_HEADING = "## Call facts"
FACTS_END = "_End of the call facts. What follows is the report's text, by the author named above._"


def _cell(text: str | None) -> str:
    return " ".join((text or "").split()).replace("|", "\\|") or "—"


def _quote(text: str, n: int = 220) -> str:
    text = " ".join(text.split())
    return _cell(text if len(text) <= n else text[: n - 1] + "…")


def _table(head: Sequence[str], rows: Sequence[Sequence[str | None]]) -> list[str]:
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return out


def _theme_line(theme: QaTheme) -> str:
    askers = sorted({q.asker or "?" for q in theme.questions})
    answered = sum(q.answered_with_figure for q in theme.questions)
    n = len(theme.questions)
    return (
        f"- **{_cell(theme.topic)}**: {n} question{'s' * (n != 1)} ({', '.join(askers)}); "
        f"{answered} answered with a figure"
    )


def facts_markdown(facts: CallFacts) -> str:
    """The report's "Call facts" section: written by code, marked as such, before the model's
    prose; every figure in it is stated in the call."""
    lines = [FACTS_HEADING, "", "_Computed from the transcript by code, no model: every figure "
             "below is stated in the call._", ""]  # fmt: skip
    if facts.highlights:
        lines += ["**Highlights**", ""] + [f"- {_cell(h.text)}" for h in facts.highlights] + [""]
    if facts.key_figures:
        rows = [[k.label, k.text, k.period, k.comparison, k.speaker] for k in facts.key_figures]
        head = ("Metric", "Figure", "Period", "Compared with", "Speaker")
        lines += ["**Key figures**", "", *_table(head, rows), ""]
    if facts.guidance:
        rows = [[g.label, g.text, g.period, g.direction, g.speaker] for g in facts.guidance]
        head = ("Metric", "Guidance", "Period", "Direction", "Speaker")
        lines += ["**Guidance**", "", *_table(head, rows), ""]
    if facts.tone is not None:
        tone_rows = [
            [s.group, f"{s.net_tone:+.2f}", f"{s.uncertainty_per_1k:.1f}", f"{s.words:,}"]
            for s in facts.tone.groups
        ]
        tone_head = ("Part of the call", "Net tone (-1..1)", "Uncertainty / 1,000 words", "Words")
        lines += [f"**Tone** ({facts.tone.lexicon})", "", *_table(tone_head, tone_rows), ""]
        for label, passages in (("Most positive", facts.tone.most_positive),
                                ("Most negative", facts.tone.most_negative)):  # fmt: skip
            for p in passages[:1]:
                lines += [f"{label}: “{_quote(p.text)}” ({p.speaker or 'call'})", ""]
    if facts.qa_themes:
        lines += ["**What the analysts asked**", ""] + [_theme_line(t) for t in facts.qa_themes]
        lines += [""]
    if facts.notes:
        lines += [f"_Not found: {_cell('; '.join(facts.notes))}._", ""]
    lines.append(FACTS_END)
    return "\n".join(lines)


def facts_block(facts: CallFacts) -> str:
    """The facts as a verified data block for prompts: compact, one row per line."""
    lines = []
    for k in facts.key_figures:
        extra = "; ".join(x for x in (k.period, k.comparison, k.speaker) if x)
        lines.append(f"- {k.label}: {k.text}" + (f" ({extra})" if extra else ""))
    for g in facts.guidance:
        extra = "; ".join(x for x in (g.period, g.direction, g.speaker) if x)
        lines.append(f"- Guidance, {g.label}: {g.text}" + (f" ({extra})" if extra else ""))
    if facts.tone is not None:
        tones = ", ".join(f"{s.group} {s.net_tone:+.2f}" for s in facts.tone.groups)
        lines.append(f"- Tone (Loughran-McDonald net tone, -1..1): {tones}")
    for t in facts.qa_themes[:6]:
        answered = sum(q.answered_with_figure for q in t.questions)
        lines.append(f"- Analysts asked about {t.topic} ({len(t.questions)} question(s), "
                     f"{answered} answered with a figure)")  # fmt: skip
    return "\n".join(lines) or "- (no figures, guidance or Q&A were found in the call)"
