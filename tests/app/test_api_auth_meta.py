"""API keys (on and off), pipelines, health, OpenAPI."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from graphs import PIPELINES
from tests.app.api_helpers import api, read_sse, wait_status
from tests.conftest import SAMPLE

TEXT = SAMPLE.read_text()
A = {"Authorization": "Bearer key-a"}
B = {"Authorization": "Bearer key-b"}


def test_keys_required_and_runs_scoped(tmp_path: Path) -> None:
    with api(tmp_path, api_keys="key-a,key-b") as client:
        assert client.post("/v1/runs", json={"transcript": TEXT}).status_code == 401
        bad = client.get("/v1/runs", headers={"Authorization": "Bearer nope"})
        assert bad.status_code == 401 and bad.headers["www-authenticate"] == "Bearer"
        assert client.get("/v1/runs").status_code == 401
        run_id = client.post("/v1/runs", json={"transcript": TEXT}, headers=A).json()["id"]
        wait_status(client, run_id, {"succeeded"}, headers=A)
        assert client.get(f"/v1/runs/{run_id}", headers=B).status_code == 404
        assert client.get(f"/v1/runs/{run_id}/events", headers=B).status_code == 404
        assert client.post(f"/v1/runs/{run_id}/cancel", headers=B).status_code == 404
        assert client.delete(f"/v1/runs/{run_id}", headers=B).status_code == 404
        assert client.get("/v1/runs", headers=B).json()["total"] == 0
        assert client.get("/v1/runs", headers=A).json()["total"] == 1
        # EventSource cannot send headers: the key may come as ?access_token=
        events = read_sse(client, "GET", f"/v1/runs/{run_id}/events?access_token=key-a")
        assert events[-1]["event"] == "run_finished"
        # ... on the event streams only: a key in any other URL is refused, with the reason
        for method, url in (
            ("GET", f"/v1/runs/{run_id}"), ("GET", "/v1/runs"),
            ("GET", f"/v1/runs/{run_id}/report.md"), ("POST", f"/v1/runs/{run_id}/cancel"),
            ("DELETE", f"/v1/runs/{run_id}"), ("GET", "/v1/evals/e1"),
        ):  # fmt: skip
            resp = client.request(method, f"{url}?access_token=key-a")
            assert resp.status_code == 401, (method, url)
            assert "only on event streams" in resp.json()["detail"]
        posted = client.post("/v1/runs?access_token=key-a", json={"transcript": TEXT})
        assert posted.status_code == 401
        assert client.get(f"/v1/runs/{run_id}", headers=A).status_code == 200  # nothing lost
        spec = client.get("/openapi.json").json()["paths"]
        assert {"access_token": []} in spec["/v1/runs/{run_id}/events"]["get"]["security"]
        assert {"access_token": []} not in spec["/v1/runs/{run_id}"]["get"]["security"]
        assert client.get("/healthz").status_code == 200  # probes stay open


def test_no_keys_means_open(tmp_path: Path) -> None:
    with api(tmp_path) as client:
        assert client.get("/v1/runs").status_code == 200


def test_pipelines_for_drawing(tmp_path: Path) -> None:
    with api(tmp_path) as client:
        body = client.get("/v1/pipelines").json()
    assert [p["name"] for p in body] == list(PIPELINES)
    fd = next(p for p in body if p["name"] == "findebate")
    assert fd["nodes"][:3] == ["facts", "ingest", "retrieve"] and "revert" in fd["nodes"]
    assert {
        "source": "integrity_check",
        "target": "revert",
        "conditional": True,
        "label": None,
    } in fd["edges"] or any(
        e["source"] == "integrity_check" and e["target"] == "revert" for e in fd["edges"]
    )
    assert fd["mermaid"].startswith("---") and "graph TD" in fd["mermaid"]


def test_health_and_docs(tmp_path: Path) -> None:
    with api(tmp_path, cors_origins="http://desk.example") as client:
        assert client.get("/healthz").json() == {"status": "ok"}
        ready = client.get("/readyz")
        assert ready.status_code == 200 and ready.json()["checks"]["run_store"] == "ok"
        assert ready.json()["checks"]["vector_store"] == "ok"
        spec = client.get("/openapi.json").json()
        assert "/v1/runs" in spec["paths"] and "/v1/runs/{run_id}/events" in spec["paths"]
        body = spec["paths"]["/v1/runs"]["post"]["requestBody"]["content"]
        assert {"application/json", "multipart/form-data"} <= set(body)
        schemas = spec["components"]["schemas"]
        ref = body["application/json"]["schema"]["$ref"].rsplit("/", 1)[-1]
        assert ref == "RunCreate" and "transcript" in schemas[ref]["properties"]
        assert "RunOptionsIn" in schemas
        assert client.get("/docs").status_code == 200
        cors = client.options(
            "/v1/runs",
            headers={"Origin": "http://desk.example", "Access-Control-Request-Method": "POST"},
        )
        assert cors.headers["access-control-allow-origin"] == "http://desk.example"


def test_no_transcript_or_key_in_info_logs(tmp_path: Path, caplog: Any) -> None:
    secret_line = "Utilisation at the two new hubs reached 78% in June"
    assert secret_line in TEXT
    with caplog.at_level(logging.INFO), api(tmp_path, api_keys="sekrit-key") as client:
        auth = {"Authorization": "Bearer sekrit-key"}
        run_id = client.post("/v1/runs?wait=true", json={"transcript": TEXT}, headers=auth).json()
        client.get(f"/v1/runs/{run_id['id']}/events?access_token=sekrit-key")
    # everything the server side logged (httpx here is the test client's own request log)
    text = "\n".join(r.getMessage() for r in caplog.records if not r.name.startswith("httpx"))
    assert "POST /v1/runs 200" in text  # requests are logged ...
    assert "sekrit-key" not in text and secret_line not in text  # ... without secrets or text


def test_no_key_in_meta_endpoints_or_docs(tmp_path: Path) -> None:
    """The service's keys and vendor keys are secrets: no meta endpoint, the OpenAPI document or
    the docs page shows them, while the keys still work."""
    with api(
        tmp_path, api_keys="sekrit-api-key", alphavantage_api_key="sekrit-vendor-key"
    ) as client:
        auth = {"Authorization": "Bearer sekrit-api-key"}
        assert client.get("/v1/runs", headers=auth).status_code == 200  # the key works
        for url in (
            "/healthz", "/readyz", "/metrics", "/v1/pipelines", "/openapi.json", "/docs",
        ):  # fmt: skip
            resp = client.get(url, headers=auth)
            assert resp.status_code == 200, url
            assert "sekrit" not in resp.text, url
        search = client.post("/assistants/search", json={}, headers=auth)
        assert search.status_code == 200 and "sekrit" not in search.text


def test_a_key_with_characters_outside_ascii_is_a_401_not_a_500(
    tmp_path: Path, caplog: Any
) -> None:
    """A key is compared as bytes: any characters are a 401 with a JSON body, on every route
    that takes a key (headers, the event stream's ?access_token=, the LangGraph routes), and
    a refusal is one log line, no traceback."""
    with caplog.at_level(logging.INFO), api(tmp_path, api_keys="key-a") as client:
        tries: list[tuple[str, str, dict[str, Any]]] = [  # header values as sent: UTF-8 bytes
            ("GET", "/v1/runs", {"X-Api-Key": "é".encode()}),
            ("GET", "/v1/runs", {"Authorization": "Bearer kéy".encode()}),
            ("POST", "/threads", {"X-Api-Key": "é".encode()}),
            ("GET", "/v1/runs/r1/events?access_token=%C3%A9", {"Accept": "text/event-stream"}),
        ]
        for method, url, headers in tries:
            r = client.request(method, url, headers=headers, json={} if method == "POST" else None)
            assert r.status_code == 401, (url, headers, r.status_code, r.text[:200])
            assert r.headers["content-type"].startswith("application/json")
            assert "API key" in r.json()["detail"]
        ok = client.get("/v1/runs", headers={"X-Api-Key": "key-a"})
        assert ok.status_code == 200
    assert "Traceback" not in caplog.text
