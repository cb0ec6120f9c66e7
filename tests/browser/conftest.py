"""Browser tests: a real `earnings-desk serve` process on the fake model (it streams its text,
with latency, like a real model), Debian's Chromium driven by Playwright, screenshots of every
test under test-output/browser/. Skipped with a message when Chromium is absent, except in CI
(CI=true), where a missing browser is a failure."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from tests.conftest import REPO
from tests.live_server import Server, free_port, start_server, stop_server

OUT = REPO / "test-output" / "browser"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-background-networking", "--disable-dev-shm-usage"]


def chromium_path() -> str:
    path = os.environ.get("EDESK_CHROMIUM") or shutil.which("chromium")
    if path:
        return path
    message = (
        "Debian's Chromium is not installed "
        "(apt-get install chromium; `bash scripts/setup.sh --dev` does it as root)"
    )
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = start_server(tmp_path_factory.mktemp("srv"), latency=0.25)
    yield srv
    stop_server(srv)


@pytest.fixture(scope="module")
def keyed_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = start_server(tmp_path_factory.mktemp("srv-key"), latency=0.05, key="desk-key-1")
    yield srv
    stop_server(srv)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Module-scoped: Playwright's sync API holds an event loop on this thread while it runs,
    which the asyncio tests of later modules must not find."""
    from playwright.sync_api import sync_playwright

    exe = chromium_path()
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=exe, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser: Any, request: pytest.FixtureRequest) -> Iterator[Any]:
    """A fresh browser tab (its own session storage); page errors fail the test; a screenshot
    of the last state is saved as test-output/browser/<test>.png."""
    context = browser.new_context(viewport={"width": 1360, "height": 960}, accept_downloads=True)
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    pg.set_default_timeout(30_000)
    yield pg
    OUT.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(Exception):
        pg.screenshot(path=str(OUT / f"{request.node.name}.png"), full_page=True)
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


@dataclass
class DropProxy:
    """A TCP proxy the browser talks to, so a test can cut every open connection (a network
    drop) while the server keeps running. It records each request's head."""

    target: int
    port: int = field(default_factory=free_port)
    heads: list[str] = field(default_factory=list)
    _conns: list[socket.socket] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def start(self) -> DropProxy:
        self._listener = socket.create_server(("127.0.0.1", self.port))
        threading.Thread(target=self._accept, daemon=True).start()
        return self

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.target))
            with self._lock:
                self._conns += [client, upstream]
            threading.Thread(target=self._pipe, args=(client, upstream, True), daemon=True).start()
            threading.Thread(target=self._pipe, args=(upstream, client, False), daemon=True).start()

    def _pipe(self, src: socket.socket, dst: socket.socket, record: bool) -> None:
        try:
            while data := src.recv(65536):
                if record and data[:4] in (b"GET ", b"POST"):
                    with self._lock:
                        self.heads.append(data.split(b"\r\n\r\n")[0].decode("latin-1"))
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)
                s.close()

    def drop(self) -> int:
        """Cut every open connection; returns how many were open."""
        with self._lock:
            conns, self._conns = self._conns, []
        for s in conns:
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
        return len(conns) // 2

    def close(self) -> None:
        self._listener.close()
        self.drop()


@pytest.fixture
def proxy(server: Server) -> Iterator[DropProxy]:
    p = DropProxy(target=int(server.url.rsplit(":", 1)[1])).start()
    yield p
    p.close()
