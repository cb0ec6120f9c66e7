"""Shared fixtures: the ../shared data (skipped with a message when absent) and a fake engine."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding

from app.service.engine import Engine
from app.settings import Settings
from core.llm.fake import FakeModels

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
ECTSUM = SHARED / "data" / "ectsum"
SAMPLE = REPO / "samples" / "northwind_q2_2026.md"


def ectsum_dir() -> Path:
    """../shared/data/ectsum: skipped with a message when absent, except in CI (CI=true), which
    runs with ../shared beside the clone, so there its absence is a failure."""
    if not ECTSUM.is_dir():
        where = f"ECTSum data not found at {ECTSUM} (clone with ../shared beside the repo)"
        if os.environ.get("CI"):
            pytest.fail(f"{where}; CI runs with ../shared beside the clone")
        pytest.skip(where)
    return ECTSUM


@pytest.fixture
def ectsum() -> Path:
    return ectsum_dir()


@pytest.fixture
def all_rules_verified(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every attribution rule counts as verified (core/facts/rule_precision.json aside): for
    tests of what the rules read, not of which rows have earned "verified" (their own tests)."""
    monkeypatch.setattr("core.facts.figures.weak_rules", lambda chains: [])


@pytest.fixture
def sample_text() -> str:
    return SAMPLE.read_text(encoding="utf-8")


@pytest.fixture
def fake_engine(tmp_path: Path) -> Callable[..., object]:
    """`async with fake_engine(models, **settings) as engine:`: temp data dir, fake embeddings.
    The fact-check's correction is off unless a test turns it on (tests/graphs/test_fact_check.py
    does, for every pipeline), so route tests script only their own pipeline's roles."""

    @asynccontextmanager
    async def make(models: FakeModels, **overrides: object) -> AsyncIterator[Engine]:
        overrides.setdefault("fact_check", False)
        settings = Settings(data_dir=tmp_path / "data", provider="fake", **overrides)  # type: ignore[arg-type]
        async with Engine.open(
            settings,
            models=models,
            embeddings=DeterministicFakeEmbedding(size=32),
            embedding_name="deterministic-fake",
        ) as engine:
            yield engine

    return make
