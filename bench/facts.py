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

On real calls (`../shared/data/ectsum_more/`, labelled cold in tests/fixtures/facts_real/):
the **tuning** calls (classes are fixed from these; each rule's precision is measured on them)
and the **validation** calls (never tuned on), each scored two ways: with the call's period
given (`given`: as a desk states it, `--period` or an eval manifest; the file name is ECTSum's
label) and from the text alone (`text`). For each: the rows presented as verified (precision,
headline recall, direction, period, sign) and all rows, verified and unconfirmed together. The
identity table: the period and company read from the text alone against the labels.

    .venv/bin/python -m bench.facts [--dir ../shared/data/ectsum] [--before 123dad1] [-v]
    .venv/bin/python -m bench.facts --rules [--write]   # each rule's precision on the tuning calls
    .venv/bin/python -m bench.facts --explain CCO_q3_2021 [--period "Q3 2021"]
"""

from __future__ import annotations

import argparse
import json
import os
import re
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
from core.contract import CallFacts, CallInfo
from core.facts import call_facts
from core.facts.verify import TABLE, measuring_with
from core.grounding import extract_figures, same_figure
from core.transcript import parse_transcript

ECTSUM_MORE = REPO.parent / "shared" / "data" / "ectsum_more"
REAL_DIR = REPO / "tests" / "fixtures" / "facts_real"
REVIEW_DIR = REPO / "bench" / "facts_review"
RESULTS = REPO / "docs" / "results" / "facts.md"
THRESHOLD = 0.95  # a rule's precision to be verified
# a rule measured on fewer judged rows is measured with its family (all rules of its field): at
# 30 rows and a 0.95 threshold, a rule that is truly 0.85 passes about 5% of the time (it needs
# 29 of 30 right), one that is truly 0.95 about half the time
MIN_ROWS = 30
FAMILIES = ("metric", "role", "sign", "segment", "basis", "period", "identity", "direction",
            "guard")  # fmt: skip


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


def gold_scores(
    calls: list[Path], facts_by_id: dict[str, Any], which: str = "all"
) -> tuple[Score, dict[str, Score]]:
    """The gold's scores over the calls that have gold labels (all rows, verified and
    unconfirmed, unless `which` is "verified")."""
    total, per = Score(), {}
    for summary in calls:
        cid = summary.name.removesuffix(".summary.txt")
        path = GOLD_DIR / f"{cid}.json"
        if not path.is_file() or cid not in facts_by_id:
            continue
        text = (summary.parent / f"{cid}.txt").read_text(encoding="utf-8")
        sc = score(load(path, text), facts_by_id[cid], which)
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


def real_split() -> dict[str, list[str]]:
    split: dict[str, list[str]] = json.loads((REAL_DIR / "split.json").read_text("utf-8"))
    return {"tuning": split["tuning"], "validation": split["validation"]}


def build(text: str, period: str | None = None, company: str | None = None) -> CallFacts:
    """The call facts of a transcript, as the product builds them (a user's company and period
    win)."""
    given = CallInfo(period=period, company=company) if period or company else None
    return call_facts(parse_transcript(text), call=given)


def real_scores(ids: list[str], mode: str) -> tuple[Score, Score, dict[str, Any]]:
    """(verified rows' score, all rows' score, identity) over real calls; `mode` "given" passes
    each call's labelled company and period as a user's (`--company`, `--period`, an eval
    manifest), "text" reads everything from the text."""
    verified, every = Score(), Score()
    ident: dict[str, Any] = {"calls": 0, "period_right": 0, "period_wrong": 0,
                             "period_not_stated": 0, "company_named": 0, "company_right": 0,
                             "seconds_max": 0.0}  # fmt: skip
    wrong_periods: list[str] = []
    for cid in ids:
        path = ECTSUM_MORE / f"{cid}.txt"
        text = path.read_text(encoding="utf-8")
        gold = load(REAL_DIR / f"{cid}.json", text)
        period = gold.call.get("fiscal_period") if mode == "given" else None
        company = gold.call.get("company") if mode == "given" else None
        t0 = time.perf_counter()
        facts = build(text, period, company)
        ident["seconds_max"] = max(ident["seconds_max"], round(time.perf_counter() - t0, 3))
        verified.add(score(gold, facts, "verified"))
        every.add(score(gold, facts, "all"))
        ident["calls"] += 1
        said = facts.call.period
        if said is None:
            ident["period_not_stated"] += 1
        elif said == gold.call.get("fiscal_period"):
            ident["period_right"] += 1
        else:
            ident["period_wrong"] += 1
            wrong_periods.append(f"{cid}: {said}")
        company = (facts.call.company or "").lower()
        label = str(gold.call.get("company") or "").lower()
        if company:
            ident["company_named"] += 1
            first = re.findall(r"[a-z0-9&]+", label)[:1]
            ident["company_right"] += bool(first and first[0] in company)
    ident["wrong_periods"] = wrong_periods
    return verified, every, ident


def _share(a: int, b: int) -> float:
    return round(a / b, 3) if b else 0.0


def real_figures(verified: Score, every: Score) -> dict[str, Any]:
    return {
        "verified_rows": verified.rows,
        "verified_precision": _share(verified.correct, verified.rows),
        "verified_headline_recall": _share(verified.headlines_found, verified.headlines),
        "verified_direction_right": _share(verified.direction_right, verified.direction_rows),
        "verified_period_right": _share(verified.period_right, verified.period_rows),
        "verified_sign_right": _share(verified.sign_right, verified.sign_rows),
        "all_rows": every.rows,
        "all_precision": _share(every.correct, every.rows),
        "all_headline_recall": _share(every.headlines_found, every.headlines),
        "headline_items": every.headlines,
    }


def rule_table(total: Score) -> dict[str, Any]:
    """Each rule's precision on the judged rows of `total` (a wrong row counts against the rule
    that decided its wrong field), measured alone with MIN_ROWS rows or more, else with its
    family as a prior worth MIN_ROWS rows (its own rows added to MIN_ROWS rows at the family's
    precision: a small rule's own mistakes count, a rule with few rows and no mistake stays
    near its family); verified when the precision it is measured with is at least THRESHOLD."""
    family_rows: dict[str, int] = {}
    family_wrong: dict[str, int] = {}
    for rule, n in total.rule_rows.items():
        if rule.endswith(".given"):
            continue  # what the user states: right by definition, no evidence for the family
        fam = rule.split(".", 1)[0]
        family_rows[fam] = family_rows.get(fam, 0) + n
        family_wrong[fam] = family_wrong.get(fam, 0) + total.rule_wrong.get(rule, 0)
    rules: dict[str, Any] = {}
    for rule in sorted(total.rule_rows):
        n, bad = total.rule_rows[rule], total.rule_wrong.get(rule, 0)
        fam = rule.split(".", 1)[0]
        alone = n >= MIN_ROWS
        if alone:
            used_rows, used = n, 1 - bad / n
        else:  # shrunk toward the family: MIN_ROWS rows at the family's precision, plus its own
            prior = 1 - family_wrong[fam] / family_rows[fam] if family_rows[fam] else 0.0
            used_rows = n + MIN_ROWS
            used = (n - bad + MIN_ROWS * prior) / used_rows
        rules[rule] = {
            "rows": n, "wrong": bad, "precision": round(1 - bad / n, 3) if n else None,
            "measured_as": "rule" if alone else f"rule with family {fam} as prior",
            "used_rows": used_rows, "used_precision": round(used, 3),
            "verified": used >= THRESHOLD,
        }  # fmt: skip
    families = {
        fam: {"rows": family_rows[fam], "precision": round(1 - family_wrong[fam] /
              family_rows[fam], 3)} for fam in sorted(family_rows)
    }  # fmt: skip
    return {"threshold": THRESHOLD, "min_rows": MIN_ROWS, "families": families, "rules": rules}


def rules_markdown(table: dict[str, Any], measured_on: str) -> str:
    lines = [
        f"Measured on {measured_on}. A rule is verified when the precision it is measured with "
        f"is at least {table['threshold']}; a rule with fewer than {table['min_rows']} judged "
        "rows is measured with its family (every rule deciding the same field) as a prior worth "
        f"{table['min_rows']} rows: its own rows plus {table['min_rows']} rows at the family's "
        "precision, so its own mistakes count and a few clean rows keep it near its family. A "
        "rule that is not in the table has not been measured and has not earned it.",
        "",
        "| family | judged rows | precision |",
        "|---|---|---|",
    ]
    for fam, f in table["families"].items():
        lines.append(f"| {fam} | {f['rows']} | {f['precision']:.3f} |")
    lines += ["", "| rule | judged rows | wrong | precision | measured as | verified |",
              "|---|---|---|---|---|---|"]  # fmt: skip
    for name, r in table["rules"].items():
        prec = "" if r["precision"] is None else f"{r['precision']:.3f}"
        used = r["measured_as"] if r["measured_as"] == "rule" else (
            f"{r['measured_as']}: {r['used_precision']:.3f} on {r['used_rows']}")  # fmt: skip
        lines.append(f"| `{name}` | {r['rows']} | {r['wrong']} | {prec} | {used} | "
                     f"{'yes' if r['verified'] else '**no**'} |")  # fmt: skip
    return "\n".join(lines)


_START, _END = "<!-- rule table: start -->", "<!-- rule table: end -->"


def write_rule_table(table: dict[str, Any], measured_on: str) -> None:
    """core/facts/rule_precision.json, and the table in docs/results/facts.md between its
    markers."""
    TABLE.write_text(json.dumps({**table, "measured_on": measured_on}, indent=1,
                                sort_keys=True) + "\n", encoding="utf-8")  # fmt: skip
    doc = RESULTS.read_text(encoding="utf-8")
    if _START in doc and _END in doc:
        head, rest = doc.split(_START, 1)
        tail = rest.split(_END, 1)[1]
        doc = f"{head}{_START}\n{rules_markdown(table, measured_on)}\n{_END}{tail}"
        RESULTS.write_text(doc, encoding="utf-8")


def identity_calls(tuning: list[str]) -> dict[str, tuple[int, int, list[str]]]:
    """Each identity rule: (calls whose period it gave, of them wrong, what was wrong), from the
    text alone; a call whose year is not stated dates no row and is not counted."""
    from core.facts.call import identify
    from core.facts.sentences import sentences

    calls: list[tuple[str, Path, Path]] = []
    for gold in sorted(GOLD_DIR.glob("*.json")):
        for suffix in (".txt", ".full.md"):
            calls.append((gold.stem + suffix, ECTSUM / f"{gold.stem}{suffix}", gold))
    for cid in tuning:
        calls.append((cid, ECTSUM_MORE / f"{cid}.txt", REAL_DIR / f"{cid}.json"))
    out: dict[str, tuple[int, int, list[str]]] = {}
    for name, path, gold_path in calls:
        if not path.is_file():
            continue
        truth = json.loads(gold_path.read_text(encoding="utf-8"))["call"]["fiscal_period"]
        ident = identify(sentences(parse_transcript(path.read_text(encoding="utf-8"))))
        if ident.period_label is None:
            continue
        n, wrong, notes = out.get(ident.period_rule, (0, 0, []))
        bad = ident.period_label != truth
        if bad:
            notes = [*notes, f"{name}: read {ident.period_label}, labelled {truth}"]
        out[ident.period_rule] = (n + 1, wrong + bad, notes)
    return out


def rules_main(write: bool, verbose: bool) -> int:
    split = real_split()
    if not (ECTSUM_MORE / f"{split['tuning'][0]}.txt").is_file():
        print(f"skipped: the real calls are not at {ECTSUM_MORE}")
        return 0
    _, every, _ = real_scores(split["tuning"], "given")
    # the call's identity (identity.*): measured per call, on the text alone, on every labelled
    # real call whose period is known (the 14 ECTSum calls, as excerpts and as full calls with
    # their operator's welcome, and the tuning calls); the rest with the company and period
    # given, as a desk states them
    for rule in [r for r in every.rule_rows if r.startswith("identity.")]:
        every.rule_rows.pop(rule)
        every.rule_wrong.pop(rule, None)
    for rule, (n, wrong, notes) in identity_calls(split["tuning"]).items():
        every.rule_rows[rule] = n
        every.rule_wrong[rule] = wrong
        every.rule_mistakes[rule] = notes
    every.rule_rows["identity.given"] = every.rows  # the user's period: right by definition
    table = rule_table(every)
    # what the verified rows measure at on the validation calls, with this table (aggregates
    # only: no row of them is printed, nothing is chosen from them); the report says it
    with measuring_with(table):
        held, _, _ = real_scores(split["validation"], "given")
    table["held_out"] = {
        "calls": len(split["validation"]), "rows": held.rows,
        "precision": round(held.correct / held.rows, 3) if held.rows else 0.0,
        "date": time.strftime("%Y-%m-%d"),
    }  # fmt: skip
    on = (
        f"the {len(split['tuning'])} tuning calls of tests/fixtures/facts_real/ (all rows, the "
        "call's company and period given, as a desk states them; the identity.* rules per call, "
        "on the text alone, over those calls and the 14 ECTSum calls, excerpts and full calls)"
    )
    print(rules_markdown(table, on))
    if verbose:
        for rule, notes in sorted(every.rule_mistakes.items()):
            for note in notes:
                print(f"  {rule}: {note}")
    if write:
        write_rule_table(table, on)
        print(f"wrote {TABLE.relative_to(REPO)} and the table in {RESULTS.relative_to(REPO)}")
    weak = sorted(r for r, v in table["rules"].items() if not v["verified"])
    emit({"rules": len(table["rules"]), "weak_rules": weak})
    return 0


def explain_main(cid: str, period: str | None, company: str | None = None) -> int:
    """Each row of one call with the rule behind each field, and its sentence."""
    candidates = [ECTSUM / f"{cid}.txt", ECTSUM_MORE / f"{cid}.txt", REVIEW_DIR / f"{cid}.txt",
                  Path(cid)]  # fmt: skip
    path = next((p for p in candidates if p.is_file()), None)
    if path is None:
        print(f"error: no call {cid!r} in {ECTSUM}, {ECTSUM_MORE} or {REVIEW_DIR}",
              file=sys.stderr)  # fmt: skip
        return 2
    facts = build(path.read_text(encoding="utf-8"), period, company)
    c = facts.call
    print(f"{cid}: {c.company or '(company not stated)'}, "
          f"{c.period or '(period not stated)'}")  # fmt: skip
    for note in facts.notes:
        print(f"  note: {note}")
    groups = (("verified key figure", facts.key_figures),
              ("unconfirmed key figure", facts.unconfirmed_key_figures),
              ("verified guidance", facts.guidance),
              ("unconfirmed guidance", facts.unconfirmed_guidance))  # fmt: skip
    for title, rows in groups:
        for r in rows:
            direction = getattr(r, "direction", None)
            signed = getattr(r, "value", None)
            shown = f"{r.text} (value {signed:g})" if isinstance(signed, float) else r.text
            what = f"{r.label} {shown} {r.period}" + (f" {direction}" if direction else "")
            print(f"\n[{title}] {what}")
            for fld, rule in r.rules.items():
                print(f"    {fld:>9}: {rule}")
            for extra in (getattr(r, "change", None), getattr(r, "prior", None)):
                if extra is not None:
                    print(f"    {extra.role} {extra.text} (value {extra.value:g}): " + ", ".join(
                        f"{f}={x}" for f, x in extra.rules.items()))  # fmt: skip
            if r.weak_rules:
                print(f"    weak: {'; '.join(r.weak_rules)}")
            print(f"    sentence: {r.sentence}")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.facts", description=__doc__)
    ap.add_argument("--dir", type=Path, default=ECTSUM)
    ap.add_argument("--before", metavar="REF", help="also score the code of this git revision")
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="print every wrong row and every missed headline item")  # fmt: skip
    ap.add_argument(
        "--rules",
        action="store_true",
        help="each rule's precision on the tuning calls (and nothing else)",
    )
    ap.add_argument("--write", action="store_true",
                    help="with --rules: store the table (core/facts/rule_precision.json, "
                    "docs/results/facts.md)")  # fmt: skip
    ap.add_argument("--explain", metavar="ID", help="print one call's rows with their rules")
    ap.add_argument("--period", help="with --explain: the call's period, as a user gives it")
    ap.add_argument("--company", help="with --explain: the company, as a user gives it")
    ap.add_argument("--tuning-mistakes", action="store_true",
                    help="print the tuning calls' wrong rows and missed items (never the "
                    "validation calls': no fix is made from them)")  # fmt: skip
    args = ap.parse_args(argv)
    if args.rules:
        return rules_main(args.write, args.verbose)
    if args.explain:
        return explain_main(args.explain, args.period, args.company)
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

    real: dict[str, Any] = {}
    split = real_split()
    if (ECTSUM_MORE / f"{split['tuning'][0]}.txt").is_file():
        for name, ids in split.items():
            for mode in ("given", "text"):
                verified, every, ident = real_scores(ids, mode)
                found = real_figures(verified, every)
                real.update({f"{name}_{mode}_{k}": v for k, v in found.items()})
                if mode == "text":
                    real.update({f"{name}_identity_{k}": v for k, v in ident.items()})
                real[f"{name}_{mode}_seconds_max"] = ident["seconds_max"]
                if name == "tuning" and mode == "given" and args.tuning_mistakes:
                    shown = set(verified.mistakes)
                    for m in every.mistakes:
                        kind = "verified" if m in shown else "unconfirmed"
                        print(f"  tuning wrong ({kind}): {m}")
                    for m in every.missed:
                        print(f"  tuning missed: {m}")
    else:
        print(f"real calls not found at {ECTSUM_MORE}: tuning and validation not scored")
    verified_14, _ = gold_scores(calls, built, "verified")
    # the same 14 calls with their company and period given, as a desk states them
    given_14: dict[str, Any] = {}
    for summary in calls:
        cid = summary.name.removesuffix(".summary.txt")
        if (GOLD_DIR / f"{cid}.json").is_file():
            call = json.loads((GOLD_DIR / f"{cid}.json").read_text("utf-8"))["call"]
            text = (args.dir / f"{cid}.txt").read_text(encoding="utf-8")
            given_14[cid] = build(text, call.get("fiscal_period"), call.get("company"))
    given_all, _ = gold_scores(calls, given_14)
    given_verified, _ = gold_scores(calls, given_14, "verified")

    emit(
        {
            "calls": len(rows),
            "gold_calls": len(per),
            **gold_figures(total),
            "verified_row_precision": _share(verified_14.correct, verified_14.rows),
            "given_rows": given_all.rows,
            "given_row_precision": _share(given_all.correct, given_all.rows),
            "given_headline_recall": _share(given_all.headlines_found, given_all.headlines),
            "given_verified_rows": given_verified.rows,
            "given_verified_row_precision": _share(given_verified.correct, given_verified.rows),
            "given_verified_headline_recall": _share(
                given_verified.headlines_found, given_verified.headlines
            ),
            "verified_headline_recall": _share(verified_14.headlines_found, verified_14.headlines),
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
            **real,
        }
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
