"""Do llama.cpp's parallel slots with continuous batching help the bundled model on this machine?

Five specialist-sized requests (about 1,300 prompt tokens each, 300 completion tokens, sent at
once, as findebate's five specialists are) against llama.cpp's own C++ server (`llama-server`,
which has slots and continuous batching; llama-cpp-python's server has neither), once with one
slot and once with five: both walls and their ratio.

llama-server is not part of the install (building it takes ~7 minutes on 2 cores). Build it from
the llama.cpp that llama-cpp-python vendors, with the flags setup.sh uses:

    pip download llama-cpp-python==0.3.36 --no-deps --no-binary :all: -d /tmp/sd
    tar xzf /tmp/sd/llama_cpp_python-0.3.36.tar.gz -C /tmp/sd
    cmake -S /tmp/sd/llama_cpp_python-0.3.36/vendor/llama.cpp -B /tmp/lsb -DGGML_NATIVE=OFF \\
          -DLLAMA_CURL=OFF -DLLAMA_BUILD_SERVER=ON -DCMAKE_BUILD_TYPE=Release
    cmake --build /tmp/lsb --target llama-server -j2
    .venv/bin/python -m bench.llama_slots --server /tmp/lsb/bin/llama-server
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import time
from pathlib import Path
from typing import Any

import httpx

from app.llm.local import _free_port, bundled_model_path
from bench.common import ectsum_file, emit
from scripts.topology import rss_mb

REQUESTS = 5


async def measure(server: Path, slots: int, text: str, threads: int) -> dict[str, Any]:
    port = _free_port()
    cmd = [str(server), "-m", str(bundled_model_path()), "--host", "127.0.0.1",
           "--port", str(port), "-t", str(threads), "--parallel", str(slots),
           "-c", str(4096 * slots)]  # fmt: skip
    env = {**os.environ, "LD_LIBRARY_PATH": str(server.parent)}
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    words = text.split()
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=900) as client:
            for _ in range(300):
                try:
                    if (await client.get("/health")).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                await asyncio.sleep(0.2)

            async def one(i: int) -> dict[str, int]:
                chunk = " ".join(words[i * 150 : i * 150 + 1000])
                body = {
                    "messages": [
                        {"role": "system", "content": "You are an equity analyst."},
                        {"role": "user", "content": f"Analyse this passage:\n{chunk}"},
                    ],
                    "max_tokens": 300,
                    "ignore_eos": True,  # every request writes exactly 300 tokens
                }
                resp = await client.post("/v1/chat/completions", json=body)
                resp.raise_for_status()
                return dict(resp.json()["usage"])

            t0 = time.perf_counter()
            usage = await asyncio.gather(*(one(i) for i in range(REQUESTS)))
            wall = time.perf_counter() - t0
        rss = round(rss_mb(proc.pid) or 0.0)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    return {
        "slots": slots,
        "wall_s": round(wall, 1),
        "prompt_tokens": sum(u["prompt_tokens"] for u in usage),
        "completion_tokens": sum(u["completion_tokens"] for u in usage),
        "server_rss_mb": rss,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", type=Path, default=Path("/tmp/lsb/bin/llama-server"))
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    if not args.server.is_file():
        print(f"skipped: no llama-server at {args.server} (see this module's docstring)")
        emit({"skipped": True, "reason": f"{args.server} missing"})
        return
    text = ectsum_file("CFR_q3_2019.txt").read_text(encoding="utf-8")
    one = asyncio.run(measure(args.server, 1, text, args.threads))
    five = asyncio.run(measure(args.server, REQUESTS, text, args.threads))
    emit({"one_slot": one, "five_slots": five,
          "wall_ratio": round(five["wall_s"] / one["wall_s"], 3)})  # fmt: skip


if __name__ == "__main__":
    main()
