"""Call facts on ECTSum: are the rows right (field by field, against the hand-labelled gold in
tests/fixtures/facts_gold/, rules in its README), do they find the headline facts, are all their
figures in the transcript, do the highlights beat the LEAD baseline, and how fast is it?

Against the gold (bench/facts_gold.py): row precision (a row is right only if value with its
sign, metric, basis, segment, period, role and, for guidance, direction are all right; a row
no gold entry covers is wrong), headline recall (the labelled headline figures plus each
distinct financial guidance item with a period), period and direction accuracy and their
confusions. `--before REF` scores the code of a git revision the same way (its rows read as
what they claim: a level of the named metric for the named period).

For each call with gold bullets (`ID.summary.txt`, scored on `ID.txt`, the text ECTSum's
bullets were written from):
- coverage: share of the gold bullets' distinct figures that the key figures + guidance
  (<= 20 rows) state; the ceiling is the share the transcript itself states;
- grounding: share of the facts' figures found in the transcript (must be 1.00);
- highlights vs LEAD (the first sentences carrying figures, as many as the highlights):
  ROUGE-1/2/L against the gold bullets and gold-figure recall;
- seconds per call after the one-time load of the word lists.

    .venv/bin/python -m bench.facts [--dir ../shared/data/ectsum] [--before 123dad1] [-v]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from app.evaluation.ectsum import distinct_figures, gold_figure_recall, lead_baseline, rouge
from bench.common import ECTSUM, REPO, emit
from bench.facts_gold import GOLD_DIR, Score, load, score
from core.facts import call_facts
from core.grounding import extract_figures, same_figure
from core.transcript import parse_transcript


def _covered(gold: str, stated: list[str]) -> tuple[int, int]:
    """(gold figures the stated texts give, gold figures)."""
    n = len(distinct_figures(extract_figures(gold, skip_apparatus=True)))
    return round(gold_figure_recall(stated, gold) * n), n


_LEGACY_DUMP = """
import json, sys
from pathlib import Path
from core.facts import call_facts
from core.transcript import parse_transcript
out = {}
for path in sys.argv[2:]:
    f = call_facts(parse_transcript(Path(path).read_text(encoding="utf-8")))
    out[Path(path).name.removesuffix(".txt")] = f.model_dump(mode="json")
Path(sys.argv[1]).write_text(json.dumps(out))
"""


def legacy_facts(ref: str, calls: list[Path]) -> dict[str, Any]:
    """The call facts the code at git revision `ref` builds, as objects `score` reads: each row
    read as what it claims (metric names like `eps_adjusted` split into metric and basis; a
    level for its period; no segment)."""
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "-C", str(REPO), "archive", ref, "core"],
                                 check=True, capture_output=True).stdout  # fmt: skip
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        dump = Path(tmp) / "facts.json"
        env = {**os.environ, "PYTHONPATH": tmp}
        subprocess.run([sys.executable, "-c", _LEGACY_DUMP, str(dump), *map(str, calls)],
                       check=True, env=env, cwd=tmp)  # fmt: skip
        raw = json.loads(dump.read_text())
    out = {}
    for cid, f in raw.items():
        keys = []
        for k in f["key_figures"]:
            metric, basis = (("eps", "adjusted") if k["metric"] == "eps_adjusted"
                             else (k["metric"], None))  # fmt: skip
            keys.append(SimpleNamespace(**{**k, "metric": metric, "basis": basis, "role": "result",
                                           "segment": None, "change": None, "prior": None,
                                           "unit": _unit(k["kind"])}))  # fmt: skip
        guid = []
        for g in f["guidance"]:
            metric, basis = (("eps", "adjusted") if g["metric"] == "eps_adjusted"
                             else (g["metric"], None))  # fmt: skip
            guid.append(SimpleNamespace(**{**g, "metric": metric, "basis": basis, "role": "result",
                                           "segment": None, "unit": _unit(g["kind"])}))  # fmt: skip
        out[cid] = SimpleNamespace(key_figures=keys, guidance=guid)
    return out


def _unit(kind: str) -> str:
    return {"money": "money", "percent": "percent"}.get(kind, "number")


def gold_scores(calls: list[Path], facts_by_id: dict[str, Any]) -> tuple[Score, dict[str, Score]]:
    """The gold's scores over the calls that have gold labels."""
    total, per = Score(), {}
    for summary in calls:
        cid = summary.name.removesuffix(".summary.txt")
        path = GOLD_DIR / f"{cid}.json"
        if not path.is_file() or cid not in facts_by_id:
            continue
        text = (summary.parent / f"{cid}.txt").read_text(encoding="utf-8")
        sc = score(load(path, text), facts_by_id[cid])
        per[cid] = sc
        total.add(sc)
    return total, per


def gold_figures(total: Score) -> dict[str, Any]:
    def share(a: int, b: int) -> float:
        return round(a / b, 3) if b else 0.0

    return {
        "gold_rows": total.rows,
        "row_precision": share(total.correct, total.rows),
        "headline_recall": share(total.headlines_found, total.headlines),
        "guidance_items_found": share(total.guidance_found, total.guidance_gold),
        "period_correct": share(total.period_right, total.period_rows),
        "direction_correct": share(total.direction_right, total.direction_rows),
        "sign_correct": share(total.sign_right, total.sign_rows),
        "field_errors": dict(sorted(total.field_errors.items())),
        "period_confusion": dict(sorted(total.periods.items())),
        "direction_confusion": dict(sorted(total.directions.items())),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.facts", description=__doc__)
    ap.add_argument("--dir", type=Path, default=ECTSUM)
    ap.add_argument("--before", metavar="REF", help="also score the code of this git revision")
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="print every wrong row and every missed headline item")  # fmt: skip
    args = ap.parse_args(argv)
    calls = sorted(p for p in args.dir.glob("*.summary.txt")) if args.dir.is_dir() else []
    if not calls:
        print(f"skipped: no ECTSum calls with gold bullets in {args.dir}")
        print('{"skipped": true}')
        return 0
    call_facts(parse_transcript("CEO: revenue was $1 billion, up 5%."))  # one-time load
    rows: dict[str, dict[str, Any]] = {}
    built: dict[str, Any] = {}
    totals = {"covered": 0, "gold": 0, "ceiling": 0, "facts_figs": 0, "facts_grounded": 0}
    for summary in calls:
        cid = summary.name.removesuffix(".summary.txt")
        text = (args.dir / f"{cid}.txt").read_text(encoding="utf-8")
        gold = summary.read_text(encoding="utf-8")
        transcript = parse_transcript(text)
        t0 = time.perf_counter()
        facts = call_facts(transcript)
        seconds = time.perf_counter() - t0
        built[cid] = facts
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
    total, per = gold_scores(calls, built)
    for cid, r in rows.items():
        if cid in per:
            sc = per[cid]
            r["gold"] = (
                f"{sc.correct}/{sc.rows} right, headlines {sc.headlines_found}/{sc.headlines}"
            )
        print(f"{cid:>16}: {r}")
    if args.verbose:
        for m in total.mistakes:
            print(f"  wrong: {m}")
        for m in total.missed:
            print(f"  missed: {m}")
    before: dict[str, Any] = {}
    if args.before:
        old_total, _ = gold_scores(
            calls,
            legacy_facts(
                args.before,
                [args.dir / f"{c.name.removesuffix('.summary.txt')}.txt" for c in calls],
            ),
        )
        before = {f"before_{k}": v for k, v in gold_figures(old_total).items()
                  if not isinstance(v, dict)} | {"before_ref": args.before}  # fmt: skip

    def mean(key: str) -> float:
        return round(float(statistics.mean(r[key] for r in rows.values())), 4)

    emit(
        {
            "calls": len(rows),
            "gold_calls": len(per),
            **gold_figures(total),
            **before,
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
