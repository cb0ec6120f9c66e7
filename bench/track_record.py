"""The track record against cold labels (issue 40): the four companies followed quarter by quarter
in `../shared/data/ectsum_more/` (the manifest's `series` group), each call read with its ticker
and fiscal period given (as `ingest` with a manifest gives them), each call's track record built
against the calls before it, and every verdict it shows compared with the labels in
`tests/fixtures/memory_gold/` (written by a reader who saw neither the code nor its output).

    .venv/bin/python -m bench.track_record [--show]

Verdicts that compare two stated figures (beat, met, missed; raised, lowered, maintained,
narrowed, widened) are the headline figures; verdicts on one call's figure and the other's
silence ("not reported", "new", "dropped": shown apart in the report) are measured apart
(`one_sided_*`). A shown verdict is right when a labelled pair has the same reporting call,
metric, basis, period and kind of figure (a percent or an amount) and the same verdict; a
labelled pair is found when a shown verdict is right about it. `--show` prints every shown row
marked right or wrong, and every labelled pair not found. JSON on the last line.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from bench.common import REPO, emit

SERIES = REPO.parent / "shared" / "data" / "ectsum_more"
GOLD = REPO / "tests" / "fixtures" / "memory_gold"
TICKERS = ("ITW", "KFY", "RMD", "SNV")


def _pct(unit: str) -> bool:
    return unit.startswith("percent")


def _gold_keys(
    gold: dict[str, Any],
) -> tuple[dict[tuple[Any, ...], str], dict[tuple[Any, ...], str]]:
    delivered = {(d["delivered_in"], d["metric"], d["basis"], d["period"], _pct(d["unit"])):
                 d["verdict"] for d in gold["delivered"] if d.get("segment") is None}  # fmt: skip
    revisions = {(r["later"], r["metric"], r["basis"], r["period"], _pct(r["unit"])):
                 r["verdict"] for r in gold["revisions"] if r.get("segment") is None}  # fmt: skip
    return delivered, revisions


def measure(show: bool = False) -> dict[str, Any]:
    from core.contract import CallInfo
    from core.facts import call_facts
    from core.memory import ONE_SIDED, record_of, track_record
    from core.transcript import parse_transcript

    totals = {"shown": 0, "right": 0, "labelled": 0, "found": 0}
    by_kind: dict[str, dict[str, int]] = {
        k: {"shown": 0, "right": 0, "labelled": 0, "found": 0}
        for k in ("delivered", "revisions", "one_sided")
    }
    seconds: list[float] = []
    for ticker in TICKERS:
        gold = json.loads((GOLD / f"{ticker}.json").read_text(encoding="utf-8"))
        records = []
        for call in gold["calls"]:
            path = SERIES / f"{call['id']}.txt"
            start = time.perf_counter()
            given = CallInfo(ticker=ticker, period=call["fiscal_period"])
            facts = call_facts(parse_transcript(path.read_text(encoding="utf-8")), call=given)
            record = record_of(call["id"], facts, ticker=ticker, period=call["fiscal_period"])
            seconds.append(time.perf_counter() - start)
            assert record is not None, call["id"]
            records.append(record)
        gold_delivered, gold_revisions = _gold_keys(gold)
        shown_delivered: dict[tuple[Any, ...], str] = {}
        shown_revisions: dict[tuple[Any, ...], str] = {}
        for i, record in enumerate(records):
            tr = track_record(record, records[:i])
            if tr is None:
                continue
            for d in tr.delivered:
                shown_delivered[(record.call_id, d.metric, d.basis, d.period,
                                 d.role == "change" or "margin" in d.metric or d.metric.endswith(
                                     "rate"))] = d.verdict  # fmt: skip
            for r in tr.revisions:
                shown_revisions[(record.call_id, r.metric, r.basis, r.period,
                                 r.role == "change" or "margin" in r.metric or r.metric.endswith(
                                     "rate"))] = r.verdict  # fmt: skip
        for kind, shown, labelled in (("delivered", shown_delivered, gold_delivered),
                                      ("revisions", shown_revisions, gold_revisions)):  # fmt: skip
            tally = by_kind[kind]
            for key, verdict in shown.items():
                ok = labelled.get(key) == verdict
                # a verdict on one call's figure and the other's silence is shown apart
                counted = by_kind["one_sided"] if verdict in ONE_SIDED else tally
                counted["shown"] += 1
                counted["right"] += ok
                if show:
                    print(f"{'RIGHT' if ok else 'WRONG'} {kind} {key} shown {verdict}, "
                          f"labelled {labelled.get(key, '(no such pair)')}")  # fmt: skip
            for key, verdict in labelled.items():
                counted = by_kind["one_sided"] if verdict in ONE_SIDED else tally
                counted["labelled"] += 1
                found = shown.get(key) == verdict
                counted["found"] += found
                if show and not found:
                    print(f"MISSED {kind} {key} labelled {verdict}, shown "
                          f"{shown.get(key, '(none)')}")  # fmt: skip
    for kind in ("delivered", "revisions"):  # the comparisons of two stated figures
        for k in totals:
            totals[k] += by_kind[kind][k]

    def share(a: int, b: int) -> float | None:
        return round(a / b, 3) if b else None

    out: dict[str, Any] = {
        "calls": len(seconds),
        "verdicts_shown": totals["shown"],
        "verdict_precision": share(totals["right"], totals["shown"]),
        "labelled_pairs": totals["labelled"],
        "labelled_found": share(totals["found"], totals["labelled"]),
        "seconds_per_call_mean": round(sum(seconds) / len(seconds), 3),
        "seconds_for_100_calls": round(100 * sum(seconds) / len(seconds), 1),
    }
    for kind, tally in by_kind.items():
        out[f"{kind}_shown"] = tally["shown"]
        out[f"{kind}_precision"] = share(tally["right"], tally["shown"])
        out[f"{kind}_labelled"] = tally["labelled"]
        out[f"{kind}_found"] = share(tally["found"], tally["labelled"])
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.track_record", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    ap.add_argument("--show", action="store_true", help="print every row, right or wrong")
    args = ap.parse_args(argv)
    if not (SERIES / "ITW_q4_2019.txt").is_file():
        print(f"skipped: the series calls are not at {SERIES}")
        return 0
    emit(measure(args.show))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
