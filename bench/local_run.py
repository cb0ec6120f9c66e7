"""A full run on the offline defaults (bundled GGUF via llama.cpp, bundled embeddings), with
today's local-server configuration and the new default in one invocation: each wall time, their
ratio, the model calls and tokens, the report status and recommendations, and the llama.cpp
server's peak memory.

"baseline" is the configuration before issue 17 (one request at a time and no prompt cache: a
prompt is read from its first token unless it extends the very last one); "default" is what
`Settings()` starts now. Both see the same prompts, so the ratio is the server's doing.

    .venv/bin/python -m bench.local_run [--file CFR_q3_2019.txt] [--pipeline findebate]
                                        [--only default|baseline]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from app.service.engine import Engine
from app.settings import Settings
from bench.common import ectsum_file, emit
from core.transcript import parse_transcript

TARGET = 0.70  # the new default's wall / the baseline's, for findebate on CFR_q3_2019
BASELINE: dict[str, Any] = {"local_prompt_cache_mb": 0}


def _rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _server_pids() -> list[int]:
    pids = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                cmd = (d / "cmdline").read_bytes()
            except OSError:
                continue
            if b"llama_cpp.server" in cmd:
                pids.append(int(d.name))
    return pids


class PeakRss:
    """Polls the llama.cpp server processes' resident memory (summed) while a run goes."""

    def __init__(self) -> None:
        self.peak = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)

    def _poll(self) -> None:
        while not self._stop.wait(0.25):
            self.peak = max(self.peak, sum(_rss_mb(p) for p in _server_pids()))

    def __enter__(self) -> PeakRss:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()


async def run(path: Path, pipeline: str, overrides: dict[str, Any]) -> dict[str, Any]:
    transcript = parse_transcript(path.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=Path(tmp), **overrides)
        t0 = time.perf_counter()
        with PeakRss() as rss:
            async with Engine.open(settings) as engine:
                startup = time.perf_counter() - t0
                t1 = time.perf_counter()
                out = await engine.run(pipeline, transcript)
                wall = time.perf_counter() - t1
    if out.report is None:
        raise SystemExit(f"run failed at {out.failed_node}: {out.error}")
    report = out.report
    trace = report.trace
    return {
        "server": {
            "prompt_cache_mb": settings.local_prompt_cache_mb,
            "threads": settings.local_threads,
            "n_ctx": settings.local_n_ctx,
        },
        "status": report.status,
        "startup_s": round(startup, 2),
        "wall_s": round(wall, 1),
        "model_calls": sum(t.calls for t in trace),
        "prompt_tokens": sum(t.prompt_tokens for t in trace),
        "completion_tokens": sum(t.completion_tokens for t in trace),
        "recommendations": [
            f"{r.horizon}:{r.position}:{r.conviction}" for r in report.recommendations
        ],
        "server_peak_rss_mb": round(rss.peak),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--file", default="CFR_q3_2019.txt")
    parser.add_argument("--pipeline", default="findebate")
    parser.add_argument("--only", choices=("default", "baseline"))
    args = parser.parse_args()
    path = ectsum_file(args.file)
    figures: dict[str, Any] = {"file": path.name, "pipeline": args.pipeline}
    configs = {"baseline": BASELINE, "default": {}}
    for name, overrides in configs.items():
        if args.only in (None, name):
            figures[name] = asyncio.run(run(path, args.pipeline, overrides))
    if "baseline" in figures and "default" in figures:
        ratio = figures["default"]["wall_s"] / figures["baseline"]["wall_s"]
        figures["wall_ratio"] = round(ratio, 3)
        figures["target"] = TARGET
        figures["met"] = (
            ratio <= TARGET and figures["default"]["status"] == figures["baseline"]["status"]
        )
    emit(figures)


if __name__ == "__main__":
    main()
