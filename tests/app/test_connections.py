"""Issue 27, 3, against a real `earnings-desk serve`: slow clients are cut off (headers past
EDESK_HEADER_TIMEOUT: the connection closed; a body past EDESK_BODY_TIMEOUT: 408 naming it),
an aborted upload logs one line (no traceback), control characters in a request path reach the
log escaped, and streams dropped by their clients close cleanly."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import SAMPLE
from tests.live_server import Server, start_server, stop_server

pytestmark = pytest.mark.server  # starts real server processes on loopback

TEXT = SAMPLE.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = start_server(tmp_path_factory.mktemp("conn"), latency=0.3, env={
        "EDESK_HEADER_TIMEOUT": "1", "EDESK_BODY_TIMEOUT": "1",
    })  # fmt: skip
    yield srv
    stop_server(srv)


def _connect(srv: Server) -> socket.socket:
    host, port = srv.url.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=20)
    return sock


def _read_all(sock: socket.socket) -> bytes:
    out = b""
    while chunk := sock.recv(65536):
        out += chunk
    return out


def test_slow_headers_are_cut_off(server: Server) -> None:
    with _connect(server) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")  # and never the blank line
        t0 = time.monotonic()
        assert _read_all(sock) == b""  # closed by the server, with nothing sent
        assert time.monotonic() - t0 < 10


def test_slow_body_is_a_408_naming_the_limit(server: Server) -> None:
    with _connect(server) as sock:
        sock.sendall(b"POST /v1/runs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 1000\r\n\r\n{\"transcript\": ")  # fmt: skip
        answer = _read_all(sock)
    assert answer.startswith(b"HTTP/1.1 408"), answer[:200]
    assert b"EDESK_BODY_TIMEOUT=1" in answer


def test_aborted_upload_logs_one_line_and_paths_are_escaped(server: Server) -> None:
    assert server.log is not None
    for _ in range(3):
        with _connect(server) as sock:
            sock.sendall(b"POST /v1/runs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json"
                         b"\r\nContent-Length: 100000\r\n\r\n{\"transcript\": \"abc")  # fmt: skip
            time.sleep(0.2)
        # closed mid-body
    with _connect(server) as sock:
        sock.sendall(b"GET /v1/runs/a%1B%5B31mX%00Y HTTP/1.1\r\nHost: x\r\nConnection: close"
                     b"\r\n\r\n")  # fmt: skip
        assert _read_all(sock).startswith(b"HTTP/1.1 404")
    time.sleep(1.0)
    log = server.log.read_text(encoding="utf-8", errors="replace")
    assert "Traceback" not in log and "Exception in ASGI application" not in log
    assert "\x1b" not in log and "\x00" not in log
    assert "a\\x1b[31mX\\x00Y" in log  # the path, escaped


def test_streams_dropped_by_their_clients_close_cleanly(tmp_path: Path) -> None:
    srv = start_server(tmp_path, latency=0.5)
    try:
        run_id = srv.start_run(TEXT, pipeline="findebate")
        for _ in range(10):
            with _connect(srv) as sock:
                sock.sendall(f"GET /v1/runs/{run_id}/events HTTP/1.1\r\nHost: x\r\n\r\n".encode())
                assert sock.recv(4096).startswith(b"HTTP/1.1 200")
            time.sleep(0.1)
        srv.wait_finished(run_id)
    finally:
        stop_server(srv)
    assert srv.log is not None
    log = srv.log.read_text(encoding="utf-8", errors="replace")
    assert "Task was destroyed but it is pending" not in log
    assert "Traceback" not in log


async def test_the_body_deadline_never_times_a_request_without_a_body() -> None:
    """A GET (an event stream) reads its first message after the deadline: no 408."""
    import asyncio

    from app.api.limits import BodyLimit

    got: list[object] = []

    async def app(scope: object, receive: object, send: object) -> None:
        await asyncio.sleep(0.2)  # past the 0.05 s deadline
        got.append(await receive())  # type: ignore[operator]

    async def receive() -> dict[str, object]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: object) -> None:
        raise AssertionError(f"nothing is sent: {message}")

    scope = {"type": "http", "method": "GET", "headers": []}
    await BodyLimit(app, limit=1000, timeout=0.05)(scope, receive, send)
    assert got == [{"type": "http.request", "body": b"", "more_body": False}]
