"""Every named rule of core.facts.binding runs on the example sentence it exists for, and the row
it makes (or leaves out) is the one the example expects, with that rule named in the row's chain
(or as the rule that left the figure out); every metric of the lexicon has every property, and
the gold's vocabulary is the lexicon's."""

from __future__ import annotations

import pytest

from bench.facts_gold import METRICS as GOLD_METRICS
from core.facts.attribution import Context, attribute
from core.facts.binding import Example, Rule, all_rules
from core.facts.call import CallIdentity
from core.facts.lexicon import METRICS, PROPERTIES, Properties
from core.facts.periods import parse_label

RULES = [r for r in all_rules() if r.example is not None]


def _run(rule: Rule, ex: Example) -> tuple[object, dict[int, str], int]:
    call = CallIdentity(company=ex.company, period=parse_label(ex.period), **dict(ex.call))  # type: ignore[arg-type]
    context = Context()
    for before in ex.before:
        attribute(before, call, context)
    left_out: dict[int, str] = {}
    rows = attribute(ex.sentence, call, context, forward=ex.forward, left_out=left_out)
    at = ex.sentence.find(ex.figure)
    assert at != -1, f"{rule.name}: {ex.figure!r} is not in its example"
    return rows, left_out, at


@pytest.mark.parametrize("rule", RULES, ids=[r.name for r in RULES])
def test_each_rule_does_what_its_example_shows(rule: Rule) -> None:
    ex = rule.example
    assert ex is not None
    rows, left_out, at = _run(rule, ex)
    mine = [a for a in rows if a.fig.start == at]  # type: ignore[attr-defined]
    if ex.expect.get("left_out"):
        assert not mine, f"{rule.name}: {ex.figure!r} should be left out: {mine}"
        assert left_out.get(at) == rule.name, (
            f"{rule.name}: {ex.figure!r} was left out by {left_out.get(at)!r}"
        )
        return
    assert mine, f"{rule.name}: {ex.figure!r} was left out by {left_out.get(at)!r}"
    got = mine[0]
    shown = {
        "metric": got.metric.name, "role": got.role, "value": got.value, "basis": got.basis,
        "segment": got.segment, "period": got.period.label() if got.period else None,
    }  # fmt: skip
    for key, want in ex.expect.items():
        assert shown[key] == pytest.approx(want) if key == "value" else shown[key] == want, (
            f"{rule.name}: {key} is {shown[key]!r}, the example expects {want!r} "
            f"(rules: {got.chain})"
        )
    named = ex.chain or rule.name
    assert named in got.chain.values(), f"{named} is not in the chain {got.chain}"


def test_every_rule_has_a_unique_name_and_a_known_field() -> None:
    names = [r.name for r in all_rules()]
    assert len(names) == len(set(names))
    fields = {"metric", "role", "sign", "segment", "basis", "period", "guard"}
    assert {r.field for r in all_rules()} <= fields
    for r in all_rules():
        assert r.name.split(".", 1)[0] in fields, r.name


def test_every_metric_has_every_property_in_one_row() -> None:
    names = {m.name for m in METRICS}
    assert names <= set(PROPERTIES), names - set(PROPERTIES)
    for name, props in PROPERTIES.items():
        assert isinstance(props, Properties)
        for value in (props.better, props.measure, props.basis_class, props.kind):
            assert value, f"{name}: a property is empty"
        if props.margin is not None:
            assert props.margin in PROPERTIES, f"{name}: its margin {props.margin} is no metric"
    for m in METRICS:  # every row of a metric reads the one row of properties
        assert m.properties is PROPERTIES[m.name]


def test_the_gold_vocabulary_is_the_lexicon() -> None:
    assert set(GOLD_METRICS) - {"other"} == set(PROPERTIES)
