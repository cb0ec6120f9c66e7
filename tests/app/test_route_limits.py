"""Issue 27 section 2: every limit holds on every route. Threads (the LangGraph routes) have a
metadata cap, count in the per-key quotas, one id rule whichever route makes them, are scoped by
key and can be deleted; a refused request stores nothing; evaluations count in the per-key run
quotas and can be listed, cancelled and deleted; retention sweeps threads and evaluations."""

from __future__ import annotations

import json
import os
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.app.api_helpers import api, read_sse, wait_status
from tests.app.test_eval import make_dataset

SAMPLE = (Path(__file__).parents[2] / "samples" / "northwind_q2_2026.md").read_text()
A = {"X-Api-Key": "key-a"}
B = {"X-Api-Key": "key-b"}
RUN = {"assistant_id": "zero_shot", "input": {"transcript": SAMPLE}}


def counts(tmp_path: Path) -> tuple[int, int]:
    """(threads, runs) stored, read straight from the database file."""
    with sqlite3.connect(tmp_path / "data" / "runs.sqlite") as conn:
        threads = conn.execute("SELECT count(*) FROM threads").fetchone()[0]
        runs = conn.execute("SELECT count(*) FROM runs").fetchone()[0]
    return int(threads), int(runs)


def post_raw(client: TestClient, url: str, body: str, headers: dict[str, str]) -> Any:
    return client.post(
        url, content=body.encode(), headers={**headers, "Content-Type": "application/json"}
    )


# -- threads: metadata, quota, delete ------------------------------------------------------------


def test_thread_metadata_past_its_limit_is_a_413_naming_the_setting(tmp_path: Path) -> None:
    with api(tmp_path, api_keys="key-a", max_thread_metadata_bytes=1000) as client:
        big = client.post("/threads", json={"metadata": {"x": "a" * 2000}}, headers=A)
        assert big.status_code == 413, big.text
        [problem] = big.json()["detail"]
        assert problem["loc"] == ["body", "metadata"]
        assert "EDESK_MAX_THREAD_METADATA_BYTES" in problem["msg"] and "a" * 50 not in big.text
        assert client.post("/threads", json={"metadata": {"x": "a" * 900}}, headers=A).is_success
    assert counts(tmp_path) == (1, 0)


@pytest.mark.parametrize(
    "metadata",
    ['{"k": "\\ud800"}', '{"\\udfff": 1}', '{"k": ["ok", {"deep": "x\\ud83d"}]}', '{"k": NaN}'],
)
def test_thread_metadata_json_cannot_send_back_is_a_422_and_nothing_is_stored(
    tmp_path: Path, metadata: str
) -> None:
    """A lone surrogate (or NaN) in metadata was stored, and the thread then answered 500."""
    with api(tmp_path) as client:
        resp = post_raw(client, "/threads", f'{{"thread_id": "t1", "metadata": {metadata}}}', {})
        assert resp.status_code == 422, resp.text
        # NaN is refused by the strict JSON parse of the whole body, before the fields are read
        where = ["body", ""] if "NaN" in metadata else ["body", "metadata"]
        assert resp.json()["detail"][0]["loc"] == where
        assert client.get("/threads/t1").status_code == 404
    assert counts(tmp_path) == (0, 0)


def test_threads_count_in_the_per_key_quota(tmp_path: Path) -> None:
    with api(tmp_path, api_keys="key-a,key-b", key_threads=2) as client:
        assert client.post("/threads", json={}, headers=A).status_code == 200
        assert client.post("/runs", json=RUN, headers=A).status_code == 200  # makes a thread
        third = client.post("/threads", json={}, headers=A)
        assert third.status_code == 429 and "EDESK_KEY_THREADS=2" in third.json()["detail"]
        stateless = client.post("/runs", json=RUN, headers=A)
        assert stateless.status_code == 429 and "EDESK_KEY_THREADS=2" in stateless.text
        made = client.post("/threads/new-one/runs", json={**RUN, "if_not_exists": "create"},
                           headers=A)  # fmt: skip
        assert made.status_code == 429
        assert counts(tmp_path) == (2, 1)  # nothing of the refused requests
        assert client.post("/threads", json={}, headers=B).status_code == 200  # another key


def test_delete_thread_removes_it_and_its_runs_for_its_key_only(tmp_path: Path) -> None:
    with api(tmp_path, api_keys="key-a,key-b") as client:
        thread = client.post("/threads", json={"thread_id": "t1"}, headers=A).json()
        run = client.post("/threads/t1/runs/wait", json=RUN, headers=A)
        assert run.status_code == 200 and "report" in run.json()
        run_id = run.headers["Content-Location"].rsplit("/", 1)[1]
        assert client.delete("/threads/t1", headers=B).status_code == 404
        assert client.get(f"/threads/{thread['thread_id']}", headers=A).status_code == 200
        assert client.delete("/threads/t1", headers=A).status_code == 204
        assert client.get("/threads/t1", headers=A).status_code == 404
        assert client.get(f"/v1/runs/{run_id}", headers=A).status_code == 404
        assert client.delete("/threads/t1", headers=A).status_code == 404
    assert counts(tmp_path) == (0, 0)


# -- one thread-id rule --------------------------------------------------------------------------

BAD_IDS = ["a%0D%0Ab", "a%0Ab", "a%00b", "a%E2%80%8Fb", "a%E2%80%AEb", "a%EF%BB%BFb", "a%09b",
           "a%C2%85b", "a%20b", "x" * 65, "caf%C3%A9"]  # fmt: skip


@pytest.mark.parametrize("bad", BAD_IDS)
@pytest.mark.parametrize("route", ["runs", "runs/wait", "runs/stream"])
def test_a_thread_made_by_a_run_follows_the_thread_id_rule(
    tmp_path: Path, bad: str, route: str
) -> None:
    """POST /threads/{id}/runs with if_not_exists "create" skipped POST /threads' rule: CR/LF and
    NUL dropped the connection, a right-to-left mark was a 500, and thread and run were kept."""
    with api(tmp_path) as client:
        resp = client.post(f"/threads/{bad}/{route}", json={**RUN, "if_not_exists": "create"})
        assert resp.status_code == 422, resp.text
        [problem] = resp.json()["detail"]
        assert problem["loc"] == ["path", "thread_id"] and "64 characters" in problem["msg"]
        assert client.post("/threads", json={"thread_id": bad}).status_code == 422  # same rule
    assert counts(tmp_path) == (0, 0)


def test_a_good_id_still_makes_the_thread_on_demand(tmp_path: Path) -> None:
    with api(tmp_path) as client:
        made = client.post(
            "/threads/Made_on-demand-1/runs", json={**RUN, "if_not_exists": "create"}
        )
        assert made.status_code == 200 and made.json()["thread_id"] == "Made_on-demand-1"
        assert client.get("/threads/Made_on-demand-1").status_code == 200
    assert counts(tmp_path) == (1, 1)


def test_a_thread_stored_before_the_rule_still_answers_with_a_valid_header(tmp_path: Path) -> None:
    """A thread made through the old bypass (a CR/LF id) is usable and deletable: its id goes
    into Content-Location percent-encoded, never raw."""
    with api(tmp_path) as client:
        pass  # creates the schema
    with sqlite3.connect(tmp_path / "data" / "runs.sqlite") as conn:
        conn.execute("INSERT INTO threads (id, owner, created_at, metadata) VALUES "
                     "('a\r\nb', NULL, '2026-11-01T09:30:00+00:00', '{}')")  # fmt: skip
    with api(tmp_path) as client:
        resp = client.post("/threads/a%0D%0Ab/runs", json=RUN)
        assert resp.status_code == 200, resp.text
        run_id = resp.json()["run_id"]
        assert resp.headers["Content-Location"] == f"/threads/a%0D%0Ab/runs/{run_id}"
        wait_status(client, run_id, {"succeeded"})
        assert client.delete("/threads/a%0D%0Ab").status_code == 204
    assert counts(tmp_path) == (0, 0)


# -- refused requests store nothing --------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "loc"),
    [
        ({"assistant_id": "zero_shot", "input": {"company": "x"}}, ["body", "input", "transcript"]),
        ({**RUN, "config": {"configurable": [1, 2]}}, ["body", "config", "configurable"]),
        ({**RUN, "config": {"configurable": "fast"}}, ["body", "config", "configurable"]),
        ({**RUN, "config": ["x"]}, ["body", "config"]),
        ({**RUN, "context": {"chunk_words": 5}}, ["body", "context", "chunk_words"]),
        ({**RUN, "input": {"transcript": "\u200b\u200b"}}, ["body", "input"]),
    ],
)
@pytest.mark.parametrize("route", ["/runs", "/runs/wait", "/runs/stream",
                                   "/threads/fresh/runs"])  # fmt: skip
def test_a_refused_run_request_stores_no_thread(
    tmp_path: Path, body: dict[str, Any], loc: list[str], route: str
) -> None:
    with api(tmp_path) as client:
        resp = client.post(route, json={**body, "if_not_exists": "create"})
        assert resp.status_code == 422, resp.text
        assert resp.json()["detail"][0]["loc"][: len(loc)] == loc
    assert counts(tmp_path) == (0, 0)


def test_a_run_refused_by_a_quota_stores_no_thread(tmp_path: Path) -> None:
    with api(tmp_path, latency=0.3, max_runs=1, key_runs_in_flight=1) as client:
        first = client.post("/runs", json=RUN)
        assert first.status_code == 200
        for route in ("/runs", "/runs/stream", "/runs/wait", "/threads/fresh/runs"):
            refused = client.post(route, json={**RUN, "if_not_exists": "create"})
            assert refused.status_code == 429 and "EDESK_KEY_RUNS_IN_FLIGHT=1" in refused.text
        assert counts(tmp_path) == (1, 1)
        wait_status(client, first.json()["run_id"], {"succeeded"})


# -- thread ids are per key ----------------------------------------------------------------------


def test_thread_ids_are_per_key(tmp_path: Path) -> None:
    """Key B making a thread with key A's id got 409 "already exists": a leak of A's ids."""
    with api(tmp_path, api_keys="key-a,key-b") as client:
        mine = client.post("/threads", json={"thread_id": "t1", "metadata": {"who": "a"}},
                           headers=A)  # fmt: skip
        assert mine.status_code == 200
        theirs = client.post("/threads", json={"thread_id": "t1", "metadata": {"who": "b"}},
                             headers=B)  # fmt: skip
        assert theirs.status_code == 200, theirs.text
        assert theirs.json()["metadata"] == {"who": "b"}
        assert client.get("/threads/t1", headers=A).json()["metadata"] == {"who": "a"}
        again = client.post("/threads", json={"thread_id": "t1"}, headers=B)
        assert again.status_code == 409  # its own thread: it exists
        a_run = client.post("/threads/t1/runs/wait", json=RUN, headers=A)
        a_run_id = a_run.headers["Content-Location"].rsplit("/", 1)[1]
        b_run = client.post("/threads/t1/runs/wait", json=RUN, headers=B)
        b_run_id = b_run.headers["Content-Location"].rsplit("/", 1)[1]
        listed = client.get("/threads/t1/runs", headers=A).json()
        assert [r["run_id"] for r in listed] == [a_run_id]
        assert client.get(f"/threads/t1/runs/{a_run_id}", headers=B).status_code == 404
        assert client.delete(f"/threads/t1/runs/{a_run_id}", headers=B).status_code == 404
        assert client.delete("/threads/t1", headers=B).status_code == 204
        assert client.get(f"/threads/t1/runs/{a_run_id}", headers=A).status_code == 200
        assert client.get(f"/v1/runs/{b_run_id}", headers=B).status_code == 404
        # another key's id made on demand is that key's own new thread
        made = client.post("/threads/t1/runs", json={**RUN, "if_not_exists": "create"},
                           headers=B)  # fmt: skip
        assert made.status_code == 200
        assert client.get("/threads/t1", headers=B).json()["metadata"] == {}
        wait_status(client, made.json()["run_id"], {"succeeded"}, headers=B)
    assert counts(tmp_path)[0] == 2


def test_retention_sweeps_threads_once_their_runs_are_gone(tmp_path: Path) -> None:
    """Threads made before the cutoff go once they hold no run; a thread with a run left does
    not."""
    with api(tmp_path) as client:
        client.post("/threads", json={"thread_id": "idle"})
        client.post("/threads/busy/runs/wait", json={**RUN, "if_not_exists": "create"})
    time.sleep(0.05)
    with api(tmp_path, retention_days=1e-9):  # start-up sweep: every run and thread is old
        pass
    assert counts(tmp_path) == (0, 0)
    with api(tmp_path) as client:
        client.post("/threads", json={"thread_id": "idle"})
        client.post("/threads/busy/runs/wait", json={**RUN, "if_not_exists": "create"})
        assert json.loads(client.get("/threads/busy").text)["status"] == "idle"
    with api(tmp_path, retention_days=1):  # nothing is a day old
        pass
    assert counts(tmp_path) == (2, 1)


# -- evaluations ---------------------------------------------------------------------------------

K1 = {"Authorization": "Bearer k1"}
K2 = {"Authorization": "Bearer k2"}


def eval_body(n: int, concurrency: int = 1) -> dict[str, Any]:
    calls = [{"id": f"c{i}", "transcript": SAMPLE.replace("Northwind", f"North{i}")}
             for i in range(n)]  # fmt: skip
    return {"calls": calls, "pipelines": ["zero_shot"], "concurrency": concurrency}


def in_flight(client: TestClient, headers: dict[str, str] | None = None) -> int:
    page = client.get("/v1/runs?limit=200", headers=headers or {}).json()
    return sum(r["status"] in ("queued", "running") for r in page["items"])


def inputs_of(tmp_path: Path) -> set[str]:
    folder = tmp_path / "data" / "evals" / "inputs"
    return {p.name for p in folder.iterdir()} if folder.is_dir() else set()


def test_evaluations_count_in_the_per_key_run_quota(tmp_path: Path) -> None:
    """Four evaluations of 8 calls put 26 runs in flight for a key limited to 20: each one now
    holds as many runs as it may have in flight at once (its concurrency) from its creation."""
    with api(tmp_path, latency=0.2, max_runs=1, key_runs_in_flight=5) as client:
        first = client.post("/v1/evals", json=eval_body(4, concurrency=3))
        assert first.status_code == 202, first.text
        second = client.post("/v1/evals", json=eval_body(4, concurrency=3))
        assert second.status_code == 429, second.text
        assert "EDESK_KEY_RUNS_IN_FLIGHT=5" in second.json()["detail"]
        assert second.headers["Retry-After"]
        assert inputs_of(tmp_path) == {first.json()["id"]}  # nothing of the refused one
        assert client.get("/v1/evals").json()["total"] == 1
        # the evaluation's three count against /v1/runs too
        run = {"transcript": SAMPLE, "pipeline": "zero_shot"}
        assert [client.post("/v1/runs", json=run).status_code for _ in range(3)] == [202, 202, 429]
        for _ in range(10):
            assert in_flight(client) <= 5
            time.sleep(0.05)
        assert client.post("/v1/evals", json=eval_body(1)).status_code == 429
        assert client.post(f"/v1/evals/{first.json()['id']}/cancel").status_code == 200
        assert client.post("/v1/evals", json=eval_body(1)).status_code == 202  # room again


def test_evaluations_are_listed_cancelled_and_deleted_per_key(tmp_path: Path) -> None:
    with api(tmp_path, latency=0.2, max_runs=1, api_keys="k1,k2") as client:
        created = client.post("/v1/evals", json=eval_body(3), headers=K1).json()
        eval_id = created["id"]
        listed = client.get("/v1/evals", headers=K1).json()
        assert listed["total"] == 1 and [e["id"] for e in listed["items"]] == [eval_id]
        assert client.get("/v1/evals", headers=K2).json() == {
            "items": [], "total": 0, "offset": 0, "limit": 20
        }  # fmt: skip
        assert client.post(f"/v1/evals/{eval_id}/cancel", headers=K2).status_code == 404
        assert client.delete(f"/v1/evals/{eval_id}", headers=K2).status_code == 404
        cancelled = client.post(f"/v1/evals/{eval_id}/cancel", headers=K1)
        assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
        events = read_sse(client, "GET", f"/v1/evals/{eval_id}/events", headers=K1)
        assert events[-1]["event"] == "eval_finished"
        assert events[-1]["data"]["status"] == "cancelled"
        for _ in range(100):  # a running report run stops at its next node boundary
            if in_flight(client, K1) == 0:
                break
            time.sleep(0.1)
        assert in_flight(client, K1) == 0
        runs = client.get("/v1/runs", headers=K1).json()["items"]
        assert len(runs) < 3  # no report run started after the cancel
        again = client.post(f"/v1/evals/{eval_id}/cancel", headers=K1)
        assert again.json()["status"] == "cancelled"
        assert eval_id in inputs_of(tmp_path)
        assert client.delete(f"/v1/evals/{eval_id}", headers=K1).status_code == 204
        assert client.get(f"/v1/evals/{eval_id}", headers=K1).status_code == 404
        assert client.delete(f"/v1/evals/{eval_id}", headers=K1).status_code == 404
        assert client.get("/v1/runs", headers=K1).json()["total"] == 0
    assert inputs_of(tmp_path) == set()


def test_deleting_a_finished_evaluation_drops_its_outputs_inputs_and_runs(tmp_path: Path) -> None:
    with api(tmp_path) as client:
        created = client.post("/v1/evals", json=eval_body(2)).json()
        read_sse(client, "GET", created["links"]["events"])
        done = client.get(created["links"]["self"]).json()
        assert done["status"] == "succeeded"
        out = tmp_path / "data" / done["out_dir"]  # relative to the data folder
        assert (out / "summary.csv").is_file() and inputs_of(tmp_path) == {created["id"]}
        assert client.get("/v1/runs").json()["total"] == 2
        assert client.delete(created["links"]["self"]).status_code == 204
        assert not out.exists() and inputs_of(tmp_path) == set()
        assert client.get("/v1/runs").json()["total"] == 0


def test_retention_sweeps_evaluations_their_folders_and_leftovers(tmp_path: Path) -> None:
    dataset = make_dataset(tmp_path / "ds", SAMPLE, n=1)
    with api(tmp_path, eval_dirs=str(tmp_path / "ds")) as client:
        inline = client.post("/v1/evals", json=eval_body(1)).json()
        from_dir = client.post("/v1/evals", json={"dir": str(dataset), "pipelines": ["zero_shot"]})
        for created in (inline, from_dir.json()):
            read_sse(client, "GET", created["links"]["events"])
        outs = [tmp_path / "data" / client.get(e["links"]["self"]).json()["out_dir"]
                for e in (inline, from_dir.json())]  # fmt: skip
    evals_root = tmp_path / "data" / "evals"
    leftover = evals_root / "inputs" / "left-by-a-crash"
    leftover.mkdir()
    (leftover / "a.txt").write_text("x")
    recent = evals_root / "inputs" / "being-written"
    recent.mkdir()
    old = time.time() - 3 * 86400
    os.utime(leftover, (old, old))
    with api(tmp_path, retention_days=1):  # the evaluations ended now: kept
        pass
    assert all(o.is_dir() for o in outs) and inline["id"] in inputs_of(tmp_path)
    time.sleep(0.05)
    with api(tmp_path, retention_days=1e-9) as client:  # everything ended before the cutoff
        assert client.get(inline["links"]["self"]).status_code == 404
        assert client.get("/v1/evals").json()["total"] == 0
        assert client.get("/v1/runs").json()["total"] == 0
    assert not any(o.exists() for o in outs) and not leftover.exists()
    assert inputs_of(tmp_path) == set()  # `being-written` too: made before the tiny cutoff
    assert (dataset / "NW0_q2_2026.txt").is_file()  # a server folder it read is never touched
