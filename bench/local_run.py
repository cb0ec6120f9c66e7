"""One full `findebate` run on the offline defaults (bundled GGUF via llama.cpp, bundled
embeddings): wall time, tokens, and tokens per second of wall time.

    .venv/bin/python -m bench.local_run [--file CFR_q3_2019.txt] [--pipeline findebate]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

from app.service.engine import Engine
from app.settings import Settings
from bench.common import ectsum_file, emit
from core.transcript import parse_transcript


async def run(path: Path, pipeline: str) -> dict[str, object]:
    transcript = parse_transcript(path.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        async with Engine.open(Settings(data_dir=Path(tmp))) as engine:
            startup = time.perf_counter() - t0
            t1 = time.perf_counter()
            out = await engine.run(pipeline, transcript)
            wall = time.perf_counter() - t1
    if out.report is None:
        raise SystemExit(f"run failed at {out.failed_node}: {out.error}")
    trace = out.report.trace
    completion = sum(t.completion_tokens for t in trace)
    prompt = sum(t.prompt_tokens for t in trace)
    return {
        "file": path.name,
        "pipeline": pipeline,
        "status": out.report.status,
        "startup_s": round(startup, 2),
        "wall_s": round(wall, 1),
        "model_calls": sum(t.calls for t in trace),
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        # the local server runs one request at a time, so wall time is model time
        "completion_tokens_per_wall_s": round(completion / wall, 1),
        "all_tokens_per_wall_s": round((prompt + completion) / wall, 1),
        "reverted": bool(
            out.report.debate and out.report.debate.decision and out.report.debate.decision.reverted
        ),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--file", default="CFR_q3_2019.txt")
    parser.add_argument("--pipeline", default="findebate")
    args = parser.parse_args()
    emit(asyncio.run(run(ectsum_file(args.file), args.pipeline)))


if __name__ == "__main__":
    main()
