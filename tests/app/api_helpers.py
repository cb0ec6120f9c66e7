"""Helpers for API tests: an app on fake models, and an SSE reader."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from langchain_core.embeddings import DeterministicFakeEmbedding

from app.api import create_app
from app.settings import Settings
from core.llm.fake import FakeModels, Script, canned


@contextmanager
def api(
    tmp_path: Path, *, latency: float = 0.0, models: FakeModels | None = None, **settings: Any
) -> Iterator[TestClient]:
    cfg = Settings(data_dir=tmp_path / "data", provider="fake", **settings)
    app = create_app(
        cfg,
        models=models or FakeModels(default=Script.of(default=canned), latency=latency),
        embeddings=DeterministicFakeEmbedding(size=32),
        embedding_name="fake",
    )
    with TestClient(app) as client:
        yield client


def read_sse(
    client: TestClient, method: str, url: str, *, pings: list[str] | None = None, **kwargs: Any
) -> list[dict[str, Any]]:
    """Every event of a stream until it closes: [{'id', 'event', 'data'}]; heartbeat comment
    lines go to `pings` when given."""
    events: list[dict[str, Any]] = []
    current: dict[str, Any] = {}
    with client.stream(method, url, **kwargs) as resp:
        assert resp.status_code == 200, resp.read()
        assert resp.headers["content-type"].startswith("text/event-stream")
        for line in resp.iter_lines():
            if not line:
                if "event" in current:
                    events.append(current)
                current = {}
            elif line.startswith(":"):
                if pings is not None:
                    pings.append(line)
            else:
                key, _, value = line.partition(":")
                value = value.removeprefix(" ")
                current[key] = json.loads(value) if key == "data" else value
    return events


def wait_status(
    client: TestClient, run_id: str, statuses: set[str], timeout: float = 30, **kwargs: Any
) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        body: dict[str, Any] = client.get(f"/v1/runs/{run_id}", **kwargs).json()
        if body["status"] in statuses:
            return body
        time.sleep(0.05)
    raise AssertionError(f"run {run_id} not in {statuses} after {timeout}s: {body['status']}")
