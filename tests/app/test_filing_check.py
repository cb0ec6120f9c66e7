"""The filing check end to end: `analyze --financials FILE` with the call's quarter named
(`fiscalPeriod`) puts each comparable key figure's verdict in report.md, report.json and the
models' data block; the figures stay as the call stated them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.cli import EXIT_OK, main
from core.filing import check, filed_values
from core.inputs import financials_from_text
from core.transcript import parse_transcript
from nodes.facts import verified
from tests.conftest import SAMPLE

CSV = (
    "fiscalDateEnding,fiscalPeriod,source,totalRevenue,operatingIncome\n"
    "2026-06-30,Q2 2026,Northwind 10-Q (test file),612000000,75000000\n"
    "2026-03-31,Q1 2026,Northwind 10-Q (test file),600000000,70000000\n"
)


@pytest.mark.usefixtures("all_rules_verified")  # plumbing, not which rows earned it
def test_analyze_checks_the_key_figures_against_the_filing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("EDESK_PROVIDER", "fake")
    monkeypatch.setenv("EDESK_EMBEDDINGS", "fake")
    monkeypatch.setenv("EDESK_DATA_DIR", str(tmp_path / "data"))
    (tmp_path / "filed.csv").write_text(CSV, encoding="utf-8")
    args = ["analyze", str(SAMPLE), "--pipeline", "zero_shot", "--financials",
            str(tmp_path / "filed.csv"), "--out", str(tmp_path / "out")]  # fmt: skip
    assert main(args) == EXIT_OK, capsys.readouterr()
    md = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    # the verdict is the last cell of the figure's own row in the Call facts table
    revenue = next(ln for ln in md.splitlines() if ln.startswith("| Revenue | $612 million |"))
    assert revenue.endswith("| matches the filing (Northwind 10-Q (test file), totalRevenue) |")
    income = next(ln for ln in md.splitlines() if ln.startswith("| Operating income | $71 million"))
    assert "| differs from the filing (filed: $75.0 million;" in income
    rows = json.loads((tmp_path / "out" / "report.json").read_text())["facts"]["key_figures"]
    by = {r["metric"]: r for r in rows}
    assert by["revenue"]["filing"].startswith("matches the filing")
    assert by["operating_income"]["value"] == 71e6  # never corrected
    assert by["operating_income"]["filing"].startswith("differs from the filing (filed: $75.0")
    assert by["eps"]["filing"] is None  # adjusted EPS: no filed adjusted value


@pytest.mark.usefixtures("all_rules_verified")  # plumbing, not which rows earned it
def test_the_models_data_block_carries_the_verdicts() -> None:
    from core.facts import call_facts

    fin = financials_from_text(CSV, csv_format=True)
    facts = check(call_facts(parse_transcript(SAMPLE.read_text())), filed_values(fin, "given"))
    block = verified({"facts": facts})["facts"].whole()
    assert "- Filing check, Revenue $612 million (Q2 2026): matches the filing" in block
    assert "filed: $75.0 million" in block


def test_the_data_block_is_built_once_a_run_and_never_served_to_other_objects(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every model node of a run asks for the same block: built once for the run's objects; a
    different facts object (another run), a track record or `filing=False` gets its own."""
    import core.facts
    import nodes.facts
    from core.contract import CallFacts
    from core.facts import call_facts

    built: list[int] = []
    real = core.facts.facts_block

    def counted(found: CallFacts) -> str:
        built.append(1)
        return real(found)

    monkeypatch.setattr(nodes.facts, "facts_block", counted)
    facts = call_facts(parse_transcript(SAMPLE.read_text()))
    first = verified({"facts": facts})["facts"]
    assert verified({"facts": facts})["facts"] is first and len(built) == 1
    other = facts.model_copy(update={"guidance": []})
    assert verified({"facts": other})["facts"] is not first and len(built) == 2
    assert verified({"facts": facts}, filing=False)["facts"] is not first
    assert verified({"facts": facts})["facts"].whole() == first.whole() == "\n".join(
        first.pieces)  # fmt: skip
