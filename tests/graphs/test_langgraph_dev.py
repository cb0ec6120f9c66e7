"""The LangGraph CLI's in-memory dev server (`langgraph dev`, what LangGraph Studio talks to)
loads langgraph.json and serves every pipeline graph. langgraph-cli[inmem] pins protobuf below
the version our stack uses, so it is installed from PyPI into a side virtualenv layered over the
project's (a .pth to .venv's packages): the project's own environment is left as it is. It
runs in the repository (langgraph.json's paths are relative to the working folder) and keeps
its state in `.langgraph_api/` there (git ignores it)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from graphs import PIPELINES
from tests.live_server import free_port

ROOT = Path(__file__).resolve().parents[2]
CLI = "langgraph-cli[inmem]==0.4.40"

pytestmark = pytest.mark.integration


def side_venv(where: Path) -> Path:
    """A virtualenv that sees the project's packages after its own, with langgraph-cli."""
    subprocess.run([sys.executable, "-m", "venv", str(where)], check=True)
    site = next(where.glob("lib/python3*/site-packages"))
    ours = [p for p in sys.path if p.endswith("site-packages") and Path(p).is_dir()]
    (site / "edesk.pth").write_text("\n".join([str(ROOT), *ours]) + "\n", encoding="utf-8")
    done = subprocess.run(
        [str(where / "bin" / "pip"), "install", "-q", CLI], capture_output=True, text=True
    )
    if done.returncode != 0:
        message = f"pip install {CLI} failed:\n{done.stderr[-2000:]}"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return where / "bin" / "langgraph"


@pytest.fixture(scope="module")
def dev_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    tmp = tmp_path_factory.mktemp("lgdev")
    langgraph = side_venv(tmp / "venv")
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("EDESK_")}
    env |= {"EDESK_PROVIDER": "fake", "EDESK_DATA_DIR": str(tmp / "data")}
    log = tmp / "dev.log"
    proc = subprocess.Popen(
        [str(langgraph), "dev", "--no-browser", "--no-reload", "--port", str(port),
         "--config", str(ROOT / "langgraph.json")],
        cwd=ROOT, env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            if proc.poll() is not None:
                pytest.fail(f"langgraph dev exited {proc.returncode}:\n{log.read_text()[-3000:]}")
            try:
                urllib.request.urlopen(f"{url}/ok", timeout=2).close()
                break
            except (OSError, urllib.error.URLError):
                if time.monotonic() > deadline:
                    pytest.fail(f"langgraph dev did not start:\n{log.read_text()[-3000:]}")
                time.sleep(0.5)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()


def test_dev_server_serves_every_pipeline(dev_server: str) -> None:
    import asyncio

    from langgraph_sdk import get_client

    async def go() -> tuple[set[str], list[str]]:
        client = get_client(url=dev_server, api_key=None)
        found = await client.assistants.search(limit=50)
        graph = await client.assistants.get_graph(
            next(a["assistant_id"] for a in found if a["graph_id"] == "findebate")
        )
        return {a["graph_id"] for a in found}, [n["id"] for n in graph["nodes"]]

    graphs, nodes = asyncio.run(go())
    assert graphs == set(PIPELINES)
    assert {"retrieve", "synthesize", "trust", "skeptic", "leader", "report"} <= set(nodes)
