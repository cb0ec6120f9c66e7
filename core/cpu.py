"""CPU seconds a node spends, outside any wait: its own steps on the event loop and the work it
hands to threads.

Parallel nodes share one event loop, so the process clock cannot tell them apart; instead the
node's coroutine is stepped by `metered`, which reads the thread's CPU clock around each step
(the time other nodes run between two steps is not counted), and work sent to a thread through
`offload` reads that thread's clock and adds it to the meter of the node that sent it (found in
a context variable, which `asyncio.to_thread` copies into the thread). A model call's wait is a
suspended step, so it costs nothing here; what LangChain does around the call is counted.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Awaitable, Callable, Coroutine, Generator
from contextvars import ContextVar
from typing import Any, ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")


class CpuMeter:
    """Seconds of CPU, added to from the event loop and from threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.seconds = 0.0

    def add(self, seconds: float) -> None:
        with self._lock:
            self.seconds += seconds


cpu_meter: ContextVar[CpuMeter | None] = ContextVar("edesk_cpu_meter", default=None)


class _Metered(Awaitable[T]):
    """Await `coro`, adding the thread CPU time of each of its steps to `meter`."""

    def __init__(self, coro: Coroutine[Any, Any, T], meter: CpuMeter) -> None:
        self._coro, self._meter = coro, meter

    def __await__(self) -> Generator[Any, Any, T]:
        inner = self._coro.__await__()
        value: Any = None
        error: BaseException | None = None
        while True:
            t0 = time.thread_time()
            try:
                yielded = inner.send(value) if error is None else inner.throw(error)
            except StopIteration as stop:
                return stop.value  # type: ignore[no-any-return]
            finally:
                self._meter.add(time.thread_time() - t0)
            try:
                value, error = (yield yielded), None
            except GeneratorExit:
                inner.close()
                raise
            except BaseException as exc:  # cancellation and the like go to the node
                value, error = None, exc


def metered(coro: Coroutine[Any, Any, T], meter: CpuMeter) -> Awaitable[T]:
    return _Metered(coro, meter)


async def offload(fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
    """`asyncio.to_thread(fn, ...)`, with the thread's CPU time added to the calling node's
    meter (when there is one)."""
    meter = cpu_meter.get()
    if meter is None:
        return await asyncio.to_thread(fn, *args, **kwargs)

    def run() -> T:
        t0 = time.thread_time()
        try:
            return fn(*args, **kwargs)
        finally:
            meter.add(time.thread_time() - t0)

    return await asyncio.to_thread(run)


def counted(coro: Coroutine[Any, Any, T]) -> Awaitable[T]:
    """`coro` with its steps added to the calling node's meter, for a coroutine the node runs
    as a task of its own (`asyncio.gather`), whose steps the node's meter does not see."""
    meter = cpu_meter.get()
    return coro if meter is None else _Metered(coro, meter)
