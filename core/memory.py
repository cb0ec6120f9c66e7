"""A company's calls read against each other, by code (issue 40): what was guided against what
was delivered, each outlook against the same outlook one call earlier, and the key lines over
the stored quarters. Pure functions over the call facts; the store keeps the records
(`app/storage`), the report shows the section (`nodes/report.py`).

**Which rows feed it.** Only rows verified for the fields the track record reads: a key figure
presented as verified; a guidance row whose only unconfirmed rule decided its *direction word*
(the track record computes the direction from the numbers and never reads that word as fact;
it shows it beside, flagged where they disagree). Qualitative outlooks ("low single digits")
are not compared.

**How calls are linked** (`company_key`): by the ticker when one is known (the user's, a
manifest's, or read from the call), else by the company's name with case, punctuation and
legal suffixes removed; never by similarity, so a mis-read name makes a company of its own
rather than merging two. A call with neither is stored unlinked.

**Periods** are the call facts' fiscal labels (Q3 2021, FY 2021): a company whose year ends in
June or April lines up with itself, and calls are ordered by their fiscal period, not by the
order they were stored in.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from core.contract import (
    CallFacts,
    Delivered,
    DeliveredRow,
    GuidanceItem,
    KeyFigure,
    Revision,
    RevisionRow,
    TrackRecord,
    TrendRow,
)
from core.facts.periods import Period, parse_label

_SUFFIXES = {
    "inc", "incorporated", "corp", "corporation", "co", "company", "ltd", "limited", "plc",
    "holdings", "holding", "group", "the", "sa", "nv", "ag", "llc", "lp",
}  # fmt: skip
# lines the trend table follows, in this order, when the calls state them company-wide
TREND_METRICS = (
    "revenue", "eps", "net_income", "operating_income", "ebitda", "gross_margin",
    "operating_margin", "free_cash_flow", "net_interest_income", "loans", "deposits",
)  # fmt: skip
MET_WITHIN = 0.01  # a point guide is met within 1% of it


def company_key(ticker: str | None, company: str | None) -> str | None:
    """The key that links a company's calls: `T:<TICKER>` when a ticker is known, else
    `N:<name>` (lower case, no punctuation or legal suffix); None: the call stays unlinked."""
    if ticker and ticker.strip():
        return "T:" + ticker.strip().upper()
    if company:
        words = [w for w in re.findall(r"[a-z0-9]+", company.lower()) if w not in _SUFFIXES]
        if words:
            return "N:" + " ".join(words)
    return None


@dataclass(frozen=True)
class Line:
    """One figure of a call the track record can use: a result or an outlook."""

    metric: str
    basis: str | None
    role: str  # "result" (a level) or "change" (a growth rate)
    unit: str
    period: Period
    low: float
    high: float
    text: str
    quote: str
    said: str | None = None  # an outlook's direction word, as the call says it

    @property
    def key(self) -> tuple[str, str | None, str, str]:
        return (self.metric, self.basis, self.role, self.unit)


@dataclass(frozen=True)
class CallRecord:
    """What the store keeps of one call for its company's track record."""

    call_id: str
    period: Period
    company: str | None = None
    ticker: str | None = None
    call_date: str | None = None
    results: tuple[Line, ...] = ()
    outlooks: tuple[Line, ...] = ()

    @property
    def order(self) -> tuple[int, float]:
        return period_order(self.period)


def period_order(p: Period) -> tuple[int, float]:
    """Sort key within a fiscal calendar: Q1 < H1 < Q2 < 6M < Q3 < 9M < Q4 = H2 = FY."""
    at = {"Q": float(p.n), "H": 2.0 * p.n + 0.1, "6M": 2.1, "9M": 3.1, "FY": 4.2}[p.kind]
    return (p.year or 0, at)


def _reach(call: Period) -> tuple[int, float]:
    """How far a call reports: its period, and on a fourth-quarter call the whole year."""
    if call.kind == "Q" and call.n == 4:
        return period_order(Period("FY", 0, call.year))
    return period_order(call)


def _reported_by(p: Period, call: Period) -> bool:
    """`p` ends no later than what the call reporting `call` reports."""
    return period_order(p) <= _reach(call)


def _usable_guidance(g: GuidanceItem) -> bool:
    return not g.qualitative and all(w.startswith("direction.") for w in g.weak_rules)


def record_of(
    call_id: str,
    facts: CallFacts,
    *,
    company: str | None = None,
    ticker: str | None = None,
    period: str | None = None,
) -> CallRecord | None:
    """The call's record from its call facts (the user's identity over what was read); None
    when its period is unknown (a call that cannot be placed among the others)."""
    ident = facts.call
    placed = parse_label(period or ident.period)
    if placed is None or placed.year is None:
        return None
    results = [x for k in facts.key_figures if k.segment is None for x in _results(k)]
    outlooks = [_outlook(g) for g in (*facts.guidance, *facts.unconfirmed_guidance)
                if g.segment is None and _usable_guidance(g)]  # fmt: skip
    return CallRecord(
        call_id=call_id, period=placed, company=company or ident.company,
        ticker=ticker or ident.ticker, call_date=ident.call_date,
        results=tuple(x for x in results if x is not None),
        outlooks=tuple(x for x in outlooks if x is not None),
    )  # fmt: skip


def _results(k: KeyFigure) -> list[Line | None]:
    """A key figure's result, and the change stated with it ("$612 million, up 8%": the 8% is
    the same line's growth, verified with it)."""
    p = parse_label(k.period)
    if p is None or p.year is None:
        return []
    out: list[Line | None] = [
        Line(k.metric, k.basis, k.role, k.unit, p, k.value, k.value, k.text, k.sentence)
    ]
    c = k.change
    if c is not None and k.role == "result" and c.role == "change":
        out.append(Line(k.metric, c.basis, "change", c.unit, p, c.value, c.value, c.text,
                        k.sentence))  # fmt: skip
    return out


def _outlook(g: GuidanceItem) -> Line | None:
    p = parse_label(g.period)
    if p is None or p.year is None or g.low is None:
        return None
    high = g.high if g.high is not None else g.low
    return Line(g.metric, g.basis, g.role, g.unit, p, min(g.low, high), max(g.low, high),
                g.text, g.sentence, g.direction)  # fmt: skip


def _verdict(line: Line, actual: float) -> tuple[Delivered, float | None]:
    lo, hi = line.low, line.high
    if lo == hi and abs(actual - lo) <= MET_WITHIN * max(abs(lo), 1e-9):
        return "met", None
    if lo <= actual <= hi:
        return "met", None
    if actual > hi:
        return "beat", actual - hi
    return "missed", actual - lo


def _revision(before: Line, now: Line) -> Revision:
    eps = 1e-9 * max(1.0, abs(before.low), abs(before.high))
    same_lo, same_hi = abs(now.low - before.low) <= eps, abs(now.high - before.high) <= eps
    if same_lo and same_hi:
        return "maintained"
    if now.low >= before.low - eps and now.high <= before.high + eps:
        return "narrowed"
    if now.low <= before.low + eps and now.high >= before.high - eps:
        return "widened"
    return "raised" if (now.low + now.high) > (before.low + before.high) else "lowered"


def _amount(value: float, like: str) -> str:
    """A gap in the unit of the figure it is measured on (`like`, as the call wrote it): money
    in dollars (millions, billions), a percentage in percentage points, else a plain number."""
    if "$" in like:
        for scale, word in ((1e9, "billion"), (1e6, "million")):
            if value >= scale:
                return f"${value / scale:,.3g} {word}"
        return f"${value:,.2f}".rstrip("0").rstrip(".")
    if "%" in like:
        return f"{value:,.3g} percentage points"
    return f"{value:,.4g}"


_SAYS = {"raised": "raised", "lowered": "lowered", "reaffirmed": "maintained"}


def _latest(records: Iterable[CallRecord]) -> list[CallRecord]:
    return sorted(records, key=lambda r: r.order)


def track_record(current: CallRecord, stored: Sequence[CallRecord]) -> TrackRecord | None:
    """`current` read against the stored calls of its company that report earlier periods
    (another record of the same period, e.g. the same call stored twice, is not "earlier");
    None when there is none."""
    earlier = _latest(r for r in stored if r.order < current.order)
    if not earlier:
        return None
    # each outlook's latest statement before `current`, by (line, period)
    latest: dict[tuple[tuple[str, str | None, str, str], Period], tuple[Line, CallRecord]] = {}
    for record in earlier:
        for line in record.outlooks:
            latest[(line.key, line.period)] = (line, record)
    delivered: list[DeliveredRow] = []
    reported = {(r.key, r.period): r for r in current.results}
    reported_periods = {r.period for r in current.results} | {current.period}
    if current.period.kind == "Q" and current.period.n == 4:  # the year's call too
        reported_periods |= {
            Period("FY", 0, current.period.year),
            Period("H", 2, current.period.year),
        }
    for (key, period), (line, record) in sorted(latest.items(), key=_row_order):
        if period not in reported_periods:
            continue
        got = reported.get((key, period))
        outcome, by = _verdict(line, got.low) if got is not None else ("not reported", None)
        delivered.append(DeliveredRow(
            metric=key[0], basis=key[1], role=key[2], period=period.label() or "",
            guided=line.text, guided_in=record.call_id,
            guided_period=record.period.label() or "", guided_quote=line.quote,
            actual=got.text if got else None, actual_quote=got.quote if got else None,
            verdict=outcome, by=by,
        ))  # fmt: skip
    revisions: list[RevisionRow] = []
    previous = earlier[-1]
    before = {(x.key, x.period): x for x in previous.outlooks}
    now = {(x.key, x.period): x for x in current.outlooks}
    for key, period in sorted(set(before) | set(now), key=lambda kp: _row_order((kp, None))):
        b, n = before.get((key, period)), now.get((key, period))
        if b is None and n is not None:
            verdict: Revision = "new"
        elif n is None and b is not None:
            if _reported_by(period, current.period):
                continue  # reported by now (the delivered table's), not dropped
            verdict = "dropped"
        elif b is not None and n is not None:
            verdict = _revision(b, n)
        else:
            continue
        says = n.said if n is not None else None
        revisions.append(RevisionRow(
            metric=key[0], basis=key[1], role=key[2], period=period.label() or "",
            earlier=b.text if b else None, earlier_in=previous.call_id if b else None,
            earlier_quote=b.quote if b else None, now=n.text if n else None,
            now_quote=n.quote if n else None, verdict=verdict, call_says=says,
            disagrees=says in _SAYS and _SAYS[says] != verdict and verdict != "new",
        ))  # fmt: skip
    trend = _trend([*earlier, current])
    return TrackRecord(
        company=current.company or next((r.company for r in earlier if r.company), None),
        earlier_calls=len(earlier),
        periods=[r.period.label() or "" for r in [*earlier, current]],
        delivered=delivered, revisions=revisions, trend=trend,
    )  # fmt: skip


def _row_order(item: tuple[tuple[tuple[str, str | None, str, str], Period], object]) -> tuple[
        int, tuple[int, float], str]:  # fmt: skip
    (key, period), _ = item
    metric = key[0]
    rank = TREND_METRICS.index(metric) if metric in TREND_METRICS else len(TREND_METRICS)
    return (rank, period_order(period), f"{key}")


def _trend(records: Sequence[CallRecord]) -> list[TrendRow]:
    rows: dict[tuple[str, str | None], dict[str, str]] = {}
    for record in records:
        for line in record.results:
            if line.metric in TREND_METRICS and line.role == "result" and (
                    line.period == record.period):  # fmt: skip
                rows.setdefault((line.metric, line.basis), {}).setdefault(
                    record.period.label() or "", line.text
                )
    ordered = sorted(rows.items(), key=lambda kv: (TREND_METRICS.index(kv[0][0]), kv[0][1] or ""))
    return [TrendRow(metric=m, basis=b, values=v) for (m, b), v in ordered if len(v) >= 2]


def _name(metric: str, basis: str | None, role: str) -> str:
    words = metric.replace("_", " ")
    words = "EPS" if metric == "eps" else words
    qualifier = {"gaap": "GAAP"}.get(basis or "", (basis or "").replace("_", " "))
    head = f"{qualifier} {words}" if basis else words
    return f"{head} growth" if role == "change" else head


# verdicts that rest on one call's figure and the other call's silence: the code reads a part of
# each call, so silence is "not found", never asserted (shown apart, measured apart)
ONE_SIDED = frozenset({"not reported", "new", "dropped"})


def track_record_markdown(tr: TrackRecord) -> str:
    """The report's section: the comparisons of two stated figures as tables, then what was read
    in one call only (said as not found, not as the call's silence)."""
    lines = [f"## Track record: {tr.earlier_calls} earlier call(s) of this company",
             "", f"Read by code from the stored calls ({', '.join(tr.periods)}); only figures "
             "verified in their own call are compared."]  # fmt: skip
    delivered = [d for d in tr.delivered if d.verdict not in ONE_SIDED]
    revised = [r for r in tr.revisions if r.verdict not in ONE_SIDED]
    if delivered:
        lines += ["", "### Guidance against what was delivered", "",
                  "| line | period | guided (call) | delivered | verdict |",
                  "|---|---|---|---|---|"]  # fmt: skip
        for d in delivered:
            by = f" by {_amount(abs(d.by), d.actual or d.guided)}" if d.by is not None else ""
            line = _name(d.metric, d.basis, d.role)
            lines.append(f"| {line} | {d.period} | {d.guided} ({d.guided_period}) | "
                         f"{d.actual} | {d.verdict}{by} |")  # fmt: skip
    if revised:
        lines += ["", "### Guidance against the previous call's", "",
                  "| line | period | before | now | verdict | the call says |",
                  "|---|---|---|---|---|---|"]  # fmt: skip
        for r in revised:
            flag = f"{r.call_says} (differs)" if r.disagrees else (r.call_says or "")
            line = _name(r.metric, r.basis, r.role)
            lines.append(f"| {line} | {r.period} | {r.earlier} | {r.now} | {r.verdict} | "
                         f"{flag} |")  # fmt: skip
    one_sided = [
        *(f"- {_name(d.metric, d.basis, d.role)}, {d.period}: guided {d.guided} "
          f"({d.guided_period}); no verified figure for it was read in this call"
          for d in tr.delivered if d.verdict == "not reported"),
        *(f"- {_name(r.metric, r.basis, r.role)}, {r.period}: "
          + (f"{r.now} now; none was read in the previous call"
             if r.verdict == "new" else
             f"{r.earlier} in the previous call; none was read in this one")
          for r in tr.revisions if r.verdict in ("new", "dropped")),
    ]  # fmt: skip
    if one_sided:
        lines += ["", "### Read in one call only", "",
                  "The code reads part of each call: the other call may state these in words it "
                  "did not read.", "", *one_sided]  # fmt: skip
    if tr.trend:
        periods = tr.periods
        head = "| line | " + " | ".join(periods) + " |"
        lines += ["", "### Key lines over the stored quarters", "", head,
                  "|---" * (len(periods) + 1) + "|"]  # fmt: skip
        for t in tr.trend:
            cells = " | ".join(t.values.get(p, "") for p in periods)
            lines.append(f"| {_name(t.metric, t.basis, 'result')} | {cells} |")
    if not (tr.delivered or tr.revisions or tr.trend):
        lines += ["", "No verified figure of this call lines up with one of the earlier calls."]
    return "\n".join(lines)


class CompanyMemory(Protocol):
    """The stored calls a run reads its company's track record from (the service's store,
    scoped to the run's API key; the CLI's local store)."""

    async def calls(self, key: str) -> Sequence[CallRecord]:
        """Every stored call of the company `key`, oldest stored first."""
        ...


def record_to_json(record: CallRecord) -> str:
    """The stored form of a call's record."""

    def line(x: Line) -> dict[str, object]:
        return {"metric": x.metric, "basis": x.basis, "role": x.role, "unit": x.unit,
                "period": x.period.label(), "low": x.low, "high": x.high, "text": x.text,
                "quote": x.quote, "said": x.said}  # fmt: skip

    return json.dumps({
        "call_id": record.call_id, "period": record.period.label(), "company": record.company,
        "ticker": record.ticker, "call_date": record.call_date,
        "results": [line(x) for x in record.results],
        "outlooks": [line(x) for x in record.outlooks],
    })  # fmt: skip


def record_from_json(text: str) -> CallRecord:
    data = json.loads(text)

    def period(label: str) -> Period:
        p = parse_label(label)
        if p is None:
            raise ValueError(f"a stored call record has an unreadable period {label!r}")
        return p

    def line(x: dict[str, object]) -> Line:
        return Line(str(x["metric"]), x["basis"] if x["basis"] else None,  # type: ignore[arg-type]
                    str(x["role"]), str(x["unit"]), period(str(x["period"])),
                    float(x["low"]), float(x["high"]), str(x["text"]), str(x["quote"]),  # type: ignore[arg-type]
                    str(x["said"]) if x.get("said") else None)  # fmt: skip

    return CallRecord(
        call_id=data["call_id"], period=period(data["period"]), company=data.get("company"),
        ticker=data.get("ticker"), call_date=data.get("call_date"),
        results=tuple(line(x) for x in data["results"]),
        outlooks=tuple(line(x) for x in data["outlooks"]),
    )  # fmt: skip


def current_calls(records: Iterable[CallRecord]) -> list[CallRecord]:
    """One record a period: the last of each period in `records` (given oldest stored first),
    which supersedes the others for the track record."""
    by_period: dict[Period, CallRecord] = {}
    for record in records:
        by_period[record.period] = record
    return sorted(by_period.values(), key=lambda r: r.order)
