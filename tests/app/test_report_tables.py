"""report.xlsx and report.csv.zip from the API: the workbook opens and its cells hold the
report's values; the zip holds the same sheets as CSV; text never becomes a formula."""

from __future__ import annotations

import csv
import io
import zipfile
from pathlib import Path

from openpyxl import load_workbook

from tests.app.api_helpers import api, wait_status
from tests.conftest import SAMPLE


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
    figures = list(wb["Key figures"].iter_rows(values_only=True))[1:]
    assert [f[2] for f in figures] == [k["text"] for k in report["facts"]["key_figures"]]
    trace = [r[0] for r in list(wb["Trace"].iter_rows(values_only=True))[1:]]
    assert trace == [t["node"] for t in report["trace"]]
    with zipfile.ZipFile(io.BytesIO(z.content)) as zf:
        names = set(zf.namelist())
        assert {"recommendations.csv", "key_figures.csv", "trace.csv"} <= names
        rows = list(csv.reader(io.StringIO(zf.read("recommendations.csv").decode())))
    assert rows[1][:3] == [recs[1][0], recs[1][1], str(recs[1][2])]


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
