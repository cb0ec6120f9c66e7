"""The suite's guards fail a test that reaches what its markers do not allow: a real server
process without `server` (or `browser`, `integration`), the bundled model without
`local_model`, an address other than the machine's own without `integration`."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from tests.conftest import require_marker


def test_a_server_without_its_marker_fails(tmp_path: Path) -> None:
    from tests.live_server import start_server

    with pytest.raises(pytest.fail.Exception, match="starts a real server process"):
        start_server(tmp_path)


def test_the_local_model_without_its_marker_fails(tmp_path: Path) -> None:
    from app.llm.local import LocalLlamaServer

    with pytest.raises(pytest.fail.Exception, match="local_model"):
        LocalLlamaServer.start(object.__new__(LocalLlamaServer))


def test_another_machine_without_its_marker_fails() -> None:
    sock = socket.socket()
    try:
        with pytest.raises(pytest.fail.Exception, match="not this machine"):
            sock.connect(("192.0.2.1", 80))  # TEST-NET-1: never reached
    finally:
        sock.close()


def test_the_machines_own_address_is_allowed() -> None:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    client = socket.socket()
    try:
        client.connect(server.getsockname())  # loopback: no marker needed
    finally:
        client.close()
        server.close()


@pytest.mark.server
def test_a_marked_test_passes_the_guard() -> None:
    require_marker({"server"}, "starts a real server process")
