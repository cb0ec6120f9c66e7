"""CPU the call facts cost on one call: `call_facts` in this thread, after warm-up, the mean of
`--repeat` readings (thread CPU, so another process on the machine does not count).

Self-contained on purpose (it imports only `core.facts.call_facts` and the transcript parser,
which every commit since the call facts has), so it can be copied into an older checkout to
bisect a change in cost: `git worktree add /tmp/old COMMIT && cp bench/facts_cpu.py
/tmp/old/bench/ && (cd /tmp/old && ../main/.venv/bin/python -m bench.facts_cpu)`.

    .venv/bin/python -m bench.facts_cpu [--file samples/northwind_q2_2026.md] [--repeat 20]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.facts_cpu", description=__doc__)
    parser.add_argument("--file", default=str(REPO / "samples" / "northwind_q2_2026.md"))
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    from core.facts import call_facts
    from core.transcript import parse_transcript

    transcript = parse_transcript(Path(args.file).read_text(encoding="utf-8"))
    for _ in range(3):
        call_facts(transcript)
    started = time.thread_time()
    for _ in range(args.repeat):
        call_facts(transcript)
    ms = (time.thread_time() - started) / args.repeat * 1000
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO,
                            capture_output=True, text=True, check=False).stdout.strip()  # fmt: skip
    figures = {"commit": commit, "file": Path(args.file).name, "call_facts_cpu_ms": round(ms, 1)}
    print(f"call_facts: {ms:.1f} ms of thread CPU on {Path(args.file).name} at {commit}")
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
