"""Deterministic metrics on hand-made cases whose answers are worked out by hand."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from core.contract import DebateLog, NodeFailure, Recommendation, Report, RevertDecision
from core.grounding import check_numbers
from core.metrics import (
    abstractiveness,
    completeness,
    coverage,
    decision_accuracy,
    grounding,
    judged_text,
    plain_text,
    readability,
    stance,
)

TRANSCRIPT = (
    "Revenue was 1,543.1 million, up 10.7 percent. Earnings per share were $1.73. "
    "We raised the dividend by 6 percent to $0.71 per share. Margin expanded 40 basis points."
)


def _recs(
    position: str = "LONG", catalysts: tuple[str, ...] = ("guidance",)
) -> list[Recommendation]:
    return [
        Recommendation(
            horizon=h,  # type: ignore[arg-type]
            position=position,  # type: ignore[arg-type]
            conviction=60,
            rationale="Revenue growth and a higher dividend support the shares this quarter.",
            catalysts=list(catalysts),
        )
        for h in ("1d", "1w", "1m")
    ]


def _report(markdown: str = "x", **kw: object) -> Report:
    base: dict[str, object] = {
        "pipeline": "findebate",
        "status": "succeeded",
        "created_at": datetime.now(UTC),
        "transcript_sha256": "0" * 64,
        "markdown": markdown,
        "recommendations": _recs(),
    }
    base.update(kw)
    return Report.model_validate(base)


@pytest.mark.parametrize(
    ("claim", "grounded"),
    [
        ("Revenue reached $1.54 billion.", True),  # 1,543.1 million within rounding of 1.54bn
        ("Revenue reached $1.6 billion.", False),
        ("Revenue grew 10.7%.", True),  # = "10.7 percent"
        ("Revenue grew 10.7 per cent.", True),
        ("Margin expanded 0.4%.", True),  # = 40 basis points
        ("Margin expanded 40 bps.", True),
        ("EPS was $1.73.", True),
        ("EPS was 1.73 dollars.", True),  # plain vs money: same value
        ("EPS was $1.37.", False),  # transposed digits
        ("Revenue grew 1,543.1%.", False),  # a percentage never matches an amount
        ("Dividend up 6% to $0.71.", True),
    ],
)
def test_grounding_number_formats(claim: str, grounded: bool) -> None:
    g = grounding(claim, [TRANSCRIPT])
    assert g.numbers >= 1
    assert (g.share == 1.0) is grounded, g


def test_grounding_share_and_list() -> None:
    g = grounding("Revenue $1.54 billion, EPS $2.10, margin up 40 bps, guidance 12%.", [TRANSCRIPT])
    assert (g.numbers, g.grounded, g.share) == (4, 2, 0.5)
    assert g.ungrounded == ["$2.10", "12%"]


def test_grounding_without_numbers_is_none_not_perfect() -> None:
    assert grounding("A solid quarter.", [TRANSCRIPT]).share is None


def test_grounding_uses_financials_as_a_second_source() -> None:
    assert grounding("Net income $212.4 million.", [TRANSCRIPT]).share == 0.0
    both = grounding("Net income $212.4 million.", [TRANSCRIPT, "netIncome: 212400000"])
    assert both.share == 1.0


def test_grounded_check_points_at_the_source_span() -> None:
    (check,) = check_numbers("EPS came in at $1.73 per share.", [TRANSCRIPT])
    assert check.source_index == 0
    assert check.source_start is not None and check.source_end is not None
    assert TRANSCRIPT[check.source_start : check.source_end] == "$1.73"


def test_coverage_of_gold_bullets() -> None:
    gold = (
        "q3 earnings per share $1.73.\n"
        "increases quarterly cash dividend by 6 percent to $0.71per share."
    )
    full = coverage("EPS $1.73; the dividend rises 6% to $0.71.", gold)
    assert (full.numbers, full.covered, full.share) == (3, 3, 1.0)
    part = coverage("EPS $1.73; the dividend rises.", gold)
    assert (part.covered, part.share, part.missing) == (1, 0.3333, ["6 percent", "$0.71"])
    assert coverage("anything", "strong quarter, no figures").share is None


def test_coverage_scale_normalised() -> None:
    gold = "q4 revenue $1.54 billion."
    assert coverage("Revenue was 1,543.1 million.", gold).share == 1.0
    assert coverage("Revenue was 1,600 million.", gold).share == 0.0


def test_coverage_counts_repeated_gold_figures_once() -> None:
    assert coverage("EPS $1.16", "gaap eps $1.16.\nq4 gaap earnings per share $1.16.").numbers == 1


def test_abstractiveness_known_values() -> None:
    transcript = "the company grew revenue strongly this quarter"
    assert abstractiveness("The company grew revenue strongly.", transcript) == 0.0
    # trigrams of "the company grew sales fast": (the company grew) copied; 2 of 3 new
    assert abstractiveness("the company grew sales fast", transcript) == pytest.approx(0.6667)
    assert abstractiveness("entirely different words here", transcript) == 1.0
    assert abstractiveness("too short", transcript) is None
    assert abstractiveness("the company grew", transcript, n=1) == 0.0


def test_readability_grades_harder_text_higher() -> None:
    easy = readability("The cat sat. The dog ran. We ate.")
    hard = readability(
        "Notwithstanding considerable macroeconomic uncertainty, management reiterated "
        "its comprehensive profitability expectations, emphasising operational "
        "discipline throughout the organisation."
    )
    assert easy is not None and hard is not None
    assert hard.fkgl > easy.fkgl + 5
    assert hard.coleman_liau > easy.coleman_liau
    assert hard.ari > easy.ari
    assert readability("## \n| --- |") is None


def test_plain_text_strips_markdown() -> None:
    md = "## Heading\n- **bold** item[^1]\n| a | b |\n|---|---|\n> quote"
    assert "#" not in plain_text(md) and "*" not in plain_text(md) and "[^1]" not in plain_text(md)
    assert "---" not in plain_text(md)


def test_completeness() -> None:
    assert completeness(_report()) == 1.0
    assert completeness(_report(recommendations=_recs(catalysts=()))) == 0.75
    degraded = _report(
        status="degraded", recommendations=[], failures=[NodeFailure(node="x", reason="y")]
    )
    assert completeness(degraded) == 0.0


def test_stance() -> None:
    assert stance(_report()) == "no_debate"
    assert stance(_report(debate=DebateLog())) == "debate_skipped"
    kept = DebateLog(decision=RevertDecision(reverted=False))
    assert stance(_report(debate=kept)) == "preserved"
    back = DebateLog(decision=RevertDecision(reverted=True, reasons=["core changed"]))
    assert stance(_report(debate=back)) == "reverted"


def test_decision_accuracy_per_horizon_neutral_apart() -> None:
    labels = {"day": 1, "week": -1, "month": -1}
    longs = decision_accuracy(_report(), labels)
    assert longs is not None
    assert longs.per_horizon == {"1d": "hit", "1w": "miss", "1m": "miss"}
    assert (longs.hits, longs.misses, longs.neutral, longs.accuracy) == (1, 2, 0, 0.3333)
    shorts = decision_accuracy(_report(recommendations=_recs("SHORT")), labels)
    assert shorts is not None and shorts.accuracy == 0.6667
    neutral = decision_accuracy(_report(recommendations=_recs("NEUTRAL")), labels)
    assert neutral is not None
    assert (neutral.hits, neutral.misses, neutral.neutral, neutral.accuracy) == (0, 0, 3, None)
    partial = decision_accuracy(_report(), {"day": 1})
    assert partial is not None and partial.per_horizon["1w"] == "unlabelled"
    assert partial.accuracy == 1.0


def test_citation_ids_and_footnote_marks_are_not_figures() -> None:
    text = "EPS $1.73 [4bc14f6c498a-0999] and [4bc14f6c498a-f0123], growth[^unverified-12]."
    assert [c.text for c in check_numbers(text, [TRANSCRIPT])] == ["$1.73"]


def test_a_judge_reads_the_models_text_without_what_code_wrote_around_it() -> None:
    """Footnotes, their marks and the recommendations table are code's: a judge never sees them
    (issue 39); the models' own words, including their positions, stay."""
    md = (
        "# Acme Q2 2026: analyst report\n\n_Pipeline `findebate`; final text written by `m`._\n\n"
        "## Summary\nRevenue rose 9% to $1.54 billion[^unverified-1] on strong demand.\n\n"
        "### 1-Day Trading Recommendation\nPosition: LONG\n\n---\n\n"
        "[^unverified-1]: **Unverified:** $1.54 billion is not stated in the call.\n\n"
        "## Recommendations\n\n| Horizon | Position | Conviction | Rationale | Catalysts |\n"
        "|---|---|---|---|---|\n| 1 day | LONG | 75% | Demand. | guidance |\n\n"
        "## Risks\nFreight rates could fall.\n"
    )
    text = judged_text(_report(md))
    assert "Revenue rose 9% to $1.54 billion on strong demand." in text
    assert "Position: LONG" in text and "Freight rates could fall." in text  # after the table
    for code in ("[^", "Unverified", "## Recommendations", "| Horizon |", "_Pipeline", "# Acme"):
        assert code not in text, code
