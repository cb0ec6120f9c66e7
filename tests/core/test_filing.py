"""The filing check of the call's key figures (core/filing.py): a figure whose metric, basis
and period match a filed value matches when the filed value rounds to it as stated, differs
otherwise (the filed value shown, the figure left as stated); anything else is not compared."""

from __future__ import annotations

from typing import Any

from core.contract import CallFacts, KeyFigure
from core.filing import check, filed_values, filing_lines, filing_markdown, verdict
from core.inputs import Financials


def figure(**kw: Any) -> KeyFigure:
    base: dict[str, Any] = {
        "metric": "revenue", "label": "Revenue", "text": "$612 million", "value": 612e6,
        "kind": "money", "period": "Q2 2026", "section": "prepared", "start": 0, "end": 12,
        "sentence": "Revenue was $612 million.", "salience": 1.0,
    }  # fmt: skip
    return KeyFigure(**{**base, **kw})


FIN = Financials.model_validate(
    {
        "most_recent_earnings": {
            "fiscalDateEnding": "2026-06-30", "fiscalPeriod": "Q2 2026",
            "source": "SEC EDGAR 10-Q 0000999999-26-000035 filed 2026-08-05",
            "totalRevenue": "612,400,000", "netIncome": 70_000_000, "dilutedEPS": 0.56,
        },
        "previous_earnings": {"fiscalDateEnding": "2026-03-31", "totalRevenue": 600e6},
    }
)  # fmt: skip
FILED = filed_values(FIN, "the statements given with the run")


def test_a_figure_that_rounds_to_the_filed_value_matches() -> None:
    said = verdict(figure(), FILED)
    assert said == (
        "matches the filing (SEC EDGAR 10-Q 0000999999-26-000035 filed 2026-08-05, totalRevenue)"
    )
    assert verdict(figure(metric="eps", label="EPS", text="$0.56", value=0.56), FILED)
    assert "matches" in str(verdict(figure(text="$612.4 million", value=612.4e6), FILED))


def test_a_figure_that_does_not_differs_and_is_left_as_stated() -> None:
    k = figure(text="$621 million", value=621e6)
    said = verdict(k, FILED)
    assert said is not None and said.startswith("differs from the filing (filed: $612.4 million;")
    eps = verdict(figure(metric="eps", label="EPS", text="$0.58", value=0.58), FILED)
    assert eps is not None and "filed: $0.56" in eps
    checked = check(CallFacts(key_figures=[k]), FILED)
    assert checked.key_figures[0].value == 621e6 and checked.key_figures[0].text == "$621 million"
    assert checked.key_figures[0].filing == said


def test_only_the_same_metric_basis_period_and_company_are_compared() -> None:
    assert verdict(figure(period="Q1 2026"), FILED) is None  # no quarter named Q1 2026
    assert verdict(figure(basis="adjusted"), FILED) is None  # statements are GAAP
    assert verdict(figure(segment="Apparel"), FILED) is None
    assert verdict(figure(role="change", value=0.22e2, unit="percent"), FILED) is None
    assert verdict(figure(metric="ebitda"), FILED) is None
    assert "matches" in str(verdict(figure(basis="gaap", period="fiscal q2 2026"), FILED))
    assert filed_values(None, "x") == []  # no statements: nothing checked
    assert all(f.period == "Q2 2026" for f in FILED)  # the unnamed quarter is not used


def test_the_report_and_the_data_block_carry_the_verdicts() -> None:
    facts = check(CallFacts(key_figures=[figure(), figure(metric="ebitda", label="EBITDA")]), FILED)
    md = filing_markdown(facts)
    assert "| Revenue | $612 million | Q2 2026 | matches the filing (SEC EDGAR 10-Q" in md
    assert "EBITDA" not in md
    assert filing_lines(facts) == [
        "- Filing check, Revenue $612 million (Q2 2026): matches the filing (SEC EDGAR 10-Q "
        "0000999999-26-000035 filed 2026-08-05, totalRevenue)"
    ]
    assert filing_markdown(CallFacts(key_figures=[figure()])) == ""


def test_release_rows_are_read_in_the_tables_scale_and_never_guessed() -> None:
    from core.filing import release_values

    text = (
        "Acme Reports Third Quarter Fiscal 2025 Results\n"
        "Revenue of $1.2 billion, up 3%.\n"  # prose, not a table row: skipped
        "(in thousands, except per share amounts)\n"
        "Net sales $ 1,203,400 $ 1,100,000\n"
        "Net income (loss) $ (12,500) $ 8,000\n"
        "Diluted net income per share $ (0.11) $ 0.07\n"
    )
    got = {f.metric: f for f in release_values(text, "8-K x exhibit 99.1")}
    assert got["revenue"].value == 1_203_400_000 and got["revenue"].period == "Q3 2025"
    assert got["net_income"].value == -12_500_000 and got["eps"].value == -0.11
    assert got["revenue"].source == "8-K x exhibit 99.1, 'Net sales $ 1,203,400 $ 1,100,000'"
    assert release_values(text.replace("Third Quarter Fiscal 2025 ", ""), "x") == []
