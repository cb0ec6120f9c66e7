"""report.xlsx and report.csv.zip from the API: the workbook opens and its cells hold the
report's values; the zip holds the same sheets as CSV; text never becomes a formula."""

from __future__ import annotations

import csv
import io
import zipfile
from pathlib import Path
from typing import Any

import pytest
from openpyxl import load_workbook

from tests.app.api_helpers import api, wait_status
from tests.conftest import SAMPLE


@pytest.mark.usefixtures("all_rules_verified")  # plumbing, not which rows earned it
def test_workbook_and_csv_zip_hold_the_reports_values(tmp_path: Path) -> None:
    text = SAMPLE.read_text(encoding="utf-8")
    with api(tmp_path) as client:
        run_id = client.post("/v1/runs", json={"transcript": text, "pipeline": "facts"}).json()[
            "id"
        ]
        run = wait_status(client, run_id, {"succeeded", "degraded"})
        report = run["report"]
        assert run["links"]["report_xlsx"].endswith("/report.xlsx")
        x = client.get(f"/v1/runs/{run_id}/report.xlsx")
        z = client.get(f"/v1/runs/{run_id}/report.csv.zip")
    assert x.status_code == 200 and x.headers["content-type"].startswith(
        "application/vnd.openxmlformats"
    )
    wb = load_workbook(io.BytesIO(x.content))
    assert wb.sheetnames[:2] == ["Recommendations", "Key figures"]
    assert {"Guidance", "Grounded figures", "Trace"} <= set(wb.sheetnames)
    recs = list(wb["Recommendations"].iter_rows(values_only=True))
    assert recs[0][:3] == ("horizon", "position", "conviction")
    assert [(r[0], r[1], r[2]) for r in recs[1:]] == [
        (r["horizon"], r["position"], r["conviction"]) for r in report["recommendations"]
    ]
    head, *figures = list(wb["Key figures"].iter_rows(values_only=True))
    assert [f[2] for f in figures] == [k["text"] for k in report["facts"]["key_figures"]]
    for row, k in zip(figures, report["facts"]["key_figures"], strict=True):
        cells = dict(zip(head, row, strict=True))
        assert pick(cells, "role", "unit", "period") == pick(k, "role", "unit", "period")
        assert cells["quote"] == k["sentence"]
        assert cells["change"] == ((k["change"] or {}).get("text") or None)
    head, *guidance = list(wb["Guidance"].iter_rows(values_only=True))
    assert {"role", "basis", "segment", "qualitative", "direction", "quote"} <= set(head)
    assert [dict(zip(head, g, strict=True))["quote"] for g in guidance] == [
        g["sentence"] for g in report["facts"]["guidance"]
    ]
    head, *nums = list(wb["Grounded figures"].iter_rows(values_only=True))
    assert {"origin", "provenance"} <= set(head) and nums
    assert [dict(zip(head, n, strict=True))["origin"] for n in nums] == [
        n["origin"] for n in report["evidence"]["numbers"]
    ]
    trace = [r[0] for r in list(wb["Trace"].iter_rows(values_only=True))[1:]]
    assert trace == [t["node"] for t in report["trace"]]
    with zipfile.ZipFile(io.BytesIO(z.content)) as zf:
        names = set(zf.namelist())
        assert {"recommendations.csv", "key_figures.csv", "trace.csv"} <= names
        rows = list(csv.reader(io.StringIO(zf.read("recommendations.csv").decode())))
    assert rows[1][:3] == [recs[1][0], recs[1][1], str(recs[1][2])]


def pick(row: dict[str, Any], *columns: str) -> tuple[Any, ...]:
    return tuple(row[c] for c in columns)


def test_text_is_never_a_formula() -> None:
    from app.exports.tables import report_csv_zip, report_xlsx
    from core.contract import Recommendation, Report

    recs = [
        Recommendation(horizon=h, position="LONG", conviction=70,  # type: ignore[arg-type]
                       rationale='=HYPERLINK("http://x","y")', catalysts=["+1 guidance"])
        for h in ("1d", "1w", "1m")
    ]  # fmt: skip
    from datetime import UTC, datetime

    report = Report(pipeline="zero_shot", status="succeeded", markdown="r", recommendations=recs,
                    created_at=datetime.now(UTC), transcript_sha256="0" * 64)  # fmt: skip
    wb = load_workbook(io.BytesIO(report_xlsx(report)))
    cell = wb["Recommendations"]["D2"]
    assert cell.data_type == "s" and cell.value == '=HYPERLINK("http://x","y")'
    with zipfile.ZipFile(io.BytesIO(report_csv_zip(report))) as zf:
        row = list(csv.reader(io.StringIO(zf.read("recommendations.csv").decode())))[1]
    assert row[3].startswith("'=") and row[4] == "'+1 guidance"


def test_key_figure_and_guidance_columns_carry_the_attribution() -> None:
    """Role, basis, segment, unit, the change and prior figure stated with a key figure (text,
    signed value, unit, period) and each row's quote, as columns."""
    from datetime import UTC, datetime

    from app.exports.tables import GUIDANCE_COLUMNS, KEY_FIGURE_COLUMNS, sheets
    from core.contract import CallFacts, NodeFailure, Report
    from tests.core.test_facts_text import EPS, JOURNEYS, WORDS, guide, key, stated

    prior, change = stated("comparison", "$1.12", 1.12, "money", "Q3 2020"), stated(
        "change", "17%", 17.0, "percent")  # fmt: skip
    eps = key("$1.31", EPS, metric="eps", value=1.31, basis="adjusted", prior=prior, change=change)
    journeys = key("3%", JOURNEYS, segment="Journeys", role="change", value=-3.0, unit="percent")
    words = guide("low teens", WORDS, low=11.0, high=14.0, role="change", qualitative=True)
    facts = CallFacts(key_figures=[eps, journeys], guidance=[words])
    report = Report(pipeline="facts", status="degraded", markdown="r", transcript_sha256="0" * 64,
                    created_at=datetime.now(UTC), failures=[NodeFailure(node="x", reason="y")],
                    facts=facts)  # fmt: skip
    head, rows = sheets(report)["Key figures"]
    assert head == KEY_FIGURE_COLUMNS
    first, second = (dict(zip(head, r, strict=True)) for r in rows)
    assert pick(first, "role", "basis", "segment", "unit") == ("result", "adjusted", "", "money")
    assert pick(first, "change", "change value", "change unit") == ("17%", 17.0, "percent")
    assert pick(first, "prior", "prior value", "prior period") == ("$1.12", 1.12, "Q3 2020")
    assert first["quote"] == EPS
    assert pick(second, "role", "value", "segment", "change") == ("change", -3.0, "Journeys", "")
    head, rows = sheets(report)["Guidance"]
    assert head == GUIDANCE_COLUMNS
    g = dict(zip(head, rows[0], strict=True))
    assert pick(g, "role", "qualitative", "direction", "quote") == ("change", True, "", WORDS)
