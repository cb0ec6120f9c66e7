"""A company's calls read against each other by code (issue 40): the linking rule, guidance
against delivered, guidance against the previous call's, the trend, and the orders that must not
matter (storage order, fiscal years)."""

from __future__ import annotations

import random

import pytest

from core.contract import CallInfo
from core.facts import call_facts
from core.facts.periods import Period, parse_label
from core.memory import (
    CallRecord,
    Line,
    company_key,
    record_of,
    track_record,
    track_record_markdown,
)
from core.transcript import parse_transcript


def _p(label: str) -> Period:
    p = parse_label(label)
    assert p is not None
    return p


def _line(metric: str, period: str, low: float, high: float | None = None, *,
          role: str = "result", unit: str = "money", basis: str | None = None,
          said: str | None = None) -> Line:  # fmt: skip
    high = low if high is None else high
    return Line(metric, basis, role, unit, _p(period), low, high, f"{low:g}-{high:g}",
                f"quote {metric} {period}", said)  # fmt: skip


def _call(call_id: str, period: str, results: tuple[Line, ...] = (),
          outlooks: tuple[Line, ...] = ()) -> CallRecord:  # fmt: skip
    return CallRecord(call_id, _p(period), company="Acme", ticker="ACME", results=results,
                      outlooks=outlooks)  # fmt: skip


def test_calls_link_by_ticker_else_by_exact_name_never_by_likeness() -> None:
    assert company_key("nwl", "Anything") == "T:NWL"
    assert company_key(None, "Northwind Logistics, Inc.") == company_key(
        None, "northwind logistics"
    )
    assert company_key(None, "Northwind Logistic") != company_key(None, "Northwind Logistics")
    assert company_key(None, None) is None and company_key(" ", "Inc.") is None


@pytest.mark.parametrize(("actual", "verdict", "by"), [
    (2.40, "met", None), (2.46, "met", None), (2.50, "beat", 0.04), (2.30, "missed", -0.05),
])  # fmt: skip
def test_an_outlook_against_the_result(actual: float, verdict: str, by: float | None) -> None:
    guide = _call("q2", "Q2 2021", outlooks=(_line("revenue", "FY 2021", 2.35, 2.46),))
    year = _call("q4", "Q4 2021", results=(_line("revenue", "FY 2021", actual),))
    tr = track_record(year, [guide])
    assert tr is not None
    (row,) = tr.delivered
    assert (row.verdict, row.guided_in, row.period) == (verdict, "q2", "FY 2021")
    assert row.by == (None if by is None else pytest.approx(by))


def test_a_point_guide_is_met_within_one_percent_and_silence_is_not_reported() -> None:
    guide = _call("q3", "Q3 2021", outlooks=(_line("eps", "Q4 2021", 1.00, unit="money"),
                                              _line("capex", "Q4 2021", 50.0)))  # fmt: skip
    now = _call("q4", "Q4 2021", results=(_line("eps", "Q4 2021", 1.009),))
    tr = track_record(now, [guide])
    assert tr is not None
    verdicts = {d.metric: d.verdict for d in tr.delivered}
    assert verdicts == {"eps": "met", "capex": "not reported"}


def test_the_latest_outlook_before_the_result_is_the_one_compared() -> None:
    q1 = _call("q1", "Q1 2021", outlooks=(_line("revenue", "FY 2021", 2.0, 2.1),))
    q3 = _call("q3", "Q3 2021", outlooks=(_line("revenue", "FY 2021", 2.3, 2.4),))
    q4 = _call("q4", "Q4 2021", results=(_line("revenue", "FY 2021", 2.35),))
    tr = track_record(q4, [q3, q1])
    assert tr is not None and [(d.guided_in, d.verdict) for d in tr.delivered] == [("q3", "met")]


@pytest.mark.parametrize(("before", "now", "verdict"), [
    ((2.35, 2.42), (2.40, 2.46), "raised"), ((2.35, 2.42), (2.20, 2.30), "lowered"),
    ((2.35, 2.42), (2.35, 2.42), "maintained"), ((2.35, 2.45), (2.38, 2.42), "narrowed"),
    ((2.38, 2.42), (2.30, 2.50), "widened"),
])  # fmt: skip
def test_an_outlook_against_the_previous_calls(
    before: tuple[float, float], now: tuple[float, float], verdict: str
) -> None:
    q2 = _call("q2", "Q2 2021", outlooks=(_line("revenue", "FY 2021", *before),))
    q3 = _call("q3", "Q3 2021", outlooks=(_line("revenue", "FY 2021", *now),))
    tr = track_record(q3, [q2])
    assert tr is not None and [r.verdict for r in tr.revisions] == [verdict]


def test_new_dropped_and_a_year_reported_by_the_fourth_quarter_call() -> None:
    q3 = _call("q3", "Q3 2021", outlooks=(_line("revenue", "FY 2021", 2.3, 2.4),
                                          _line("capex", "FY 2022", 90.0)))  # fmt: skip
    q4 = _call("q4", "Q4 2021", results=(_line("revenue", "FY 2021", 2.35),),
               outlooks=(_line("revenue", "FY 2022", 2.5, 2.6),))  # fmt: skip
    tr = track_record(q4, [q3])
    assert tr is not None
    got = {(r.metric, r.period): r.verdict for r in tr.revisions}
    # FY 2021 is delivered by the Q4 call, not dropped; FY 2022 capex is no longer guided
    assert got == {("revenue", "FY 2022"): "new", ("capex", "FY 2022"): "dropped"}
    assert [(d.period, d.verdict) for d in tr.delivered] == [("FY 2021", "met")]


def test_the_calls_words_and_the_numbers_are_both_shown_when_they_differ() -> None:
    q2 = _call("q2", "Q2 2021", outlooks=(_line("revenue", "FY 2021", 2.35, 2.42),))
    q3 = _call("q3", "Q3 2021", outlooks=(_line("revenue", "FY 2021", 2.40, 2.46,
                                                said="reaffirmed"),))  # fmt: skip
    tr = track_record(q3, [q2])
    assert tr is not None
    (row,) = tr.revisions
    assert (row.verdict, row.call_says, row.disagrees) == ("raised", "reaffirmed", True)
    assert "reaffirmed (differs)" in track_record_markdown(tr)


def test_storage_order_does_not_matter_and_fiscal_labels_line_up() -> None:
    """Calls stored in any order give the same record; a June fiscal year's Q4 2020 precedes its
    Q1 2021 (calendar Q3 2020) because periods are the calls' fiscal labels."""
    calls = [
        _call("fq4-20", "Q4 2020", results=(_line("revenue", "Q4 2020", 800.0),),
              outlooks=(_line("gross_margin", "FY 2021", 57.0, 59.0, unit="percent"),)),
        _call("fq1-21", "Q1 2021", results=(_line("revenue", "Q1 2021", 820.0),),
              outlooks=(_line("gross_margin", "FY 2021", 58.0, 60.0, unit="percent"),)),
        _call("fq2-21", "Q2 2021", results=(_line("revenue", "Q2 2021", 850.0),)),
    ]  # fmt: skip
    now = _call("fq3-21", "Q3 2021", results=(_line("revenue", "Q3 2021", 870.0),))
    first = track_record(now, calls)
    shuffled = calls[:]
    random.Random(3).shuffle(shuffled)
    assert track_record(now, shuffled) == first
    assert first is not None and first.periods == ["Q4 2020", "Q1 2021", "Q2 2021", "Q3 2021"]
    (trend,) = first.trend
    assert list(trend.values) == ["Q4 2020", "Q1 2021", "Q2 2021", "Q3 2021"]


def test_no_earlier_call_no_section_and_the_same_period_is_not_earlier() -> None:
    q3 = _call("q3", "Q3 2021")
    assert track_record(q3, []) is None
    assert track_record(q3, [_call("q3-again", "Q3 2021")]) is None


def test_from_the_call_facts_of_two_invented_calls() -> None:
    """The whole path on words: the rows the call facts verify become the records."""
    q2 = parse_transcript(
        "Revenue was $590 million, up 6% year over year. For the full year we expect revenue of "
        "$2.35 billion to $2.42 billion.\n"
    )
    q3 = parse_transcript(
        "Revenue was $612 million, up 8% year over year. We now expect full-year revenue of "
        "$2.40 billion to $2.46 billion.\n"
    )
    first = record_of("q2", call_facts(q2, call=CallInfo(company="Acme", period="Q2 2021")))
    second = record_of("q3", call_facts(q3, call=CallInfo(company="Acme", period="Q3 2021")))
    assert first is not None and second is not None
    assert [(o.metric, o.period.label(), o.low) for o in first.outlooks] == [
        ("revenue", "FY 2021", 2.35e9)]  # fmt: skip
    tr = track_record(second, [first])
    assert tr is not None
    assert [(r.metric, r.period, r.verdict) for r in tr.revisions] == [
        ("revenue", "FY 2021", "raised")]  # fmt: skip
    assert [t.values for t in tr.trend] == [{"Q2 2021": "$590 million", "Q3 2021": "$612 million"}]


def test_the_facts_pipelines_rules_read_the_track_record() -> None:
    """A raise the numbers show (the call's words did not say it) and a beat of what was guided
    are fundamental signals; the same facts without a record fire neither."""
    from core.rules import signals, stance

    q2 = _call("q2", "Q2 2021", outlooks=(_line("revenue", "FY 2021", 2.35, 2.42),
                                          _line("revenue", "Q3 2021", 600.0, 610.0)))  # fmt: skip
    q3 = _call("q3", "Q3 2021", results=(_line("revenue", "Q3 2021", 620.0),),
               outlooks=(_line("revenue", "FY 2021", 2.40, 2.46),))  # fmt: skip
    record = track_record(q3, [q2])
    assert record is not None
    facts = call_facts(parse_transcript("We had a good quarter.\n"))
    fired = signals(facts, record)
    names = [s.rule for s in fired]
    assert names == ["revenue outlook raised against the previous call's (FY 2021)",
                     "revenue beat the outlook (Q3 2021)"]  # fmt: skip
    assert [s.weight for s in fired] == [1.5, 1.0] and all(s.fundamental for s in fired)
    assert signals(facts) == []
    recs, _ = stance(facts, record)
    assert recs[2].position.value == "LONG"  # a month weighs the fundamentals 1.5x


def test_how_far_a_result_missed_its_outlook_is_said_in_its_unit() -> None:
    """ "beat by $12 million", "missed by 0.3 percentage points": never a raw 1.2e+07."""
    q1 = parse_transcript("For the second quarter we expect revenue of $590 million to $600 "
                          "million.\n")  # fmt: skip
    q2 = parse_transcript("Revenue was $612 million, up 8% year over year.\n")
    first = record_of("q1", call_facts(q1, call=CallInfo(company="Acme", period="Q1 2026")))
    second = record_of("q2", call_facts(q2, call=CallInfo(company="Acme", period="Q2 2026")))
    assert first is not None and second is not None
    tr = track_record(second, [first])
    assert tr is not None and [d.verdict for d in tr.delivered] == ["beat"]
    text = track_record_markdown(tr)
    assert "beat by $12 million" in text and "e+0" not in text
