"""Call facts built by code: key figures with period, comparison, speaker and span; guidance
ranges and their direction; tone by the Loughran-McDonald lists; Q&A themes; highlights; and
transcripts with nothing to find."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.ectsum import gold_figure_recall, lead_baseline, numeric_precision, rouge
from core.facts import call_facts, period_of
from core.transcript import parse_transcript

CALL = """### Prepared remarks
**CEO**
: Good morning. Third quarter revenue was $1.54 billion, up 10.7% from a year ago, and we are
proud of a strong, excellent quarter with record demand. Adjusted earnings per share were $1.31
compared with $1.12 in the third quarter of last year.

**CFO**
: Gross margin was 41.2%, compared to 39.8% last year. For fiscal 2022 we are raising our
revenue guidance to $6.15 billion to $6.21 billion. We are reaffirming our outlook for
adjusted EPS of $5.10 to $5.20 for the full year.

### Q&A
**Operator**
: Our first question comes from Analyst-1.

**Analyst-1**
: Thanks. Can you talk about gross margin pressure from freight costs and what the margin
trajectory looks like?

**CFO**
: We expect gross margin of about 41% next quarter, with freight costs easing.

**Analyst-2**
: On the supply chain, are there risks of disruption, shortages or delays that could hurt
demand, and how uncertain is the holiday season?

**CEO**
: We remain cautious; there is uncertainty and some weakness in parts of the market.
"""


def test_key_figures_with_period_comparison_speaker_and_span() -> None:
    t = parse_transcript(CALL)
    facts = call_facts(t)
    by = {k.metric: k for k in facts.key_figures}
    revenue, eps, margin = by["revenue"], by["eps_adjusted"], by["gross_margin"]
    assert (revenue.text, revenue.value, revenue.period) == ("$1.54 billion", 1.54e9, "Q3")
    assert revenue.comparison == "up 10.7% from a year ago"
    assert (eps.text, eps.kind, eps.speaker) == ("$1.31", "money", "CEO")
    assert eps.comparison == "compared with $1.12 in the third quarter of last year"
    assert margin.text == "41.2%" and margin.speaker == "CFO"
    for k in facts.key_figures:  # every figure is where the row says it is
        assert t.text[k.start : k.end] == k.text and k.section == "Prepared remarks"
    assert "$1.12" not in {k.text for k in facts.key_figures}  # the figure compared with
    assert len(facts.key_figures) <= 12


def test_guidance_ranges_periods_and_direction() -> None:
    t = parse_transcript(CALL)
    g = {x.metric: x for x in call_facts(t).guidance}
    assert g["revenue"].text == "$6.15 billion to $6.21 billion"
    assert (g["revenue"].low, g["revenue"].high) == (6.15e9, 6.21e9)
    assert g["revenue"].direction == "raised" and g["revenue"].period == "FY 2022"
    assert g["eps_adjusted"].direction == "reaffirmed" and g["eps_adjusted"].period == "FY"
    assert (g["eps_adjusted"].low, g["eps_adjusted"].high) == (5.10, 5.20)
    assert t.text[g["revenue"].start : g["revenue"].end] == g["revenue"].text
    assert g["gross_margin"].text == "41%" and g["gross_margin"].speaker == "CFO"


def test_tone_by_group_with_cited_passages() -> None:
    facts = call_facts(parse_transcript(CALL))
    assert facts.tone is not None
    groups = {g.group: g for g in facts.tone.groups}
    assert set(groups) == {"whole call", "prepared remarks", "Q&A", "management", "analysts"}
    assert groups["prepared remarks"].net_tone > groups["Q&A"].net_tone
    assert groups["Q&A"].uncertainty >= 1 and groups["analysts"].negative >= 1
    assert "excellent" in facts.tone.most_positive[0].text
    assert facts.tone.most_negative and facts.tone.most_negative[0].score < 0


def test_qa_themes_askers_and_answers_with_figures() -> None:
    facts = call_facts(parse_transcript(CALL))
    questions = [q for theme in facts.qa_themes for q in theme.questions]
    assert [q.asker for q in sorted(questions, key=lambda q: q.start)] == ["Analyst-1", "Analyst-2"]
    answered = {q.asker: q.answered_with_figure for q in questions}
    assert answered == {"Analyst-1": True, "Analyst-2": False}
    assert any("margin" in theme.topic for theme in facts.qa_themes)


def test_highlights_are_telegram_bullets_traceable_to_spans() -> None:
    t = parse_transcript(CALL)
    facts = call_facts(t)
    texts = [h.text for h in facts.highlights]
    assert 5 <= len(texts) <= 8
    assert "raises fy 2022 revenue $6.15 bln to $6.21 bln" in texts
    assert any(x.startswith("q3 adjusted eps $1.31") for x in texts)
    for h in facts.highlights:
        assert all(t.text[a:b] for a, b in h.spans)
    assert numeric_precision(texts, t.text) == 1.0


@pytest.mark.parametrize(
    ("text", "missing"),
    [
        ("The company had a good quarter and the team worked hard.", "no figure"),
        ("Revenue grew to $5 million.\nWe thank everyone.", "no forward-looking"),
        ("**CEO**\n: Revenue was $5 million, up 3%.", "no analyst questions"),
    ],
)
def test_nothing_to_find_still_gives_facts(text: str, missing: str) -> None:
    facts = call_facts(parse_transcript(text))
    assert any(missing in n for n in facts.notes), facts.notes
    assert facts.tone is not None and facts.tone.groups


def test_periods() -> None:
    assert period_of("third quarter revenue") == "Q3"
    assert period_of("Q4 2020 sales") == "Q4 2020"
    assert period_of("for fiscal 2022 we expect") == "FY 2022"
    assert period_of("full-year EPS") == "FY"
    assert period_of("we grew") is None


def test_ectsum_measures_on_known_cases() -> None:
    gold = "q3 adjusted eps $1.31.\nsees fy revenue $6.15 bln to $6.21 bln."
    assert gold_figure_recall(["q3 adjusted eps $1.31"], gold) == pytest.approx(1 / 3, abs=1e-3)
    assert numeric_precision(["eps $1.31", "revenue $9 billion"], "EPS was $1.31.") == 0.5
    assert rouge(["q3 adjusted eps $1.31"], gold)["rouge2"] > 0
    lead = lead_baseline(parse_transcript(CALL), 2)
    assert len(lead) == 2 and "$1.54 billion" in lead[0]


def test_ectsum_call_figures(ectsum: Path) -> None:
    t = parse_transcript((ectsum / "CFR_q3_2019.txt").read_text())
    facts = call_facts(t)
    stated = {(k.metric, k.text) for k in facts.key_figures}
    assert ("eps", "$1.73") in stated and ("net_income", "$109.8 million") in stated
    assert all(t.text[k.start : k.end] == k.text for k in facts.key_figures)
