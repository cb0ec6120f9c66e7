"""The call facts as text: ECTSum-style highlights, the report's "Call facts" section, and the
data block every model gets. Each row carries its quote: where a row and its quote disagree,
the quote wins."""

from __future__ import annotations

import re
from collections.abc import Sequence

from core.contract import (
    CallFacts,
    CallIdentityFacts,
    GuidanceItem,
    Highlight,
    KeyFigure,
    QaTheme,
    StatedFigure,
    markdown_text,
    plain_line,
)
from core.facts.verify import held_out_note
from core.grounding import extract_figures

# -- words shared by the highlights, the section and the block ---------------------------------

_SHORT_SCALE = (
    (re.compile(r"\s*billion\b", re.I), " bln"),
    (re.compile(r"\s*million\b", re.I), " mln"),
    (re.compile(r"\s*(?:percent|per cent)\b", re.I), "%"),
    (re.compile(r"\s*basis points?\b", re.I), " bps"),
)
_VERBS = {"raised": "raises", "lowered": "lowers", "reaffirmed": "reaffirms",
          "withdrawn": "withdraws"}  # fmt: skip


def telegram(text: str) -> str:
    for pattern, short in _SHORT_SCALE:
        text = pattern.sub(short, text)
    return " ".join(text.split())


def _moved(text: str, value: float) -> str:
    """A change in words from its stated text and signed value: "up 9%", "down 60 basis
    points" (the stated text keeps its own words, its sign becomes the direction)."""
    size = text.strip().lstrip("+-−–").strip()
    return f"{'up' if value > 0 else 'down' if value < 0 else 'unchanged at'} {size}"


def _unsigned_negative(text: str, value: float) -> bool:
    """A negative value whose stated text carries no sign (the words around it do: "loss")."""
    return value < 0 and not re.match(r"\s*[-−–(]", text)


def change_words(change: StatedFigure) -> str:
    return _moved(change.text, change.value)


def call_line(call: CallIdentityFacts) -> str:
    """The call as read, plain text: "Northwind Logistics (NWL), Q2 2026, call of 2026-07-28"."""
    company, ticker, period = (plain_line(x) for x in (call.company, call.ticker, call.period))
    name = " ".join(x for x in (company, f"({ticker})" if ticker else None) if x)
    parts = [
        name or "company not named",
        period or "period not stated",
        f"call of {call.call_date}" if call.call_date else None,
        "figures adjusted unless the call says otherwise" if call.adjusted_by_default else None,
    ]
    return ", ".join(p for p in parts if p)


def excerpt(sentence: str, figures: Sequence[str], n: int = 220) -> str:
    """The sentence, or, when longer than `n`, the part around `figures` (more of what comes
    before them) with an ellipsis where it is cut, at word boundaries, never inside a figure."""
    text = " ".join(sentence.split())
    if len(text) <= n:
        return text
    found = [(i, i + len(f)) for f in figures if f and (i := text.find(f)) >= 0]
    lo, hi = (min(a for a, _ in found), max(b for _, b in found)) if found else (0, 0)
    start = max(0, lo - max(0, n - (hi - lo)) * 2 // 3)  # metric and period words come first
    end = min(len(text), start + max(n, hi - start))
    start = max(0, min(start, end - n))
    start = text.rfind(" ", 0, start) + 1 if start > 0 else 0  # whole words only
    space = text.find(" ", end)
    end = space if space >= 0 else len(text)
    for f in extract_figures(text):  # whole figures only: never "$210" for "$210 million"
        a, b = f.start, f.start + len(f.text)
        start, end = (a if a < start < b else start), (b if a < end < b else end)
    return ("… " if start > 0 else "") + text[start:end] + (" …" if end < len(text) else "")


def _figures(row: KeyFigure | GuidanceItem) -> list[str]:
    if isinstance(row, KeyFigure):
        return [row.text, *(s.text for s in (row.change, row.prior) if s is not None)]
    return [row.text]


# -- highlights ---------------------------------------------------------------------------------


def _figure_bullet(f: KeyFigure) -> Highlight:
    """A key figure as a bullet: "q2 2026 revenue $612 mln, up 8.4%"; a change stated alone:
    "q2 2026 parcel: revenue down 3%"."""
    period = _telegram_period(f.period)
    if f.role == "change":
        text = f"{period} {f.label.lower()} {telegram(_moved(f.text, f.value))}"
    else:
        text = f"{period} {f.label.lower()} {telegram(_figure_cell(f))}"
        if f.change is not None:
            text += f", {telegram(change_words(f.change))}"
    if f.prior is not None:  # its period is often inferred ("a year ago"): not a stated figure
        text += f" vs {telegram(f.prior.text)}"
    spans = [(s.start, s.end) for s in (f, f.change, f.prior) if s is not None]
    return Highlight(text=" ".join(text.split()), source="key_figure", spans=spans)


def _guidance_bullet(g: GuidanceItem) -> Highlight:
    """A guidance row as a bullet: "sees fy 2022 revenue $6.15 bln to $6.21 bln"; raises,
    lowers, reaffirms or withdraws only when the call states it."""
    verb = _VERBS.get(g.direction or "", "sees")
    label = g.label.lower()
    values = [v for v in (g.low, g.high) if v is not None]
    if g.role == "change" and values and max(values) < 0:
        label += " decline"  # "organic net sales to decline 1% to 1.5%": not "growth 1% to 1.5%"
    elif g.role == "change" and "growth" not in label:
        label += " growth"
    figure = telegram(g.text)
    if g.low is not None and g.high is not None and g.low != g.high:
        figure = re.sub(r"^(?:between\s+)?(.+?)\s+and\s+", r"\1 to ", figure)
    text = f"{verb} {_telegram_period(g.period)} {label} {figure}"
    return Highlight(text=" ".join(text.split()), source="guidance", spans=[(g.start, g.end)])


def _telegram_period(period: str | None) -> str:
    """ECTSum's way: "q3", "fy", "h1" (the year is often derived, "fiscal '22" -> 2022, and a
    bullet states no figure the call does not)."""
    head = (period or "").split(" ")[0].lower()
    return f"{head} exit" if (period or "").endswith(" exit") else head  # a run rate at year-end


def highlights(figures: list[KeyFigure], outlook: list[GuidanceItem]) -> list[Highlight]:
    """Up to 8 bullets (at least 5 when there are 5 key figures): the strongest key figures, then
    guidance, in ECTSum's telegram style."""
    guided = [_guidance_bullet(g) for g in outlook[:3]]
    room = max(5, 8 - len(guided)) if len(figures) >= 5 else len(figures)
    return [_figure_bullet(f) for f in figures[: min(room, 8 - len(guided))]] + guided


# -- as text: the report's section and the models' data block ----------------------------------

FACTS_HEADING = "## Call facts"
FACTS_END = "_End of the call facts. What follows is the report's text, by the author named above._"
FACTS_NOTE = (
    "_Rows extracted by code from the call (no model), each with the sentence that states it: "
    "where a row and its quote disagree, the quote wins. Rows whose metric, period or role "
    "could not be attributed are left out. Key figures and guidance are verified rows: every "
    "rule that read them has earned it on hand-labelled real calls; rows read by a rule that has "
    "not are listed apart, as unconfirmed."
)


def facts_note() -> str:
    """The section's opening note, with what the verified rows measured on held-out calls."""
    return f"{FACTS_NOTE} {held_out_note()}_"


UNCONFIRMED_HEADING = "**Read by code, unconfirmed**"
UNCONFIRMED_NOTE = (
    "_Read by rules whose measured precision on hand-labelled real calls is below the threshold "
    "(each row names them): check each against its quote before using it._"
)
BLOCK_RULE = (
    "Rows extracted by code from the call, with quotes (where they differ, the quote wins); a "
    "figure is a result unless marked (change). State no figure found in neither rows nor call. "
    "Rows marked UNCONFIRMED were read by rules that have not earned verification: use them "
    "only as their quote supports them."
)
UNCONFIRMED_ROWS = 6  # of the unconfirmed rows, in the block


def _cell(text: str | None) -> str:
    """Plain text as one Markdown table cell that renders as itself."""
    return markdown_text(" ".join((text or "").split())) or "—"


def _quote(text: str, figures: Sequence[str] = (), n: int = 220) -> str:
    return _cell(excerpt(text, figures, n))


def _table(head: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """`rows` are cells already escaped (`_cell`, `_quote`)."""
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(row) + " |" for row in rows]
    return out


def _figure_cell(k: KeyFigure) -> str:
    """The figure as stated; a change stated alone says so ("3% (change, down)"), a negative
    result stated without its sign too ("$12 million (negative)": "a net loss of $12 million")."""
    if k.role != "change":
        return k.text + (" (negative)" if _unsigned_negative(k.text, k.value) else "")
    return f"{k.text} (change{', up' if k.value > 0 else ', down' if k.value < 0 else ''})"


def _guidance_cell(g: GuidanceItem) -> str:
    negative = any(_unsigned_negative(g.text, v) for v in (g.low, g.high) if v is not None)
    marks = [m for m, on in (("change", g.role == "change"), ("negative", negative),
                             ("in words", g.qualitative)) if on]  # fmt: skip
    return g.text + (f" ({', '.join(marks)})" if marks else "")


def _key_figure_rows(facts: CallFacts) -> list[list[str]]:
    return [
        [_cell(k.label), _cell(_figure_cell(k)), _cell(k.period), _cell(k.comparison),
         _quote(k.sentence, _figures(k))]
        for k in facts.key_figures
    ]  # fmt: skip


def _guidance_rows(facts: CallFacts) -> list[list[str]]:
    return [
        [_cell(g.label), _cell(_guidance_cell(g)), _cell(g.period),
         _cell(g.direction or "not stated"), _quote(g.sentence, _figures(g))]
        for g in facts.guidance
    ]  # fmt: skip


def _why(row: KeyFigure | GuidanceItem) -> str:
    return _cell("; ".join(r.split(" (")[0] for r in row.weak_rules[:3]))


def _unconfirmed_lines(facts: CallFacts) -> list[str]:
    """The rows read by code with a weak rule: apart, each with the rules that make it so."""
    if not (facts.unconfirmed_key_figures or facts.unconfirmed_guidance):
        return []
    rows = [
        [_cell(k.label), _cell(_figure_cell(k)), _cell(k.period), _cell(k.comparison), _why(k),
         _quote(k.sentence, _figures(k))]
        for k in facts.unconfirmed_key_figures
    ] + [
        [_cell(f"Guidance: {g.label}"), _cell(_guidance_cell(g)), _cell(g.period),
         _cell(g.direction or "direction not stated"), _why(g), _quote(g.sentence, _figures(g))]
        for g in facts.unconfirmed_guidance
    ]  # fmt: skip
    head = ("Metric", "Figure", "Period", "Change / direction", "Unconfirmed rules", "Quote")
    return [UNCONFIRMED_HEADING, "", UNCONFIRMED_NOTE, "", *_table(head, rows), ""]


def _theme_line(theme: QaTheme) -> str:
    askers = sorted({q.asker or "?" for q in theme.questions})
    answered = sum(q.answered_with_figure for q in theme.questions)
    n = len(theme.questions)
    return (
        f"- **{_cell(theme.topic)}**: {n} question{'s' * (n != 1)} ({_cell(', '.join(askers))}); "
        f"{answered} answered with a figure"
    )


def _tone_lines(facts: CallFacts) -> list[str]:
    if facts.tone is None:
        return []
    rows = [
        [_cell(s.group), f"{s.net_tone:+.2f}", f"{s.uncertainty_per_1k:.1f}", f"{s.words:,}"]
        for s in facts.tone.groups
    ]
    head = ("Part of the call", "Net tone (-1..1)", "Uncertainty / 1,000 words", "Words")
    lines = [f"**Tone** ({_cell(facts.tone.lexicon)})", "", *_table(head, rows), ""]
    for label, passages in (("Most positive", facts.tone.most_positive),
                            ("Most negative", facts.tone.most_negative)):  # fmt: skip
        for p in passages[:1]:
            lines += [f"{label}: “{_quote(p.text)}” ({_cell(p.speaker or 'call')})", ""]
    return lines


def facts_markdown(facts: CallFacts) -> str:
    """The report's "Call facts" section: written by code, marked as such, before the model's
    prose; each key-figure and guidance row with its quote."""
    identity = f"The call as read: {_cell(call_line(facts.call))}."
    lines = [FACTS_HEADING, "", facts_note(), "", identity, ""]
    if facts.highlights:
        lines += ["**Highlights**", ""] + [f"- {_cell(h.text)}" for h in facts.highlights] + [""]
    if facts.key_figures:
        head: tuple[str, ...] = ("Metric", "Figure", "Period", "Change / compared with", "Quote")
        rows = _key_figure_rows(facts)
        if any(k.filing for k in facts.key_figures):  # the filing check, next to its row
            head = (*head, "Filing")
            rows = [[*r, _cell(k.filing or "")] for r, k in zip(rows, facts.key_figures,
                                                                strict=True)]  # fmt: skip
        lines += ["**Key figures**", "", *_table(head, rows), ""]
    if facts.guidance:
        head = ("Metric", "Guidance", "Period", "Direction", "Quote")
        lines += ["**Guidance**", "", *_table(head, _guidance_rows(facts)), ""]
    lines += _unconfirmed_lines(facts)
    lines += _tone_lines(facts)
    if facts.qa_themes:
        lines += ["**What the analysts asked**", ""] + [_theme_line(t) for t in facts.qa_themes]
        lines += [""]
    if facts.notes:
        lines += [f"_Not found: {_cell('; '.join(facts.notes))}._", ""]
    lines.append(FACTS_END)
    return "\n".join(lines)


BLOCK_QUOTE = 70  # characters of a quote in the block, around its figures: prompts stay small


def _block_facts(row: KeyFigure | GuidanceItem) -> str:
    """Period, and the change and prior figure (a guidance row: its direction); the role is
    marked on the figure when it is a change."""
    parts = [row.period or "period not stated"]
    if isinstance(row, GuidanceItem):
        return "; ".join([*parts, f"direction {row.direction or 'not stated'}"])
    if row.change is not None:
        parts.append(change_words(row.change))
    if row.prior is not None:
        parts.append(f"vs {row.prior.text}" + (f" {row.prior.period}" if row.prior.period else ""))
    return "; ".join(parts)


BLOCK_ROWS = 12


def _block_rows(facts: CallFacts) -> list[str]:
    """One line per key-figure and guidance row: label, figure, period, role, change and prior
    (guidance: direction), and its quote; a sentence already quoted is named, not repeated."""
    quoted: dict[str, str] = {}
    lines = []
    rows: list[tuple[str, str, KeyFigure | GuidanceItem]] = [
        (k.label, _figure_cell(k), k) for k in facts.key_figures[:BLOCK_ROWS]
    ]
    rows += [(f"Guidance, {g.label}", _guidance_cell(g), g) for g in facts.guidance[:BLOCK_ROWS]]
    weak_keys = facts.unconfirmed_key_figures[:UNCONFIRMED_ROWS]
    weak_guid = facts.unconfirmed_guidance[: UNCONFIRMED_ROWS - len(weak_keys)]
    rows += [(f"UNCONFIRMED {k.label}", _figure_cell(k), k) for k in weak_keys]
    rows += [(f"UNCONFIRMED guidance, {g.label}", _guidance_cell(g), g) for g in weak_guid]
    for label, figure, row in rows:
        if row.sentence in quoted:
            quote = f"as {quoted[row.sentence]}"
        else:
            quote = f'"{excerpt(row.sentence, _figures(row), BLOCK_QUOTE)}"'
            quoted[row.sentence] = label
        lines.append(f"- {label}: {figure} ({_block_facts(row)}): {quote}")
    return lines


def facts_block(facts: CallFacts) -> str:
    """The facts as a data block for prompts: the rule, the call as read, one row per line (the
    first `BLOCK_ROWS` key figures, by weight, and guidance items, so every model's prompt keeps
    room for the call; the report's section lists them all)."""
    lines = _block_rows(facts)
    left = max(0, len(facts.key_figures) - BLOCK_ROWS) + max(0, len(facts.guidance) - BLOCK_ROWS)
    left += max(0, len(facts.unconfirmed_key_figures) + len(facts.unconfirmed_guidance)
                - UNCONFIRMED_ROWS)  # fmt: skip
    if left:
        lines.append(f"- ({left} more rows in the report's Call facts section)")
    if facts.tone is not None:
        tones = ", ".join(f"{s.group} {s.net_tone:+.2f}" for s in facts.tone.groups)
        lines.append(f"- Tone (Loughran-McDonald net tone, -1..1): {tones}")
    if facts.qa_themes:
        themes = "; ".join(
            f"{t.topic} {sum(q.answered_with_figure for q in t.questions)}/{len(t.questions)}"
            for t in facts.qa_themes[:6]
        )
        lines.append(f"- Analysts asked about (answered with a figure / questions): {themes}")
    rows = lines or ["- (no figures, guidance or Q&A were found in the call)"]
    return "\n".join([BLOCK_RULE, f"Call as read: {call_line(facts.call)}.", *rows])
