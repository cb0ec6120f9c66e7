"""`earnings-desk backtest`: an evaluation's reports judged against prices.

    earnings-desk backtest reports/eval --prices prices/ --calls calls.csv [--benchmark SPY]

- `--prices DIR`: one file per ticker, `TICKER.csv` (date,open,high,low,close[,volume]) or
  `TICKER.json` (`{"symbol", "bars"}` or Alpha Vantage's TIME_SERIES_DAILY), the benchmark's
  too (`SPY.csv`).
- `--calls FILE`: each call's id, ticker and date: a CSV with columns id,ticker,date, or a
  manifest.json whose items carry `id`, `ticker` and `call_date` (or `date`); optional
  `reported_eps` and `estimated_eps` (the consensus) give the pead baseline its call.
- The reports: `EVAL_OUT/reports/<model>/<pipeline>/<id>.json`, as `earnings-desk eval` writes.

Beside the pipelines, two baselines are scored on the same calls (always_long, pead), and each
pipeline's paired difference against them and its model's facts pipeline is tabled.

Writes `OUT/backtest.md` (the table, the event study, the baselines, the calibration table and
every call the prices did not cover), `backtest.csv`, `per_call.csv`, `baselines.csv`,
`calibration.csv` and `calibration.png`."""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from app.evaluation.returns import (
    HORIZON_DAYS,
    Board,
    EventReturn,
    Scored,
    event_returns,
    label,
    score,
)
from app.evaluation.stats import paired
from app.evaluation.summary import write_rows
from core.contract import Horizon, Position, Recommendation
from core.inputs import InputError, PriceSeries, prices_from_text
from core.metrics import LABEL_KEYS
from core.options import in_our_words


class BacktestError(ValueError):
    """Input the backtest cannot use; the message names the file (and row)."""


@dataclass(frozen=True)
class CallDate:
    id: str
    ticker: str
    date: date
    surprise: float | None = None  # reported - estimated EPS (the consensus), when known


BASELINE_CONVICTION = 50  # a rule's call carries no confidence: P(up) 0.5 in the Brier score
EPS_COLUMNS = ("reported_eps", "estimated_eps")


def _surprise(path: Path, where: str, row: dict[str, Any]) -> float | None:
    """reported_eps - estimated_eps when the row gives both; a BacktestError naming the file,
    row and field when one is not a number."""
    values = []
    for field_name in EPS_COLUMNS:
        raw = str(row.get(field_name) or "").strip()
        if raw in ("", "None", "null"):
            return None
        try:
            values.append(float(raw))
        except ValueError:
            raise BacktestError(f"{path} {where}: {field_name} {raw!r} is not a number") from None
    return values[0] - values[1]


def read_calls(path: Path) -> dict[str, CallDate]:
    """id -> (ticker, date) from a CSV (id,ticker,date) or a manifest.json."""
    if not path.is_file():
        raise BacktestError(f"{path}: no such file")
    text = path.read_text(encoding="utf-8")
    rows: list[tuple[str, dict[str, Any]]] = []
    if path.suffix == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise BacktestError(f"{path}: not valid JSON ({exc.msg}, line {exc.lineno})") from None
        items = data.get("items", data) if isinstance(data, dict) else data
        if not isinstance(items, list):
            raise BacktestError(f"{path}: expected a list of calls (or {{'items': [...]}})")
        rows = [(f"item {i + 1}", it) for i, it in enumerate(items) if isinstance(it, dict)]
    else:
        reader = csv.DictReader(text.splitlines())
        missing = {"id", "ticker", "date"} - set(reader.fieldnames or [])
        if missing:
            raise BacktestError(f"{path}: missing column(s) {', '.join(sorted(missing))}")
        rows = [(f"row {i + 2}", r) for i, r in enumerate(reader)]
    out: dict[str, CallDate] = {}
    for where, row in rows:
        raw_date = row.get("call_date") or row.get("date")
        if not raw_date:
            continue  # a manifest item without a date: that call cannot be backtested
        cid, ticker = str(row.get("id") or "").strip(), str(row.get("ticker") or "").strip()
        if not cid or not ticker:
            raise BacktestError(f"{path} {where}: needs an id and a ticker")
        try:
            day = date.fromisoformat(str(raw_date).strip()[:10])
        except ValueError:
            raise BacktestError(f"{path} {where}: date {raw_date!r} is not YYYY-MM-DD") from None
        out[cid] = CallDate(cid, ticker, day, _surprise(path, where, row))
    return out


class PriceFolder:
    """TICKER.csv / TICKER.json files, read once each, with errors naming file and row."""

    def __init__(self, root: Path) -> None:
        if not root.is_dir():
            raise BacktestError(f"{root}: not a folder of price files")
        self.root = root
        self._cache: dict[str, PriceSeries | None] = {}

    def get(self, ticker: str) -> PriceSeries | None:
        if ticker not in self._cache:
            self._cache[ticker] = self._load(ticker)
        return self._cache[ticker]

    def path(self, ticker: str) -> Path | None:
        """The ticker's file (TICKER.csv first, then TICKER.json), if the folder has one."""
        for suffix in (".csv", ".json"):
            path = self.root / f"{ticker}{suffix}"
            if path.is_file():
                return path
        return None

    def _load(self, ticker: str) -> PriceSeries | None:
        path = self.path(ticker)
        return _read_series(path, ticker) if path is not None else None


def _read_series(path: Path, ticker: str) -> PriceSeries:
    text = path.read_text(encoding="utf-8")
    csv_format = path.suffix == ".csv"
    try:
        if csv_format:
            series = prices_from_text(text, csv_format=True, ticker=ticker, benchmark="").company
        else:
            data = json.loads(text)
            series = PriceSeries.model_validate(data.get("company", data))
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = [p for p in err["loc"] if not isinstance(p, str) or p not in ("company",)]
        where = ""
        if len(loc) >= 2 and loc[0] == "bars" and isinstance(loc[1], int):
            # bars are validated as given: CSV row = index + 2 (the header is row 1)
            where = f" row {loc[1] + 2}" if csv_format else f" bar {loc[1] + 1}"
        raise BacktestError(f"{path}{where}: {in_our_words(err)}") from None
    except (InputError, json.JSONDecodeError) as exc:
        raise BacktestError(f"{path}: {exc}") from None
    return series


def read_reports(eval_out: Path) -> list[tuple[str, str, str, list[Recommendation] | None]]:
    """(model, pipeline, call id, recommendations or None) for every saved report."""
    root = eval_out / "reports"
    if not root.is_dir():
        raise BacktestError(f"{eval_out}: no reports/ folder (run `earnings-desk eval` first)")
    out = []
    for path in sorted(root.glob("*/*/*.json")):
        model, pipeline = path.parent.parent.name, path.parent.name
        data = json.loads(path.read_text(encoding="utf-8"))
        report = data.get("report")
        recs = (
            [Recommendation.model_validate(r) for r in report.get("recommendations") or []]
            if report
            else None
        )
        out.append((model, pipeline, path.stem, recs or None))
    return out


@dataclass
class BacktestResult:
    boards: list[Board]
    per_call: list[dict[str, Any]]
    unpriced: list[str]  # call ids with no date/ticker or no price file
    against: list[dict[str, Any]] = field(default_factory=list)  # pipeline - baseline rows


def baseline_recs(call: CallDate) -> dict[str, Recommendation | None]:
    """The rules that cost nothing, per horizon alike: always LONG, and post-earnings drift
    (LONG on an EPS beat of the consensus, SHORT on a miss, NEUTRAL in line; no call when the
    consensus is not known)."""

    def rec(position: Position, why: str) -> Recommendation:
        return Recommendation(horizon=Horizon.DAY, position=position,
                              conviction=BASELINE_CONVICTION, rationale=why)  # fmt: skip

    pead: Recommendation | None = None
    if call.surprise is not None:
        pead = rec(
            Position.LONG if call.surprise > 0 else
            Position.SHORT if call.surprise < 0 else Position.NEUTRAL,
            f"EPS surprise {call.surprise:+.2f} vs the consensus",
        )  # fmt: skip
    return {"always_long": rec(Position.LONG, "always LONG"), "pead": pead}


def _signed(rec: Recommendation | None, ret: EventReturn) -> float | None:
    """The call's return: sign x raw return (NEUTRAL 0); None without a call or a window."""
    if rec is None or ret.raw is None:
        return None
    sign = {Position.LONG: 1, Position.SHORT: -1, Position.NEUTRAL: 0}[rec.position]
    return sign * ret.raw


def against_baselines(items: list[Scored]) -> list[dict[str, Any]]:
    """Each model pipeline's paired difference of signed return against each baseline
    (always_long, pead, and the same model's facts pipeline) on the calls both called, per
    horizon, with the eval's statistics (95% interval, Wilcoxon p, verdict)."""
    signed: dict[tuple[str, ...], dict[tuple[str, Horizon], float]] = {}
    for it in items:
        value = _signed(it.rec, it.ret)
        if value is not None:
            signed.setdefault(it.group, {})[(it.call_id, it.ret.horizon)] = value
    rows: list[dict[str, Any]] = []
    for group in signed:
        if group[0] == "baseline" or group[-1] == "facts":
            continue
        bases = [("baseline", "always_long"), ("baseline", "pead"), (*group[:-1], "facts")]
        for base in bases:
            if base not in signed:
                continue
            for horizon in HORIZON_DAYS:
                diffs = [v - signed[base][k] for k, v in signed[group].items()
                         if k[1] == horizon and k in signed[base]]  # fmt: skip
                if diffs:
                    rows.append({"group": "/".join(group), "baseline": "/".join(base),
                                 "horizon": horizon.value, **paired(diffs)})  # fmt: skip
    return rows


def backtest(
    eval_out: Path, prices: Path, calls: Path, benchmark: str | None = "SPY"
) -> BacktestResult:
    """Score every saved report of an evaluation against the prices after its call."""
    when = read_calls(calls)
    folder = PriceFolder(prices)
    bench = folder.get(benchmark) if benchmark else None
    items: list[Scored] = []
    per_call: list[dict[str, Any]] = []
    unpriced: list[str] = []
    priced: dict[str, dict[Horizon, EventReturn]] = {}
    for model, pipeline, cid, recs in read_reports(eval_out):
        call = when.get(cid)
        series = folder.get(call.ticker) if call else None
        if call is None or series is None:
            why = "no date and ticker in --calls" if call is None else f"no {call.ticker} prices"
            unpriced.append(f"{model}/{pipeline}/{cid}: {why}")
            continue
        returns = priced.setdefault(cid, event_returns(series, call.date, bench))
        by_h = {r.horizon: r for r in recs or []}
        for horizon in HORIZON_DAYS:
            ret = returns[horizon]
            rec = by_h.get(horizon)
            items.append(Scored((model, pipeline), cid, rec, ret))
            per_call.append({
                "model": model, "pipeline": pipeline, "id": cid, "ticker": call.ticker,
                "call_date": call.date.isoformat(), "horizon": horizon.value,
                "position": rec.position.value if rec else "",
                "conviction": rec.conviction if rec else "",
                "start": ret.start or "", "end": ret.end or "",
                "return": _pct(ret.raw), "benchmark": _pct(ret.benchmark),
                "excess": _pct(ret.excess), "not_covered": ret.missing or "",
                "no_benchmark": ret.benchmark_missing or "",
                "car": _pct(ret.car), "no_car": ret.car_missing or "",
            })  # fmt: skip
    for cid, returns in priced.items():  # the baselines, on the calls the reports priced
        for name, base in baseline_recs(when[cid]).items():
            for horizon, ret in returns.items():
                rec = base.model_copy(update={"horizon": horizon}) if base else None
                items.append(Scored(("baseline", name), cid, rec, ret))
    return BacktestResult(score(items), per_call, unpriced, against_baselines(items))


def price_labels(
    prices: Path, calls: Path, benchmark: str | None = "SPY"
) -> dict[str, dict[str, int]]:
    """Per call id, the up (+1) / down (-1) labels the prices give for each horizon whose
    window they cover (the eval's decision column uses them over hand labels); flat or
    uncovered windows give none. Bad files raise BacktestError naming file and row."""
    when = read_calls(calls)
    folder = PriceFolder(prices)
    if benchmark:
        folder.get(benchmark)  # a bad benchmark file is refused now, not after the reports
    out: dict[str, dict[str, int]] = {}
    for cid, call in when.items():
        series = folder.get(call.ticker)
        if series is None:
            continue
        got = {
            LABEL_KEYS[h]: up
            for h, ret in event_returns(series, call.date).items()
            if (up := label(ret)) in (1, -1)
        }
        if got:
            out[cid] = got
    return out


def write(result: BacktestResult, out: Path) -> list[Path]:
    """backtest.md/.csv, per_call.csv, calibration.csv and calibration.png under `out`."""
    out.mkdir(parents=True, exist_ok=True)
    rows = [b.row() for b in result.boards]
    paths = [
        write_rows(out / "backtest.csv", rows),
        write_rows(out / "per_call.csv", result.per_call),
        write_rows(
            out / "calibration.csv",
            [
                {"group": "/".join(b.group), "horizon": b.horizon.value, **c}
                for b in result.boards
                for c in b.calibration()
            ],
        ),
    ]
    if result.against:
        paths.append(write_rows(out / "baselines.csv", result.against))
    paths.append(_chart(result.boards, out / "calibration.png"))
    md = out / "backtest.md"
    md.write_text(markdown(result), encoding="utf-8")
    return [md, *paths]


def markdown(result: BacktestResult) -> str:
    cols = [
        "group", "horizon", "reports", "scored", "not_covered", "hits", "misses", "neutral",
        "hit_rate", "conviction_weighted_excess", "mean_long_return", "mean_short_return",
        "brier",
    ]  # fmt: skip
    lines = [
        "# Backtest",
        "",
        "Event windows after each call: 1 day, 1 week (5 trading days), 1 month (21), from the "
        "last close before the call. Hit: LONG and the price rose, or SHORT and it fell "
        "(NEUTRAL counted apart). Conviction-weighted excess return: sum of sign x conviction x "
        "(return - benchmark) over sum of convictions. Brier: conviction read as P(call right).",
        "",
        "| " + " | ".join(cols) + " |",
        "|" + "---|" * len(cols),
    ]
    for b in result.boards:
        row = b.row()
        lines.append("| " + " | ".join(_cell(row[c]) for c in cols) + " |")
    lines += ["", "## Calibration (P(up) from conviction vs the share that rose)", ""]
    lines += [
        "| group | horizon | bin | n | mean P(up) | observed up |",
        "|---|---|---|---|---|---|",
    ]
    for b in result.boards:
        for c in b.calibration():
            if c["n"]:
                lines.append(
                    f"| {'/'.join(b.group)} | {b.horizon.value} | {c['bin']} | {c['n']} | "
                    f"{_cell(c['mean_p_up'])} | {_cell(c['observed_up'])} |"
                )
    car_cols = ["group", "horizon", "car_calls", "mean_signed_car", "car_t", "car_ci_low",
                "car_ci_high", "car_not_covered"]  # fmt: skip
    lines += [
        "",
        "## Event study (market-model abnormal returns)",
        "",
        "Alpha and beta fitted on trading days -250 to -11 before the call against the "
        "benchmark (at least 120 days); CAR over [0,+1], [0,+4], [0,+20] trading days for 1d, "
        "1w, 1m. mean_signed_car: mean of sign x CAR over LONG (+1) and SHORT (-1) calls, with "
        "its t-statistic and 95% bootstrap interval.",
        "",
        "| " + " | ".join(car_cols) + " |",
        "|" + "---|" * len(car_cols),
    ]
    for b in result.boards:
        row = b.row()
        lines.append("| " + " | ".join(_cell(row[c]) for c in car_cols) + " |")
    no_car = sorted({f"{r['ticker']} {r['call_date']} {r['horizon']}: {r['no_car']}"
                     for r in result.per_call if r["no_car"] and r["position"]})  # fmt: skip
    if no_car:
        lines += ["", "No abnormal return (market model):", ""] + [f"- {m}" for m in no_car]
    lines += _against_markdown(result.against)
    missing = [m for b in result.boards for m in b.missing]
    if missing or result.unpriced:
        lines += ["", "## Not covered by the price data", ""]
        lines += [f"- {m}" for m in [*result.unpriced, *missing]]
    return "\n".join(lines) + "\n"


def _against_markdown(rows: list[dict[str, Any]]) -> list[str]:
    if not rows:
        return []
    lines = [
        "",
        "## Against the baselines",
        "",
        "Rows baseline/always_long (LONG on every call) and baseline/pead (LONG on an EPS beat "
        "of the consensus, SHORT on a miss, NEUTRAL in line; the calls file's reported_eps and "
        "estimated_eps) are scored above like the pipelines, at conviction 50. Here: each "
        "pipeline's paired difference of signed return (sign x return, NEUTRAL 0) against each "
        "baseline and its model's facts pipeline, on the calls both called.",
        "",
        "| group | baseline | horizon | calls | mean difference | 95% CI | p | verdict |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        ci = "n/a" if r["ci_low"] is None else f"[{r['ci_low']:+.4f}, {r['ci_high']:+.4f}]"
        p = "n/a" if r["p"] is None else f"{r['p']:.3f}"
        lines.append(
            f"| {r['group']} | {r['baseline']} | {r['horizon']} | {r['n']} | "
            f"{r['mean_diff']:+.4f} | {ci} | {p} ({r['test']}) | {r['verdict']} |"
        )
    return lines


def _chart(boards: list[Board], path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(HORIZON_DAYS), figsize=(12, 4), sharey=True)
    for ax, horizon in zip(axes, HORIZON_DAYS, strict=True):
        ax.plot([0, 1], [0, 1], color="grey", linestyle="--", linewidth=1)
        for b in boards:
            if b.horizon != horizon:
                continue
            pts = [(c["mean_p_up"], c["observed_up"]) for c in b.calibration() if c["n"]]
            if pts:
                ax.plot(*zip(*pts, strict=True), marker="o", label="/".join(b.group))
        ax.set_title(f"{Horizon(horizon).value}")
        ax.set_xlabel("P(up) from conviction")
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
    axes[0].set_ylabel("share that rose")
    axes[-1].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def _pct(x: float | None) -> str:
    return "" if x is None else f"{x:.6f}"


def _cell(x: Any) -> str:
    if x is None:
        return "n/a"
    if isinstance(x, float):
        return f"{x:.3f}"
    return str(x)
