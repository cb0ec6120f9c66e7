"""Browser tests: a real `earnings-desk serve` process on the fake model (it streams its text,
with latency, like a real model), Debian's Chromium driven by Playwright, screenshots of every
test under test-output/browser/. Skipped with a message when Chromium is absent, except in CI
(CI=true), where a missing browser is a failure."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO

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


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Server:
    url: str
    key: str | None = None
    proc: subprocess.Popen[bytes] | None = None
    log: Path | None = None

    def request(self, method: str, path: str, body: Any = None) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.url + path, data=data, method=method)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        if self.key:
            req.add_header("Authorization", f"Bearer {self.key}")
        with urllib.request.urlopen(req, timeout=60) as resp:
            raw = resp.read()
        return json.loads(raw) if raw else None

    def start_run(self, transcript: str, pipeline: str = "findebate", **extra: Any) -> str:
        options = {"stream_tokens": True, **extra.pop("options", {})}
        body = {"transcript": transcript, "pipeline": pipeline, "options": options, **extra}
        return str(self.request("POST", "/v1/runs", body)["id"])

    def wait_finished(self, run_id: str, timeout: float = 120) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            run: dict[str, Any] = self.request("GET", f"/v1/runs/{run_id}")
            if run["status"] in ("succeeded", "degraded", "failed", "cancelled"):
                return run
            time.sleep(0.2)
        raise AssertionError(f"run {run_id} did not finish in {timeout}s")

    def event_ids(self, run_id: str) -> list[int]:
        """The stored event ids of a finished run, read from its SSE stream."""
        url = f"{self.url}/v1/runs/{run_id}/events"
        req = urllib.request.Request(url)
        if self.key:
            req.add_header("Authorization", f"Bearer {self.key}")
        ids = []
        with urllib.request.urlopen(req, timeout=30) as resp:
            for raw in resp:
                line = raw.decode().strip()
                if line.startswith("id:"):
                    ids.append(int(line[3:].strip()))
        return ids


def start_server(
    tmp: Path, *, latency: float = 0.0, key: str | None = None, fake: bool = True
) -> Server:
    """`earnings-desk serve` in a subprocess: the fake model and embeddings, or (fake=False)
    the embedded defaults, the bundled model through llama.cpp."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("EDESK_")}
    env |= {"EDESK_DATA_DIR": str(tmp / "data"), "EDESK_SSE_HEARTBEAT": "2"}
    if fake:
        env |= {
            "EDESK_PROVIDER": "fake",
            "EDESK_EMBEDDINGS": "fake",
            "EDESK_FAKE_LATENCY": str(latency),
        }
    if key:
        env["EDESK_API_KEYS"] = key
    log = tmp / "server.log"
    proc = subprocess.Popen(
        [sys.executable, "-c", "import sys; from app.cli import main; sys.exit(main(sys.argv[1:]))",
         "serve", "--port", str(port)],
        cwd=REPO, env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT,
    )  # fmt: skip
    server = Server(url=f"http://127.0.0.1:{port}", key=key, proc=proc, log=log)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited {proc.returncode}:\n{log.read_text()[-3000:]}")
        with contextlib.suppress(OSError, urllib.error.URLError):
            urllib.request.urlopen(server.url + "/healthz", timeout=2).close()
            return server
        time.sleep(0.3)
    proc.kill()
    raise RuntimeError(f"server did not start:\n{log.read_text()[-3000:]}")


def stop_server(server: Server) -> None:
    assert server.proc is not None
    server.proc.terminate()
    try:
        server.proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        server.proc.kill()


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
