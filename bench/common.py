"""Shared bits for benchmarks: locating ../shared and printing the final JSON line."""

from __future__ import annotations

import json
import sys
import tempfile
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from app.service.engine import Engine
    from core.llm.fake import FakeModels

REPO = Path(__file__).resolve().parents[1]
ECTSUM = REPO.parent / "shared" / "data" / "ectsum"


def ectsum_file(name: str) -> Path:
    path = ECTSUM / name
    if not path.is_file():
        print(f"skipped: {path} not found (clone with ../shared beside the repo)")
        print(json.dumps({"skipped": True, "reason": f"{path} missing"}))
        sys.exit(0)
    return path


def emit(figures: dict[str, Any]) -> None:
    """Human-readable lines, then the figures as one JSON object on the last line."""
    for key, value in figures.items():
        print(f"{key:>32}: {value}")
    print(json.dumps(figures, sort_keys=True))


@asynccontextmanager
async def fake_engine(models: FakeModels) -> AsyncIterator[Engine]:
    """An engine on `models` with fake embeddings in a temporary data folder."""
    from langchain_core.embeddings import DeterministicFakeEmbedding

    from app.service.engine import Engine
    from app.settings import Settings

    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=Path(tmp), provider="fake")
        async with Engine.open(
            settings,
            models=models,
            embeddings=DeterministicFakeEmbedding(size=32),
            embedding_name="fake",
        ) as engine:
            yield engine


class PeakRss:
    """Peak resident memory (MB) of named processes, polled in a thread while a block runs:
    `with PeakRss(lambda: {"worker0": pid, ...}) as rss: ...; rss.peak`."""

    def __init__(self, pids: Callable[[], dict[str, int]], interval: float = 0.25) -> None:
        self.pids, self.interval = pids, interval
        self.peak: dict[str, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)

    def _poll(self) -> None:
        from scripts.topology import rss_mb

        while not self._stop.wait(self.interval):
            for name, pid in self.pids().items():
                mb = rss_mb(pid)
                if mb is not None:
                    self.peak[name] = max(self.peak.get(name, 0.0), mb)

    def __enter__(self) -> PeakRss:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()


def tree_cpu_seconds(pid: int) -> float:
    """CPU seconds (user + system) of a process and every process below it, live or reaped
    (Linux /proc): a PostgreSQL server's backends, a worker's helpers. 0.0 when it is gone."""
    import os

    tick = os.sysconf("SC_CLK_TCK")
    children: dict[int, list[int]] = {}
    times: dict[int, float] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()  # after "pid (comm) "
        ppid, utime, stime, cutime, cstime = (int(fields[i]) for i in (1, 11, 12, 13, 14))
        children.setdefault(ppid, []).append(int(entry.name))
        times[int(entry.name)] = (utime + stime + cutime + cstime) / tick
    total, todo = 0.0, [pid]
    while todo:
        current = todo.pop()
        total += times.get(current, 0.0)
        todo.extend(children.get(current, []))
    return total


def commit() -> str:
    """The commit a benchmark ran on (with "+dirty" when the tree has changes)."""
    import subprocess

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", *args], cwd=REPO, capture_output=True, text=True, check=False
        ).stdout.strip()

    head = git("rev-parse", "--short", "HEAD") or "unknown"
    return head + ("+dirty" if git("status", "--porcelain", "--untracked-files=no") else "")
