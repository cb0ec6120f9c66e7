"""What a prefix cache could serve: per pipeline, the share of a run's prompt tokens that repeat
a prefix already sent earlier in the same run (OpenAI's automatic prompt caching, vLLM's prefix
caching and llama.cpp's slot cache all serve exactly that part cheaper).

Each pipeline runs once on one call with fake models that declare a large window (so every node
reads what it would read from a strong hosted model); every prompt is recorded in the order it
was sent, as the chat messages' text with role markers, tokenized with tiktoken's o200k. For
each prompt, the longest common token prefix with any earlier prompt of the run counts as
served; the figure is served tokens / all prompt tokens.

Every pipeline that makes more than one model call, under the `desk` profile (the default, whose
prompts are laid out for prefix caches) and, beside it, the `paper` profile (each paper's layout,
kept as the paper has it; printed, no target).

    .venv/bin/python -m bench.prefix [--file CFR_q3_2019.txt] [--pipelines findebate,...]
"""

from __future__ import annotations

import argparse
import asyncio
from typing import Any, get_args

import numpy as np
from langchain_core.messages import BaseMessage

from app.llm.tokens import tiktoken_counter
from bench.common import commit, ectsum_file, emit, fake_engine
from core.llm.fake import Call, FakeModels, Script, canned
from core.llm.window import Window
from core.options import Profile, RunOptions
from core.transcript import parse_transcript

PIPELINES = ("findebate", "standard_rag", "multi_agent", "writer_feedback", "conversation",
             "adversarial", "zero_shot")  # fmt: skip
# desk-profile targets (issue 42); the others are printed
TARGETS = {"writer_feedback": 0.6, "conversation": 0.6, "adversarial": 0.65, "findebate": 0.45}


def serialized(messages: list[BaseMessage]) -> str:
    """The messages as a chat template lays them out (role marker, content), in order."""
    return "".join(f"<|{m.type}|>\n{m.content}\n" for m in messages)


def lcp(a: np.ndarray[Any, Any], b: np.ndarray[Any, Any]) -> int:
    n = min(len(a), len(b))
    if n == 0:
        return 0
    diff = np.nonzero(a[:n] != b[:n])[0]
    return int(diff[0]) if len(diff) else n


def shared_share(calls: list[Call]) -> tuple[float, int, int]:
    """(served share, served tokens, all tokens) over the prompts in the order they were sent."""
    enc = tiktoken_counter("o200k_base")._enc
    seqs = [np.array(enc.encode_ordinary(serialized(c.messages)), dtype=np.int64) for c in calls]
    served = 0
    for i, seq in enumerate(seqs):
        served += max((lcp(seq, earlier) for earlier in seqs[:i]), default=0)
    total = sum(len(s) for s in seqs)
    return (served / total if total else 0.0), served, total


def options(pipeline: str, profile: Profile = "desk") -> RunOptions:
    if pipeline == "writer_feedback":
        return RunOptions(writer_variant="ensemble", profile=profile)
    return RunOptions(profile=profile)


async def run(pipeline: str, text: str, profile: Profile = "desk") -> list[Call]:
    script = Script.of(default=canned)
    models = FakeModels(default=script, window=Window(1_000_000, 4_000))
    async with fake_engine(models) as engine:
        out = await engine.run(
            engine.request(pipeline, parse_transcript(text), options=options(pipeline, profile))
        )
    if out.report is None:
        raise SystemExit(f"{pipeline} failed at {out.failed_node}: {out.error}")
    return script.calls


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--file", default="CFR_q3_2019.txt")
    parser.add_argument("--pipelines", default=",".join(PIPELINES))
    args = parser.parse_args()
    text = ectsum_file(args.file).read_text(encoding="utf-8")
    figures: dict[str, Any] = {"file": args.file, "commit": commit()}
    for pipeline in args.pipelines.split(","):
        for profile in get_args(Profile):
            calls = asyncio.run(run(pipeline, text, profile))
            share, served, total = shared_share(calls)
            figures[pipeline if profile == "desk" else f"{pipeline}@profile=paper"] = {
                "prompts": len(calls),
                "prompt_tokens": total,
                "prefix_served_tokens": served,
                "prefix_share": round(share, 3),
            }
    figures["targets"] = {p: t for p, t in TARGETS.items() if p in figures}
    figures["met"] = {p: figures[p]["prefix_share"] >= t for p, t in figures["targets"].items()}
    emit(figures)


if __name__ == "__main__":
    main()
