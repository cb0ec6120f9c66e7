"""Provenance of every figure: the call, the statements, changes computed by code, the market
scorecard and the vendor's consensus; whatever matches none of them is unsupported."""

from __future__ import annotations

import math
import re
from datetime import date, timedelta

import pytest

from core.grounding import check_numbers
from core.inputs import Financials, Prices, changes
from core.market import scorecard
from core.provenance import grounding_sources, market_figures
from core.transcript import parse_transcript

CALL = "Operator: Welcome. CEO: We had a good quarter and thank our teams."
FIN = Financials.model_validate(
    {
        "most_recent_earnings": {
            "fiscalDateEnding": "2026-06-30",
            "totalRevenue": "612000000",
            "netIncome": "41200000",
            "operatingCashflow": "71000000",
        },
        "previous_earnings": {
            "fiscalDateEnding": "2026-03-31",
            "totalRevenue": "565000000",
            "netIncome": "35100000",
            "operatingCashflow": "64000000",
        },
        "same_quarter_last_year_earnings": {
            "fiscalDateEnding": "2025-06-30",
            "totalRevenue": "523000000",
            "netIncome": "44900000",
            "operatingCashflow": "58000000",
        },
        "consensus": {
            "fiscalDateEnding": "2026-06-30",
            "reportedDate": "2026-07-28",
            "reportedEPS": "1.73",
            "estimatedEPS": "1.61",
            "surprise": "0.12",
            "surprisePercentage": "7.4534",
        },
    }
)


def _series(symbol: str, closes: list[float]) -> dict[str, object]:
    start = date(2026, 4, 1)
    return {
        "symbol": symbol,
        "bars": [
            {"date": str(start + timedelta(days=i)), "open": c, "high": c * 1.01,
             "low": c * 0.99, "close": c, "volume": 1000}
            for i, c in enumerate(closes)
        ],
    }  # fmt: skip


PRICES = Prices.model_validate(
    {
        "company": _series("NWL", [100 + 6 * math.sin(i / 5) + i * 0.31 for i in range(60)]),
        "benchmark": _series("SPY", [400 + 4 * math.cos(i / 7) + i * 0.13 for i in range(60)]),
    }
)
SOURCES = grounding_sources(parse_transcript(CALL), FIN, PRICES)


def _quoted() -> list[tuple[str, str, str]]:
    """(figure as a report writes it, origin, what the provenance must name) for every change
    code computes and every scorecard value."""
    out = [(c.text().lstrip("+-"), "computed", c.formula) for c in changes(FIN)]
    for k in market_figures(scorecard(PRICES)):
        v = k.figure.value
        out.append((f"{v:.2f}%" if k.figure.kind == "percent" else f"{v:.2f}", "market",
                    k.detail))  # fmt: skip
    return out


def _report(figures: list[str]) -> str:
    return "\n".join(f"- reading: {f} as written" for f in figures)


def test_the_computed_changes_have_formulas_with_their_operands() -> None:
    revenue = {(c.label, c.basis): c for c in changes(FIN)}[("Revenue", "QoQ")]
    assert revenue.text() == "+8.3%"
    assert revenue.formula == (
        "Revenue QoQ = 612,000,000 / 565,000,000 - 1 (2026-06-30 vs 2026-03-31)"
    )
    (check,) = check_numbers("Revenue grew 8.3% on the quarter.", SOURCES)
    assert check.grounded and check.origin == "computed"
    assert check.provenance == f"computed: {revenue.formula}"


def test_a_report_quoting_every_computed_change_and_scorecard_value_is_all_supported() -> None:
    quoted = _quoted()
    assert len([q for q in quoted if q[1] == "computed"]) == 6  # 3 lines x QoQ, YoY
    assert len([q for q in quoted if q[1] == "market"]) >= 20
    checks = {c.text: c for c in check_numbers(_report([q[0] for q in quoted]), SOURCES)}
    for text, origin, _ in quoted:  # SMA 20 and the middle band share a value: any will do
        assert checks[text].grounded, text
        assert checks[text].origin == origin, (text, checks[text].provenance)
    rsi = next(c for c in checks.values() if "rsi_14" in (c.provenance or ""))
    assert rsi.provenance is not None and rsi.provenance.startswith("market data: NWL, 2026-05-30")


@pytest.mark.parametrize("i", range(len(_quoted())))
def test_a_changed_digit_in_any_of_them_is_flagged(i: int) -> None:
    text, _, _ = _quoted()[i]
    last = re.search(r"\d(?=\D*$)", text)
    assert last is not None
    wrong = text[: last.start()] + str((int(last.group()) + 5) % 10) + text[last.end() :]
    (check,) = check_numbers(_report([wrong]), SOURCES)
    assert not check.grounded and check.origin == "unsupported", (text, wrong, check.provenance)


@pytest.mark.parametrize(
    ("claim", "origin", "detail"),
    [
        ("We thank our teams.", None, None),
        ("Revenue of $612 million.", "statements", "totalRevenue, quarter ending 2026-06-30"),
        ("Net income was $44.9 million.", "statements", "netIncome, quarter ending 2025-06-30"),
        ("EPS of $1.73 was reported", "consensus", "reportedEPS"),
        ("against the $1.61 estimate", "consensus", "estimatedEPS"),
        ("a beat by 0.12 a share", "consensus", "surprise"),
        ("a surprise of 7.45%", "consensus", "surprisePercentage"),
        ("Net income fell 8.2%", "computed", "Net income YoY = 41,200,000 / 44,900,000 - 1"),
    ],
)  # fmt: skip
def test_each_origin_names_where(claim: str, origin: str | None, detail: str | None) -> None:
    checks = check_numbers(claim, SOURCES)
    if origin is None or detail is None:
        assert checks == []
        return
    assert all(c.origin == origin and detail in (c.provenance or "") for c in checks), checks


def test_stated_in_the_call_keeps_its_span() -> None:
    call = "CFO: Revenue rose 8.3% to a record."
    (check,) = check_numbers("Revenue rose 8.3%.", grounding_sources(parse_transcript(call), FIN))
    assert check.origin == "call" and check.source_index == 0  # the call wins a tie
    assert call[check.source_start : check.source_end] == "8.3%"


def test_an_invented_figure_is_unsupported() -> None:
    (check,) = check_numbers("Backlog hit $7.7 billion.", SOURCES)
    assert (check.grounded, check.origin, check.provenance) == (False, "unsupported", None)


def test_older_reports_get_an_origin_from_where_they_matched() -> None:
    from core.contract import NumberCheck

    old = {"text": "$612", "value": 612.0, "kind": "money", "grounded": True, "source_index": 1}
    assert NumberCheck.model_validate(old).origin == "statements"
    assert NumberCheck.model_validate({**old, "source_index": 0}).origin == "call"
    assert NumberCheck.model_validate({**old, "grounded": False}).origin == "unsupported"


@pytest.mark.parametrize(
    ("claim", "detail"),
    [
        # a margin: net income / revenue, 41.2 / 612
        ("a net margin of 6.7%", "net margin = netIncome / totalRevenue = 41,200,000 / 612,000"),
        # its change against the year-ago quarter, in percentage points (6.73% - 8.59%)
        ("net margin down 1.85 percentage points", "net margin change = 6.73% - 8.59%"),
        ("net margin down 1.85pp", "net margin change = 6.73% - 8.59%"),
        # a pair of quarters that are neither QoQ nor YoY of the newest: 565 / 523 - 1
        ("revenue grew 8.0% from a year ago to the March quarter",
         "totalRevenue change = 565,000,000 / 523,000,000 - 1 (2026-03-31 vs 2025-06-30)"),
        # the amount of a change, 612 - 523
        ("revenue rose by $89 million", "totalRevenue change = 612,000,000 - 523,000,000"),
        ("operating cash flow was 11.6% of revenue", "operating cash flow = operatingCashflow"),
    ],
)  # fmt: skip
def test_what_code_derives_from_the_statements_is_computed_with_its_formula(
    claim: str, detail: str
) -> None:
    """Margins, ratios, changes between any two quarters, their amounts and margin changes in
    percentage points are sources with their derivation (issue 39), never "unsupported"."""
    (check,) = check_numbers(claim, SOURCES)
    assert check.grounded and check.origin == "computed", check
    assert detail in (check.provenance or ""), check.provenance


def test_a_relative_return_in_percentage_points_is_market_data() -> None:
    rel = next(k for k in market_figures(scorecard(PRICES)) if "relative_return" in k.detail)
    (check,) = check_numbers(f"beat the index by {rel.figure.value:.2f} pp", SOURCES)
    assert check.grounded and check.origin == "market" and "relative_return" in (
        check.provenance or "")  # fmt: skip


def test_an_invented_margin_is_still_unsupported() -> None:
    (check,) = check_numbers("a net margin of 23.4%", SOURCES)
    assert (check.grounded, check.origin) == (False, "unsupported")


def test_the_calls_tone_as_code_scores_it_is_computed() -> None:
    """The call facts' tone table (net tone, uncertainty per 1,000 words) is a source with its
    counts (issue 39): a report quoting it is not "unsupported"."""
    from core.facts.sentences import sentences
    from core.facts.tone import tone_of

    call = parse_transcript(
        "CEO: We delivered strong growth and excellent results, despite an uncertain market.\n"
        "CFO: Demand may weaken, but margins improved and we are confident."
    )
    tone = tone_of(call, sentences(call))
    whole = next(g for g in tone.groups if g.group == "whole call")
    claim = (
        f"Net tone was {whole.net_tone:+.2f} with {whole.uncertainty_per_1k:.1f} uncertain words"
    )
    checks = check_numbers(claim, grounding_sources(call, None, tone=tone))
    assert [c.origin for c in checks] == ["computed", "computed"], checks
    assert all("tone, whole call" in (c.provenance or "") for c in checks)


def test_a_value_the_company_filed_is_a_source_with_its_filing() -> None:
    """The earnings release's rows (the filing check's filed values) are sources (issue 39): a
    report quoting the filed operating income is not "unsupported"."""
    from core.inputs import FiledValue

    filed = FiledValue(metric="operating_income", period="Q2 2026", value=66_500_000,
                       source="SEC EDGAR 8-K 0000999999-26-000031 exhibit 99.1")  # fmt: skip
    fin = FIN.model_copy(update={"filed": [filed]})
    (check,) = check_numbers("Operating income was $66.5 million.",
                             grounding_sources(parse_transcript(CALL), fin))  # fmt: skip
    assert check.grounded and check.origin == "statements"
    assert "filed: operating_income, Q2 2026 (SEC EDGAR 8-K" in (check.provenance or "")
    (alone,) = check_numbers("Operating income was $66.5 million.", SOURCES)
    assert not alone.grounded  # without the filing it is not supported
