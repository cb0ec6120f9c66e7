"""Classes found on the real tuning calls (tests/fixtures/facts_real/, split.json "tuning"), each
with invented words, not the calls' own: each fails on the code before its fix. The validation
calls were never read for these."""

from __future__ import annotations

from typing import Any

import pytest

from core.contract import CallFacts, CallInfo
from core.facts import call_facts
from core.transcript import parse_transcript

pytestmark = pytest.mark.usefixtures("all_rules_verified")


def _facts(text: str, period: str | None = "Q3 2021", company: str | None = "Acme") -> CallFacts:
    given = CallInfo(period=period, company=company) if period or company else None
    return call_facts(parse_transcript(text), call=given)


def _rows(text: str, **kw: Any) -> list[Any]:
    """Every row, verified or not, and the change and comparison stated with a key figure (as
    rows of their own, with the key figure's metric and segment)."""
    f = _facts(text, **kw)
    out: list[Any] = []
    for k in f.key_figures + f.unconfirmed_key_figures:
        out.append(k)
        for extra in (k.change, k.prior):
            if extra is not None:
                out.append(_Extra(k, extra))
    return out + f.guidance + f.unconfirmed_guidance


class _Extra:
    """A key figure's change or comparison, read as a row."""

    def __init__(self, key: Any, extra: Any) -> None:
        self.text, self.role, self.basis, self.value = (
            extra.text,
            extra.role,
            extra.basis,
            extra.value,
        )
        self.period = extra.period if extra.role == "comparison" else key.period
        self.metric, self.segment, self.direction = key.metric, key.segment, None


def _row(text: str, figure: str, **kw: Any) -> Any:
    found = [r for r in _rows(text, **kw) if r.text == figure or r.text.startswith(figure)]
    assert found, f"no row for {figure!r} in {[r.text for r in _rows(text, **kw)]}"
    return found[0]


def _no_row(text: str, figure: str, **kw: Any) -> None:
    assert not [r.text for r in _rows(text, **kw) if r.text.startswith(figure)]


# -- the call's year: only from words that state the reported period -------------------------


def test_a_year_is_taken_only_from_words_that_state_the_reported_period() -> None:
    history = (
        "Our third quarter was a good one.\n"
        "Casino revenues were 8% above second-quarter 2019 levels.\n"
        "Revenue was 31% below the third quarter of 2019.\n"
        "To level set, Q3 2020 SG&A of $65 million was abnormally low.\n"
        "We refer you to our 2020 annual report on Form 10-K.\n"
        "Revenue was $400 million in the third quarter.\n"
    )
    f = _facts(history, period=None, company=None)
    assert f.call.period is None
    assert any("but not its year" in n for n in f.notes)
    # no row takes a guessed year: only the one whose own words give it (Q3 2020's SG&A)
    assert [(k.text, k.period) for k in f.key_figures + f.unconfirmed_key_figures] == [
        ("$65 million", "Q3 2020")
    ]
    stated = history + "We reported third quarter 2021 revenue of $400 million.\n"
    assert _facts(stated, period=None, company=None).call.period == "Q3 2021"
    paired = "Fiscal '22 is off to a strong start with the first quarter.\nSales grew 9%.\n"
    assert _facts(paired, period=None, company=None).call.period == "Q1 2022"


# -- periods ---------------------------------------------------------------------------------


def test_periods_a_year_ago_quarter_a_count_of_quarters_a_cause_and_the_reported_quarter() -> None:
    q4 = (
        "For the full year 2020, revenue was $3.2 billion.\n"
        "Total operating income was $35.0 million, down from $43.6 million in the prior year "
        "quarter.\n"
    )
    assert _row(q4, "$35.0 million", period="Q4 2020").period == "Q4 2020"
    row = "Growth in adjusted EPS exceeded 30% for the second quarter in a row.\n"
    assert _row(row, "30%").period == "Q3 2021"
    cause = "Operating expense declined 2% linked quarter, driven by seasonal impacts in Q1.\n"
    assert _row(cause, "2%").period == "Q3 2021"
    outlook = (
        "For the fourth quarter of 2021, we expect revenue of $250 million to $260 million.\n"
        "We expect EPS of $0.30 to $0.34 as the third quarter's outperformance flows through.\n"
    )
    assert _row(outlook, "$0.30").period == "Q4 2021"


def test_left_out_a_multi_year_rate_a_months_figure_and_an_items_effect() -> None:
    _no_row("Net income grew 12% at a compound annual growth rate since 2015.\n", "12%")
    _no_row("August occupancy was 88% across the hotels.\n", "88%")
    effect = "The lower tax rate this quarter increased adjusted EPS by $0.09.\n"
    _no_row(effect, "$0.09")
    assert _row("This quarter we increased adjusted EPS by $0.09.\n", "$0.09").role == "change"
    _no_row("The bank made $310 million in new loans this quarter.\n", "$310 million")
    _no_row("Industrial production rose 4.2% in the quarter.\n", "4.2%")
    _no_row("Claims paid of $40 million were below our provision of $88 million.\n", "$88 million")
    credit = "Our provision of $88 million reflected a reserve build for loan growth.\n"
    assert _row(credit, "$88 million").metric == "provision"


def test_liquidity_and_return_on_tangible_equity_are_their_own_measures() -> None:
    text = (
        "Between cash on hand and our revolver, total liquidity was about $640 million.\n"
        "Return on tangible common equity was 14.2% in the quarter.\n"
        "Cash and cash equivalents were $210 million.\n"
    )
    assert _row(text, "$640 million").metric == "liquidity"
    assert _row(text, "14.2%").metric == "return_on_tangible_equity"
    assert _row(text, "$210 million").metric == "cash"


# -- bases -----------------------------------------------------------------------------------


def test_bases_the_call_states_around_the_figure() -> None:
    assert _row("On a core basis, net income was $58 million.\n", "$58 million").basis == (
        "adjusted"
    )
    cc = "Adjusting for currency translation effects, net sales declined by 7.4% in the quarter.\n"
    assert _row(cc, "7.4%").basis == "constant_currency"
    also = "In Harbor Systems, also adjusting for currency effects, net sales were down 3.1%.\n"
    assert _row(also, "3.1%").basis == "constant_currency"
    after = "Digital revenue was up 22.5% to $61 million, excluding FX.\n"
    assert _row(after, "22.5%").basis == "constant_currency"
    assert _row(after, "$61 million").basis == "constant_currency"
    nearer = "Bookings grew by 11% as reported and by 8% year-over-year in constant currency.\n"
    assert _row(nearer, "8%").basis == "constant_currency"
    assert _row("Underlying revenue growth was 6% for the quarter.\n", "6%").basis == "organic"
    tax = "Adjusting for nonrecurring restructuring costs, the effective tax rate was 23.9%.\n"
    assert _row(tax, "23.9%").basis == "adjusted"
    implied = (
        "We expect fourth quarter adjusted earnings to be between breakeven and a loss of $0.06 "
        "per share.\n"
    )
    assert _row(implied, "$0.06").basis == "adjusted"
    elsewhere = (
        "We reported third quarter adjusted earnings of $1.31 per diluted share.\n"
        "Third quarter earnings per share increased 18% to $1.31.\n"
    )
    assert {r.basis for r in _rows(elsewhere) if r.text == "$1.31"} == {"adjusted"}


# -- guidance directions ---------------------------------------------------------------------


def test_guidance_directions_from_the_words_around_the_item() -> None:
    initial = (
        "At the total company level, we are providing initial 2022 guidance as follows: revenue "
        "of between $410 million and $430 million; capital expenditures of $20 million to $25 "
        "million.\n"
    )
    assert _row(initial, "$410 million").direction == "introduced"
    assert _row(initial, "$20 million").direction == "introduced"
    still = "We still expect adjusted EPS for 2021 to be in the range of $0.50 to $0.58.\n"
    assert _row(still, "$0.50").direction == "reaffirmed"
    remains = (
        "We expect 2021 adjusted EBITDA of $70 million, and our tax rate guidance remains in the "
        "range of 25% to 27%.\n"
    )
    assert _row(remains, "25%").direction == "reaffirmed"
    assert _row(remains, "$70 million").direction is None
    guide = (
        "For 2021 we now expect EPS of $3.10 to $3.20, up from our prior guide of $2.95 to $3.05.\n"
    )
    assert _row(guide, "$3.10").direction == "raised"
    _no_row(guide, "$2.95")  # the prior range beside the new one is never current guidance
    previously = "We expect 2021 EPS of $1.20 to $1.25 compared to $1.15 to $1.20 previously.\n"
    assert _row(previously, "$1.20").direction == "raised"
    _no_row(previously, "$1.15")
    partly = (
        "We are raising several elements of our fiscal 2021 outlook.\n"
        "Recurring revenue is now expected to grow 9% to 11% in fiscal 2021.\n"
        "Total revenue is now anticipated to grow 4% to 6% in fiscal 2021.\n"
        "The tax rate is expected to be 21% to 23% for fiscal 2021.\n"
    )
    assert _row(partly, "4%").direction == "raised"
    assert _row(partly, "21%").direction is None
    not_about_outlook = (
        "We continue to anticipate meaningful margin expansion beyond 2021.\n"
        "In the first quarter of 2022, we expect revenue of $300 million to $310 million.\n"
    )
    assert _row(not_about_outlook, "$300 million", period="Q4 2021").direction is None


# -- metric, role, segment -------------------------------------------------------------------


def test_metric_role_and_segment_classes() -> None:
    cash = (
        "For the full year 2021, we expect to generate $600 million to $700 million in cash from "
        "operations and $450 million to $550 million in free cash flow.\n"
    )
    assert _row(cash, "$450 million").metric == "free_cash_flow"
    base = (
        "Gross margin improved to 36.1%, up 90 basis points from an adjusted gross margin of "
        "35.2% last year.\n"
    )
    assert _row(base, "35.2%").role == "comparison"
    reached = "Pricing drove an increase in full-year adjusted EBITDA to $48.2 million.\n"
    assert _row(reached, "$48.2 million", period="Q4 2021").role == "result"
    geo = "In North America, comparable sales increased 14% in the U.S. and 9% in Canada.\n"
    assert _row(geo, "14%").segment == "in the U.S"
    at = "Gross profit increased $4.4 million at Brightline Retail.\n"
    assert _row(at, "$4.4 million").segment == "Brightline Retail"
    assert _row("Customer deposits increased $510 million.\n", "$510 million").segment is None
    unlevered = "Unlevered free cash flow for the quarter totaled $38 million.\n"
    assert _row(unlevered, "$38 million").segment is None


def test_not_an_outlook_a_result_without_an_item_or_a_remark() -> None:
    would = (
        "Excluding the amortization expense, our adjusted diluted earnings per share would be "
        "$4.11 for the year.\n"
    )
    assert all(
        r.text != "$4.11" for r in _facts(would).guidance + _facts(would).unconfirmed_guidance
    )
    noted = (
        "It should be noted that segment revenues declined $85 million versus the first quarter.\n"
    )
    f = _facts(noted)
    assert not f.guidance + f.unconfirmed_guidance


def test_flat_is_a_change_of_zero_in_a_result_and_an_outlook() -> None:
    result = _row("Aerospace revenues were flat versus prior year.\n", "flat")
    assert (result.role, result.value, result.segment) == ("change", 0, "Aerospace")
    outlook = "For 2022, we expect organic growth to be flat.\n"
    assert _row(outlook, "flat").role == "change"


def test_directions_reinstated_and_now_expected_as_the_outlook_moved() -> None:
    reinstated = (
        "We are reinstating full year 2021 guidance with a core FFO range of $1.02 per share.\n"
    )
    assert _row(reinstated, "$1.02").direction == "introduced"
    moved = (
        "We are raising our full year 2021 guidance.\n"
        "Revenue for the full year is expected to grow 6% to 8%.\n"
        "Adjusted EPS is now expected to be in the range of $2.10 to $2.20 for 2021.\n"
        "The tax rate for 2021 is expected to be about 21%.\n"
    )
    assert _row(moved, "$2.10").direction == "raised"
    assert _row(moved, "21%").direction is None  # no "now": the call does not say it moved


def test_a_basis_declared_once_covers_the_unqualified_earnings_figures_after_it() -> None:
    said = (
        "I will discuss our results on an adjusted basis.\n"
        "Net income was $72 million.\n"
        "Revenue was $500 million.\n"
    )
    assert _facts(said).call.adjusted_by_default
    assert _row(said, "$72 million").basis == "adjusted"
    assert _row(said, "$500 million").basis is None  # revenue stays as named (the gold's rule)
    core = "Our results are core measures unless noted.\nEPS was $1.10.\n"
    assert _row(core, "$1.10").basis == "adjusted"


def test_a_window_that_begins_inside_non_gaap_does_not_read_gaap() -> None:
    """A basis window cut 30 characters before the figure started inside "Non-GAAP" and read
    "n-GAAP" as GAAP (an adjusted EPS shown as GAAP EPS)."""
    said = (
        "Net sales were $410 million.\n"
        "Non-GAAP earnings per share was $0.91 per diluted share this quarter versus $0.52 a "
        "year ago.\n"
    )
    assert _row(said, "$0.91").basis == "adjusted"


def test_a_part_introduced_by_spending_time_on_it_stays_the_subject() -> None:
    """ "I'll now spend a few minutes on Joybird, which turned in a great quarter." then an
    unqualified "Written sales increased 125%": the part's figure, not the company's."""
    said = (
        "Net sales were $410 million, up 12%.\n"
        "I'll now spend a few minutes on Harbor Goods, which turned in a great quarter.\n"
        "Written sales increased 120% in the quarter versus the prior year period.\n"
    )
    assert [r.text for r in _rows(said)][:2] == ["$410 million", "12%"]
    # left out (the part under discussion, not named in the sentence) or the part's
    assert all(r.segment == "Harbor Goods" for r in _rows(said) if r.text == "120%")


def test_a_change_over_a_named_quarter_is_this_quarters_change() -> None:
    """ "revenue increased approximately $6.5 million over Q2 '21" on a Q3 call: Q2 is what the
    change is measured against, not the change's period."""
    said = "Our total revenue increased approximately $4.1 million over Q2 '21, up about 6%.\n"
    assert _row(said, "$4.1 million").period == "Q3 2021"


def test_the_period_that_opens_the_clause_is_the_figures_own() -> None:
    """ "Fourth-quarter 2020 consolidated adjusted operating income of $9.6 million was the best
    quarterly performance in 2020": the quarter named before the metric, not the year after."""
    said = (
        "Third-quarter 2021 consolidated adjusted operating income of $12.4 million was the best "
        "quarterly result in 2021.\n"
    )
    assert _row(said, "$12.4 million").period == "Q3 2021"


def test_a_figure_said_of_a_month_is_left_out() -> None:
    """ "occupancy grew 40 basis points in October, compared to the third quarter": a month's
    figure, not the quarter's."""
    said = (
        "Same-store average occupancy grew 30 basis points in November, compared to the third "
        "quarter.\n"
    )
    _no_row(said, "30 basis points")


# -- classes found by the cold review of 2026-11-27 (b) (docs/results/cold_review_2026-11-27b.md)


def test_a_company_whose_name_ends_in_s_is_not_a_part_of_itself() -> None:
    """A name's own final "s" was stripped as if possessive ("Loews" -> "loew"), so "Loews
    reported net income of ..." was shown as a part called "Loews"."""
    said = (
        "For the third quarter, Harrows reported net income of $220 million or $0.85 per share.\n"
    )
    for figure in ("$220 million", "$0.85"):
        assert _row(said, figure, company="Harrows Corporation").segment is None


def test_a_figure_up_from_another_is_the_level() -> None:
    """ "Adjusted EBITDA was $126 million up from $79 million": $126 million is the level."""
    said = "Adjusted EBITDA was $131 million up from $82 million in the prior year quarter.\n"
    row = _row(said, "$131 million")
    assert row.role == "result" and row.value == 131e6


def test_growth_in_local_currency_is_constant_currency() -> None:
    said = "Sales were $810 million, an increase of 6% in local currency.\n"
    assert _row(said, "6%").basis == "constant_currency"


def test_an_outlook_increase_to_a_range_states_the_range_as_the_level() -> None:
    """ "a 19% to 48% increase in Q4 adjusted EBITDA to a range of $45 million to $56 million":
    the range is the level the outlook reaches, not the increase."""
    said = (
        "We are forecasting a 10% to 30% increase in Q4 adjusted EBITDA to a range of $41 million "
        "to $52 million.\n"
    )
    f = _facts(said)
    ranges = [g for g in f.guidance + f.unconfirmed_guidance if g.text.startswith("$41 million")]
    assert ranges and ranges[0].role == "result"


# -- classes found by the cold review of 2026-11-27 (c) (docs/results/cold_review_2026-11-27c.md)


def test_the_companys_initials_are_the_company() -> None:
    """ "AAM's adjusted EBITDA ... was $183 million" on American Axle & Manufacturing's call: the
    initials the call names itself by, not a part called "AAM"."""
    said = "Net sales were $1.21 billion.\nHAM's adjusted EBITDA in the quarter was $171 million.\n"
    row = _row(said, "$171 million", company="Harbor Axle & Machining, Inc.")
    assert row.segment is None


def test_a_long_adjusting_opening_makes_the_figures_adjusted() -> None:
    said = (
        "Net sales were $410 million.\n"
        "After adjusting for the impact of excess tax benefits from stock option exercises and "
        "other non-recurring tax items, net earnings totaled $97 million or $0.57 per diluted "
        "share.\n"
    )
    assert _row(said, "$0.57").basis == "adjusted"
    assert _row(said, "$97 million").basis == "adjusted"


def test_a_directors_former_employer_is_not_the_company() -> None:
    said = (
        "Revenue was $560 million, up 8%.\n"
        "Jane Roe comes to our Board as the Former Vice Chairman and Chief Financial Officer of "
        "Granite Parts Company.\n"
    )
    assert _facts(said, period=None, company=None).call.company is None


def test_the_company_as_its_own_people_name_it() -> None:
    """Excerpts without the operator's welcome still name the company in their people's words:
    "I have been with Avista since 2009", "We at Air Lease Corporation", "Investor Relations at
    Mettler Toledo"; a part's people ("the entire Journeys team") are not read as the company."""
    for said, name in (
        ("By way of introduction, I have been with Brightwater since 2011.\n", "Brightwater"),
        ("We at Harbor Lease Corporation have not underestimated the year.\n", "Harbor Lease"),
        ("I'm responsible for Investor Relations at Kettler Tools and glad you joined.\n",
         "Kettler Tools"),
    ):  # fmt: skip
        company = _facts("Revenue was $560 million, up 8%.\n" + said, period=None, company=None)
        assert company.call.company is not None and name in company.call.company, said
    team = "Revenue was $560 million.\nThanks to the entire Journeys team for the quarter.\n"
    assert _facts(team, period=None, company=None).call.company is None


def test_a_segment_named_with_a_word_of_the_companys_name_is_still_a_part() -> None:
    """ "Earnings at our water segment increased $0.04 per share" on American States Water's
    call: "water" is in the company's name, but "segment" says it is a part."""
    said = "Revenue was $120 million.\nEarnings at our gas segment increased $0.03 per share.\n"
    assert _row(said, "$0.03", company="Northern States Gas").segment == "gas"


def test_a_sentence_with_words_lost_in_transcription_gives_no_row() -> None:
    """A garbled call gets fewer rows, never wrong ones (issue 37): "[Indecipherable]",
    "[Inaudible]" or "[Technical Issues]" in a sentence mean words are missing around its
    figures; "[Phonetic]" only marks a name's spelling."""
    said = (
        "Net sales were $410 million, up 12%.\n"
        "[Inaudible] operating income of $52 million, up 5%.\n"
        "Thanks to Jon Kowalczyk [Phonetic]; free cash flow was $31 million.\n"
    )
    texts = [r.text for r in _rows(said)]
    assert "$410 million" in texts and "$31 million" in texts
    assert "$52 million" not in texts


def test_reported_against_operational_growth_keeps_the_adjusted_measure() -> None:
    """ "Adjusted net income decreased 2% on a reported basis and increased 4% operationally":
    the 2% is the adjusted measure's change in reported currency, not a GAAP figure; a measure
    not named adjusted stays GAAP as reported."""
    said = (
        "Adjusted net income of $310 million fell 3% on a reported basis and grew 5% "
        "operationally.\n"
    )
    assert _row(said, "3%").basis == "adjusted"
    plain = "Revenue of $310 million fell 3% on a reported basis and grew 5% operationally.\n"
    assert _row(plain, "3%").basis == "gaap"


def test_a_mortgage_reits_economic_net_interest_income_is_its_adjusted_measure() -> None:
    said = "Economic net interest income for the third quarter was $98 million.\n"
    assert _row(said, "$98 million").basis == "adjusted"
    other = "Despite economic uncertainty, net interest income for the quarter was $98 million.\n"
    assert _row(other, "$98 million").basis is None


def test_a_balance_after_a_year_to_date_paragraph_is_at_the_quarters_end() -> None:
    said = (
        "For the first nine months, revenue was $150 million, up 12%. Normalized FFO was $0.52 per "
        "share. At quarter end, we had approximately $507 million in debt.\n"
    )
    assert str(_row(said, "$507 million").period) == "Q3 2021"
