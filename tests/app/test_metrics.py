"""GET /metrics (Prometheus text format) after real runs through the API: runs started and
finished by pipeline and status, node durations, tokens, queue depth, open SSE streams."""

from __future__ import annotations

from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

from tests.app.api_helpers import api, read_sse, wait_status
from tests.conftest import SAMPLE


def scrape(client: object) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    resp = client.get("/metrics")  # type: ignore[attr-defined]
    assert resp.status_code == 200 and resp.headers["content-type"].startswith("text/plain")
    out = {}
    for family in text_string_to_metric_families(resp.text):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def value(m: Samples, name: str, **labels: str) -> float:
    return float(m.get((name, tuple(sorted(labels.items()))), 0.0))


def test_metrics_count_runs_nodes_tokens_and_streams(tmp_path: Path) -> None:
    text = SAMPLE.read_text(encoding="utf-8")
    with api(tmp_path) as client:
        before = scrape(client)
        ids = [
            client.post("/v1/runs", json={"transcript": text, "pipeline": p}).json()["id"]
            for p in ("zero_shot", "facts")
        ]
        for run_id in ids:
            wait_status(client, run_id, {"succeeded", "degraded"})
        events = read_sse(client, "GET", f"/v1/runs/{ids[0]}/events")
        assert events[-1]["event"] == "run_finished"
        after = scrape(client)
    for pipeline in ("zero_shot", "facts"):
        started = "edesk_runs_started_total"
        assert (
            value(after, started, pipeline=pipeline, resumed="false")
            - value(before, started, pipeline=pipeline, resumed="false")
            == 1
        )
    finished = sum(
        v for (n, labels), v in after.items()
        if n == "edesk_runs_finished_total" and ("pipeline", "zero_shot") in labels
    ) - sum(
        v for (n, labels), v in before.items()
        if n == "edesk_runs_finished_total" and ("pipeline", "zero_shot") in labels
    )  # fmt: skip
    assert finished == 1
    synth = dict(pipeline="zero_shot", node="synthesize")
    assert value(after, "edesk_node_duration_seconds_count", **synth) >= 1
    assert value(after, "edesk_tokens_total", kind="prompt", **synth) > value(
        before, "edesk_tokens_total", kind="prompt", **synth
    )
    assert value(after, "edesk_queue_depth") == 0
    assert value(after, "edesk_sse_streams_open") == 0  # the stream above closed
