"""Call facts on ECTSum: do the code-built facts state the gold bullets' figures, are all their
figures in the transcript, do the highlights beat the LEAD baseline, and how fast is it?

For each call with gold bullets (`ID.summary.txt`, scored on `ID.txt`, the text ECTSum's
bullets were written from):
- coverage: share of the gold bullets' distinct figures that the key figures + guidance
  (<= 20 rows) state; the ceiling is the share the transcript itself states;
- grounding: share of the facts' figures found in the transcript (must be 1.00);
- highlights vs LEAD (the first sentences carrying figures, as many as the highlights):
  ROUGE-1/2/L against the gold bullets and gold-figure recall;
- seconds per call after the one-time load of the word lists.

    .venv/bin/python -m bench.facts [--dir ../shared/data/ectsum]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from bench.common import ECTSUM, emit
from core.ectsum import distinct_figures, gold_figure_recall, lead_baseline, rouge
from core.facts import call_facts
from core.grounding import extract_figures, same_figure
from core.transcript import parse_transcript


def _covered(gold: str, stated: list[str]) -> tuple[int, int]:
    """(gold figures the stated texts give, gold figures)."""
    n = len(distinct_figures(extract_figures(gold, skip_apparatus=True)))
    return round(gold_figure_recall(stated, gold) * n), n


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.facts", description=__doc__)
    ap.add_argument("--dir", type=Path, default=ECTSUM)
    args = ap.parse_args(argv)
    calls = sorted(p for p in args.dir.glob("*.summary.txt")) if args.dir.is_dir() else []
    if not calls:
        print(f"skipped: no ECTSum calls with gold bullets in {args.dir}")
        print('{"skipped": true}')
        return 0
    call_facts(parse_transcript("CEO: revenue was $1 billion, up 5%."))  # one-time load
    rows: dict[str, dict[str, Any]] = {}
    totals = {"covered": 0, "gold": 0, "ceiling": 0, "facts_figs": 0, "facts_grounded": 0}
    for summary in calls:
        cid = summary.name.removesuffix(".summary.txt")
        text = (args.dir / f"{cid}.txt").read_text(encoding="utf-8")
        gold = summary.read_text(encoding="utf-8")
        transcript = parse_transcript(text)
        t0 = time.perf_counter()
        facts = call_facts(transcript)
        seconds = time.perf_counter() - t0
        # what the rows state: each figure, the comparison stated with it, its period
        stated = [" ".join(filter(None, (k.text, k.comparison, k.period)))
                  for k in facts.key_figures] + [
                  " ".join(filter(None, (g.text, g.period))) for g in facts.guidance]  # fmt: skip
        covered, n_gold = _covered(gold, stated)
        ceiling, _ = _covered(gold, [text])
        source = extract_figures(text)
        verbatim = [x for k in facts.key_figures for x in (k.text, k.comparison) if x] + [
            g.text for g in facts.guidance
        ]  # derived periods ("FY 2022" from "FY22") are not the call's words
        figs = [f for s in verbatim for f in extract_figures(s)]
        grounded = sum(any(same_figure(f, s) for s in source) for f in figs)
        bullets = [h.text for h in facts.highlights]
        lead = lead_baseline(transcript, max(1, len(bullets)))
        rows[cid] = {
            "rows": len(stated), "coverage": round(covered / max(1, n_gold), 3),
            "ceiling": round(ceiling / max(1, n_gold), 3), "seconds": round(seconds, 3),
            "highlights_rouge2": rouge(bullets, gold)["rouge2"],
            "lead_rouge2": rouge(lead, gold)["rouge2"],
            "highlights_recall": gold_figure_recall(bullets, gold),
            "lead_recall": gold_figure_recall(lead, gold),
            "highlights_rouge1": rouge(bullets, gold)["rouge1"],
            "lead_rouge1": rouge(lead, gold)["rouge1"],
            "highlights_rougeL": rouge(bullets, gold)["rougeL"],
            "lead_rougeL": rouge(lead, gold)["rougeL"],
        }  # fmt: skip
        totals["covered"] += covered
        totals["gold"] += n_gold
        totals["ceiling"] += ceiling
        totals["facts_figs"] += len(figs)
        totals["facts_grounded"] += grounded
    for cid, r in rows.items():
        print(f"{cid:>16}: {r}")

    def mean(key: str) -> float:
        return round(float(statistics.mean(r[key] for r in rows.values())), 4)

    emit(
        {
            "calls": len(rows),
            "gold_figure_coverage": round(totals["covered"] / max(1, totals["gold"]), 3),
            "transcript_ceiling": round(totals["ceiling"] / max(1, totals["gold"]), 3),
            "facts_grounding": round(totals["facts_grounded"] / max(1, totals["facts_figs"]), 3),
            "max_rows": max(r["rows"] for r in rows.values()),
            "highlights_rouge1": mean("highlights_rouge1"),
            "lead_rouge1": mean("lead_rouge1"),
            "highlights_rouge2": mean("highlights_rouge2"),
            "lead_rouge2": mean("lead_rouge2"),
            "highlights_rougeL": mean("highlights_rougeL"),
            "lead_rougeL": mean("lead_rougeL"),
            "highlights_gold_recall": mean("highlights_recall"),
            "lead_gold_recall": mean("lead_recall"),
            "seconds_per_call_mean": mean("seconds"),
            "seconds_per_call_max": max(r["seconds"] for r in rows.values()),
        }
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
