"""Giving freed memory back to the operating system after a run.

A run's large allocations (the transcript, its chunks, the embedding batches, the prompts) are
made in the event loop's worker threads, and glibc's allocator keeps one heap ("arena") per
thread: what a run frees stays mapped in those heaps, fragmented, so a server's resident memory
climbed with every large call and never came down (issue 38: 378 MB to 1.95 GB over eight 1 MB
runs). Python's objects are freed (tracemalloc shows a few MB held between runs); the pages are
not returned. `malloc_trim(0)` hands back every free page of every arena, so the service calls
it when a run ends and when one is deleted. Measured by `python -m bench.memory`.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import logging
import sys
from typing import Any

log = logging.getLogger(__name__)


@functools.lru_cache(maxsize=1)
def _libc() -> Any:
    """glibc's handle, or None where there is no malloc_trim (macOS, musl: nothing to do)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        trim = libc.malloc_trim
    except (OSError, AttributeError):
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return libc


def release_memory() -> bool:
    """Return the allocator's free pages to the system; True when glibc gave some back.
    Safe from any thread at any time (glibc locks each arena while it trims)."""
    libc = _libc()
    if libc is None:
        return False
    try:
        return bool(libc.malloc_trim(0))
    except OSError:  # pragma: no cover - a libc without a working malloc_trim
        log.debug("malloc_trim failed", exc_info=True)
        return False
