"""The call facts' rows of every labelled and review call, as one file: a change of output shows
in a diff and is approved on purpose.

The calls: the 14 gold calls of `../shared/data/ectsum/`, the labelled real calls of
`../shared/data/ectsum_more/` (tests/fixtures/facts_real/split.json) and the invented review
calls of bench/facts_review/. Each row: its figure, metric, basis, segment, period, role, value,
direction and the rules that decided them; the call's identity.

    .venv/bin/python -m bench.facts_snapshot            # differences from the stored snapshot
    .venv/bin/python -m bench.facts_snapshot --write    # approve: store the rows as they are now

`tests/bench/test_facts_snapshot.py` fails on any difference and prints it.
"""

from __future__ import annotations

import argparse
import difflib
import json
import sys
from pathlib import Path
from typing import Any

from bench.common import REPO

SHARED_DATA = REPO.parent / "shared" / "data"
ECTSUM = SHARED_DATA / "ectsum"
ECTSUM_MORE = SHARED_DATA / "ectsum_more"
GOLD_DIR = REPO / "tests" / "fixtures" / "facts_gold"
REAL_DIR = REPO / "tests" / "fixtures" / "facts_real"
REVIEW_DIR = REPO / "bench" / "facts_review"
SNAPSHOT = REPO / "tests" / "fixtures" / "facts_snapshot.json"


def calls() -> dict[str, Path]:
    """Every labelled and review call, by a name of its own (`ectsum/ID`, `ectsum_more/ID`,
    `review/call_N`). The ../shared calls are left out when ../shared is absent (the test says
    so)."""
    out: dict[str, Path] = {}
    for gold in sorted(GOLD_DIR.glob("*.json")):
        out[f"ectsum/{gold.stem}"] = ECTSUM / f"{gold.stem}.txt"
    split = json.loads((REAL_DIR / "split.json").read_text(encoding="utf-8"))
    for cid in sorted(split["tuning"] + split["validation"]):
        out[f"ectsum_more/{cid}"] = ECTSUM_MORE / f"{cid}.txt"
    for path in sorted(REVIEW_DIR.glob("call_*.txt"), key=lambda p: int(p.stem.split("_")[1])):
        out[f"review/{path.stem}"] = path
    return out


def rows_of(facts: Any) -> dict[str, Any]:
    """One call's rows as plain values (stable: sorted keys, rounded floats)."""

    def num(x: float | None) -> float | None:
        return None if x is None else round(float(x), 6)

    key = []
    keys = [(k, True) for k in facts.key_figures] + [
        (k, False) for k in getattr(facts, "unconfirmed_key_figures", [])
    ]
    guids = [(g, True) for g in facts.guidance] + [
        (g, False) for g in getattr(facts, "unconfirmed_guidance", [])
    ]
    for k, verified in keys:
        key.append(
            {
                "at": k.start, "text": k.text, "metric": k.metric, "basis": k.basis,
                "segment": k.segment, "period": k.period, "role": k.role, "value": num(k.value),
                "change": None if k.change is None else [k.change.text, num(k.change.value)],
                "prior": None if k.prior is None else [k.prior.text, num(k.prior.value),
                                                       k.prior.period],
                "rules": dict(getattr(k, "rules", {})), "verified": verified,
            }
        )  # fmt: skip
    guid = []
    for g, verified in guids:
        guid.append(
            {
                "at": g.start, "text": g.text, "metric": g.metric, "basis": g.basis,
                "segment": g.segment, "period": g.period, "role": g.role, "low": num(g.low),
                "high": num(g.high), "direction": g.direction,
                "rules": dict(getattr(g, "rules", {})),
                "verified": verified,
            }
        )  # fmt: skip
    return {
        "call": facts.call.model_dump(mode="json"),
        "key_figures": sorted(key, key=lambda r: (r["at"], r["text"])),
        "guidance": sorted(guid, key=lambda r: (r["at"], r["text"])),
    }


def current(paths: dict[str, Path]) -> dict[str, Any]:
    from core.facts import call_facts
    from core.transcript import parse_transcript

    out: dict[str, Any] = {}
    for name, path in paths.items():
        if not path.is_file():
            continue
        facts = call_facts(parse_transcript(path.read_text(encoding="utf-8")))
        out[name] = rows_of(facts)
    return out


def dump(snapshot: dict[str, Any]) -> str:
    """One row a line, so a diff names the rows that changed."""
    lines = ["{"]
    names = sorted(snapshot)
    for n, name in enumerate(names):
        call = snapshot[name]
        lines.append(f" {json.dumps(name)}: {{")
        lines.append(f'  "call": {json.dumps(call["call"], sort_keys=True)},')
        for part in ("key_figures", "guidance"):
            rows = call[part]
            lines.append(f"  {json.dumps(part)}: [")
            for r, row in enumerate(rows):
                comma = "," if r < len(rows) - 1 else ""
                lines.append(f"   {json.dumps(row, sort_keys=True, ensure_ascii=False)}{comma}")
            lines.append("  ]" + ("," if part == "key_figures" else ""))
        lines.append(" }" + ("," if n < len(names) - 1 else ""))
    lines.append("}")
    return "\n".join(lines) + "\n"


def without(snapshot: dict[str, Any], fields: set[str]) -> dict[str, Any]:
    """The snapshot with some row fields left out (`--ignore rules`: the rows only)."""
    return {
        name: {**call, **{part: [{k: v for k, v in r.items() if k not in fields}
                                 for r in call[part]] for part in ("key_figures", "guidance")}}
        for name, call in snapshot.items()
    }  # fmt: skip


def differences(stored: dict[str, Any], now: dict[str, Any]) -> list[str]:
    """A unified diff of the calls both hold (a call missing on either side is named)."""
    out: list[str] = []
    for name in sorted(set(stored) | set(now)):
        if name not in now:
            out.append(f"{name}: in the snapshot, not built now (its transcript is missing?)")
            continue
        if name not in stored:
            out.append(f"{name}: built now, not in the snapshot (run --write to add it)")
            continue
        if stored[name] == now[name]:
            continue
        a = dump({name: stored[name]}).splitlines()
        b = dump({name: now[name]}).splitlines()
        out.extend(difflib.unified_diff(a, b, "snapshot", "now", lineterm="", n=0))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.facts_snapshot", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    ap.add_argument("--write", action="store_true", help="store the rows as they are now")
    ap.add_argument("--ignore", default="", metavar="FIELDS",
                    help="row fields to leave out, e.g. rules,verified")  # fmt: skip
    args = ap.parse_args(argv)
    paths = calls()
    missing = [n for n, p in paths.items() if not p.is_file()]
    if missing:
        print(f"error: {len(missing)} calls not found (first: {paths[missing[0]]}); the snapshot "
              "needs ../shared beside the repo", file=sys.stderr)  # fmt: skip
        return 2
    now = current(paths)
    if args.write:
        SNAPSHOT.write_text(dump(now), encoding="utf-8")
        rows = sum(len(c["key_figures"]) + len(c["guidance"]) for c in now.values())
        print(f"wrote {SNAPSHOT.relative_to(REPO)}: {len(now)} calls, {rows} rows")
        return 0
    stored = json.loads(SNAPSHOT.read_text(encoding="utf-8")) if SNAPSHOT.is_file() else {}
    ignored = {f for f in args.ignore.split(",") if f}
    diff = differences(without(stored, ignored), without(now, ignored))
    print("\n".join(diff) if diff else f"no difference ({len(now)} calls)")
    return 1 if diff else 0


if __name__ == "__main__":
    sys.exit(main())
