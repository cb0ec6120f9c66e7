"""The official `langgraph-sdk` client, unchanged, against `earnings-desk serve` (issue 16):
assistants, stateless and thread runs, stream modes, wait, join, reconnect (Last-Event-ID and a
killed server), cancel, and the refusals (wrong key, bad assistant id, bad input)."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from langgraph_sdk import get_client
from langgraph_sdk.client import LangGraphClient

from tests.live_server import Server, start_server, stop_server

pytestmark = pytest.mark.server  # starts real server processes on loopback

SAMPLE = (Path(__file__).parents[2] / "samples" / "northwind_q2_2026.md").read_text()
KEY = "sdk-key"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = start_server(tmp_path_factory.mktemp("sdk"), latency=0.05, key=KEY)
    yield srv
    stop_server(srv)


def client(server: Server, key: str = KEY) -> LangGraphClient:
    return get_client(url=server.url, api_key=key)


async def parts_of(stream: Any) -> list[tuple[str, Any]]:
    return [(p.event, p.data) async for p in stream]


def test_assistants_are_the_pipelines(server: Server) -> None:
    async def go() -> None:
        sdk = client(server)
        found = await sdk.assistants.search()
        assert {a["graph_id"] for a in found} >= {"findebate", "zero_shot", "adversarial"}
        one = await sdk.assistants.search(graph_id="findebate")
        assert [a["graph_id"] for a in one] == ["findebate"]
        got = await sdk.assistants.get(one[0]["assistant_id"])
        assert got["name"] == "findebate" and got["description"]
        page = await sdk.assistants.search(limit=2, response_format="object")
        assert len(page["assistants"]) == 2 and page["next"] == "2"
        graph = await sdk.assistants.get_graph(one[0]["assistant_id"])
        assert {"synthesize", "leader"} <= {n["id"] for n in graph["nodes"]}

    asyncio.run(go())


def test_stateless_stream_in_every_mode(server: Server) -> None:
    async def go() -> list[tuple[str, Any]]:
        return await parts_of(
            client(server).runs.stream(
                None, "findebate", input={"transcript": SAMPLE, "company": "Northwind"},
                stream_mode=["updates", "values", "custom", "messages"],
            )
        )  # fmt: skip

    parts = asyncio.run(go())
    events = [e for e, _ in parts]
    assert events[0] == "metadata" and events[-1] == "end"
    assert parts[-1][1]["status"] == "success"
    updates = [d for e, d in parts if e == "updates"]
    nodes = [next(iter(d)) for d in updates]
    assert {"ingest", "retrieve", "synthesize", "leader", "report"} <= set(nodes)
    assert len(nodes) == len(set(nodes))  # one update per finished node
    custom = [d["type"] for e, d in parts if e == "custom"]
    assert custom[0] == "run_started" and custom[-1] == "run_finished"
    assert "node_started" in custom
    tokens = [d for e, d in parts if e == "messages"]
    assert tokens and all(d[0]["content"] and d[1]["langgraph_node"] for d in tokens)
    final = [d for e, d in parts if e == "values"][-1]
    assert final["report"]["status"] in ("succeeded", "degraded")
    assert len(final["report"]["recommendations"]) == 3


def test_wait_join_and_thread_runs(server: Server) -> None:
    async def go() -> None:
        sdk = client(server)
        out: Any = await sdk.runs.wait(None, "zero_shot", input={"transcript": SAMPLE})
        assert out["report"]["pipeline"] == "zero_shot"
        thread = await sdk.threads.create(metadata={"desk": "tech"})
        run = await sdk.runs.create(
            thread["thread_id"], "zero_shot", input={"transcript": SAMPLE},
            context={"chunk_words": 80},
        )  # fmt: skip
        assert run["thread_id"] == thread["thread_id"] and run["status"] == "pending"
        joined = await sdk.runs.join(thread["thread_id"], run["run_id"])
        assert joined["report"]["status"] in ("succeeded", "degraded")
        got = await sdk.runs.get(thread["thread_id"], run["run_id"])
        assert got["status"] == "success"
        listed = await sdk.runs.list(thread["thread_id"])
        assert [r["run_id"] for r in listed] == [run["run_id"]]
        state: Any = await sdk.threads.get(thread["thread_id"])
        assert state["status"] == "idle" and state["metadata"] == {"desk": "tech"}
        assert state["values"]["report"]["pipeline"] == "zero_shot"
        # the same run through /v1: one run manager and store behind both APIs
        v1 = server.request("GET", f"/v1/runs/{run['run_id']}")
        assert v1["pipeline"] == "zero_shot" and v1["status"] in ("succeeded", "degraded")

    asyncio.run(go())


def test_join_stream_resumes_after_last_event_id(server: Server) -> None:
    async def go() -> tuple[list[tuple[str, Any]], list[tuple[str, Any]]]:
        sdk = client(server)
        thread = await sdk.threads.create()
        run = await sdk.runs.create(thread["thread_id"], "zero_shot", input={"transcript": SAMPLE})
        await sdk.runs.join(thread["thread_id"], run["run_id"])
        full = await parts_of(
            sdk.runs.join_stream(thread["thread_id"], run["run_id"], stream_mode="updates")
        )
        middle = await _event_id_of(server, thread["thread_id"], run["run_id"], node="facts")
        rest = await parts_of(
            sdk.runs.join_stream(
                thread["thread_id"], run["run_id"], stream_mode="updates", last_event_id=middle
            )
        )
        return full, rest

    full, rest = asyncio.run(go())
    full_nodes = [next(iter(d)) for e, d in full if e == "updates"]
    rest_nodes = [next(iter(d)) for e, d in rest if e == "updates"]
    assert "facts" in full_nodes and "facts" not in rest_nodes
    assert rest_nodes == full_nodes[full_nodes.index("facts") + 1 :]
    assert rest[-1][0] == "end"


async def _event_id_of(server: Server, thread_id: str, run_id: str, node: str) -> str:
    """The SSE id of `node`'s node_finished in the run's LangGraph stream."""
    url = f"{server.url}/threads/{thread_id}/runs/{run_id}/stream?stream_mode=updates"
    async with (
        httpx.AsyncClient(headers={"x-api-key": KEY}) as http,
        http.stream("GET", url) as resp,
    ):
        current = ""
        async for line in resp.aiter_lines():
            if line.startswith("id:"):
                current = line[3:].strip()
            elif line.startswith("data:") and f'"{node}"' in line:
                return current
    raise AssertionError(f"no update for {node}")


def test_cancel_a_running_run(tmp_path: Path) -> None:
    srv = start_server(tmp_path, latency=0.5, key=KEY)
    try:

        async def go() -> tuple[Any, Any]:
            sdk = client(srv)
            thread = await sdk.threads.create()
            run = await sdk.runs.create(
                thread["thread_id"], "findebate", input={"transcript": SAMPLE}
            )
            async for part in sdk.runs.join_stream(
                thread["thread_id"], run["run_id"], stream_mode="updates"
            ):
                if part.event == "updates" and "retrieve" in part.data:
                    break
            await sdk.runs.cancel(thread["thread_id"], run["run_id"], wait=True)
            got = await sdk.runs.get(thread["thread_id"], run["run_id"])
            return run, got

        run, got = asyncio.run(go())
        assert got["status"] == "interrupted"
        v1 = srv.request("GET", f"/v1/runs/{run['run_id']}")
        assert v1["status"] == "cancelled"
    finally:
        stop_server(srv)


def test_stream_reconnects_after_the_server_is_killed(tmp_path: Path) -> None:
    """The SDK follows the stream's Location with Last-Event-ID when the connection drops:
    the restarted server resumes the run and the client sees every node once, then `end`."""
    srv = start_server(tmp_path, latency=0.4, key=KEY)
    port = int(srv.url.rsplit(":", 1)[1])
    restarted: list[Server] = []

    async def go() -> list[tuple[str, Any]]:
        parts: list[tuple[str, Any]] = []
        async for part in client(srv).runs.stream(
            None, "findebate", input={"transcript": SAMPLE}, stream_mode=["updates"]
        ):
            parts.append((part.event, part.data))
            if part.event == "updates" and "retrieve" in part.data and not restarted:
                assert srv.proc is not None
                srv.proc.send_signal(signal.SIGKILL)
                srv.proc.wait()
                restarted.append(
                    await asyncio.to_thread(start_server, tmp_path, latency=0.4, key=KEY, port=port)
                )
        return parts

    try:
        parts = asyncio.run(go())
    finally:
        for s in restarted:
            stop_server(s)
    assert restarted, "the server was never killed"
    nodes = [next(iter(d)) for e, d in parts if e == "updates"]
    assert "retrieve" in nodes and "report" in nodes
    assert len(nodes) == len(set(nodes)), nodes  # nothing repeated across the reconnect
    assert parts[-1][0] == "end" and parts[-1][1]["status"] == "success"


def test_refusals_name_the_problem(server: Server) -> None:
    async def go() -> None:
        wrong = client(server, key="not-the-key")
        with pytest.raises(httpx.HTTPStatusError) as bad_key:
            await wrong.assistants.search()
        assert bad_key.value.response.status_code == 401

        sdk = client(server)
        with pytest.raises(httpx.HTTPStatusError) as unknown:
            await sdk.runs.wait(None, "no-such-pipeline", input={"transcript": SAMPLE})
        assert unknown.value.response.status_code == 404
        assert "no-such-pipeline" in unknown.value.response.json()["detail"]

        with pytest.raises(httpx.HTTPStatusError) as missing:
            await sdk.runs.create(None, "zero_shot", input={"company": "Northwind"})
        assert missing.value.response.status_code == 422
        assert missing.value.response.json()["detail"][0]["loc"] == ["body", "input", "transcript"]

        with pytest.raises(httpx.HTTPStatusError) as option:
            await sdk.runs.create(
                None, "zero_shot", input={"transcript": SAMPLE}, context={"chunk_words": 5}
            )
        assert option.value.response.json()["detail"][0]["loc"][:3] == [
            "body",
            "context",
            "chunk_words",
        ]

        with pytest.raises(httpx.HTTPStatusError) as elsewhere:  # findebate's option
            await sdk.runs.create(
                None, "zero_shot", input={"transcript": SAMPLE}, context={"debate_rounds": 2}
            )
        assert elsewhere.value.response.status_code == 422
        assert elsewhere.value.response.json()["detail"] == [{
            "loc": ["body", "context", "debate_rounds"], "type": "not_applicable",
            "msg": "applies to pipeline findebate only, not zero_shot",
        }]  # fmt: skip

        with pytest.raises(httpx.HTTPStatusError) as unsupported:
            await sdk.runs.create(
                None, "zero_shot", input={"transcript": SAMPLE}, interrupt_before=["report"]
            )
        detail = unsupported.value.response.json()["detail"][0]
        assert detail["loc"] == ["body", "interrupt_before"] and "not supported" in detail["msg"]

        with pytest.raises(httpx.HTTPStatusError) as no_thread:
            await sdk.runs.create("no-such-thread", "zero_shot", input={"transcript": SAMPLE})
        assert no_thread.value.response.status_code == 404
        made = await sdk.runs.create(
            "made-on-demand", "zero_shot", input={"transcript": SAMPLE}, if_not_exists="create"
        )
        assert made["thread_id"] == "made-on-demand"

    asyncio.run(go())


def test_threads_are_scoped_to_their_key(tmp_path: Path) -> None:
    srv = start_server(tmp_path, key=f"{KEY},other-key")
    try:

        async def go() -> None:
            mine = await client(srv).threads.create()
            theirs = client(srv, key="other-key")
            with pytest.raises(httpx.HTTPStatusError) as hidden:
                await theirs.threads.get(mine["thread_id"])
            assert hidden.value.response.status_code == 404
            with pytest.raises(httpx.HTTPStatusError) as no_run:
                await theirs.runs.create(
                    mine["thread_id"], "zero_shot", input={"transcript": SAMPLE}
                )
            assert no_run.value.response.status_code == 404

        asyncio.run(go())
    finally:
        stop_server(srv)
