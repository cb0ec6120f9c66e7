"""The facts pipeline's rules read only attributed rows: a company-wide result's stated change
(its sign, or the row's own when it is a change) on a metric where more is better, and guidance
whose direction the call states; each rule quotes the sentence it rests on."""

from __future__ import annotations

import pytest

from core import rules
from core.contract import CallFacts, Position
from tests.core.test_facts_text import GUIDE, JOURNEYS, REVENUE, guide, key, stated


def fired(facts: CallFacts) -> dict[str, float]:
    return {s.rule: s.weight for s in rules.signals(facts)}


def test_a_stated_change_fires_by_its_sign_and_quotes_its_sentence() -> None:
    up = key("$1.54 billion", REVENUE, change=stated("change", "10.7%", 10.7, "percent"))
    margin = "Gross margin was 24.1%, down 60 basis points from a year ago."
    down = key(
        "24.1%",
        margin,
        metric="gross_margin",
        label="Gross margin",
        value=24.1,
        change=stated("change", "60 basis points", -60.0, "bps"),
    )
    signals = rules.signals(CallFacts(key_figures=[up, down]))
    assert {s.rule: s.weight for s in signals} == {
        "Revenue up": 1.0,
        "Gross margin down": -1.0,
    }
    assert [s.evidence for s in signals] == [REVENUE, margin]
    assert all(s.fundamental for s in signals)


def test_a_change_stated_alone_fires_by_its_own_sign() -> None:
    decline = "Revenue declined 3% in the quarter."
    row = key("3%", decline, role="change", value=-3.0, kind="percent", unit="percent")
    assert fired(CallFacts(key_figures=[row])) == {"Revenue down": -1.0}


def test_segments_costs_and_unstated_changes_never_fire() -> None:
    segment = key(
        "3%",
        JOURNEYS,
        label="Journeys: revenue",
        segment="Journeys",
        role="change",
        value=-3.0,
        kind="percent",
        unit="percent",
    )
    costs = key(
        "$90 million",
        "Operating expenses were $90 million, up 12%.",
        metric="expenses",
        change=stated("change", "12%", 12.0, "percent"),
    )
    compared = key(
        "$1.31",
        "Adjusted EPS was $1.31, compared with $1.12.",
        metric="eps",
        prior=stated("comparison", "$1.12", 1.12, "money"),
        comparison="vs $1.12 up sharply",  # display words: never read by the rules
    )
    assert fired(CallFacts(key_figures=[segment, costs, compared])) == {}


def test_one_rule_per_metric_and_at_most_two_each_way() -> None:
    rows = [
        key("$1.54 billion", REVENUE, change=stated("change", "10.7%", 10.7, "percent")),
        key(
            "$6.1 billion",
            "Full-year revenue was $6.1 billion, up 9%.",
            period="FY 2021",
            change=stated("change", "9%", 9.0, "percent"),
        ),
        *(
            key(
                "$1",
                f"{m} was $1, up 5%.",
                metric=m,
                label=m,
                change=stated("change", "5%", 5.0, "percent"),
            )
            for m in ("eps", "ebitda", "free_cash_flow")
        ),
    ]
    assert fired(CallFacts(key_figures=rows)) == {
        "Revenue up": 1.0,
        "eps up": 1.0,
    }


def test_guidance_fires_only_on_a_stated_direction() -> None:
    raised = guide("$6.15 billion to $6.21 billion", GUIDE, direction="raised")
    unstated = guide("$6.15 billion to $6.21 billion", GUIDE)
    assert fired(CallFacts(guidance=[raised, unstated])) == {"guidance raised (Revenue)": 2.0}
    recs, signals = rules.stance(CallFacts(guidance=[unstated]))
    assert not signals and {r.position for r in recs} == {Position.NEUTRAL}


def test_stance_markdown_says_what_the_rules_read() -> None:
    facts = CallFacts(
        key_figures=[
            key("$1.54 billion", REVENUE, change=stated("change", "10.7%", 10.7, "percent"))
        ]
    )
    md = rules.stance_markdown(*rules.stance(facts))
    assert "rows the code attributed" in md and "company-wide results" in md
    assert f"| Revenue up | `+1` | {REVENUE} |" in md


def test_each_horizon_says_the_weight_each_rule_counted_with(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The month's line adds up as written: each rule's weight and the month's factor (numbers
    1.5, how it was said 0.5), so "+1 x 1.5; -0.5 x 0.5" is +1.25."""
    fired = [
        rules.Signal("Revenue up", 1.0, "Revenue grew 8%.", True),
        rules.Signal("questions mostly answered without figures", -0.5, "2 of 3", False),
    ]
    monkeypatch.setattr(rules, "signals", lambda facts, record=None: fired)
    day, _, month = rules.stance(CallFacts())[0]
    assert day.rationale.startswith("Rules score `+0.50`: Revenue up (`+1`);")
    assert month.rationale == ("Rules score `+1.25`: Revenue up (`+1 x 1.5`); questions mostly "
                               "answered without figures (`-0.5 x 0.5`).")  # fmt: skip
