"""A real server process killed with SIGKILL mid-run: on restart the same run resumes from its
checkpoint and finishes, and nodes that had finished are not run again."""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from nodes.specialists import SPECIALISTS
from tests.conftest import REPO, SAMPLE

pytestmark = pytest.mark.server  # starts real server processes on loopback


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _start(port: int, data: Path, log: Path) -> subprocess.Popen[bytes]:
    from tests.conftest import SERVER_MARKERS, require_marker

    require_marker(SERVER_MARKERS, "starts a real server process")
    env = {
        **os.environ,
        "EDESK_PROVIDER": "fake",
        "EDESK_EMBEDDINGS": "fake",
        "EDESK_FAKE_LATENCY": "0.4",
        "EDESK_DATA_DIR": str(data),
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "serve", "--port", str(port)],
        cwd=REPO,
        env=env,
        stdout=log.open("ab"),
        stderr=subprocess.STDOUT,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1):
                return proc
        except OSError:
            assert proc.poll() is None, log.read_text()
            time.sleep(0.1)
    proc.kill()
    raise AssertionError(f"server did not start: {log.read_text()}")


def _get(port: int, path: str) -> Any:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as resp:
        return json.loads(resp.read())


def _post(port: int, path: str, body: dict[str, Any]) -> Any:
    req = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}",
        method="POST",
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=10) as resp:
        return json.loads(resp.read())


def _events(port: int, run_id: str) -> list[dict[str, Any]]:
    """The stored log so far (replay stream, closed by us once caught up)."""
    req = urllib.request.Request(f"http://127.0.0.1:{port}/v1/runs/{run_id}/events")
    out = []
    with urllib.request.urlopen(req, timeout=10) as resp:
        event: dict[str, Any] = {}
        for raw in resp:
            line = raw.decode().rstrip("\r\n")
            if line.startswith("event:"):
                event["event"] = line[6:].strip()
            elif line.startswith("data:"):
                event["data"] = json.loads(line[5:])
            elif not line and event:
                out.append(event)
                if event["event"] == "run_finished":
                    break
                event = {}
    return out


def test_sigkill_mid_run_then_resume(tmp_path: Path) -> None:
    port, data, log = _port(), tmp_path / "data", tmp_path / "server.log"
    server = _start(port, data, log)
    try:
        run_id = _post(port, "/v1/runs", {"transcript": SAMPLE.read_text()})["id"]
        # wait until the specialists are done and the synthesizer is working, then kill
        with urllib.request.urlopen(
            f"http://127.0.0.1:{port}/v1/runs/{run_id}/events", timeout=30
        ) as resp:
            for raw in resp:
                if raw.startswith(b"data:"):
                    event = json.loads(raw[5:])
                    if event["type"] == "node_started" and event["node"] == "synthesize":
                        break
    finally:
        server.send_signal(signal.SIGKILL)
        server.wait(timeout=10)
    assert _status_on_disk(data, run_id) == "running"  # the dead process left it running

    server = _start(port, data, log)
    try:
        events = _events(port, run_id)
        final = _get(port, f"/v1/runs/{run_id}")
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=20)
    assert final["status"] == "succeeded", final
    assert final["report"]["recommendations"]
    starts = Counter(e["data"]["node"] for e in events if e["event"] == "node_started")
    for node in ("ingest", "retrieve", *SPECIALISTS):
        assert starts[node] == 1, (node, starts)  # finished before the kill: not run again
    assert [e["data"].get("resumed") for e in events if e["event"] == "run_started"] == [
        False,
        True,
    ]
    assert "resuming 1 unfinished run" in log.read_text()


def _status_on_disk(data: Path, run_id: str) -> str:
    with sqlite3.connect(data / "runs.sqlite") as conn:
        row = conn.execute("SELECT status FROM runs WHERE id = ?", (run_id,)).fetchone()
    return str(row[0])


def _eval_events(port: int, eval_id: str) -> list[dict[str, Any]]:
    """The evaluation's log until eval_finished (it waits for the job to finish)."""
    out = []
    with urllib.request.urlopen(
        f"http://127.0.0.1:{port}/v1/evals/{eval_id}/events", timeout=120
    ) as resp:
        for raw in resp:
            if raw.startswith(b"data:"):
                out.append(json.loads(raw[5:]))
                if out[-1]["type"] == "eval_finished":
                    break
    return out


def test_sigkill_mid_evaluation_then_resume(tmp_path: Path) -> None:
    """An evaluation is a durable job: killed after its first report finished, the restarted
    server completes it, and the reports that had finished are not run again (their runs
    started once, never resumed)."""
    port, data, log = _port(), tmp_path / "data", tmp_path / "server.log"
    text = SAMPLE.read_text()
    body = {
        "calls": [{"id": f"C{i}", "transcript": text} for i in range(3)],
        "pipelines": ["zero_shot"],
    }
    server = _start(port, data, log)
    try:
        eval_id = _post(port, "/v1/evals", body)["id"]
        with urllib.request.urlopen(
            f"http://127.0.0.1:{port}/v1/evals/{eval_id}/events", timeout=60
        ) as resp:
            for raw in resp:
                if raw.startswith(b"data:") and json.loads(raw[5:])["type"] == "report_finished":
                    break
    finally:
        server.send_signal(signal.SIGKILL)
        server.wait(timeout=10)
    with sqlite3.connect(data / "runs.sqlite") as conn:
        status = conn.execute("SELECT status FROM evals WHERE id = ?", (eval_id,)).fetchone()[0]
        done_before = [r[0] for r in conn.execute("SELECT id FROM runs WHERE status = 'succeeded'")]
    assert status == "running" and 1 <= len(done_before) < 3

    server = _start(port, data, log)
    try:
        events = _eval_events(port, eval_id)
        final = _get(port, f"/v1/evals/{eval_id}")
        runs = {r: _events(port, r) for r in _run_ids(data)}
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=20)
    assert final["status"] == "succeeded" and final["done"] == 3, final
    assert "| fake | zero_shot | 3 | 3 |" in final["table"]
    assert len(runs) == 3
    for run_id in done_before:  # finished before the kill: started once, not resumed
        started = [e["data"]["resumed"] for e in runs[run_id] if e["event"] == "run_started"]
        assert started == [False], (run_id, started)
    finished = [e for e in events if e["type"] == "report_finished"]
    assert len({(e["id"], e["pipeline"]) for e in finished}) == 3
    # a resumed evaluation appends no event it already logged, and `done` never goes back
    assert len(finished) == 3, [(e["id"], e.get("done")) for e in finished]
    assert [e["type"] for e in events].count("eval_started") == 1
    counts = [e["done"] for e in events if e["type"] in ("report_started", "report_finished")]
    assert counts == sorted(counts), counts
    assert [e["type"] for e in events].count("eval_queued") == 1
    assert "resuming 1 unfinished evaluation" in log.read_text()


def _run_ids(data: Path) -> list[str]:
    with sqlite3.connect(data / "runs.sqlite") as conn:
        return [r[0] for r in conn.execute("SELECT id FROM runs")]
