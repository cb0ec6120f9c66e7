"""Disk (issue 18): a finished run keeps no checkpoints, DELETE gives back the disk a run used
(its rows, checkpoints and, when no other run reads the call, its search index), and
EDESK_RETENTION_DAYS deletes runs that ended longer ago."""

from __future__ import annotations

import sqlite3
import time
from datetime import timedelta
from pathlib import Path

from fastapi.testclient import TestClient

from app.storage import now
from core.transcript import transcript_sha256
from tests.app.api_helpers import api, wait_status

SAMPLE = Path(__file__).parents[2] / "samples" / "northwind_q2_2026.md"
DONE = {"succeeded", "degraded", "failed"}


def call(tag: str, copies: int = 30) -> str:
    """A long call (~90 KB) whose text, and so whose index, differs by `tag`."""
    body = SAMPLE.read_text(encoding="utf-8")
    return "\n\n".join(f"{body}\n\nCFO: note {tag}-{i}." for i in range(copies))


def folder_bytes(root: Path) -> int:
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file())


def start(client: TestClient, transcript: str, pipeline: str = "findebate") -> str:
    resp = client.post("/v1/runs", json={"transcript": transcript, "pipeline": pipeline})
    assert resp.status_code == 202, resp.text
    run_id: str = resp.json()["id"]
    wait_status(client, run_id, DONE, timeout=120)
    return run_id


def checkpoint_threads(data: Path) -> set[str]:
    with sqlite3.connect(data / "checkpoints.sqlite") as conn:
        rows = conn.execute("SELECT thread_id FROM checkpoints UNION SELECT thread_id FROM writes")
        return {r[0] for r in rows}


def settled(data: Path, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while checkpoint_threads(data) and time.monotonic() < deadline:
        time.sleep(0.05)
    return checkpoint_threads(data) == set()


def indexes(client: TestClient) -> set[str]:
    index = client.app.state.manager.engine.index  # type: ignore[attr-defined]
    return {str(c.name) for c in index._client.list_collections()}


def indexed(names: set[str], transcript: str) -> bool:
    return any(n.startswith(f"tx-{transcript_sha256(transcript)[:24]}-") for n in names)


def test_delete_gives_the_disk_back_and_keeps_a_shared_index(tmp_path: Path) -> None:
    data = tmp_path / "data"
    a, b = call("a"), call("b")
    with api(tmp_path) as client:
        empty = folder_bytes(data)
        a1, a2, b1 = start(client, a), start(client, a), start(client, b)
        # finished runs keep no state copies (deleted just after the finished status is written)
        assert settled(data)
        assert indexed(indexes(client), a) and indexed(indexes(client), b)
        full = folder_bytes(data)
        assert full - empty > 500_000

        assert client.delete(f"/v1/runs/{a1}").status_code == 204
        assert indexed(indexes(client), a)  # a2 still reads call a: its index stays
        assert client.get(f"/v1/runs/{a2}").json()["status"] in DONE

        assert client.delete(f"/v1/runs/{b1}").status_code == 204
        assert not indexed(indexes(client), b)
        assert indexed(indexes(client), a)
        again = start(client, a)  # the index that stayed still answers searches
        assert client.get(f"/v1/runs/{again}").json()["status"] in {"succeeded", "degraded"}

        for run_id in (a2, again):
            assert client.delete(f"/v1/runs/{run_id}").status_code == 204
        assert indexes(client) == set()
        left = folder_bytes(data)
    # the rows, checkpoints, vector folders and full-text entries are gone from the disk
    assert left - empty < (full - empty) * 0.1, (empty, full, left)


def test_retention_deletes_runs_that_ended_before_the_cutoff(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with api(tmp_path) as client:
        old = start(client, call("old"))
        recent = start(client, call("recent"), pipeline="zero_shot")
        running = client.post(
            "/v1/runs", json={"transcript": call("later"), "pipeline": "zero_shot"}
        ).json()["id"]
        wait_status(client, running, DONE)
        store = client.app.state.manager.store  # type: ignore[attr-defined]
        client.portal.call(  # type: ignore[union-attr]
            lambda: store.update(old, finished_at=now() - timedelta(days=8))
        )
        client.portal.call(  # type: ignore[union-attr]
            lambda: store.update(recent, finished_at=now() - timedelta(days=6))
        )
        before = folder_bytes(data)
    # the sweep runs at start-up (then every EDESK_RETENTION_SWEEP_SECONDS)
    with api(tmp_path, retention_days=7) as client:
        assert client.get(f"/v1/runs/{old}").status_code == 404
        assert client.get(f"/v1/runs/{recent}").status_code == 200
        assert client.get(f"/v1/runs/{running}").status_code == 200
        assert not indexed(indexes(client), call("old"))
        assert client.get("/v1/runs").json()["total"] == 2
    assert folder_bytes(data) < before - 200_000


def test_retention_setting_is_checked(tmp_path: Path) -> None:
    from pydantic import ValidationError

    from app.settings import Settings

    bad_values: list[object] = ["0", "-1", "soon"]
    for bad in bad_values:
        try:
            Settings.model_validate({"data_dir": tmp_path, "retention_days": bad})
        except ValidationError as exc:
            assert "retention_days" in str(exc)
        else:
            raise AssertionError(f"retention_days={bad!r} was accepted")
