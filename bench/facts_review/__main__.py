"""Print the call facts of the review calls (call_1.txt, call_2.txt, ...), one row a line, for
judging by hand against bench/facts_review/judgement_*.md: `.venv/bin/python -m
bench.facts_review`."""

from __future__ import annotations

import argparse
from pathlib import Path

from core.facts import call_facts
from core.transcript import parse_transcript

HERE = Path(__file__).resolve().parent


def main() -> None:
    argparse.ArgumentParser(prog="bench.facts_review", description=__doc__).parse_args()
    for path in sorted(HERE.glob("call_*.txt"), key=lambda p: int(p.stem.split("_")[1])):
        facts = call_facts(parse_transcript(path.read_text(encoding="utf-8")))
        print(f"== {path.stem}: {facts.call.company} {facts.call.period}")
        for r in facts.key_figures:
            extra = f" | {r.comparison}" if r.comparison else ""
            print(f"K {r.text} | {r.label} | {r.value:g} {r.period} {r.role} {r.basis} "
                  f"{r.segment}{extra} | {r.sentence}")  # fmt: skip
        for g in facts.guidance:
            print(f"G {g.text} | {g.label} | {g.low}..{g.high} {g.period} {g.role} {g.basis} "
                  f"{g.direction} | {g.sentence}")  # fmt: skip


if __name__ == "__main__":
    main()
