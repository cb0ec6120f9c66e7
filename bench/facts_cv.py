"""Two-fold cross-validation of the "verified" gating on the tuning calls only: the rule table is
measured on one half of the tuning calls and the verified rows are scored on the other, and the
other way round. An estimate of what the gating gives on calls it was not measured on, without
touching the validation calls.

    .venv/bin/python -m bench.facts_cv [--seed N] [--row-threshold P]

`--row-threshold P` adds a row-level gate for the experiment: a row whose rules' measured
precisions multiply to less than P is unconfirmed too. JSON on the last line.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Iterable, Mapping

import core.facts.figures as figures
import core.facts.verify as verify
from bench.common import emit
from bench.facts import ECTSUM_MORE, real_scores, real_split, rule_table


def _row_gate(threshold: float) -> None:
    plain = verify.weak_rules

    def weak(chains: Iterable[Mapping[str, str]]) -> list[str]:
        chains = list(chains)
        out = plain(chains)
        if out:
            return out
        rules = verify.table()["rules"]
        p = 1.0
        for chain in chains:
            for name in chain.values():
                entry = rules.get(name)
                if entry is not None:
                    p *= float(entry["used_precision"])
        return [f"the row ({p:.2f})"] if p < threshold else []

    figures.weak_rules = weak  # type: ignore[attr-defined]  # the experiment only


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--row-threshold", type=float, default=0.0)
    args = ap.parse_args()
    split = real_split()
    if not (ECTSUM_MORE / f"{split['tuning'][0]}.txt").is_file():
        print(f"skipped: the real calls are not at {ECTSUM_MORE}")
        return 0
    if args.row_threshold:
        _row_gate(args.row_threshold)
    ids = list(split["tuning"])
    random.Random(args.seed).shuffle(ids)
    halves = (ids[: len(ids) // 2], ids[len(ids) // 2 :])
    rows = right = found = items = 0
    for k in (0, 1):
        _, every, _ = real_scores(halves[k], "given")
        every.rule_rows["identity.given"] = every.rows
        with verify.measuring_with(rule_table(every)):
            shown, _, _ = real_scores(halves[1 - k], "given")
        rows, right = rows + shown.rows, right + shown.correct
        found, items = found + shown.headlines_found, items + shown.headlines
    emit({
        "seed": args.seed, "row_threshold": args.row_threshold, "held_out_verified_rows": rows,
        "held_out_verified_precision": round(right / rows, 3) if rows else None,
        "held_out_verified_headline_recall": round(found / items, 3) if items else None,
    })  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
