"""Issue 27, 1: a transcript's bounds (EDESK_MAX_TRANSCRIPT_BYTES, EDESK_MAX_TRANSCRIPT_LINES)
hold on every intake: /v1/runs (JSON, stream and multipart upload), /v1/evals, the LangGraph
routes and the CLI; 413 over the size, 422 over the lines, the JSON naming the limit, and
nothing stored."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.cli import EXIT_USAGE, main
from tests.app.api_helpers import api
from tests.conftest import SAMPLE

TEXT = SAMPLE.read_text(encoding="utf-8")
BYTES, LINES = 60_000, 400
SENTENCE = "Revenue was $5 million, up 10% from last year."
OVERSIZE = (SENTENCE + " ") * (BYTES // len(SENTENCE) + 10)  # one line, over the bytes
MANY_LINES = "\n" * 30_000 + SENTENCE  # 30 KB: within the bytes, over the lines
BOUNDS: dict[str, Any] = {"max_transcript_bytes": BYTES, "max_transcript_lines": LINES}


def _send(client: TestClient, intake: str, transcript: str) -> Any:
    if intake == "runs":
        return client.post("/v1/runs", json={"transcript": transcript, "pipeline": "facts"})
    if intake == "runs_stream":
        return client.post("/v1/runs/stream", json={"transcript": transcript})
    if intake == "upload":
        files = {"transcript": ("call.txt", transcript.encode(), "text/plain")}
        return client.post("/v1/runs", files=files, data={"pipeline": "facts"})
    if intake == "evals":
        body = {"calls": [{"id": "ok", "transcript": TEXT}, {"id": "x", "transcript": transcript}],
                "pipelines": ["facts"]}  # fmt: skip
        return client.post("/v1/evals", json=body)
    lg_body = {"assistant_id": "facts", "input": {"transcript": transcript}}
    if intake == "lg_runs":
        return client.post("/runs/wait", json=lg_body)
    assert intake == "lg_thread_runs"
    thread = client.post("/threads", json={}).json()["thread_id"]
    return client.post(f"/threads/{thread}/runs", json=lg_body)


INTAKES = ["runs", "runs_stream", "upload", "evals", "lg_runs", "lg_thread_runs"]


@pytest.mark.parametrize("intake", INTAKES)
def test_every_intake_refuses_a_transcript_past_its_bounds(tmp_path: Path, intake: str) -> None:
    with api(tmp_path, **BOUNDS) as client:
        for transcript, status, setting, kind in (
            (OVERSIZE, 413, f"EDESK_MAX_TRANSCRIPT_BYTES={BYTES}", "too_large"),
            (MANY_LINES, 422, f"EDESK_MAX_TRANSCRIPT_LINES={LINES}", "too_long"),
        ):
            resp = _send(client, intake, transcript)
            assert resp.status_code == status, (intake, resp.status_code, resp.text[:300])
            [err] = resp.json()["detail"]
            assert setting in err["msg"] and err["type"] == kind
            assert err["loc"][-1] == "transcript"
            if intake == "evals":
                assert err["loc"] == ["body", "calls", 1, "transcript"]
            if intake.startswith("lg_"):
                assert err["loc"] == ["body", "input", "transcript"]
            assert len(resp.content) < 2_000  # the transcript is not echoed
        assert client.get("/v1/runs").json()["total"] == 0
        inputs = tmp_path / "data" / "evals" / "inputs"
        assert not inputs.exists() or not any(inputs.iterdir())


def test_a_transcript_within_its_bounds_runs(tmp_path: Path) -> None:
    """The bounds refuse no real call: the sample call runs under small ones."""
    with api(tmp_path, **BOUNDS) as client:
        run = client.post("/v1/runs?wait=true", json={"transcript": TEXT, "pipeline": "facts"})
        assert run.status_code == 200 and run.json()["status"] == "succeeded", run.text[:300]


def test_eval_dir_calls_past_the_bounds_are_refused_on_dir(tmp_path: Path) -> None:
    calls = tmp_path / "calls"
    calls.mkdir()
    (calls / "OK.txt").write_text(TEXT, encoding="utf-8")
    (calls / "LONG.txt").write_text(MANY_LINES, encoding="utf-8")
    with api(tmp_path, eval_dirs=str(calls), **BOUNDS) as client:
        resp = client.post("/v1/evals", json={"dir": str(calls), "pipelines": ["facts"]})
    assert resp.status_code == 422, resp.text
    [err] = resp.json()["detail"]
    assert err["loc"] == ["body", "dir"] and "call LONG" in err["msg"]
    assert f"EDESK_MAX_TRANSCRIPT_LINES={LINES}" in err["msg"] and str(tmp_path) not in err["msg"]


@pytest.mark.parametrize(
    ("text", "setting"),
    [(OVERSIZE, f"EDESK_MAX_TRANSCRIPT_BYTES={BYTES}"),
     (MANY_LINES, f"EDESK_MAX_TRANSCRIPT_LINES={LINES}")],
)  # fmt: skip
def test_cli_refuses_a_transcript_past_its_bounds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    text: str, setting: str,
) -> None:  # fmt: skip
    for key, value in {"EDESK_PROVIDER": "fake", "EDESK_EMBEDDINGS": "fake",
                       "EDESK_DATA_DIR": str(tmp_path / "data"),
                       "EDESK_MAX_TRANSCRIPT_BYTES": str(BYTES),
                       "EDESK_MAX_TRANSCRIPT_LINES": str(LINES)}.items():  # fmt: skip
        monkeypatch.setenv(key, value)
    path = tmp_path / "call.txt"
    path.write_text(text, encoding="utf-8")
    assert main(["analyze", str(path), "--out", str(tmp_path / "out")]) == EXIT_USAGE
    assert setting in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_settings_bound_the_bounds() -> None:
    from pydantic import ValidationError

    from app.settings import Settings

    for bad in ({"max_transcript_lines": 0}, {"max_transcript_bytes": 0}):
        with pytest.raises(ValidationError):
            Settings(**bad)  # type: ignore[arg-type]
    assert json.loads(Settings().model_dump_json())["max_transcript_lines"] == 20_000


def test_an_evaluation_reads_its_calls_within_the_servers_bounds(tmp_path: Path) -> None:
    """The evaluation parses each call with the server's bounds, not the defaults: a server
    that raised EDESK_MAX_TRANSCRIPT_LINES evaluates calls a default server would refuse."""
    from app.evaluation.dataset import EvalItem
    from app.evaluation.runner import Evaluation
    from app.settings import Settings
    from core.transcript import TranscriptTooManyLines

    path = tmp_path / "long.txt"
    path.write_text("\n" * 25_000 + SENTENCE, encoding="utf-8")  # over the default 20,000
    item = EvalItem(id="long", path=path)
    raised = Settings(max_transcript_lines=30_000).transcript_bounds()
    assert Evaluation([item], ["facts"], tmp_path, on_event=None, bounds=raised).transcript(item)
    with pytest.raises(TranscriptTooManyLines):
        Evaluation([item], ["facts"], tmp_path, on_event=None).transcript(item)
