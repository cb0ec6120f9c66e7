"""Memory a run freed goes back to the system (issue 38 #6); growth over ten 1 MB runs is
measured by `python -m bench.memory`, not here."""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

import pytest

import app.service.runs as runs_module
from app.service.memory import release_memory
from scripts.topology import rss_mb
from tests.app.api_helpers import api
from tests.conftest import SAMPLE

TEXT = SAMPLE.read_text()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc_trim")
def test_freed_pages_of_a_worker_thread_are_given_back() -> None:
    """What a run does: large blocks made in a worker thread's heap, most freed, a few kept
    (fragmented). Without a trim, glibc keeps the freed pages resident."""
    kept: list[bytearray] = []

    def work() -> None:
        blocks = [bytearray(64_000) for _ in range(2000)]  # 128 MB below the mmap threshold
        kept.extend(blocks[::20])  # one in twenty survives: the heap cannot shrink from its top

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    before = rss_mb(os.getpid())
    assert release_memory() is True
    after = rss_mb(os.getpid())
    assert before is not None and after is not None
    assert before - after > 60, (before, after)
    assert len(kept) == 100


def test_a_run_ending_and_its_deletion_give_memory_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []

    def counted() -> bool:
        calls.append("trim")
        return True

    monkeypatch.setattr(runs_module, "release_memory", counted)
    with api(tmp_path) as client:
        run = client.post("/v1/runs?wait=true", json={"transcript": TEXT}).json()
        assert run["status"] == "succeeded"
        deadline = time.monotonic() + 10
        while not calls and time.monotonic() < deadline:  # the run's task ends just after
            time.sleep(0.02)
        assert calls == ["trim"]  # when the run ended
        assert client.delete(f"/v1/runs/{run['id']}").status_code == 204
        assert calls == ["trim", "trim"]  # and when it was deleted
