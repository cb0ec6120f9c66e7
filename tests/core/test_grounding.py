from __future__ import annotations

import pytest

from core.grounding import check_numbers, extract_figures

SOURCE = (
    "Revenue rose 10.7 percent to 1,543.1 million. Adjusted EPS was $0.90. "
    "Net interest margin expanded 15 basis points. We hired 2,300 people."
)


@pytest.mark.parametrize(
    ("claim", "grounded"),
    [
        ("Revenue rose 10.7% year over year.", True),
        ("Revenue reached $1.54 billion.", True),  # 1,543.1 million within rounding
        ("Revenue reached $1.6 billion.", False),
        ("Adjusted EPS of $0.90 beat.", True),
        ("Adjusted EPS of $0.95 beat.", False),
        ("NIM up 0.15% on the quarter.", True),  # 15 basis points
        ("Headcount grew by 2,300.", True),
        ("Revenue rose 12.5%.", False),
        ("Margin of 1,543.1 percent", False),  # percent never matches a plain amount
    ],
)
def test_claims(claim: str, grounded: bool) -> None:
    checks = check_numbers(claim, [SOURCE])
    assert len(checks) == 1, checks
    assert checks[0].grounded is grounded


def test_report_apparatus_is_not_a_claim() -> None:
    text = "### 1-Day Trading Recommendation\nPosition: LONG\nConviction: 75%\n1. First point"
    assert check_numbers(text, [SOURCE]) == []


def test_duplicates_reported_once_with_context() -> None:
    checks = check_numbers("EPS $0.90 and again $0.90.", [SOURCE])
    assert len(checks) == 1 and "EPS" in checks[0].context
    assert checks[0].source_text == "$0.90"


def test_scales() -> None:
    values = {f.text: f.value for f in extract_figures("$2bn, 3.5 million, 40k, $1.2 trillion")}
    assert values == {"$2bn": 2e9, "3.5 million": 3.5e6, "40k": 4e4, "$1.2 trillion": 1.2e12}


def test_a_claim_may_round_its_source_but_never_add_precision_to_it() -> None:
    """ "11%" is the call's 10.7% rounded; "10.7%" where the call says only "11%" is a figure
    the call does not state (a model's invention shown as found, before)."""
    [rounded] = check_numbers("Revenue rose 11%.", ["Revenue rose 10.7% year over year."])
    assert rounded.grounded and rounded.source_text == "10.7%"
    [finer] = check_numbers("Revenue rose 10.7%.", ["Diesel costs rose 11% in the quarter."])
    assert not finer.grounded and finer.origin == "unsupported"


def test_the_closest_figure_is_the_one_cited() -> None:
    """When the call says both 11% and 10.7%, a claim of 10.7% cites 10.7%."""
    source = "Diesel costs rose 11% in the quarter. Revenue rose 10.7% year over year."
    (check,) = check_numbers("Revenue rose 10.7%.", [source])
    assert check.grounded and check.source_text == "10.7%"
    assert check.source_start == source.index("10.7%")


def test_ectsum_scale_words() -> None:
    """ECTSum's bullets write "$6.15 bln" and "$109.8 mln": the same values as the call's."""
    from core.grounding import extract_figures, same_figure

    [bln] = extract_figures("sees revenue $6.15 bln")
    [mln] = extract_figures("net income $109.8 mln")
    [call_b] = extract_figures("$6.15 billion")
    [call_m] = extract_figures("$109.8 million")
    assert same_figure(bln, call_b) and same_figure(mln, call_m) and bln.value == 6.15e9


def test_a_percentage_never_matches_a_plain_amount_of_the_same_value() -> None:
    """Both directions, same value: 12% is not grounded by "12 stores", nor 12 stores by 12%."""
    from core.grounding import check_numbers

    [pct] = check_numbers("Gross margin was 12% in the quarter.", ["We opened 12 stores."])
    assert pct.kind == "percent" and not pct.grounded
    [plain] = check_numbers("We opened 12 stores.", ["Gross margin was 12% in the quarter."])
    assert plain.kind != "percent" and not plain.grounded
    [both] = check_numbers("Gross margin was 12%.", ["margin of 12 percent"])
    assert both.grounded  # the same percentage, written otherwise, still matches
