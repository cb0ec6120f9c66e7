"""Which rows have earned "verified" (core/facts/verify.py): a row any rule under the
threshold decided, or any rule the table never measured, is "read by code, unconfirmed"; and the
report says what the verified rows measured on calls the rules were never tuned on."""

from __future__ import annotations

from typing import Any

from core.contract import CallInfo
from core.facts import call_facts
from core.facts.text import facts_markdown
from core.facts.verify import held_out_note, measuring_with, weak_rules
from core.transcript import parse_transcript

SAID = "Our revenue was $539 million.\nAdjusted EPS was $1.20.\n"


def _table(verified: bool, **extra: Any) -> dict[str, Any]:
    names = ("metric.before_adjacent", "metric.per_share_earnings", "role.level", "sign.as_stated",
             "segment.company", "basis.none_stated", "basis.adjusted_words",
             "period.call_default", "period.own_words", "identity.given")  # fmt: skip
    rules = {n: {"verified": verified, "used_precision": 0.97 if verified else 0.80,
                 "used_rows": 40} for n in names}  # fmt: skip
    return {"threshold": 0.95, "min_rows": 30, "rules": rules, **extra}


def _facts() -> Any:
    return call_facts(parse_transcript(SAID), call=CallInfo(company="Acme", period="Q3 2021"))


def test_a_rule_under_the_threshold_or_never_measured_makes_the_row_unconfirmed() -> None:
    with measuring_with(_table(True)):
        assert weak_rules([{"metric": "metric.before_adjacent"}]) == []
        assert weak_rules([{"period": "period.new_rule"}]) == ["period.new_rule (not measured)"]
        facts = _facts()
        assert [k.text for k in facts.key_figures] == ["$539 million", "$1.20"]
        assert facts.unconfirmed_key_figures == []
    with measuring_with(_table(False)):
        assert weak_rules([{"metric": "metric.before_adjacent"}]) == [
            "metric.before_adjacent (0.80 on 40 rows)"]  # fmt: skip
        facts = _facts()
        assert facts.key_figures == []
        assert [k.text for k in facts.unconfirmed_key_figures] == ["$539 million", "$1.20"]
        assert all(k.weak_rules for k in facts.unconfirmed_key_figures)


def test_the_report_says_what_verified_rows_measured_on_held_out_calls() -> None:
    held = {"calls": 28, "rows": 159, "precision": 0.836, "date": "2026-11-27"}
    with measuring_with(_table(True, held_out=held)):
        note = held_out_note()
        assert "28 real calls the rules were not tuned on, 84% of these rows (159)" in note
        assert note in facts_markdown(_facts())
    with measuring_with(_table(True)):
        assert "has not been measured" in held_out_note()
