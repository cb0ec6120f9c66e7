"""What grounded decoding costs per generated token on the bundled model, with llama-cpp-python's
own server (the grammar filters the whole vocabulary at every token) and with ours
(app/llm/llama_server.py: the drawn token is checked, the vocabulary filtered only when the
grammar refuses it), in one invocation.

Each server answers the same request (the first 5,000 characters of an ECTSum call, "summarise
with the key figures", temperature 0.6, a fixed seed, `--tokens` completion tokens) without and
with the call's figure grammar; the prompt is evaluated by the first request and reused by the
second, so the grammar request's time is decoding. Printed: each time, the grammar's extra
seconds per completion token on each server, and figures the grounding check finds unsupported
(none expected with the grammar).

    .venv/bin/python -m bench.grammar [--file CFR_q3_2019.txt] [--tokens 300]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from app.llm.local import LocalLlamaServer, bundled_model_path
from bench.common import ectsum_file, emit
from core.grounding import check_numbers
from core.llm.decoding import figure_grammar


class StockServer(LocalLlamaServer):
    """llama-cpp-python's server as shipped (the grammar in its sampler chain)."""

    def command(self) -> list[str]:
        cmd = super().command()
        cmd[cmd.index("app.llm.llama_server")] = "llama_cpp.server"
        return cmd


def measure(server_cls: type[LocalLlamaServer], text: str, tokens: int) -> dict[str, Any]:
    ask = "Summarise this earnings call for an analyst, with the key figures:\n\n" + text[:5000]
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "llama.log"
        with server_cls(bundled_model_path(), log_path=log) as server:
            for name, grammar in (("free", None), ("grammar", figure_grammar([text]))):
                body: dict[str, Any] = {
                    "model": "smollm2", "temperature": 0.6, "seed": 3, "max_tokens": tokens,
                    "messages": [{"role": "user", "content": ask}],
                }  # fmt: skip
                if grammar:
                    body["grammar"] = grammar
                t0 = time.perf_counter()
                resp = httpx.post(f"{server.base_url}/chat/completions", json=body, timeout=900)
                resp.raise_for_status()
                seconds = time.perf_counter() - t0
                answer = resp.json()
                content = answer["choices"][0]["message"]["content"]
                out[name] = {
                    "seconds": round(seconds, 2),
                    "completion_tokens": answer["usage"]["completion_tokens"],
                    "unsupported_figures": [
                        c.text for c in check_numbers(content, [text]) if not c.grounded
                    ],
                }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.grammar", description=__doc__)
    parser.add_argument("--file", default="CFR_q3_2019.txt")
    parser.add_argument("--tokens", type=int, default=300)
    args = parser.parse_args()
    text = ectsum_file(args.file).read_text(encoding="utf-8")
    figures: dict[str, Any] = {"file": args.file, "max_tokens": args.tokens}
    for name, cls in (("llama_cpp_server", StockServer), ("ours", LocalLlamaServer)):
        figures[name] = measure(cls, text, args.tokens)
        grammar = figures[name]["grammar"]
        figures[name]["grammar_s_per_token"] = round(
            grammar["seconds"] / max(1, grammar["completion_tokens"]), 4
        )
    figures["grammar_time_ratio"] = round(
        figures["ours"]["grammar"]["seconds"] / figures["llama_cpp_server"]["grammar"]["seconds"],
        3,
    )
    emit(figures)


if __name__ == "__main__":
    main()
