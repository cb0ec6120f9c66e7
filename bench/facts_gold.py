"""Gold call facts (tests/fixtures/facts_gold/, labelled by hand on ECTSum's `ID.txt`): load,
check and score the code-built call facts against them, field by field.

    .venv/bin/python -m bench.facts_gold check tests/fixtures/facts_gold/ID.json [...]

The labelling rules are in tests/fixtures/facts_gold/README.md.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

GOLD_DIR = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "facts_gold"

METRICS = frozenset(
    [
        "revenue",
        "gross_profit",
        "gross_margin",
        "operating_income",
        "operating_margin",
        "ebitda",
        "ebitda_margin",
        "ebit",
        "pretax_income",
        "net_income",
        "eps",
        "dividend",
        "buyback",
        "operating_cash_flow",
        "free_cash_flow",
        "capex",
        "cash",
        "debt",
        "leverage",
        "expenses",
        "tax_rate",
        "same_store_sales",
        "backlog",
        "orders",
        "book_to_bill",
        "net_interest_income",
        "net_interest_margin",
        "noninterest_income",
        "noninterest_expense",
        "loans",
        "deposits",
        "charge_offs",
        "nonperforming_assets",
        "provision",
        "book_value_per_share",
        "return_on_equity",
        "return_on_assets",
        "efficiency_ratio",
        "aum",
        "net_flows",
        "combined_ratio",
        "production",
        "customers",
        "arr",
        "premiums",
        "catastrophe_losses",
        "net_investment_income",
        "net_retention",
        "payments_volume",
        "operating_ratio",
        "medical_care_ratio",
        "ffo",
        "noi",
        "occupancy",
        "revpar",
        "return_on_tangible_equity",
        "liquidity",
        "other",
    ]
)
UNITS = frozenset({"money", "percent", "bps", "number"})
BASES = frozenset({None, "gaap", "adjusted", "organic", "constant_currency"})
ROLES = frozenset({"result", "comparison", "change"})
DIRECTIONS = frozenset({"raised", "lowered", "reaffirmed", "introduced", "withdrawn", "not_stated"})
PERIOD_RE = re.compile(r"^(?:Q[1-4]|H[12]|9M|6M|FY) \d{4}(?: exit)?$")


@dataclass(frozen=True)
class GoldRow:
    """One labelled figure or guidance item, located in the call's text."""

    kind: str  # "figure" | "guidance"
    start: int  # the figure's span in the transcript
    end: int
    value: float | None  # figures; guidance: low
    high: float | None
    unit: str
    metric: str
    basis: str | None
    segment: str | None
    period: str | None
    role: str
    direction: str | None
    headline: bool
    quote: str
    text: str


@dataclass
class Gold:
    id: str
    call: dict[str, Any]
    rows: list[GoldRow] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def _locate(text: str, quote: str, fig: str, occurrence: int) -> tuple[int, int] | str:
    at = text.find(quote)
    if at == -1:
        return "quote not found in the transcript"
    if text.find(quote, at + 1) != -1:
        return "quote occurs more than once in the transcript: lengthen it"
    i = -1
    for _ in range(occurrence):
        i = quote.find(fig, i + 1)
        if i == -1:
            return f"text {fig!r} not found {occurrence} time(s) in the quote"
    return at + i, at + i + len(fig)


def _check_common(e: dict[str, Any], where: str, errors: list[str]) -> None:
    if e.get("unit") not in UNITS:
        errors.append(f"{where}: unit {e.get('unit')!r} not one of {sorted(UNITS)}")
    if e.get("metric") not in METRICS:
        errors.append(f"{where}: metric {e.get('metric')!r} not in the vocabulary")
    if e.get("basis") not in BASES:
        errors.append(f"{where}: basis {e.get('basis')!r} not one of gaap/adjusted/organic/...")
    if e.get("role") not in ROLES:
        errors.append(f"{where}: role {e.get('role')!r} not one of {sorted(ROLES)}")
    period = e.get("period")
    if period is not None and not PERIOD_RE.match(period):
        errors.append(f"{where}: period {period!r} is not like 'Q3 2021', 'FY 2021', 'H1 2021'")
    if e.get("segment") is not None and not str(e["segment"]).strip():
        errors.append(f"{where}: segment is empty (use null for the whole company)")


def load(path: Path, text: str) -> Gold:
    """The gold file, each entry located in `text` (the call's `ID.txt`); problems in `errors`."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    gold = Gold(id=raw.get("id", path.stem), call=raw.get("call") or {})
    for kind, entries in (
        ("figure", raw.get("figures", [])),
        ("guidance", raw.get("guidance", [])),
    ):
        for n, e in enumerate(entries):
            where = f"{kind} {n} ({e.get('text')!r})"
            _check_common(e, where, gold.errors)
            span = _locate(text, e.get("quote", ""), e.get("text", ""), int(e.get("occurrence", 1)))
            if isinstance(span, str):
                gold.errors.append(f"{where}: {span}")
                continue
            if kind == "guidance":
                if e.get("direction") not in DIRECTIONS:
                    gold.errors.append(f"{where}: direction {e.get('direction')!r}")
                low, high = e.get("low"), e.get("high")
                if low is None and high is None:
                    gold.errors.append(f"{where}: low and high are both null")
                value, top = low, high
            else:
                if not isinstance(e.get("value"), (int, float)):
                    gold.errors.append(f"{where}: value must be a number")
                    continue
                value, top = float(e["value"]), None
            gold.rows.append(
                GoldRow(
                    kind=kind, start=span[0], end=span[1], value=value, high=top,
                    unit=e.get("unit", ""), metric=e.get("metric", ""), basis=e.get("basis"),
                    segment=e.get("segment"), period=e.get("period"), role=e.get("role", ""),
                    direction=e.get("direction") if kind == "guidance" else None,
                    headline=bool(e.get("headline")) or kind == "guidance",
                    quote=e.get("quote", ""), text=e.get("text", ""),
                )
            )  # fmt: skip
    call = gold.call
    period = call.get("fiscal_period")
    if not period or not PERIOD_RE.match(str(period)):
        gold.errors.append(f"call: fiscal_period {period!r} is not like 'Q3 2021'")
    heads = sum(r.headline for r in gold.rows if r.kind == "figure")
    figures = sum(r.kind == "figure" for r in gold.rows)
    if heads > 8 or heads < min(5, figures):
        gold.errors.append(
            f"{heads} headline figures: mark 5-8 (all of them when the call "
            "states fewer than 5 figures)"
        )
    return gold


# -- scoring --------------------------------------------------------------------------------

POINT_IN_TIME = frozenset(
    [
        "cash",
        "liquidity",
        "debt",
        "leverage",
        "loans",
        "deposits",
        "book_value_per_share",
        "backlog",
        "aum",
        "nonperforming_assets",
        "customers",
    ]
)


@dataclass(frozen=True)
class SystemRow:
    """One figure a report states as a fact, in the gold's terms."""

    kind: str  # "figure" | "guidance"
    start: int
    end: int
    value: float | None
    high: float | None
    unit: str
    metric: str
    basis: str | None
    segment: str | None
    period: str | None
    role: str
    direction: str | None
    text: str
    rules: dict[str, str] = field(default_factory=dict)  # field -> the rule that decided it


def system_rows(facts: Any, which: str = "verified") -> list[SystemRow]:
    """The rows of a `CallFacts`: each key figure, the change and comparison stated with it,
    and each guidance item; the verified ones (`which="verified"`: the lists the report presents
    as verified), or those and the unconfirmed ones (`"all"`)."""
    out: list[SystemRow] = []
    keys = list(facts.key_figures)
    guid = list(facts.guidance)
    if which == "all":
        keys += list(getattr(facts, "unconfirmed_key_figures", []))
        guid += list(getattr(facts, "unconfirmed_guidance", []))
    for k in keys:
        out.append(SystemRow("figure", k.start, k.end, k.value, None, k.unit, k.metric, k.basis,
                             k.segment, k.period, k.role, None, k.text,
                             dict(getattr(k, "rules", {}))))  # fmt: skip
        for extra in (k.change, k.prior):
            if extra is None:
                continue
            period = extra.period if extra.role == "comparison" else k.period
            basis = getattr(extra, "basis", None) or (
                k.basis if extra.role != "change" or k.basis in ("adjusted", "gaap") else None
            )
            out.append(SystemRow("figure", extra.start, extra.end, extra.value, None, extra.unit,
                                 k.metric, basis, k.segment, period, extra.role, None,
                                 extra.text, dict(getattr(extra, "rules", {}))))  # fmt: skip
    for g in guid:
        out.append(SystemRow("guidance", g.start, g.end, g.low, g.high, g.unit, g.metric, g.basis,
                             g.segment, g.period, g.role, g.direction, g.text,
                             dict(getattr(g, "rules", {}))))  # fmt: skip
    return out


def charged_fields(row: SystemRow, gold: GoldRow | None, wrong: list[str]) -> set[str]:
    """The fields of the row's rule chain that its wrong fields charge: a wrong sign charges the
    sign rule, another wrong value, a row no gold entry covers or a wrong metric the metric
    rule, a result read as guidance (or the reverse) the period rule."""
    if gold is None:
        return {"metric"}
    out: set[str] = set()
    for w in wrong:
        if w == "value":
            sign_only = _same_value(abs(row.value or 0), row.unit, abs(gold.value or 0), gold.unit)
            out.add("sign" if sign_only else "metric")
        elif w in ("guidance", "not_guidance"):
            out.add("period")
        elif (
            w == "period"
            and row.rules.get("identity", "identity.given") != "identity.given"
            and row.period is not None
            and gold.period is not None
            and row.period.split(" ")[0] == gold.period.split(" ")[0]
        ):  # the right quarter of the wrong year: the call's year, read wrong
            out.add("identity")
        else:
            out.add(w)
    return out


def _points(value: float | None, unit: str) -> float | None:
    """Percents and basis points in percent points; the rest as they are."""
    if value is None:
        return None
    return value / 100 if unit == "bps" else value


def _same_value(a: float | None, ua: str, b: float | None, ub: str) -> bool:
    if a is None or b is None:
        return a is None and b is None
    x, y = _points(a, ua), _points(b, ub)
    assert x is not None and y is not None
    if (x < 0) != (y < 0) and abs(x) > 1e-9 and abs(y) > 1e-9:
        return False
    return abs(x - y) <= max(1e-6, 0.006 * max(abs(x), abs(y)))


def _segment_words(seg: str | None) -> set[str]:
    words = set(re.findall(r"[a-z0-9&]+", (seg or "").lower()))
    return words - {"segment", "business", "division", "group", "unit", "the", "our", "in", "s",
                    "brands", "brand"}  # fmt: skip


def _acronym_of(short: str | None, long: str | None) -> bool:
    """ "MC" for "Machine Clothing", "M&CS" for "Measurement & Control Solutions", "AEC" for
    "(Albany) Engineered Composites": a part named by its initials."""
    letters = "".join(ch for ch in (short or "") if ch.isalpha())
    if not (2 <= len(letters) <= 6 and letters.isupper()):
        return False
    initials = "".join(w[0] for w in re.findall(r"[A-Za-z][\w'’-]*", long or "")
                       if w[0].isupper())  # fmt: skip
    return len(initials) >= 2 and (letters == initials or letters.endswith(initials))


def _same_period(gold: GoldRow, sys_period: str | None) -> bool:
    if gold.period == sys_period:
        return True
    if gold.period is None or sys_period is None:
        return False
    alias = {"6M": "H1"}
    g, s = gold.period.split(" ", 1), sys_period.split(" ", 1)
    if alias.get(g[0], g[0]) == alias.get(s[0], s[0]) and g[1:] == s[1:]:
        return True
    return gold.metric in POINT_IN_TIME and {g[0], s[0]} == {"Q4", "FY"} and g[1:] == s[1:]


def judge(row: SystemRow, gold: GoldRow) -> list[str]:
    """The fields a system row gets wrong against its gold row (empty: correct)."""
    wrong = []
    if row.kind != gold.kind:
        wrong.append("guidance" if row.kind == "guidance" else "not_guidance")
    if gold.kind == "guidance" and row.kind == "guidance":
        both = _same_value(row.value, row.unit, gold.value, gold.unit) and _same_value(
            row.high, row.unit, gold.high, gold.unit)  # fmt: skip
        one = gold.value if gold.value is not None else gold.high
        if not both and not _same_value(row.value, row.unit, one, gold.unit):
            wrong.append("value")
        if (row.direction or "not_stated") != (gold.direction or "not_stated"):
            wrong.append("direction")
    elif not _same_value(row.value, row.unit, gold.value, gold.unit):
        wrong.append("value")
    if row.metric != gold.metric:
        wrong.append("metric")
    if row.basis != gold.basis and not (row.basis is None and gold.basis == "gaap"):
        wrong.append("basis")
    rs, gs = _segment_words(row.segment), _segment_words(gold.segment)
    joined = "".join(sorted(rs)), "".join(sorted(gs))
    same = bool(rs & gs) or ("".join(rs) in "".join(gs) or "".join(gs) in "".join(rs))
    alias = _acronym_of(row.segment, gold.segment) or _acronym_of(gold.segment, row.segment)
    if bool(rs) != bool(gs) or (rs and not same and joined[0] != joined[1] and not alias):
        wrong.append("segment")
    if not _same_period(gold, row.period):
        wrong.append("period")
    if row.role != gold.role:
        wrong.append("role")
    return wrong


@dataclass
class Score:
    rows: int = 0
    correct: int = 0
    unmatched: int = 0
    field_errors: dict[str, int] = field(default_factory=dict)
    headlines: int = 0
    headlines_found: int = 0
    guidance_gold: int = 0
    guidance_found: int = 0
    periods: dict[str, int] = field(default_factory=dict)  # "gold -> system"
    directions: dict[str, int] = field(default_factory=dict)
    period_rows: int = 0
    period_right: int = 0
    direction_rows: int = 0
    direction_right: int = 0
    sign_rows: int = 0
    sign_right: int = 0
    mistakes: list[str] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)  # headline items no right row states
    # each rule: the judged rows it decided a field of, and those where that field was wrong
    rule_rows: dict[str, int] = field(default_factory=dict)
    rule_wrong: dict[str, int] = field(default_factory=dict)
    rule_mistakes: dict[str, list[str]] = field(default_factory=dict)

    def add(self, other: Score) -> None:
        for name in ("rows", "correct", "unmatched", "headlines", "headlines_found",
                     "guidance_gold", "guidance_found", "period_rows", "period_right",
                     "direction_rows", "direction_right", "sign_rows", "sign_right"):  # fmt: skip
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for mine, theirs in ((self.field_errors, other.field_errors),
                             (self.periods, other.periods),
                             (self.directions, other.directions),
                             (self.rule_rows, other.rule_rows),
                             (self.rule_wrong, other.rule_wrong)):  # fmt: skip
            for k, v in theirs.items():
                mine[k] = mine.get(k, 0) + v
        for k, ms in other.rule_mistakes.items():
            self.rule_mistakes.setdefault(k, []).extend(ms)
        self.mistakes += other.mistakes
        self.missed += other.missed

    def charge(self, row: SystemRow, gold: GoldRow | None, wrong: list[str], note: str) -> None:
        """Tally the row for each rule of its chain, and charge its wrong fields' rules."""
        charged = charged_fields(row, gold, wrong) if wrong or gold is None else set()
        for fld, rule in row.rules.items():
            self.rule_rows[rule] = self.rule_rows.get(rule, 0) + 1
            if fld in charged:
                self.rule_wrong[rule] = self.rule_wrong.get(rule, 0) + 1
                self.rule_mistakes.setdefault(rule, []).append(note)


def _candidates(row: SystemRow, gold: Gold) -> list[GoldRow]:
    over = [g for g in gold.rows if g.start < row.end and row.start < g.end]
    return sorted(over, key=lambda g: (g.kind != row.kind, g.metric != row.metric,
                                       len(judge(row, g))))  # fmt: skip


def score(gold: Gold, facts: Any, which: str = "verified") -> Score:
    """Row precision (every field right), headline recall, and the confusions, for one call;
    the rows `system_rows(facts, which)` gives."""
    sc = Score()
    correct_gold: set[int] = set()
    for row in system_rows(facts, which):
        sc.rows += 1
        found = _candidates(row, gold)
        if not found:
            sc.unmatched += 1
            sc.field_errors["no gold row"] = sc.field_errors.get("no gold row", 0) + 1
            note = f"{gold.id}: {row.text!r} {row.metric}/{row.period}/{row.role}: no gold row"
            sc.mistakes.append(note)
            sc.charge(row, None, [], note)
            continue
        g = found[0]
        wrong = judge(row, g)
        sc.period_rows += 1
        sc.period_right += "period" not in wrong
        sc.sign_rows += 1
        sc.sign_right += "value" not in wrong or not _same_value(
            abs(row.value or 0), row.unit, abs(g.value or 0), g.unit)  # fmt: skip
        if g.kind == "guidance" and row.kind == "guidance":
            sc.direction_rows += 1
            sc.direction_right += "direction" not in wrong
            key = f"{g.direction or 'not_stated'} -> {row.direction or 'not_stated'}"
            sc.directions[key] = sc.directions.get(key, 0) + 1
        if "period" in wrong:
            key = f"{g.period} -> {row.period}"
            sc.periods[key] = sc.periods.get(key, 0) + 1
        for w in wrong:
            sc.field_errors[w] = sc.field_errors.get(w, 0) + 1
        note = ""
        if not wrong:
            sc.correct += 1
            correct_gold.add(id(g))
        else:
            note = (
                f"{gold.id}: {row.text!r} {row.metric}/{row.basis}/{row.segment}/{row.period}/"
                f"{row.role}/{row.direction} vs gold {g.metric}/{g.basis}/{g.segment}/{g.period}/"
                f"{g.role}/{g.direction}: {', '.join(wrong)} | {g.quote[:120]}"
            )
            sc.mistakes.append(note)
        sc.charge(row, g, wrong, note)
    found_items = {_item(g) for g in gold.rows if id(g) in correct_gold}
    items = {_item(g): g for g in gold.rows if g.kind == "guidance"}
    for g in gold.rows:
        if g.kind == "figure" and g.headline:
            sc.headlines += 1
            sc.headlines_found += id(g) in correct_gold
            if id(g) not in correct_gold:
                sc.missed.append(_missed(gold.id, g))
    for item, entry in items.items():
        sc.guidance_gold += 1
        sc.guidance_found += item in found_items
        if entry.period is not None and entry.metric != "other":  # financial, with a period
            sc.headlines += 1
            sc.headlines_found += item in found_items
            if item not in found_items:
                sc.missed.append(_missed(gold.id, entry))
    return sc


def _missed(cid: str, g: GoldRow) -> str:
    return (f"{cid}: {g.kind} {g.text!r} {g.metric}/{g.basis}/{g.segment}/{g.period}/{g.role}"
            f" | {g.quote[:140]}")  # fmt: skip


def _item(g: GoldRow) -> tuple[object, ...]:
    """A guidance item as a fact: the call repeats "3% organic growth in 2021" many times; it
    is one item to find."""
    return (g.kind, g.metric, g.basis, frozenset(_segment_words(g.segment)), g.period, g.role,
            None if g.value is None else round(g.value, 4),
            None if g.high is None else round(g.high, 4))  # fmt: skip


def transcript_for(gold_path: Path, ectsum: Path) -> str:
    return (ectsum / f"{gold_path.stem}.txt").read_text(encoding="utf-8")


def _check_cli(paths: list[Path], ectsum: Path) -> int:
    bad = 0
    for p in paths:
        gold = load(p, transcript_for(p, ectsum))
        figs = sum(r.kind == "figure" for r in gold.rows)
        guid = sum(r.kind == "guidance" for r in gold.rows)
        status = "ok" if not gold.errors else f"{len(gold.errors)} problem(s)"
        print(f"{p.name}: {figs} figures, {guid} guidance items: {status}")
        for e in gold.errors:
            print(f"  - {e}")
        bad += bool(gold.errors)
    return 1 if bad else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.facts_gold", description=__doc__)
    sub = ap.add_subparsers(dest="cmd", required=True)
    check = sub.add_parser("check", help="check gold files against their transcripts")
    check.add_argument("paths", nargs="*", type=Path)
    check.add_argument("--dir", type=Path, default=Path("../shared/data/ectsum"))
    args = ap.parse_args(argv)
    paths = args.paths or sorted(GOLD_DIR.glob("*.json"))
    return _check_cli(paths, args.dir)


if __name__ == "__main__":
    sys.exit(main())
