"""Issue 27, 3: every text cell the product writes renders as itself. report.md's table cells
(recommendations, rules) are escaped like company and ticker; every CSV cell is quoted and a
cell a spreadsheet would run as a formula is kept as text."""

from __future__ import annotations

import csv
import io
import re
import zipfile
from pathlib import Path

from app.exports.csv_cells import cell
from app.exports.tables import report_csv_zip
from core.contract import CallFacts, KeyFigure, Report
from core.recommendations import render_recommendations
from core.rules import stance_markdown
from tests.app.api_helpers import api, read_sse
from tests.conftest import SAMPLE

TEXT = SAMPLE.read_text(encoding="utf-8")
EVIL = "[Jane](http://evil.example) <b>Doe</b> | *x* #1"


def _rows(md: str) -> list[str]:
    return [line for line in md.splitlines() if line.startswith("|")]


def test_markdown_table_cells_are_escaped_like_company_and_ticker() -> None:
    from core.contract import Horizon, Position, Recommendation

    recs = [
        Recommendation(
            horizon=h, position=Position.LONG, conviction=60, rationale=EVIL, catalysts=[EVIL]
        )  # fmt: skip
        for h in (Horizon.DAY, Horizon.WEEK, Horizon.MONTH)
    ]
    from core.rules import Signal

    fired = [Signal(f"{EVIL} up", 1.0, EVIL, True)]
    for md in (render_recommendations(recs), stance_markdown(recs, fired)):
        rows = _rows(md)
        # no cell split by a pipe: every row has the header's number of unescaped pipes
        assert rows and len({len(re.findall(r"(?<!\\)\|", r)) for r in rows}) == 1, rows
        for row in rows:
            assert not re.search(r"(?<!\\)[<\[*#]", row), row  # no HTML, link, emphasis
        assert r"\[Jane\](http://evil.example) \<b\>Doe\</b\> \| \*x\* \#1" in md


def test_report_csv_cells_are_quoted_and_never_formulas(tmp_path: Path) -> None:
    with api(tmp_path) as client:
        run = client.post("/v1/runs?wait=true", json={"transcript": TEXT, "pipeline": "facts"})
    report = Report.model_validate(run.json()["report"])
    assert report.facts is not None and report.facts.key_figures
    first: KeyFigure = report.facts.key_figures[0]
    evil = first.model_copy(update={
        "label": "=HYPERLINK(\"http://x\";\"y\")", "sentence": "a; b, c \"d\"",
        "speaker": "@SUM(1)",
    })  # fmt: skip
    facts: CallFacts = report.facts.model_copy(update={"key_figures": [evil]})
    data = report_csv_zip(report.model_copy(update={"facts": facts}))
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        for name in zf.namelist():
            text = zf.read(name).decode()
            for line in text.splitlines():
                assert line.startswith('"') and line.endswith('"'), (name, line)  # all quoted
        head, row = list(csv.reader(io.StringIO(zf.read("key_figures.csv").decode())))
    cells = dict(zip(head, row, strict=True))
    assert cells["label"] == '\'=HYPERLINK("http://x";"y")'
    assert cells["speaker"] == "'@SUM(1)" and cells["quote"] == 'a; b, c "d"'


def test_cell_guards_formulas_but_not_numbers() -> None:
    for formula in ("=1+1", "+A1", "-A1", "@SUM(A1)", "\t=1", "\r=1", "-5%"):
        assert cell(formula) == "'" + formula
    for kept in ("-5", "+1.5", "1e3", "revenue", "", 7, -3.5, None):
        assert cell(kept) == kept


def test_eval_per_report_csv_guards_a_file_named_like_a_formula(tmp_path: Path) -> None:
    calls = tmp_path / "calls"
    calls.mkdir()
    (calls / "=1+1.txt").write_text(TEXT, encoding="utf-8")
    with api(tmp_path, eval_dirs=str(calls)) as client:
        created = client.post("/v1/evals", json={"dir": str(calls), "pipelines": ["facts"]})
        assert created.status_code == 202, created.text
        events = read_sse(client, "GET", created.json()["links"]["events"])
        assert events[-1]["data"]["status"] == "succeeded", events[-1]
        out = tmp_path / "data" / created.json()["out_dir"]
    text = (out / "per_report.csv").read_text(encoding="utf-8")
    assert all(line.startswith('"') for line in text.splitlines())
    head, *rows = list(csv.reader(io.StringIO(text)))
    files = [dict(zip(head, r, strict=True))["transcript_file"] for r in rows]
    assert files and all(f.startswith("'=") or not f.startswith("=") for f in files), files
    ids = [dict(zip(head, r, strict=True))["id"] for r in rows]
    assert ids == ["'=1+1"], ids
