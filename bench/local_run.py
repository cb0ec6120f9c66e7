"""A full run on the offline defaults (bundled GGUF via llama.cpp, bundled embeddings), with
today's local-server configuration and the new default in one invocation: each wall time, their
ratio, the model calls and tokens, the report status and recommendations, and the llama.cpp
server's peak memory.

"baseline" is the configuration before issue 17: llama-cpp-python's server with 2 threads, no
grammar (grounded decoding came later and is off here); "candidate" is today's default (grounded
decoding on, its grammar checked per drawn token by app/llm/llama_server.py) with the `--set`
overrides, e.g. `--set local_flash_attn=true` or `--set grounded_decoding=off`. Both see the
same prompts (laid out for prefix reuse: the server reuses the longest prefix a prompt shares
with the previous one). The model samples, so the two runs may write different lengths: tokens
per second of wall time is printed beside the wall ratio, and, from llama.cpp's own log, the
prompt tokens it evaluated and reused and the seconds it spent reading prompts and generating.

    .venv/bin/python -m bench.local_run [--file CFR_q3_2019.txt] [--pipeline findebate]
                                        [--set local_flash_attn=true ...] [--only NAME]
"""

from __future__ import annotations

import argparse
import asyncio
import re
import tempfile
import time
from pathlib import Path
from typing import Any

from app.service.engine import Engine
from app.settings import Settings
from bench.common import PeakRss, ectsum_file, emit
from core.transcript import parse_transcript

TARGET = 0.70  # the new default's wall / the baseline's, for findebate on CFR_q3_2019
BASELINE: dict[str, Any] = {"local_flash_attn": False, "grounded_decoding": "off"}
CANDIDATE: list[str] = []  # the defaults


PROMPT_EVAL = re.compile(r"prompt eval time =\s*([\d.]+) ms /\s*(\d+) tokens")
DECODE = re.compile(r"(?<!prompt )eval time =\s*([\d.]+) ms /\s*(\d+) runs")
PREFIX = re.compile(r"(\d+) prefix-match hit")


def where_time_went(log: Path) -> dict[str, Any]:
    """From llama.cpp's own log of the run: prompt tokens it evaluated (the rest were a prefix
    kept from the previous request) and the seconds spent reading prompts and generating."""
    text = log.read_text(encoding="utf-8", errors="replace") if log.is_file() else ""
    prompt = [(float(ms), int(n)) for ms, n in PROMPT_EVAL.findall(text)]
    decode = [(float(ms), int(n)) for ms, n in DECODE.findall(text)]
    return {
        "prompt_tokens_evaluated": sum(n for _, n in prompt),
        "prompt_tokens_reused": sum(int(n) for n in PREFIX.findall(text)),
        "prompt_eval_s": round(sum(ms for ms, _ in prompt) / 1000, 1),
        "decode_s": round(sum(ms for ms, _ in decode) / 1000, 1),
        "tokens_generated": sum(n for _, n in decode),
    }


def _server_pids() -> list[int]:
    pids = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                cmd = (d / "cmdline").read_bytes()
            except OSError:
                continue
            if b"llama_cpp.server" in cmd or b"app.llm.llama_server" in cmd:
                pids.append(int(d.name))
    return pids


async def run(path: Path, pipeline: str, overrides: dict[str, Any]) -> dict[str, Any]:
    transcript = parse_transcript(path.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=Path(tmp), **overrides)
        t0 = time.perf_counter()
        with PeakRss(lambda: {f"llama {p}": p for p in _server_pids()}) as rss:
            async with Engine.open(settings) as engine:
                startup = time.perf_counter() - t0
                t1 = time.perf_counter()
                out = await engine.run(engine.request(pipeline, transcript))
                wall = time.perf_counter() - t1
        llama = where_time_went(Path(tmp) / "llama-server.log")
    if out.report is None:
        raise SystemExit(f"run failed at {out.failed_node}: {out.error}")
    report = out.report
    trace = report.trace
    return {
        "server": {
            "flash_attn": settings.local_flash_attn,
            "grounded_decoding": settings.grounded_decoding,
            "threads": settings.local_threads,
            "n_ctx": settings.local_n_ctx,
        },
        "status": report.status,
        "startup_s": round(startup, 2),
        "wall_s": round(wall, 1),
        "model_calls": sum(t.calls for t in trace),
        "prompt_tokens": sum(t.prompt_tokens for t in trace),
        "completion_tokens": sum(t.completion_tokens for t in trace),
        "all_tokens_per_wall_s": round(
            sum(t.prompt_tokens + t.completion_tokens for t in trace) / wall, 1
        ),
        "recommendations": [
            f"{r.horizon}:{r.position}:{r.conviction}" for r in report.recommendations
        ],
        "server_peak_rss_mb": round(sum(rss.peak.values())),
        "llama_log": llama,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--file", default="CFR_q3_2019.txt")
    parser.add_argument("--pipeline", default="findebate")
    parser.add_argument("--only", choices=("candidate", "baseline"))
    parser.add_argument("--set", action="append", default=None, metavar="SETTING=VALUE")
    args = parser.parse_args()
    path = ectsum_file(args.file)
    changes = dict(s.split("=", 1) for s in (args.set or CANDIDATE))
    if bad := [c for c in changes if c not in Settings.model_fields]:
        parser.error(f"unknown setting(s): {', '.join(bad)}")
    figures: dict[str, Any] = {"file": path.name, "pipeline": args.pipeline, "set": changes}
    configs = {"baseline": BASELINE, "candidate": changes}
    for name, overrides in configs.items():
        if args.only in (None, name):
            figures[name] = asyncio.run(run(path, args.pipeline, overrides))
    if "baseline" in figures and "candidate" in figures:
        ratio = figures["candidate"]["wall_s"] / figures["baseline"]["wall_s"]
        figures["wall_ratio"] = round(ratio, 3)
        figures["target"] = TARGET
        figures["met"] = (
            ratio <= TARGET and figures["candidate"]["status"] == figures["baseline"]["status"]
        )
    emit(figures)


if __name__ == "__main__":
    main()
