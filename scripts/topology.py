"""The docker-compose topology without Docker: PostgreSQL and Redis from Debian's packages, a
Chroma server (`chroma run`, from the chromadb wheel), N API replicas and M workers from this
project's own commands, all on 127.0.0.1 with data under one folder.

    python -m scripts.topology up --api 2 --workers 2 [--fake-latency 0.2] [--dir /tmp/edesk]
    (Ctrl-C stops everything)

The integration tests and bench/load.py drive the same classes. Needs `postgresql` and
`redis-server` (Debian); `scripts/setup.sh --dev` installs them."""

from __future__ import annotations

import argparse
import contextlib
import glob
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
CLI = "import sys; from app.cli import main; sys.exit(main(sys.argv[1:]))"


class TopologyError(RuntimeError):
    pass


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait(check: object, what: str, proc: subprocess.Popen[bytes] | None, log: Path,
          timeout: float = 60.0) -> None:  # fmt: skip
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise TopologyError(f"{what} exited {proc.returncode}:\n{_tail(log)}")
        with contextlib.suppress(Exception):
            if check():  # type: ignore[operator]
                return
        time.sleep(0.2)
    raise TopologyError(f"{what} not ready after {timeout:.0f} s:\n{_tail(log)}")


def _tail(log: Path, n: int = 3000) -> str:
    return log.read_text(errors="replace")[-n:] if log.exists() else "(no log)"


def _port_open(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def pg_bin() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/postgres"))
    return Path(found[-1]).parent if found else None


def missing() -> list[str]:
    """What this machine lacks to start the topology (empty: all there)."""
    out = []
    if pg_bin() is None:
        out.append("PostgreSQL server (Debian package postgresql)")
    if shutil.which("redis-server") is None:
        out.append("Redis server (Debian package redis-server)")
    return out


def rss_mb(pid: int) -> float | None:
    """A process's resident memory in MB (Linux /proc), None when it is gone."""
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return None


@dataclass
class Postgres:
    root: Path
    port: int = field(default_factory=free_port)
    proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return self.url_of("edesk")

    def url_of(self, database: str) -> str:
        return f"postgresql://edesk@127.0.0.1:{self.port}/{database}"

    def _as_owner(self, cmd: list[str]) -> list[str]:
        # PostgreSQL refuses to run as root: CI runs as root, so use the postgres account
        return ["runuser", "-u", "postgres", "--", *cmd] if os.geteuid() == 0 else cmd

    def init(self) -> None:
        bin_dir = pg_bin()
        if bin_dir is None:
            raise TopologyError("PostgreSQL is not installed (apt-get install postgresql)")
        self.bin = bin_dir
        if os.geteuid() == 0:  # the postgres account must reach its folder: not under root's
            self.root = Path(tempfile.mkdtemp(prefix="edesk-pg-"))
            shutil.chown(self.root, "postgres")
            self.owned = True
        self.data = self.root / "pgdata"
        self.root.mkdir(parents=True, exist_ok=True)
        if not (self.data / "PG_VERSION").exists():
            subprocess.run(
                self._as_owner([str(bin_dir / "initdb"), "-D", str(self.data), "-U", "edesk",
                                "--auth=trust", "-E", "UTF8", "--no-sync"]),
                check=True, capture_output=True,
            )  # fmt: skip

    def start(self) -> None:
        if not hasattr(self, "bin"):
            self.init()
        log = self.root / "postgres.log"
        # the server is our direct child (not under runuser, which would not pass signals on
        # and could leave it running when killed): stop/restart reach PostgreSQL itself
        owner: dict[str, Any] = {}
        if os.geteuid() == 0:
            owner = {"user": "postgres", "group": "postgres"}
        self.proc = subprocess.Popen(
            [str(self.bin / "postgres"), "-D", str(self.data), "-p", str(self.port),
             "-k", str(self.root), "-c", "listen_addresses=127.0.0.1",
             "-c", "fsync=off", "-c", "max_connections=300"],
            stdout=log.open("ab"), stderr=subprocess.STDOUT, **owner,
        )  # fmt: skip
        _wait(lambda: self._ready(), "postgres", self.proc, log)

    def _ready(self) -> bool:
        import psycopg

        try:
            with psycopg.connect(self.url_of("postgres"), connect_timeout=2) as c:
                c.autocommit = True
                exists = c.execute("SELECT 1 FROM pg_database WHERE datname='edesk'").fetchone()
                if not exists:
                    c.execute("CREATE DATABASE edesk")
            return True
        except psycopg.OperationalError:
            return False

    def stop(self, *, fast: bool = True) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT if fast else signal.SIGTERM)  # fast shutdown
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    def restart(self, down_for: float = 0.0) -> None:
        self.stop()
        time.sleep(down_for)
        self.start()

    def remove(self) -> None:
        self.stop()
        if getattr(self, "owned", False):
            shutil.rmtree(self.root, ignore_errors=True)


@dataclass
class Redis:
    root: Path
    port: int = field(default_factory=free_port)
    proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        log = self.root / "redis.log"
        # no persistence on purpose: a restart loses the queue, which the sweeper must survive
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(self.root), "--maxclients", "10000"],
            stdout=log.open("ab"), stderr=subprocess.STDOUT,
        )  # fmt: skip
        _wait(lambda: _port_open(self.port), "redis", self.proc, log)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.proc = None

    def restart(self, down_for: float = 0.0) -> None:
        self.stop()
        time.sleep(down_for)
        self.start()


@dataclass
class Chroma:
    root: Path
    port: int = field(default_factory=free_port)
    proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        log = self.root / "chroma.log"
        exe = Path(sys.executable).parent / "chroma"
        env = {**os.environ, "ANONYMIZED_TELEMETRY": "False"}
        self.proc = subprocess.Popen(
            [str(exe), "run", "--path", str(self.root / "db"), "--host", "127.0.0.1",
             "--port", str(self.port)],
            stdout=log.open("ab"), stderr=subprocess.STDOUT, env=env,
        )  # fmt: skip
        _wait(lambda: _get(f"{self.url}/api/v2/heartbeat"), "chroma", self.proc, log)

    def stop(self) -> None:
        _terminate(self.proc, 10)
        self.proc = None


def call(url: str, method: str = "GET", body: Any = None, timeout: float = 60) -> Any:
    """One JSON request to an API process: the parsed answer (HTTP errors raise)."""
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method)
    if data is not None:
        req.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(req, timeout=timeout) as resp:
        return json.loads(resp.read())


def _terminate(proc: subprocess.Popen[bytes] | None, timeout: float) -> None:
    """SIGTERM, then SIGKILL if it is still there after `timeout` seconds."""
    if proc is not None and proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _get(url: str) -> bool:
    with urllib.request.urlopen(url, timeout=2) as resp:
        return bool(resp.status == 200)


@dataclass
class EdeskProcess:
    """One `earnings-desk serve` or `earnings-desk worker`."""

    kind: str  # "api" | "worker"
    name: str
    env: dict[str, str]
    root: Path
    port: int = 0
    proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def log(self) -> Path:
        return self.root / f"{self.name}.log"

    def start(self, wait: bool = True) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        args = ["serve", "--port", str(self.port)] if self.kind == "api" else ["worker"]
        self.proc = subprocess.Popen(
            [sys.executable, "-c", CLI, *args],
            cwd=REPO, env=self.env, stdout=self.log.open("ab"), stderr=subprocess.STDOUT,
        )  # fmt: skip
        if wait and self.kind == "api":
            _wait(lambda: _get(self.url + "/healthz"), self.name, self.proc, self.log, 300)
        elif wait:
            _wait(lambda: "taking runs" in _tail(self.log, 100_000), self.name, self.proc,
                  self.log, 300)  # fmt: skip

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def stop(self) -> None:
        _terminate(self.proc, 20)

    def rss_mb(self) -> float | None:
        return rss_mb(self.proc.pid) if self.proc is not None else None


@dataclass
class Topology:
    root: Path
    apis: int = 2
    workers: int = 2
    env: dict[str, str] = field(default_factory=dict)  # extra EDESK_ settings
    postgres: Postgres = field(init=False)
    redis: Redis = field(init=False)
    chroma: Chroma | None = field(init=False, default=None)
    api: list[EdeskProcess] = field(init=False, default_factory=list)
    worker: list[EdeskProcess] = field(init=False, default_factory=list)
    with_chroma: bool = True

    def __post_init__(self) -> None:
        self.postgres = Postgres(self.root / "postgres")
        self.redis = Redis(self.root / "redis")
        if self.with_chroma:
            self.chroma = Chroma(self.root / "chroma")

    def base_env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("EDESK_")}
        env |= {
            "EDESK_DATABASE_URL": self.postgres.url,
            "EDESK_REDIS_URL": self.redis.url,
            "EDESK_SSE_HEARTBEAT": "2",
            "EDESK_SSE_POLL": "2",
        }
        if self.chroma is not None:
            env["EDESK_CHROMA_URL"] = self.chroma.url
        return env | self.env

    def process(self, kind: str, i: int) -> EdeskProcess:
        env = self.base_env() | {"EDESK_DATA_DIR": str(self.root / f"{kind}{i}")}
        proc = EdeskProcess(kind, f"{kind}{i}", env, self.root / "logs")
        if kind == "api":
            proc.port = free_port()
        return proc

    def up(self) -> Topology:
        self.postgres.start()
        self.redis.start()
        if self.chroma is not None:
            self.chroma.start()
        self.api = [self.process("api", i) for i in range(self.apis)]
        self.worker = [self.process("worker", i) for i in range(self.workers)]
        for p in [*self.api, *self.worker]:
            p.start(wait=False)
        for p in [*self.api, *self.worker]:
            _wait_started(p)
        return self

    def down(self) -> None:
        for p in [*self.api, *self.worker]:
            p.stop()
        if self.chroma is not None:
            self.chroma.stop()
        self.redis.stop()
        self.postgres.remove()


def _wait_started(p: EdeskProcess) -> None:
    if p.kind == "api":
        _wait(lambda: _get(p.url + "/healthz"), p.name, p.proc, p.log, 300)
    else:
        _wait(lambda: "taking runs" in _tail(p.log, 100_000), p.name, p.proc, p.log, 300)


@contextlib.contextmanager
def running(root: Path, **kwargs: object) -> Iterator[Topology]:
    topo = Topology(root, **kwargs)  # type: ignore[arg-type]
    try:
        yield topo.up()
    finally:
        topo.down()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m scripts.topology", description=__doc__)
    ap.add_argument("command", choices=["up"])
    ap.add_argument("--api", type=int, default=2)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--dir", type=Path, default=None)
    ap.add_argument(
        "--fake-latency", type=float, default=None,
        help="use the scripted fake model with this latency (s) instead of the settings' model",
    )  # fmt: skip
    args = ap.parse_args(argv)
    if lacking := missing():
        print("topology: missing " + "; ".join(lacking), file=sys.stderr)
        return 2
    root = args.dir or Path(tempfile.mkdtemp(prefix="edesk-topology-"))
    env = {}
    if args.fake_latency is not None:
        env = {"EDESK_PROVIDER": "fake", "EDESK_EMBEDDINGS": "fake",
               "EDESK_FAKE_LATENCY": str(args.fake_latency)}  # fmt: skip
    with running(root, apis=args.api, workers=args.workers, env=env) as topo:
        print(json.dumps({
            "api": [p.url for p in topo.api], "workers": [p.name for p in topo.worker],
            "database_url": topo.postgres.url, "redis_url": topo.redis.url,
            "chroma_url": topo.chroma.url if topo.chroma else None, "logs": str(root / "logs"),
        }, indent=2), flush=True)  # fmt: skip
        with contextlib.suppress(KeyboardInterrupt):
            signal.pause()
    return 0


if __name__ == "__main__":
    sys.exit(main())
