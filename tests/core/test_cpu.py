"""The CPU meter: a node's own steps and the threads it offloads to are counted; waits and
other nodes running between its steps are not."""

from __future__ import annotations

import asyncio
import time

import pytest

from core.cpu import CpuMeter, counted, cpu_meter, metered, offload


def spin(seconds: float) -> None:
    """Burn `seconds` of this thread's CPU."""
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


async def test_steps_count_waits_and_other_tasks_do_not() -> None:
    meter = CpuMeter()

    async def node() -> str:
        spin(0.05)
        await asyncio.sleep(0.15)  # another task burns 0.1 s of CPU meanwhile
        spin(0.05)
        return "done"

    async def neighbour() -> None:
        await asyncio.sleep(0.01)
        spin(0.1)

    result, _ = await asyncio.gather(metered(node(), meter), neighbour())
    assert result == "done"
    assert 0.09 <= meter.seconds < 0.17


def spun(n: int) -> int:
    spin(0.08)
    return n


async def test_offloaded_work_goes_to_the_calling_nodes_meter() -> None:
    meter = CpuMeter()

    async def node() -> int:
        token = cpu_meter.set(meter)
        try:
            return await offload(spun, 7)
        finally:
            cpu_meter.reset(token)

    assert await metered(node(), meter) == 7
    assert 0.07 <= meter.seconds < 0.15
    # no meter set: plain to_thread, nothing recorded anywhere
    assert await offload(lambda: 3) == 3


async def test_counted_tasks_of_a_node_are_metered() -> None:
    meter = CpuMeter()

    async def part() -> None:
        spin(0.04)

    async def node() -> None:
        token = cpu_meter.set(meter)
        try:
            await asyncio.gather(counted(part()), counted(part()))
        finally:
            cpu_meter.reset(token)

    await metered(node(), meter)
    assert 0.07 <= meter.seconds < 0.14


async def test_errors_and_cancellation_reach_the_node() -> None:
    meter = CpuMeter()

    async def fails() -> None:
        await asyncio.sleep(0)
        raise ValueError("parse failed")

    with pytest.raises(ValueError, match="parse failed"):
        await metered(fails(), meter)

    cleaned: list[str] = []

    async def waits() -> None:
        try:
            await asyncio.sleep(10)
        finally:
            cleaned.append("finally ran")

    task = asyncio.ensure_future(metered(waits(), meter))
    await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert cleaned == ["finally ran"]
