"""A real `earnings-desk serve` process for tests that need one (browser, fuzz and abuse):
the fake model and embeddings (or the embedded defaults), on a free port, logs in the tmp dir."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.conftest import REPO


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
    tmp: Path,
    *,
    latency: float = 0.0,
    key: str | None = None,
    fake: bool = True,
    env: dict[str, str] | None = None,
    port: int | None = None,
) -> Server:
    """`earnings-desk serve` in a subprocess: the fake model and embeddings, or (fake=False)
    the embedded defaults, the bundled model through llama.cpp. `port`: a restart's. Only a
    test marked `server` (or `browser`, `integration`) may start one."""
    from tests.conftest import SERVER_MARKERS, require_marker

    require_marker(SERVER_MARKERS, "starts a real server process")
    if not fake:
        require_marker({"local_model"}, "starts a server on the bundled model")
    if port is not None:
        return _start(tmp, latency=latency, key=key, fake=fake, env=env, port=port)
    # A port found free can be taken before the server binds it (the server's own llama.cpp
    # child asks the kernel for a free port during startup too): choose again, at most thrice.
    for attempt in range(3):
        try:
            return _start(tmp, latency=latency, key=key, fake=fake, env=env, port=free_port())
        except PortTaken:
            if attempt == 2:
                raise
    raise AssertionError("unreachable")


class PortTaken(RuntimeError):
    pass


def _start(
    tmp: Path,
    *,
    latency: float,
    key: str | None,
    fake: bool,
    env: dict[str, str] | None,
    port: int,
) -> Server:
    extra = env or {}
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
    env |= extra
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
            text = log.read_text()
            error = PortTaken if "address already in use" in text else RuntimeError
            raise error(f"server exited {proc.returncode}:\n{text[-3000:]}")
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
