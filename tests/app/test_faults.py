"""Injected model faults (core.llm.faults via the EDESK_FAULTS setting of the fake provider): each
kind is retried within the budget and the run succeeds; past the budget the run ends failed or
degraded naming the node and the reason, with its input, finished nodes and events kept."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from langchain_core.embeddings import DeterministicFakeEmbedding

from app.api import create_app
from app.settings import Settings
from core.llm.faults import FaultPlan
from tests.app.api_helpers import read_sse, wait_status

SAMPLE = (Path(__file__).resolve().parents[2] / "samples" / "northwind_q2_2026.md").read_text()
TERMINAL = {"succeeded", "degraded", "failed", "cancelled"}


@contextmanager
def faulty_api(tmp_path: Path, faults: dict[str, list[str]], **cfg: Any) -> Iterator[TestClient]:
    settings = Settings(
        data_dir=tmp_path / "data", provider="fake", faults=faults, max_retries=2,
        retry_backoff=0.01, parse_retries=1, **cfg,
    )  # fmt: skip
    app = create_app(settings, embeddings=DeterministicFakeEmbedding(size=32), embedding_name="f")
    with TestClient(app) as client:
        yield client


def run(client: TestClient, pipeline: str = "findebate") -> tuple[dict[str, Any], list[Any]]:
    body = {"transcript": SAMPLE, "pipeline": pipeline}
    run_id = client.post("/v1/runs", json=body).json()["id"]
    detail = wait_status(client, run_id, TERMINAL)
    return detail, read_sse(client, "GET", f"/v1/runs/{run_id}/events")


def injected(client: TestClient) -> list[tuple[str, str]]:
    plan = client.app.state.manager.engine.models.faults  # type: ignore[attr-defined]
    assert isinstance(plan, FaultPlan)
    return plan.injected


@pytest.mark.parametrize("fault", ["timeout", "429", "500", "503"])
def test_transient_faults_are_retried_within_the_budget(tmp_path: Path, fault: str) -> None:
    # two failures at the synthesis and at one specialist; max_retries=2 allows both
    plan = {"synthesize": [fault, fault], "risk_analyst": [fault]}
    with faulty_api(tmp_path, plan) as client:
        detail, events = run(client)
        assert injected(client).count(("synthesize", fault)) == 2
    assert detail["status"] == "succeeded", detail["error"]
    retries = {t["node"]: t["retries"] for t in detail["report"]["trace"]}
    assert retries["synthesize"] == 2 and retries["risk_analyst"] == 1


@pytest.mark.parametrize(
    ("fault", "reason", "says"),
    [
        ("timeout", "timeout", "APITimeoutError"),
        ("429", "rate_limited", "RateLimitError"),
        ("503", "server_error", "503"),
    ],
)
def test_past_the_budget_the_run_fails_naming_node_and_reason(
    tmp_path: Path, fault: str, reason: str, says: str
) -> None:
    with faulty_api(tmp_path, {"synthesize": [fault] * 3}) as client:
        detail, events = run(client)
        run_id = detail["id"]
        # the input is kept: the transcript is still served
        assert client.get(f"/v1/runs/{run_id}/transcript").text.strip() == SAMPLE.strip()
        # finished nodes' outputs are kept in the checkpoint
        graph = client.app.state.manager.engine.graphs["findebate"]  # type: ignore[attr-defined]
        state = graph.get_state({"configurable": {"thread_id": run_id}})
    assert detail["status"] == "failed"
    assert detail["failed_node"] == "synthesize" and detail["reason"] == reason
    assert "3 attempt(s)" in detail["error"] and says in detail["error"]
    finished = {e["data"]["node"] for e in events if e["event"] == "node_finished"}
    assert {"ingest", "retrieve", "earnings_analyst", "risk_analyst"} <= finished
    assert len(state.values["analyses"]) == 5 and "draft" not in state.values
    errors = [e for e in events if e["event"] == "error"]
    assert errors and errors[0]["data"]["node"] == "synthesize"
    assert events[-1]["event"] == "run_finished" and events[-1]["data"]["reason"] == reason


def test_empty_answers_retried_then_fail_the_node(tmp_path: Path) -> None:
    with faulty_api(tmp_path, {"risk_analyst": ["empty"]}) as client:
        ok, _ = run(client)
    assert ok["status"] == "succeeded"
    with faulty_api(tmp_path / "b", {"risk_analyst": ["empty"] * 4}) as client:
        detail, _ = run(client)
    assert detail["status"] == "failed" and detail["failed_node"] == "risk_analyst"
    assert detail["reason"] == "empty_output" and "empty text" in detail["error"]


def test_garbage_instead_of_the_recommendations(tmp_path: Path) -> None:
    # synthesize calls the writer (text), then the extractor (the tool call); parse_retries=1:
    # one garbage tool answer is re-asked and repaired
    with faulty_api(tmp_path, {"synthesize": ["garbage", "garbage"]}) as client:
        ok, _ = run(client, "zero_shot")
        assert injected(client) == [("synthesize", "garbage")] * 2
    assert ok["status"] == "succeeded"
    # past the budget: the report is kept, marked degraded, no stance invented
    with faulty_api(tmp_path / "b", {"synthesize": ["garbage"] * 3}) as client:
        detail, events = run(client, "zero_shot")
    assert detail["status"] == "degraded"
    failure = detail["report"]["failures"][0]
    assert failure["node"] == "synthesize" and "parse" in failure["reason"].lower()
    assert detail["report"]["recommendations"] == []
    assert events[-1]["data"]["status"] == "degraded"


def test_unknown_fault_is_a_settings_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown fault"):
        Settings(data_dir=tmp_path, provider="fake", faults={"synthesize": ["meteor"]})
    with pytest.raises(ValueError, match="provider=fake|EDESK_PROVIDER=fake"):
        Settings(data_dir=tmp_path, provider="local", faults={"synthesize": ["429"]})
