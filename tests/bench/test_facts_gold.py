"""The gold scorer sees what a "the number occurs in the call" check cannot: a row with the
comparison's period, a change read as a level, a segment shown as the company, a dropped
"adjusted", a lost sign, guidance that is a result, a direction the call never stated. And the
gold files themselves are well formed against the calls."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from bench.facts_gold import GOLD_DIR, load, score

TEXT = (
    "Consolidated revenue was 539 million, up 9% compared to fiscal '20.\n"
    "Licensed brands revenue was up 122% versus fiscal '20.\n"
    "For fiscal 2022 we are raising our revenue guidance to $2.2 billion to $2.3 billion.\n"
)
GOLD = {
    "id": "T",
    "call": {"company": "Genesco", "fiscal_period": "Q1 2022"},
    "figures": [
        {"quote": "Consolidated revenue was 539 million, up 9% compared to fiscal '20",
         "text": "539 million", "value": 539e6, "unit": "money", "metric": "revenue",
         "basis": None, "segment": None, "period": "Q1 2022", "role": "result",
         "headline": True},
        {"quote": "Consolidated revenue was 539 million, up 9% compared to fiscal '20",
         "text": "9%", "value": 9, "unit": "percent", "metric": "revenue", "basis": None,
         "segment": None, "period": "Q1 2022", "role": "change", "headline": True},
        {"quote": "Licensed brands revenue was up 122% versus fiscal '20", "text": "122%",
         "value": 122, "unit": "percent", "metric": "revenue", "basis": None,
         "segment": "Licensed brands", "period": "Q1 2022", "role": "change", "headline": True},
    ],
    "guidance": [
        {"quote": "raising our revenue guidance to $2.2 billion to $2.3 billion",
         "text": "$2.2 billion to $2.3 billion", "low": 2.2e9, "high": 2.3e9, "unit": "money",
         "metric": "revenue", "basis": None, "segment": None, "period": "FY 2022",
         "role": "result", "direction": "raised"},
    ],
}  # fmt: skip


def _gold(tmp_path: Path, raw: dict[str, Any] = GOLD) -> Any:
    path = tmp_path / "T.json"
    path.write_text(json.dumps(raw))
    return load(path, TEXT)


def _row(text: str, **kw: Any) -> SimpleNamespace:
    start = TEXT.index(text)
    base: dict[str, Any] = {
        "start": start, "end": start + len(text), "text": text, "value": 539e6, "unit": "money",
        "metric": "revenue", "basis": None, "segment": None, "period": "Q1 2022",
        "role": "result", "change": None, "prior": None,
    }  # fmt: skip
    return SimpleNamespace(**(base | kw))


def _facts(*rows: SimpleNamespace, guidance: tuple[SimpleNamespace, ...] = ()) -> Any:
    return SimpleNamespace(key_figures=list(rows), guidance=list(guidance))


def test_a_right_row_counts_and_finds_its_headline(tmp_path: Path) -> None:
    gold = _gold(tmp_path)
    assert gold.errors == []  # three figures, all headline: a call with fewer than five
    sc = score(gold, _facts(_row("539 million")))
    assert (sc.rows, sc.correct, sc.headlines_found) == (1, 1, 1)


@pytest.mark.parametrize(
    ("row", "wrong"),
    [
        (_row("539 million", period="FY 2020"), "period"),  # the comparison's period
        (_row("9%", value=9, unit="percent"), "role"),  # a growth rate read as the level
        (_row("122%", value=122, unit="percent", role="change"), "segment"),  # segment as company
        (_row("539 million", basis="adjusted"), "basis"),
        (_row("9%", value=-9, unit="percent", role="change"), "value"),  # the sign lost
        (_row("539 million", metric="ebitda"), "metric"),
        (_row("fiscal '20", value=20, unit="number"), "no gold row"),  # a year is no figure
    ],
)
def test_each_wrong_field_makes_the_row_wrong(
    tmp_path: Path, row: SimpleNamespace, wrong: str
) -> None:
    sc = score(_gold(tmp_path), _facts(row))
    assert (sc.rows, sc.correct) == (1, 0)
    assert sc.field_errors.get(wrong) == 1, sc.field_errors


def test_leaving_out_gaap_is_not_wrong_but_dropping_adjusted_is(tmp_path: Path) -> None:
    raw = json.loads(json.dumps(GOLD))
    raw["figures"][0]["basis"] = "gaap"
    assert score(_gold(tmp_path, raw), _facts(_row("539 million"))).correct == 1
    raw["figures"][0]["basis"] = "adjusted"
    assert score(_gold(tmp_path, raw), _facts(_row("539 million"))).correct == 0


def test_guidance_direction_and_results_called_guidance(tmp_path: Path) -> None:
    text = "$2.2 billion to $2.3 billion"
    g = _row(text, value=None, low=2.2e9, high=2.3e9, period="FY 2022", direction="raised")
    right = score(_gold(tmp_path), _facts(guidance=(g,)))
    assert (right.correct, right.direction_right, right.guidance_found) == (1, 1, 1)
    silent = score(
        _gold(tmp_path), _facts(guidance=(SimpleNamespace(**{**vars(g), "direction": None}),))
    )
    assert silent.correct == 0 and silent.directions == {"raised -> not_stated": 1}
    as_guidance = _row("539 million", low=539e6, high=539e6, direction=None)
    sc = score(_gold(tmp_path), _facts(guidance=(as_guidance,)))
    assert sc.correct == 0 and sc.field_errors.get("guidance") == 1


def test_a_change_stated_with_a_row_is_scored_as_its_own_row(tmp_path: Path) -> None:
    start = TEXT.index("9%")
    change = SimpleNamespace(role="change", text="9%", value=9, unit="percent", period=None,
                             start=start, end=start + 2)  # fmt: skip
    sc = score(_gold(tmp_path), _facts(_row("539 million", change=change)))
    assert (sc.rows, sc.correct) == (2, 2)
    wrong = SimpleNamespace(**{**vars(change), "value": -9})
    assert score(_gold(tmp_path), _facts(_row("539 million", change=wrong))).correct == 1


def test_the_gold_files_are_well_formed(ectsum: Path) -> None:
    files = sorted(GOLD_DIR.glob("*.json"))
    assert len(files) == 14, [f.name for f in files]
    for path in files:
        gold = load(path, (ectsum / f"{path.stem}.txt").read_text(encoding="utf-8"))
        assert gold.errors == [], (path.name, gold.errors[:5])
        assert sum(r.kind == "figure" for r in gold.rows) >= 10
