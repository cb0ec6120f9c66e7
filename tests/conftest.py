"""Shared fixtures: the ../shared data (skipped with a message when absent) and a fake engine."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

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


# -- guards: what a test may reach is what its markers say ------------------------------------
#
# `server`: starts real server processes on loopback (tests/live_server.py, `_start` helpers);
# `browser` and `integration` tests start them too. `local_model`: runs the bundled model
# through llama.cpp. `integration`: may reach addresses other than the machine's own. A test
# that reaches one without its marker fails, naming the marker.

ACTIVE_MARKERS: set[str] = set()
SERVER_MARKERS = frozenset({"server", "browser", "integration"})


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """The markers of the test about to run (module fixtures it starts count as its own)."""
    ACTIVE_MARKERS.clear()
    ACTIVE_MARKERS.update(m.name for m in item.iter_markers())


def require_marker(allowed: frozenset[str] | set[str], what: str) -> None:
    """Fail the running test unless it carries one of `allowed`."""
    if not ACTIVE_MARKERS & set(allowed):
        pytest.fail(f"this test {what} without the marker {' or '.join(sorted(allowed))}",
                    pytrace=False)  # fmt: skip


def _loopback(address: object) -> bool:
    import ipaddress

    if not isinstance(address, tuple) or not address:
        return True  # a unix socket path
    host = str(address[0])
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host.split("%")[0]).is_loopback
    except ValueError:
        return False  # a name: only "localhost" is the machine's own


def pytest_configure(config: pytest.Config) -> None:
    """Install the guards once for the session (they read ACTIVE_MARKERS when called)."""
    import socket

    from app.llm.local import LocalLlamaServer

    start = LocalLlamaServer.start

    def guarded_start(self: LocalLlamaServer) -> None:
        if os.environ.get("PYTEST_CURRENT_TEST"):
            require_marker({"local_model"}, "starts the bundled model (llama.cpp)")
        start(self)

    LocalLlamaServer.start = guarded_start  # type: ignore[method-assign]

    connect, connect_ex = socket.socket.connect, socket.socket.connect_ex

    def check(address: object) -> None:
        if os.environ.get("PYTEST_CURRENT_TEST") and not _loopback(address):
            require_marker({"integration"}, f"connects to {address!r}, not this machine")

    def guarded_connect(self: socket.socket, address: object) -> None:
        check(address)
        connect(self, address)  # type: ignore[arg-type]

    def guarded_connect_ex(self: socket.socket, address: object) -> int:
        check(address)
        return connect_ex(self, address)  # type: ignore[arg-type]

    socket.socket.connect = guarded_connect  # type: ignore[method-assign,assignment]
    socket.socket.connect_ex = guarded_connect_ex  # type: ignore[method-assign,assignment]


# -- what each tier costs: printed at the end of every session (docs/testing.md quotes it) ----

TIERS = ("local_model", "embeddings", "integration", "browser", "server")  # first marker wins
TIER_SECONDS: dict[str, float] = {}
TIER_TESTS: dict[str, set[str]] = {}
_TIER_OF: dict[str, str] = {}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        names = {m.name for m in item.iter_markers()}
        _TIER_OF[item.nodeid] = next((t for t in TIERS if t in names), "unmarked")


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    tier = _TIER_OF.get(report.nodeid, "unmarked")
    TIER_SECONDS[tier] = TIER_SECONDS.get(tier, 0.0) + report.duration
    TIER_TESTS.setdefault(tier, set()).add(report.nodeid)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not TIER_SECONDS:
        return
    terminalreporter.section("time by tier (setup + call + teardown, first marker of "
                             + ", ".join(TIERS) + ")")  # fmt: skip
    for tier, seconds in sorted(TIER_SECONDS.items(), key=lambda kv: -kv[1]):
        terminalreporter.write_line(
            f"{tier:>12}: {seconds / 60:5.1f} min  {len(TIER_TESTS[tier]):>5} tests"
        )
