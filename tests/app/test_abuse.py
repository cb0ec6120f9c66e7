"""Fuzz and abuse against a real `earnings-desk serve` process on the fake model: schemathesis
over the OpenAPI schema (no 5xx, every response as documented), oversized bodies, slow clients,
thousands of SSE connections opened and dropped. Each ends with the server healthy and nothing
that was accepted lost."""

from __future__ import annotations

import asyncio
import json
import os
import re
import socket
import struct
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.live_server import Server, start_server, stop_server

pytestmark = pytest.mark.server  # starts real server processes on loopback

SAMPLE = (REPO / "samples" / "northwind_q2_2026.md").read_text(encoding="utf-8")
OUT = REPO / "test-output" / "fuzz"
KEY = "abuse-key"
MAX_TRANSCRIPT = 200_000
MAX_REQUEST = 5_000_000  # > the run intake's transcript + 4 MB of financials/prices


@pytest.fixture(scope="module")
def fuzz_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    # quotas raised: the fuzzer exercises the routes' logic, not the rate limit (its own test)
    srv = start_server(tmp_path_factory.mktemp("fuzz"), key=KEY, env={
        "EDESK_SSE_HEARTBEAT": "1", "EDESK_KEY_RUNS_PER_MINUTE": "100000",
        "EDESK_KEY_RUNS_IN_FLIGHT": "100000", "EDESK_MAX_QUEUE": "100000",
    })  # fmt: skip
    yield srv
    stop_server(srv)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = start_server(
        tmp_path_factory.mktemp("abuse"),
        latency=0.3,
        key=KEY,
        env={
            "EDESK_MAX_TRANSCRIPT_BYTES": str(MAX_TRANSCRIPT),
            "EDESK_MAX_REQUEST_BYTES": str(MAX_REQUEST),
            "EDESK_SSE_HEARTBEAT": "1",
        },
    )
    yield srv
    stop_server(srv)


def test_schemathesis_finds_no_server_error(fuzz_server: Server) -> None:
    """Every operation, positive and negative data, stateful sequences (create, read, stream,
    cancel, delete): no 5xx, status codes, content types, headers and bodies as the schema says,
    bad input refused, auth not ignored, deleted runs gone (response time: a `wait=true` POST
    lasts a whole run, so 60 s). `positive_data_acceptance` is left
    out: some rules cannot be said in JSON Schema (a price bar's low <= high, eval ids that
    must name given calls), so schema-valid bodies can rightly get 422.
    EDESK_FUZZ_EXAMPLES / EDESK_FUZZ_SEED widen or vary the search."""
    OUT.mkdir(parents=True, exist_ok=True)
    examples = os.environ.get("EDESK_FUZZ_EXAMPLES", "5")
    seed = os.environ.get("EDESK_FUZZ_SEED", "20261123")
    cmd = [
        str(Path(sys.executable).parent / "schemathesis"),
        "--config-file", str(Path(__file__).with_name("schemathesis.toml")), "run",
        f"{fuzz_server.url}/openapi.json",
        "--checks", "all", "--exclude-checks", "positive_data_acceptance",
        "--max-examples", examples, "--seed", seed, "--workers", "2",
        "--request-timeout", "60", "--max-response-time", "60",
        "--header", f"Authorization: Bearer {KEY}",
        "--generation-database", "none", "--no-color",
        "--report", "junit", "--report-junit-path", str(OUT / "schemathesis.xml"),
    ]  # fmt: skip
    proc = subprocess.run(cmd, cwd=OUT, capture_output=True, text=True, timeout=600)
    (OUT / "schemathesis.log").write_text(proc.stdout + proc.stderr, encoding="utf-8")
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]
    assert "Traceback" not in _log(fuzz_server)


def _log(server: Server) -> str:
    assert server.log is not None
    return server.log.read_text(encoding="utf-8", errors="replace")


def _raw(server: Server, head: str, body: bytes = b"", timeout: float = 10) -> tuple[int, bytes]:
    """One HTTP/1.1 exchange on a raw socket: (status, body)."""
    port = int(server.url.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(head.encode() + b"\r\n" + body)
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
        header, _, rest = data.partition(b"\r\n\r\n")
        length = next(
            (int(line.split(b":")[1]) for line in header.split(b"\r\n")
             if line.lower().startswith(b"content-length:")),
            0,
        )  # fmt: skip
        while len(rest) < length:
            chunk = s.recv(65536)
            if not chunk:
                break
            rest += chunk
    return int(header.split(b" ")[1]), rest


def _headers(method: str, path: str, **extra: str) -> str:
    lines = [f"{method} {path} HTTP/1.1", "Host: test", f"Authorization: Bearer {KEY}"]
    lines += [f"{k.replace('_', '-')}: {v}" for k, v in extra.items()]
    return "\r\n".join(lines) + "\r\n"


def _total_runs(server: Server) -> int:
    return int(server.request("GET", "/v1/runs?limit=1")["total"])


def test_oversized_bodies_refused_early_and_nothing_created(server: Server) -> None:
    before = _total_runs(server)
    # 1. a declared size past the limit: 413 before a byte of body is sent
    t0 = time.monotonic()
    status, body = _raw(
        server,
        _headers("POST", "/v1/runs", Content_Type="application/json",
                 Content_Length=str(10**10)),
    )  # fmt: skip
    assert status == 413 and time.monotonic() - t0 < 5
    assert json.loads(body)["detail"][0]["type"] == "too_large"
    # 2. a chunked body that never says its size: refused once it passes the limit
    chunk = b"x" * 500_000
    chunks = b"".join(b"%x\r\n%s\r\n" % (len(chunk), chunk) for _ in range(12)) + b"0\r\n\r\n"
    for path in ("/v1/runs", "/v1/evals"):
        status, body = _raw(
            server,
            _headers("POST", path, Content_Type="application/json",
                     Transfer_Encoding="chunked"),
            chunks,
        )  # fmt: skip
        assert status == 413, (path, body[:300])
        assert "limit" in json.loads(body)["detail"][0]["msg"]
    # 3. a transcript file past the transcript limit, in multipart
    boundary = "edeskboundary"
    big = ("word " * (MAX_TRANSCRIPT // 4)).encode()
    form = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="transcript"; '
            f'filename="call.txt"\r\nContent-Type: text/plain\r\n\r\n'
        ).encode()
        + big
        + f"\r\n--{boundary}--\r\n".encode()
    )
    status, body = _raw(
        server,
        _headers("POST", "/v1/runs", Content_Type=f"multipart/form-data; boundary={boundary}",
                 Content_Length=str(len(form))),
        form,
    )  # fmt: skip
    assert status == 413, body[:300]
    assert json.loads(body)["detail"][0]["loc"] == ["body", "transcript"]
    assert _total_runs(server) == before  # nothing half-created
    run_id = server.start_run(SAMPLE, "zero_shot")  # and the server still takes work
    assert server.wait_finished(run_id)["status"] == "succeeded"


def test_slow_clients_do_not_hold_up_others(server: Server) -> None:
    """Slowloris (half-sent headers), a body trickled byte by byte, a stream reader that never
    reads: others are served meanwhile, the trickled run is accepted whole, the unread run
    finishes."""
    port = int(server.url.rsplit(":", 1)[1])
    stalled = []
    for _ in range(200):
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: test\r\nX-Slow: ")
        stalled.append(s)
    # a reader that never reads a token-streaming run
    unread_id = server.start_run(SAMPLE, "findebate")
    reader = socket.create_connection(("127.0.0.1", port), timeout=5)
    reader.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    reader.sendall(_headers("GET", f"/v1/runs/{unread_id}/events?tokens=true").encode() + b"\r\n")
    # a body sent one small piece at a time
    body = json.dumps({"transcript": SAMPLE[:2000], "pipeline": "zero_shot"}).encode()
    slow = socket.create_connection(("127.0.0.1", port), timeout=30)
    slow.sendall(
        _headers("POST", "/v1/runs", Content_Type="application/json",
                 Content_Length=str(len(body))).encode() + b"\r\n"
    )  # fmt: skip
    try:
        for i in range(0, len(body), 200):
            slow.sendall(body[i : i + 200])
            t0 = time.monotonic()
            assert server.request("GET", "/healthz") == {"status": "ok"}
            # a held-up server never answers; 5 s leaves room for a loaded 2-core CI machine
            assert time.monotonic() - t0 < 5, "a slow client held up the server"
            time.sleep(0.05)
        reply = b""
        while b"\r\n\r\n" not in reply:
            reply += slow.recv(65536)
        assert reply.startswith(b"HTTP/1.1 202"), reply[:200]
        head, _, answer = reply.partition(b"\r\n\r\n")
        # the body may come in a later segment than the headers (it did on a loaded CI machine)
        length = int(re.search(rb"(?im)^content-length:\s*(\d+)", head).group(1))  # type: ignore[union-attr]
        while len(answer) < length:
            more = slow.recv(65536)
            assert more, "the server closed the connection before the whole body"
            answer += more
        slow_id = json.loads(answer)["id"]
        assert server.wait_finished(slow_id)["status"] == "succeeded"
        assert server.wait_finished(unread_id, timeout=120)["status"] == "succeeded"
    finally:
        for s in [*stalled, reader, slow]:
            s.close()
    assert server.request("GET", "/healthz") == {"status": "ok"}


def _open_fds(server: Server) -> int:
    assert server.proc is not None
    return len(os.listdir(f"/proc/{server.proc.pid}/fd"))


def _rss_mb(server: Server) -> float:
    assert server.proc is not None
    for line in Path(f"/proc/{server.proc.pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


async def _open_and_drop(port: int, path: str, read_first: bool) -> bool:
    """Open an SSE stream, maybe read its first bytes, then drop it without a goodbye (RST)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(_headers("GET", path).encode() + b"\r\n")
    await writer.drain()
    ok = True
    if read_first:
        ok = (await asyncio.wait_for(reader.read(256), 20)).startswith(b"HTTP/1.1 200")
    sock = writer.get_extra_info("socket")
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()
    return ok


def test_thousands_of_sse_connections_opened_and_dropped(server: Server) -> None:
    port = int(server.url.rsplit(":", 1)[1])
    run_id = server.start_run(SAMPLE, "findebate")
    fds, rss = _open_fds(server), _rss_mb(server)

    async def storm() -> int:
        opened = 0
        for batch in range(10):  # 10 x 250 = 2,500 connections
            paths = [f"/v1/runs/{run_id}/events?tokens={'true' if i % 2 else 'false'}"
                     for i in range(250)]  # fmt: skip
            results = await asyncio.gather(
                *(_open_and_drop(port, p, read_first=(batch + i) % 3 != 0)
                  for i, p in enumerate(paths))
            )  # fmt: skip
            assert all(results)
            opened += len(results)
        return opened

    assert asyncio.run(storm()) == 2500
    run = server.wait_finished(run_id, timeout=120)
    assert run["status"] == "succeeded"
    ids = server.event_ids(run_id)  # a fresh stream replays the whole run, in order
    assert ids == list(range(1, len(ids) + 1)) and len(ids) > 10
    deadline = time.monotonic() + 20  # dropped streams release their sockets and tasks
    while _open_fds(server) > fds + 20 and time.monotonic() < deadline:
        time.sleep(0.5)
    assert _open_fds(server) <= fds + 20, f"fds {fds} -> {_open_fds(server)}"
    assert _rss_mb(server) < rss + 150, f"RSS {rss:.0f} -> {_rss_mb(server):.0f} MB"
    assert server.request("GET", "/healthz") == {"status": "ok"}
    assert "Traceback" not in _log(server)
