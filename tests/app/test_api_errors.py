"""Every bad request gets a 4xx JSON error naming the problem, and creates no run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.app.api_helpers import api
from tests.conftest import SAMPLE

TEXT = SAMPLE.read_text()


@pytest.fixture
def client(tmp_path: Path) -> Any:
    with api(tmp_path, max_transcript_bytes=5000) as c:
        yield c


def _no_runs(client: TestClient) -> None:
    assert client.get("/v1/runs").json()["total"] == 0


@pytest.mark.parametrize(
    ("body", "status", "loc"),
    [
        ({"transcript": ""}, 422, ["body", "transcript"]),
        ({"transcript": "   \n\t "}, 422, ["body", "transcript"]),
        ({"transcript": "x" * 6000}, 413, ["body", "transcript"]),
        ({}, 422, ["body", "transcript"]),
        ({"transcript": TEXT, "pipeline": "nope"}, 422, ["body", "pipeline"]),
        (
            {"transcript": TEXT, "options": {"token_budget": 0}},
            422,
            ["body", "options", "token_budget"],
        ),
        ({"transcript": TEXT, "options": {"colour": "red"}}, 422, ["body", "options", "colour"]),
        ({"transcript": TEXT, "surprise": 1}, 422, ["body", "surprise"]),
        ({"transcript": 42}, 422, ["body", "transcript"]),
        ({"transcript": "a\x00b"}, 422, ["body", "transcript"]),
        ({"transcript": TEXT, "options": {"stream_tokens": 1}}, 422,
         ["body", "options", "stream_tokens"]),
        ({"transcript": TEXT, "options": {"retrieval_k": "5"}}, 422,
         ["body", "options", "retrieval_k"]),
    ],
    ids=[
        "empty",
        "whitespace",
        "too-large",
        "missing",
        "unknown-pipeline",
        "bad-option-value",
        "unknown-option",
        "unknown-field",
        "wrong-type",
        "nul",
        "number-for-bool",
        "text-for-int",
    ],
)  # fmt: skip
def test_bad_json_bodies(
    client: TestClient, body: dict[str, Any], status: int, loc: list[str]
) -> None:
    resp = client.post("/v1/runs", json=body)
    assert resp.status_code == status, resp.text
    detail = resp.json()["detail"]
    assert any(d["loc"] == loc for d in detail), detail
    assert all(d["msg"] for d in detail)
    _no_runs(client)


def test_unknown_pipeline_names_the_choices(client: TestClient) -> None:
    msg = client.post("/v1/runs", json={"transcript": TEXT, "pipeline": "x"}).json()["detail"]
    assert "findebate" in msg[0]["msg"]


def test_malformed_json(client: TestClient) -> None:
    resp = client.post(
        "/v1/runs", content=b'{"transcript": "abc', headers={"content-type": "application/json"}
    )
    assert resp.status_code == 422 and resp.json()["detail"][0]["type"] == "json_invalid"
    resp = client.post(
        "/v1/runs", content=b'["a list"]', headers={"content-type": "application/json"}
    )
    assert resp.status_code == 422
    _no_runs(client)


def test_wrong_content_type(client: TestClient) -> None:
    resp = client.post("/v1/runs", content=TEXT.encode(), headers={"content-type": "text/plain"})
    assert resp.status_code == 415 and "application/json" in resp.json()["detail"]
    resp = client.post("/v1/runs", content=b"")
    assert resp.status_code == 415
    _no_runs(client)


def test_multipart_upload(client: TestClient) -> None:
    resp = client.post(
        "/v1/runs?wait=true",
        files={"transcript": ("call.md", SAMPLE.read_bytes()[:4000], "text/markdown")},
        data={
            "pipeline": "zero_shot",
            "company": "Northwind",
            "options": json.dumps({"parse_retries": 1}),
        },
    )
    assert resp.status_code == 200, resp.text
    assert resp.json()["status"] == "succeeded" and resp.json()["call"]["company"] == "Northwind"


@pytest.mark.parametrize(
    ("files", "data", "status", "field"),
    [
        ({"transcript": ("a.txt", b"\xff\xfe bad", "text/plain")}, {}, 422, "transcript"),
        ({"transcript": ("a.txt", b"", "text/plain")}, {}, 422, "transcript"),
        ({"transcript": ("a.txt", b"y" * 6000, "text/plain")}, {}, 413, "transcript"),
        ({"other": ("a.txt", b"hello", "text/plain")}, {}, 422, "transcript"),
        (
            {"transcript": ("a.txt", b"Hello there.", "text/plain")},
            {"options": "{bad"},
            422,
            "options",
        ),
        (
            {"transcript": ("a.txt", b"Hello there.", "text/plain")},
            {"pipeline": "nah"},
            422,
            "pipeline",
        ),
    ],
    ids=[
        "not-utf8",
        "empty-file",
        "too-large",
        "no-transcript",
        "options-not-json",
        "unknown-pipeline",
    ],
)
def test_bad_multipart(
    client: TestClient, files: dict[str, Any], data: dict[str, str], status: int, field: str
) -> None:
    resp = client.post("/v1/runs", files=files, data=data)
    assert resp.status_code == status, resp.text
    assert resp.json()["detail"][0]["loc"] == ["body", field]
    _no_runs(client)


def test_unknown_run_is_404_json(client: TestClient) -> None:
    for method, url in (
        ("GET", "/v1/runs/nope"),
        ("GET", "/v1/runs/nope/report.md"),
        ("GET", "/v1/runs/nope/events"),
        ("POST", "/v1/runs/nope/cancel"),
        ("DELETE", "/v1/runs/nope"),
    ):
        resp = client.request(method, url)
        assert resp.status_code == 404 and "not found" in resp.json()["detail"]


def test_405_names_every_method_of_the_path(client: TestClient) -> None:
    assert client.put("/v1/runs/abc").headers["allow"] == "DELETE, GET"
    assert client.put("/v1/runs").headers["allow"] == "GET, POST"
    resp = client.get("/v1/runs/stream")  # not taken for a run id
    assert resp.status_code == 405 and resp.headers["allow"] == "POST"
    assert resp.json() == {"detail": "Method Not Allowed"}


@pytest.mark.parametrize(
    "headers_query",
    [({"Last-Event-ID": "x"}, ""), ({}, "?after=1.x"), ({"Last-Event-ID": ""}, ""),
     ({"Last-Event-ID": "3"}, "?after=")],
)  # fmt: skip
def test_bad_last_event_id_is_400(
    client: TestClient, headers_query: tuple[dict[str, str], str]
) -> None:
    run_id = client.post("/v1/runs?wait=true", json={"transcript": TEXT}).json()["id"]
    headers, query = headers_query
    resp = client.get(f"/v1/runs/{run_id}/events{query}", headers=headers)
    assert resp.status_code == 400 and "Last-Event-ID" in resp.json()["detail"]


def test_oversized_body_refused_before_reading(client: TestClient) -> None:
    huge = b'{"transcript": "' + b"x" * 4_100_000 + b'"}'
    resp = client.post("/v1/runs", content=huge, headers={"content-type": "application/json"})
    assert resp.status_code == 413 and resp.json()["detail"][0]["type"] == "too_large"
    resp = client.post("/v1/runs", files={"transcript": ("a.txt", b"y" * 4_100_000)})
    assert resp.status_code == 413
    _no_runs(client)


@pytest.mark.parametrize(
    ("extra", "loc_head"),
    [
        (
            {
                "financials": {
                    "most_recent_earnings": {
                        "fiscalDateEnding": "2021-07-31",
                        "totalRevenue": "lots",
                    }
                }
            },
            ["body", "financials", "most_recent_earnings", "totalRevenue"],
        ),
        ({"financials": "not an object"}, ["body", "financials"]),
        (
            {"financials": {"most_recent_earnings": {"fiscalDateEnding": 0}}},
            ["body", "financials", "most_recent_earnings", "fiscalDateEnding"],
        ),
        ({"prices": {"company": {"symbol": "X", "bars": []}}}, ["body", "prices", "company"]),
    ],
)
def test_bad_financials_and_prices(
    client: TestClient, extra: dict[str, Any], loc_head: list[str]
) -> None:
    resp = client.post("/v1/runs", json={"transcript": TEXT, **extra})
    assert resp.status_code == 422, resp.text
    assert any(d["loc"][: len(loc_head)] == loc_head for d in resp.json()["detail"])
    _no_runs(client)


def test_financials_reach_the_report(client: TestClient) -> None:
    fin = {"most_recent_earnings": {"fiscalDateEnding": "2026-06-30", "totalRevenue": "1543100000"}}
    run = client.post(
        "/v1/runs?wait=true", json={"transcript": TEXT, "pipeline": "zero_shot", "financials": fin}
    ).json()
    assert run["status"] == "succeeded"
    numbers = {n["text"]: n["grounded"] for n in run["report"]["evidence"]["numbers"]}
    assert numbers["$1.54 billion"] is True  # stated only in the financials


@pytest.mark.parametrize(
    ("path", "body", "loc"),
    [
        ("/v1/runs", {"transcript": TEXT, "pipeline": "zero_shot", "options": {"debate_rounds": 2}},
         ["body", "options", "debate_rounds"]),
        ("/v1/runs/stream", {"transcript": TEXT, "pipeline": "zero_shot",
                             "options": {"debate_rounds": 2}},
         ["body", "options", "debate_rounds"]),
        ("/runs", {"assistant_id": "zero_shot", "input": {"transcript": TEXT},
                   "context": {"debate_rounds": 2}},
         ["body", "context", "debate_rounds"]),
        ("/runs/wait", {"assistant_id": "zero_shot", "input": {"transcript": TEXT},
                        "config": {"configurable": {"debate_rounds": 2}}},
         ["body", "context", "debate_rounds"]),
    ],
    ids=["v1", "v1-stream", "langgraph-context", "langgraph-configurable"],
)  # fmt: skip
def test_an_option_for_another_pipeline_is_refused(
    client: TestClient, path: str, body: dict[str, Any], loc: list[str]
) -> None:
    """The CLI's rule on the API: `debate_rounds` is findebate's; for zero_shot it is a 422
    naming the option, the pipelines it applies to and the run's pipeline. No run is made."""
    resp = client.post(path, json=body)
    assert resp.status_code == 422, resp.text
    [detail] = resp.json()["detail"]
    assert detail["loc"] == loc and detail["type"] == "not_applicable"
    assert detail["msg"] == "applies to pipeline findebate only, not zero_shot"
    _no_runs(client)


def test_every_option_for_another_pipeline_is_named(client: TestClient) -> None:
    options = {"sas_system": "S1", "conversation_rounds": 2, "chunk_words": 80}
    resp = client.post("/v1/runs", json={"transcript": TEXT, "pipeline": "findebate",
                                         "options": options})  # fmt: skip
    assert resp.status_code == 422, resp.text
    named = {d["loc"][-1]: d["msg"] for d in resp.json()["detail"]}
    assert named == {
        "sas_system": "applies to pipeline adversarial only, not findebate",
        "conversation_rounds": "applies to pipeline conversation only, not findebate",
    }  # chunk_words applies to every pipeline
    multipart = client.post(
        "/v1/runs",
        files={"transcript": ("call.md", TEXT.encode()[:4000], "text/markdown")},
        data={"pipeline": "zero_shot", "options": json.dumps({"feedback_iterations": 2})},
    )
    assert multipart.status_code == 422
    assert multipart.json()["detail"][0]["loc"] == ["body", "options", "feedback_iterations"]
    _no_runs(client)


def test_an_option_of_the_pipeline_is_taken(client: TestClient) -> None:
    resp = client.post("/v1/runs", json={"transcript": TEXT, "pipeline": "adversarial",
                                         "options": {"sas_system": "S1"}})  # fmt: skip
    assert resp.status_code == 202, resp.text
