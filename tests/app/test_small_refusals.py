"""Refusals that say what they are about: a body too large for a route with no transcript names
the setting that sets its limit; a transcript's lines are counted as an editor counts them; a
cancel never deletes a finished run (issue 38, item 5)."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.transcript import TranscriptTooManyLines, check_bounds
from tests.app.api_helpers import api
from tests.conftest import SAMPLE

TEXT = SAMPLE.read_text()


def test_a_thread_body_over_the_limit_names_the_setting_not_a_transcript(tmp_path: Path) -> None:
    with api(tmp_path, max_request_bytes=1_000_000) as client:
        big = {"metadata": {"x": "a" * 1_500_000}}
        r = client.post("/threads", json=big)
        assert r.status_code == 413
        detail = r.json()["detail"]
        text = detail if isinstance(detail, str) else str(detail)
        assert "transcript" not in text and "1,000,000" in text
        assert "EDESK_MAX_REQUEST_BYTES" in text


def test_lines_are_counted_as_an_editor_counts_them() -> None:
    text = "x\n" * 20_000  # 20,000 lines, each ending in a newline
    check_bounds(text, max_bytes=1_000_000, max_lines=20_000)
    check_bounds(text.encode(), max_bytes=1_000_000, max_lines=20_000)
    with pytest.raises(TranscriptTooManyLines, match="20,001 lines"):
        check_bounds(text + "y", max_bytes=1_000_000, max_lines=20_000)


def test_a_rollback_never_deletes_a_finished_run(tmp_path: Path) -> None:
    with api(tmp_path) as client:
        thread = client.post("/threads", json={}).json()["thread_id"]
        done = client.post(
            f"/threads/{thread}/runs/wait",
            json={"assistant_id": "zero_shot", "input": {"transcript": TEXT}},
        )
        assert done.status_code == 200
        runs = client.get(f"/threads/{thread}/runs").json()
        run_id = runs[0]["run_id"]
        r = client.post(f"/threads/{thread}/runs/{run_id}/cancel?action=rollback")
        assert r.status_code == 409 and "already finished" in r.json()["detail"]
        assert client.get(f"/threads/{thread}/runs/{run_id}").status_code == 200


def test_bidirectional_controls_never_reach_a_quote_a_cell_or_a_csv() -> None:
    """U+202E and its kin display a quote reversed: removed from report text, xlsx and CSV
    cells, as they are from the company and period fields."""
    import io
    import zipfile
    from datetime import UTC, datetime

    from openpyxl import load_workbook

    from app.exports import csv_cells
    from app.exports.tables import report_csv_zip, report_xlsx
    from core.contract import CallFacts, NodeFailure, Report, markdown_text
    from tests.core.test_facts_text import key

    evil = "revenue \u202egnihtemos\u202c was $5"
    assert "\u202e" not in markdown_text(evil) and "\u202c" not in markdown_text(evil)
    assert csv_cells.cell(evil) == "revenue gnihtemos was $5"
    k = key("$5", evil, metric="revenue", value=5.0)
    report = Report(pipeline="facts", status="degraded", markdown="r", transcript_sha256="0" * 64,
                    created_at=datetime.now(UTC), facts=CallFacts(key_figures=[k]),
                    failures=[NodeFailure(node="x", reason="y")])  # fmt: skip
    book = load_workbook(io.BytesIO(report_xlsx(report)))
    cells = [c.value for ws in book for row in ws.iter_rows() for c in row]
    assert not any(isinstance(v, str) and "\u202e" in v for v in cells)
    with zipfile.ZipFile(io.BytesIO(report_csv_zip(report))) as z:
        assert not any("\u202e" in z.read(n).decode() for n in z.namelist())
