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

from nodes.specialists import SPECIALISTS
from tests.conftest import REPO, SAMPLE


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _start(port: int, data: Path, log: Path) -> subprocess.Popen[bytes]:
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
        req = urllib.request.Request(
            f"http://127.0.0.1:{port}/v1/runs",
            method="POST",
            data=json.dumps({"transcript": SAMPLE.read_text()}).encode(),
            headers={"content-type": "application/json"},
        )
        with urllib.request.urlopen(req, timeout=10) as resp:
            run_id = json.loads(resp.read())["id"]
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
