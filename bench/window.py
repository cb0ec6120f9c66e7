"""Context sized to the model: issue 14's reproduction, and how tokenizers compare.

1. The reproduction: llama-cpp-python's OpenAI-compatible server on the bundled GGUF with an
   8,192-token context (`python -m llama_cpp.server --n_ctx 8192`), Earnings Desk pointed at it
   as an `openai` provider (a model name it does not know: an o200k estimate x1.3, and the
   8,192-token default window), `zero_shot` on a long call. Before prompts were sized to the
   window this failed at `synthesize` with the server's 400 ("maximum context length is 8192
   tokens"); now it succeeds with a note of what was cut.
2. Tokenizers on every ECTSum file: the bundled model's own tokens per o200k token (the
   estimate's factor must stay above the largest ratio).

    .venv/bin/python -m bench.window [--file JBL_q4_2021.full.md] [--n-ctx 8192]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from app.llm.local import LocalLlamaServer, bundled_model_path
from app.llm.tokens import ESTIMATE_FACTOR, llama_vocab, tiktoken_counter
from app.service.engine import Engine
from app.settings import Settings
from bench.common import ECTSUM, ectsum_file, emit
from core.transcript import parse_transcript


def tokenizer_ratios() -> dict[str, Any]:
    vocab, o200k = llama_vocab(bundled_model_path()), tiktoken_counter("o200k_base")
    ratios = []
    for path in sorted(ECTSUM.glob("*")):
        if path.suffix in (".txt", ".md") and not path.name.endswith(".summary.txt"):
            text = path.read_text(encoding="utf-8")
            ratios.append(vocab.count(text) / max(1, o200k.count(text)))
    return {
        "files": len(ratios),
        "local_per_o200k_max": round(max(ratios), 3),
        "local_per_o200k_mean": round(sum(ratios) / len(ratios), 3),
        "estimate_factor": ESTIMATE_FACTOR,
    }


async def reproduce(path: Path, n_ctx: int) -> dict[str, Any]:
    transcript = parse_transcript(path.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as tmp:
        server = LocalLlamaServer(
            bundled_model_path(), n_ctx=n_ctx, threads=os.cpu_count() or 2,
            log_path=Path(tmp) / "server.log",
        )  # fmt: skip
        with server:
            settings = Settings(
                data_dir=Path(tmp) / "data",
                provider="openai",
                model="SmolLM2-135M-Instruct",  # unknown to tiktoken: the o200k estimate
                openai_base_url=server.base_url,
                openai_api_key="local",  # type: ignore[arg-type]
            )
            t0 = time.perf_counter()
            async with Engine.open(settings) as engine:
                out = await engine.run(engine.request("zero_shot", transcript))
            wall = time.perf_counter() - t0
    report = out.report
    return {
        "file": path.name,
        "words": transcript.n_words,
        "n_ctx": n_ctx,
        "status": report.status if report else "failed",
        "error": out.error,
        "wall_s": round(wall, 1),
        "largest_prompt_tokens": max((t.prompt_tokens for t in report.trace), default=0)
        if report
        else None,
        "cut_notes": [n for n in report.notes if "cut by relevance" in n] if report else [],
    }


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m bench.window", description=__doc__)
    ap.add_argument("--file", default="JBL_q4_2021.full.md")
    ap.add_argument("--n-ctx", type=int, default=8192)
    args = ap.parse_args()
    path = ectsum_file(args.file)
    figures = tokenizer_ratios()
    figures.update(asyncio.run(reproduce(path, args.n_ctx)))
    emit(figures)


if __name__ == "__main__":
    main()
