"""OpenTelemetry: a span per HTTP request, per run and per node (pipeline, node, model,
tokens, retries, outcome), captured with the SDK's in-memory exporter; off when
OTEL_EXPORTER_OTLP_ENDPOINT is unset."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from langchain_core.embeddings import DeterministicFakeEmbedding
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from app import telemetry
from app.api import create_app
from app.settings import Settings
from core import telemetry as spans
from core.llm.fake import FakeModels, Script, canned
from tests.app.api_helpers import wait_status
from tests.conftest import SAMPLE


def test_spans_for_requests_runs_and_nodes(tmp_path: Path) -> None:
    exporter = InMemorySpanExporter()
    provider = telemetry.setup(exporter)
    try:
        app = create_app(
            Settings(data_dir=tmp_path / "data", provider="fake"),
            models=FakeModels(default=Script.of(default=canned)),
            embeddings=DeterministicFakeEmbedding(size=32), embedding_name="fake",
        )  # fmt: skip
        telemetry.instrument(app, provider)
        with TestClient(app) as client:
            run_id = client.post(
                "/v1/runs", json={"transcript": SAMPLE.read_text(), "pipeline": "zero_shot"}
            ).json()["id"]
            wait_status(client, run_id, {"succeeded", "degraded"})
    finally:
        spans.use(None)
    finished = exporter.get_finished_spans()
    [run] = [s for s in finished if s.name == "run zero_shot"]
    assert run.attributes is not None
    assert run.attributes["edesk.run_id"] == run_id
    assert run.attributes["edesk.status"] in ("succeeded", "degraded")
    nodes = {s.name: s for s in finished if s.name.startswith("node ")}
    assert {"node facts", "node synthesize", "node fact_check"} <= set(nodes)
    synth = nodes["node synthesize"]
    assert synth.parent is not None and synth.parent.span_id == run.context.span_id
    attrs = dict(synth.attributes or {})
    assert attrs["edesk.outcome"] == "ok" and int(str(attrs["edesk.calls"])) >= 1
    assert int(str(attrs["edesk.prompt_tokens"])) > 0 and "fake" in str(attrs["edesk.models"])
    assert any(s.name.startswith("POST /v1/runs") for s in finished)  # the HTTP request


def test_off_without_an_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OTEL_EXPORTER_OTLP_ENDPOINT", raising=False)
    assert not telemetry.enabled()
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318")
    assert telemetry.enabled()
