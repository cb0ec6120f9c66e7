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
