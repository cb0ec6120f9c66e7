"""The call facts as text: the report's "Call facts" section says what it is (rows extracted by
code, each with its quote; the quote wins; unattributed rows left out) and names the call as
read; its tables carry period, change and quote, escaped; the models' block starts with its
rule; highlights are built from the rows' fields."""

from __future__ import annotations

from typing import Any

import pytest

from core.contract import (
    CallFacts,
    CallIdentityFacts,
    GuidanceItem,
    KeyFigure,
    QaQuestion,
    QaTheme,
    StatedFigure,
)
from core.facts import call_facts, facts_block, facts_markdown
from core.facts.text import BLOCK_RULE, excerpt, highlights
from core.grounding import extract_figures
from core.transcript import parse_transcript

# these tests judge what the rules read; which rows have earned "verified" is tested in
# tests/core/test_facts_verified.py
pytestmark = pytest.mark.usefixtures("all_rules_verified")

REVENUE = "Third quarter 2021 revenue was $1.54 billion, up 10.7% from a year ago."
EPS = "Adjusted EPS was $1.31, compared with $1.12 in the third quarter of 2020."
JOURNEYS = "Journeys revenue declined 3% in the quarter."
GUIDE = "For fiscal 2022 we are raising our revenue guidance to $6.15 billion to $6.21 billion."
WORDS = "For fiscal 2022 we expect revenue growth in the low teens."


def key(text: str, sentence: str, **extra: Any) -> KeyFigure:
    start = 1000 + sentence.index(text)
    fields: dict[str, Any] = {
        "metric": "revenue",
        "label": "Revenue",
        "text": text,
        "value": 1.0,
        "kind": "money",
        "period": "Q3 2021",
        "section": "Prepared remarks",
        "start": start,
        "end": start + len(text),
        "sentence": sentence,
        "salience": 1.0,
    }
    return KeyFigure(**{**fields, **extra})


def stated(role: str, text: str, value: float, unit: str, period: str | None = None) -> Any:
    fields = {"role": role, "text": text, "value": value, "unit": unit, "period": period}
    return StatedFigure.model_validate({**fields, "start": 0, "end": len(text)})


def guide(text: str, sentence: str, **extra: Any) -> GuidanceItem:
    fields: dict[str, Any] = {
        "metric": "revenue",
        "label": "Revenue",
        "text": text,
        "low": 6.15e9,
        "high": 6.21e9,
        "kind": "money",
        "period": "FY 2022",
        "section": "Prepared remarks",
        "start": 2000,
        "end": 2000 + len(text),
        "sentence": sentence,
    }
    return GuidanceItem(**{**fields, **extra})


def facts() -> CallFacts:
    rows = [
        key(
            "$1.54 billion",
            REVENUE,
            value=1.54e9,
            speaker="CEO",
            change=stated("change", "10.7%", 10.7, "percent"),
            comparison="+10.7%",
        ),
        key(
            "$1.31",
            EPS,
            metric="eps",
            label="Adjusted EPS",
            value=1.31,
            basis="adjusted",
            prior=stated("comparison", "$1.12", 1.12, "money", "Q3 2020"),
            comparison="vs $1.12 in Q3 2020",
        ),
        key(
            "3%",
            JOURNEYS,
            label="Journeys: revenue",
            segment="Journeys",
            role="change",
            value=-3.0,
            kind="percent",
            unit="percent",
        ),
    ]
    outlook = [
        guide("$6.15 billion to $6.21 billion", GUIDE, direction="raised"),
        guide(
            "low teens",
            WORDS,
            low=11.0,
            high=14.0,
            kind="percent",
            unit="percent",
            role="change",
            qualitative=True,
        ),
    ]
    return CallFacts(
        call=CallIdentityFacts(
            company="Acme Widgets", ticker="ACME", period="Q3 2021", call_date="2021-11-18"
        ),
        key_figures=rows,
        guidance=outlook,
        highlights=highlights(rows, outlook),
    )


def test_section_says_what_it_is_and_names_the_call() -> None:
    md = facts_markdown(facts())
    assert md.startswith("## Call facts")
    assert "Rows extracted by code from the call" in md and "the quote wins" in md
    assert "could not be attributed are left out" in md
    assert "every figure below is stated" not in md
    # "verified" means what it says: rules measured on hand-labelled calls, the rest apart
    assert "hand-labelled real calls" in md and "listed apart, as unconfirmed" in md
    assert "The call as read: Acme Widgets (ACME), Q3 2021, call of 2021-11-18." in md


def test_a_call_the_code_cannot_identify_says_so() -> None:
    md = facts_markdown(CallFacts())
    assert "The call as read: company not named, period not stated." in md


def test_key_figures_table_has_period_change_and_quote() -> None:
    md = facts_markdown(facts())
    assert "| Metric | Figure | Period | Change / compared with | Quote |" in md
    assert f"| Revenue | $1.54 billion | Q3 2021 | +10.7% | {REVENUE} |" in md
    assert f"| Adjusted EPS | $1.31 | Q3 2021 | vs $1.12 in Q3 2020 | {EPS} |" in md
    # a change stated alone: the stated text stays, the role and sign are marked
    assert f"| Journeys: revenue | 3% (change, down) | Q3 2021 | — | {JOURNEYS} |" in md


def test_guidance_table_marks_worded_ranges_and_unstated_direction() -> None:
    md = facts_markdown(facts())
    assert "| Metric | Guidance | Period | Direction | Quote |" in md
    assert f"| Revenue | $6.15 billion to $6.21 billion | FY 2022 | raised | {GUIDE} |" in md
    assert f"| Revenue | low teens (change, in words) | FY 2022 | not stated | {WORDS} |" in md


def test_every_text_cell_is_escaped_alike() -> None:
    """Table pipes and Markdown in a quote, a label, a speaker or a Q&A asker render as text."""
    sentence = "Revenue | *record* was $1.54 billion [see](http://x) <b>"
    row = key("$1.54 billion", sentence, label="Revenue_total")
    theme = QaTheme(
        topic="margin_*pressure*",
        questions=[
            QaQuestion(asker="Jane | *Doe*", text="q", start=0, end=1, answered_with_figure=False)
        ],
    )
    md = facts_markdown(CallFacts(key_figures=[row], qa_themes=[theme]))
    assert r"Revenue \| \*record\* was $1.54 billion \[see\](http://x) \<b\>" in md
    assert r"| Revenue\_total |" in md
    assert r"margin\_\*pressure\*" in md and r"Jane \| \*Doe\*" in md


def test_a_long_quote_is_cut_around_its_figures_never_inside_one() -> None:
    sentence = (
        "We opened many stores and hubs across the regions this year. "
        * 4
        + "Revenue was $1.54 billion, up 10.7%, and we ended June with $210 million of "
        "cash. " + "Thank you all for the hard work and the support this year. " * 4
    )
    cut = excerpt(sentence, ["$1.54 billion", "10.7%"], 90)
    assert cut.startswith("… ") and cut.endswith(" …")
    assert "Revenue was $1.54 billion, up 10.7%" in cut
    shown = {f.text for f in extract_figures(cut)}
    assert shown <= {f.text for f in extract_figures(sentence)}  # no "$210" for "$210 million"
    assert excerpt(REVENUE, ["$1.54 billion"], 220) == REVENUE


def test_block_starts_with_its_rule_and_the_call_then_one_row_a_line() -> None:
    block = facts_block(facts()).splitlines()
    assert block[0] == BLOCK_RULE and "the quote wins" in block[0]
    assert "State no figure found in neither rows nor call" in block[0]
    assert block[1] == "Call as read: Acme Widgets (ACME), Q3 2021, call of 2021-11-18."
    assert block[2] == f'- Revenue: $1.54 billion (Q3 2021; up 10.7%): "{REVENUE}"'
    assert block[3] == f'- Adjusted EPS: $1.31 (Q3 2021; vs $1.12 Q3 2020): "{EPS}"'
    assert block[4] == f'- Journeys: revenue: 3% (change, down) (Q3 2021): "{JOURNEYS}"'
    head, _, quote = block[5].partition(': "')
    assert head == "- Guidance, Revenue: $6.15 billion to $6.21 billion (FY 2022; direction raised)"
    assert quote.endswith('raising our revenue guidance to $6.15 billion to $6.21 billion."')
    assert quote.startswith("… ")  # cut to keep every prompt small, around its figures
    assert "(change, in words) (FY 2022; direction not stated)" in block[6]


def test_block_quotes_a_sentence_once() -> None:
    both = "Operating income was $71 million and operating margin was 11.6%."
    rows = [
        key("$71 million", both, label="Operating income"),
        key("11.6%", both, label="Operating margin", kind="percent", unit="percent"),
    ]
    block = facts_block(CallFacts(key_figures=rows))
    assert block.count(both) == 1 and block.endswith("(Q3 2021): as Operating income")


def test_highlights_from_the_rows_fields() -> None:
    got = [h.text for h in facts().highlights]
    assert got == [
        "q3 revenue $1.54 bln, up 10.7%",
        "q3 adjusted eps $1.31 vs $1.12",
        "q3 journeys: revenue down 3%",
        "raises fy revenue $6.15 bln to $6.21 bln",
        "sees fy revenue growth low teens",
    ]
    assert facts().highlights[0].spans[0] == (
        facts().key_figures[0].start,
        facts().key_figures[0].end,
    )


def test_highlights_say_a_direction_only_when_stated_and_keep_5_to_8() -> None:
    between = guide(
        "$600 million and $615 million",
        "We expect revenue between $600 million and $615 million.",
        low=6e8,
        high=6.15e8,
        period="Q4 2021",
    )
    lowered = guide(
        "$5.10",
        "We are lowering our EPS outlook to $5.10.",
        label="EPS",
        low=5.1,
        high=5.1,
        direction="lowered",
    )
    assert [h.text for h in highlights([], [between, lowered])] == [
        "sees q4 revenue $600 mln to $615 mln",
        "lowers fy eps $5.10",
    ]
    rows = [key(f"${n} million", f"Revenue was ${n} million.") for n in range(10, 20)]
    many = highlights(rows, [between] * 4)
    assert len(many) == 8 and sum(h.source == "guidance" for h in many) == 3
    assert len(highlights(rows[:6], [])) == 6 and len(highlights(rows[:2], [])) == 2


def test_extracted_rows_carry_their_quotes_into_the_section() -> None:
    """On plainly attributable sentences, what the code extracts reaches the section with its
    quote (the extraction itself is tested in test_facts.py)."""
    call = f"### Prepared remarks\n**CFO**\n: {REVENUE} {GUIDE}\n"
    built = call_facts(parse_transcript(call))
    md = facts_markdown(built)
    rows: list[KeyFigure | GuidanceItem] = [*built.key_figures, *built.guidance]
    for row in rows:
        assert row.sentence in md and f"| {row.period} |" in md
    assert any(k.text == "$1.54 billion" for k in built.key_figures), built.notes
    assert any(g.text == "$6.15 billion to $6.21 billion" for g in built.guidance), built.notes


def test_a_negative_result_stated_without_its_sign_says_so() -> None:
    """ "Net loss was $12 million" is net income of -$12 million: the stated text stays, marked."""
    loss = "Net loss was $12 million in the quarter."
    row = key("$12 million", loss, metric="net_income", label="Net income", value=-12e6)
    md = facts_markdown(CallFacts(key_figures=[row], highlights=highlights([row], [])))
    assert f"| Net income | $12 million (negative) | Q3 2021 | — | {loss} |" in md
    assert "- q3 net income $12 mln (negative)" in md
    assert "$12 million (negative) (Q3 2021)" in facts_block(CallFacts(key_figures=[row]))
    signed = key("-$12 million", "Net income was -$12 million.", value=-12e6)
    assert "(negative)" not in facts_markdown(CallFacts(key_figures=[signed]))
