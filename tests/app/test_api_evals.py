"""POST /v1/evals + SSE progress: inline calls or an allowed server folder; bad input refused."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.app.api_helpers import api, read_sse
from tests.app.test_eval import GOLD, make_dataset


def test_inline_eval_streams_progress_and_returns_the_table(
    tmp_path: Path, sample_text: str
) -> None:
    body = {
        "calls": [
            {"id": "NW1", "transcript": sample_text, "summary": GOLD,
             "labels": {"day": 1, "week": -1, "month": 1}},
            {"id": "NW2", "transcript": sample_text.replace("Northwind", "Southwind")},
        ],
        "pipelines": ["zero_shot", "standard_rag"],
        "judge": True,
    }  # fmt: skip
    with api(tmp_path) as client:
        resp = client.post("/v1/evals", json=body)
        assert resp.status_code == 202, resp.text
        created = resp.json()
        assert created["total"] == 4 and created["links"]["events"].endswith("/events")
        events = read_sse(client, "GET", created["links"]["events"])
        kinds = [e["event"] for e in events]
        assert kinds[0] == "eval_queued" and kinds[-1] == "eval_finished"
        assert kinds.count("report_finished") == 4 and kinds.count("judged") == 4
        assert kinds.count("pair_judged") == 2
        assert [int(e["id"]) for e in events] == list(range(1, len(events) + 1))
        assert events[-1]["data"]["status"] == "succeeded"
        # replay after an id: only what came later
        tail = read_sse(client, "GET", created["links"]["events"], headers={"Last-Event-ID": "3"})
        assert [e["id"] for e in tail] == [e["id"] for e in events[3:]]
        done = client.get(created["links"]["self"]).json()
    assert done["status"] == "succeeded" and done["done"] == 4
    assert "| fake | zero_shot | 2 | 2 |" in done["table"]
    rows = {r["pipeline"]: r for r in done["rows"]}
    assert rows["zero_shot"]["decision"] == "2/1/0" and rows["zero_shot"]["judge_overall"] == 3.6
    # issue 27, 3: a reference under the data folder, never the server's absolute path
    assert done["out_dir"] == f"evals/{created['id']}" and str(tmp_path) not in str(done)
    out = tmp_path / "data" / done["out_dir"]
    assert (out / "chart.png").is_file() and (out / "summary.csv").is_file()


def test_server_folder_only_when_allowed(tmp_path: Path, sample_text: str) -> None:
    root = make_dataset(tmp_path / "ds", sample_text)
    body = {"dir": str(root), "pipelines": ["zero_shot"], "limit": 1}
    with api(tmp_path) as client:
        refused = client.post("/v1/evals", json=body)
        assert refused.status_code == 403 and "EDESK_EVAL_DIRS" in refused.json()["detail"]
    with api(tmp_path, eval_dirs=str(tmp_path)) as client:
        resp = client.post("/v1/evals", json=body)
        assert resp.status_code == 202 and resp.json()["total"] == 1
        events = read_sse(client, "GET", resp.json()["links"]["events"])
        assert events[-1]["data"]["status"] == "succeeded"
        missing = client.post("/v1/evals", json={**body, "dir": str(tmp_path / "nope")})
        assert missing.status_code == 422
        [problem] = missing.json()["detail"]  # 422 always names the field
        assert problem["loc"] == ["body", "dir"] and "not a folder" in problem["msg"]


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        ({"pipelines": ["zero_shot"]}, "exactly one of dir or calls"),
        ({"calls": [], "pipelines": ["zero_shot"]}, "at least 1"),
        ({"calls": [{"id": "a", "transcript": "x"}], "pipelines": ["nope"]}, "unknown pipeline"),
        ({"calls": [{"id": "../x", "transcript": "x"}]}, "pattern"),
        ({"calls": [{"id": "a", "transcript": "x"}], "pairwise": ["zero_shot", "zero_shot"],
          "pipelines": ["zero_shot"]}, "pairwise takes two"),
        ({"calls": [{"id": "a", "transcript": "x"}], "concurrency": 0}, "greater than or equal"),
        ({"calls": [{"id": "a", "transcript": "x", "labels": {"day": 2}}]}, "labels"),
        ({"calls": [{"id": "a", "transcript": "x"}], "judge": 0}, "judge"),
        ({"calls": [{"id": "a", "transcript": "x"}], "ids": ["b"]}, "no transcript for id"),
        ({"calls": [{"id": "a", "transcript": "x", "financials": {"Ticker": "X"}}]},
         "a's financials"),
        ({"calls": [{"id": "a", "transcript": "x", "call_date": "soon"}]}, "call_date 'soon'"),
    ],
)  # fmt: skip
def test_bad_eval_requests_are_422(tmp_path: Path, body: dict[str, Any], needle: str) -> None:
    with api(tmp_path) as client:
        resp = client.post("/v1/evals", json=body)
        assert resp.status_code == 422, resp.text
        assert needle in resp.text
        assert client.get("/v1/evals/nope").status_code == 404


def test_evals_are_scoped_to_the_api_key(tmp_path: Path, sample_text: str) -> None:
    body = {"calls": [{"id": "a", "transcript": sample_text}], "pipelines": ["zero_shot"]}
    with api(tmp_path, api_keys="k1,k2") as client:
        assert client.post("/v1/evals", json=body).status_code == 401
        mine = client.post("/v1/evals", json=body, headers={"Authorization": "Bearer k1"})
        assert mine.status_code == 202
        url = mine.json()["links"]["self"]
        assert client.get(url, headers={"Authorization": "Bearer k2"}).status_code == 404
        assert client.get(url, headers={"Authorization": "Bearer k1"}).status_code == 200


def test_pairwise_pipelines_are_run_even_if_not_listed(tmp_path: Path, sample_text: str) -> None:
    body = {
        "calls": [{"id": "a", "transcript": sample_text}],
        "pipelines": ["zero_shot"],
        "pairwise": ["zero_shot", "multi_agent"],
    }
    with api(tmp_path) as client:
        resp = client.post("/v1/evals", json=body)
        assert resp.status_code == 202, resp.text
        assert resp.json()["total"] == 2  # one call x (zero_shot + multi_agent)
        events = read_sse(client, "GET", resp.json()["links"]["events"])
        assert events[-1]["data"]["status"] == "succeeded"
        started = {e["data"]["pipeline"] for e in events if e["event"] == "report_started"}
        assert started == {"zero_shot", "multi_agent"}


def test_an_eval_pairs_two_variants_of_one_pipeline(tmp_path: Path, sample_text: str) -> None:
    """`adversarial@S1` and `adversarial@S2` are runs of one graph with their own options."""
    body = {
        "calls": [{"id": "a", "transcript": sample_text}],
        "pipelines": ["adversarial@S1"],
        "pairwise": ["adversarial@S2", "adversarial@S1"],
        "judge": True,
    }
    with api(tmp_path) as client:
        resp = client.post("/v1/evals", json=body)
        assert resp.status_code == 202, resp.text
        events = read_sse(client, "GET", resp.json()["links"]["events"])
        assert events[-1]["data"]["status"] == "succeeded", events[-1]
        started = {e["data"]["pipeline"] for e in events if e["event"] == "report_started"}
        assert started == {"adversarial@S1", "adversarial@S2"}
        runs = client.get("/v1/runs").json()["items"]
        details = [client.get(f"/v1/runs/{r['id']}").json() for r in runs]
    nodes = {
        tuple(t["node"] for t in d["report"]["trace"]) for d in details if d["report"] is not None
    }
    assert {r["pipeline"] for r in runs} == {"adversarial"} and len(nodes) == 2
    s1, s2 = sorted(nodes, key=len)
    assert "behavioral_analyst" not in s1 and "behavioral_analyst" in s2  # S1: the Lead alone
    with api(tmp_path) as client:
        bad = {**body, "pipelines": ["adversarial@S9"], "pairwise": None}
        assert client.post("/v1/evals", json=bad).status_code == 422


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        (b"\xff\xfe not utf-8", "not valid UTF-8"),
        (b"", "empty"),
        ("\u200b\u200b\n".encode(), "empty"),
        (b"Revenue was $5 million.\x00", "NUL"),
    ],
)
def test_a_folder_file_an_inline_call_would_refuse_is_refused_at_intake(
    tmp_path: Path, sample_text: str, content: bytes, needle: str
) -> None:
    """Every file of a server folder is checked as an inline call is: a 422 naming the file,
    and no eval is created."""
    root = make_dataset(tmp_path / "ds", sample_text)
    (root / "BAD_q1_2021.txt").write_bytes(content)
    body = {"dir": str(root), "pipelines": ["zero_shot"]}
    with api(tmp_path, eval_dirs=str(tmp_path)) as client:
        r = client.post("/v1/evals", json=body)
        assert r.status_code in (413, 422), r.text
        [problem] = r.json()["detail"]
        assert problem["loc"] == ["body", "dir"]
        assert "BAD_q1_2021.txt" in problem["msg"] and needle in problem["msg"], problem
        assert client.get("/v1/evals").json()["total"] == 0


def test_an_inline_eval_carries_each_calls_data_to_its_runs(
    tmp_path: Path, sample_text: str
) -> None:
    """`calls[].financials`, `prices`, `call_date` reach the call's runs (issue 39): the summary's
    data table says NW1 carried both and NW2 ran without them."""
    import csv
    import io
    import json

    samples = Path(__file__).resolve().parents[2] / "samples"
    rows = list(csv.DictReader(io.StringIO((samples / "northwind_prices.csv").read_text())))
    series = {
        sym: {"symbol": sym, "bars": [{k: r[k] for k in ("date", "open", "high", "low", "close",
                                                          "volume")} for r in rows
                                      if r["symbol"] == sym]}
        for sym in ("NWL", "SPY")
    }  # fmt: skip
    body = {
        "calls": [
            {"id": "NW1", "transcript": sample_text, "ticker": "NWL", "call_date": "2026-07-20",
             "financials": json.loads((samples / "northwind_financials.json").read_text()),
             "prices": {"company": series["NWL"], "benchmark": series["SPY"]}},
            {"id": "NW2", "transcript": sample_text.replace("Northwind", "Southwind")},
        ],
        "pipelines": ["adversarial@S2"],
    }  # fmt: skip
    with api(tmp_path) as client:
        resp = client.post("/v1/evals", json=body)
        assert resp.status_code == 202, resp.text
        created = resp.json()
        read_sse(client, "GET", created["links"]["events"])
        done = client.get(created["links"]["self"]).json()
    assert done["status"] == "succeeded"
    summary = (tmp_path / "data" / done["out_dir"] / "summary.md").read_text()
    assert "| NW1 | yes | yes |" in summary and "| NW2 | no | no |" in summary
    assert "adversarial@S2 (prices)" in summary
