"""Run pipelines over every ECTSum transcript on the offline defaults (one engine, one local
model server) and print each run's status, tokens and time; proves `analyze` copes with every
file and format. Figures only, nothing asserted.

    .venv/bin/python -m bench.sweep [--pipelines zero_shot,standard_rag] [--limit N] [--files A,B]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

from app.service.engine import Engine
from app.settings import Settings
from bench.common import ECTSUM, ectsum_file, emit
from core.transcript import parse_transcript


def transcripts(files: str | None, limit: int | None) -> list[Path]:
    if files:
        return [ectsum_file(name) for name in files.split(",")]
    ectsum_file("manifest.json")  # exits with a message when ../shared is absent
    paths = sorted(
        p
        for p in ECTSUM.glob("*")
        if p.name.endswith((".full.md", ".txt")) and not p.name.endswith(".summary.txt")
    )
    return paths[:limit] if limit else paths


async def sweep(paths: list[Path], pipelines: list[str]) -> dict[str, object]:
    statuses: dict[str, int] = {}
    failures: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        async with Engine.open(Settings(data_dir=Path(tmp))) as engine:
            for path in paths:
                transcript = parse_transcript(path.read_text(encoding="utf-8"))
                for pipeline in pipelines:
                    t0 = time.perf_counter()
                    out = await engine.run(engine.request(pipeline, transcript))
                    secs = time.perf_counter() - t0
                    statuses[out.status] = statuses.get(out.status, 0) + 1
                    tokens = out.report.tokens["total"] if out.report else 0
                    calls = (
                        " ".join(
                            f"{r.horizon.value}:{r.position.value}"
                            for r in out.report.recommendations
                        )
                        if out.report
                        else ""
                    )
                    print(
                        f"{path.name:24} {pipeline:13} {out.status:9} {secs:6.1f}s "
                        f"{tokens:6} tok {calls or out.error or ''}",
                        flush=True,
                    )
                    if out.status == "failed":
                        failures.append(f"{path.name}/{pipeline}: {out.failed_node}: {out.error}")
    return {"runs": sum(statuses.values()), **statuses, "failures": failures}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pipelines", default="zero_shot,standard_rag")
    parser.add_argument("--files")
    parser.add_argument("--limit", type=int)
    args = parser.parse_args()
    paths = transcripts(args.files, args.limit)
    t0 = time.perf_counter()
    figures = asyncio.run(sweep(paths, args.pipelines.split(",")))
    figures["wall_s"] = round(time.perf_counter() - t0, 1)
    emit(figures)


if __name__ == "__main__":
    main()
