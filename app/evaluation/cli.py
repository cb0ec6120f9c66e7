"""`earnings-desk eval DIR`: the command line of the evaluation harness."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)

from app.cli.options import folder_problem
from app.evaluation.dataset import DatasetError, EvalItem, load_dataset
from app.evaluation.runner import EvalEvent, Evaluation, engine_runner, model_label
from app.evaluation.summary import write_chart, write_tables
from app.service.engine import Engine
from app.settings import Settings
from core.options import comma_items, parse_variant
from graphs import PIPELINES


class EvalUsageError(ValueError):
    """A bad flag value: printed, exit code 2."""


def _csv(text: str | None) -> list[str]:
    return list(comma_items(text or ""))


def model_settings(
    base: Settings, spec: str | None, cache: Path | None, flag: str = "--models"
) -> tuple[Settings, str]:
    """Settings for one model spec (given with `flag`), and the label the tables use."""
    update: dict[str, Any] = {"llm_cache": cache}
    if spec is None:
        label = model_label(base)
    elif spec in ("local", "fake"):
        update["provider"], label = spec, spec
    elif spec.startswith("openai:") and spec.removeprefix("openai:"):
        update["provider"], update["model"], label = "openai", spec.removeprefix("openai:"), spec
    else:
        raise EvalUsageError(f"{flag}: model spec {spec!r}: use local, fake or openai:NAME")
    return base.model_copy(update=update), label


@dataclass
class EvalPlan:
    """What an `eval` invocation runs, from its flags (validated)."""

    items: list[EvalItem]
    pipelines: list[str]
    pairs: list[tuple[str, str]]
    cache: Path | None
    configs: list[tuple[Settings, str]]
    judge: tuple[Settings, str] | None
    out: Path


def _pipelines(args: argparse.Namespace) -> list[str]:
    pipelines = _csv(args.pipelines)
    try:
        variants = [parse_variant(p) for p in pipelines]
    except ValueError as exc:
        raise EvalUsageError(f"--pipelines: {exc}") from None
    unknown = [v.name for v in variants if v.pipeline not in PIPELINES]
    if not pipelines or unknown:
        raise EvalUsageError(
            f"--pipelines: unknown {', '.join(unknown) or '(none given)'}; "
            f"choose from {', '.join(PIPELINES)}"
        )
    if len(set(pipelines)) != len(pipelines):
        raise EvalUsageError("--pipelines: a pipeline or variant is named twice")
    return pipelines


def _items(args: argparse.Namespace) -> list[EvalItem]:
    try:
        items = load_dataset(Path(args.dir), prefer=args.prefer, ids=_csv(args.ids) or None)
    except DatasetError as exc:
        raise EvalUsageError(str(exc)) from None
    if args.limit is not None:
        if args.limit < 1:
            raise EvalUsageError("--limit must be >= 1")
        items = items[: args.limit]
    return items


def _pairs(args: argparse.Namespace, pipelines: list[str]) -> list[tuple[str, str]]:
    pairs: list[tuple[str, str]] = []
    for given in args.pairwise or []:
        duel = _csv(given)
        if len(duel) != 2 or duel[0] == duel[1] or any(p not in pipelines for p in duel):
            raise EvalUsageError("--pairwise takes two different pipelines from --pipelines")
        if (duel[0], duel[1]) not in pairs:
            pairs.append((duel[0], duel[1]))
    if not pairs and args.judge and len(pipelines) >= 2:
        pairs.append((pipelines[0], pipelines[1]))
    return pairs


def plan(args: argparse.Namespace, settings: Settings) -> EvalPlan:
    pipelines = _pipelines(args)
    if args.concurrency < 1:
        raise EvalUsageError("--concurrency must be >= 1")
    items = _items(args)
    pairs = _pairs(args, pipelines)
    cache = None if args.no_cache else Path(args.cache or settings.data_dir / "llm-cache.sqlite")
    specs: list[str | None] = list(_csv(args.models)) or [None]
    configs = [model_settings(settings, s, cache) for s in specs]
    judge = model_settings(settings, args.judge, cache, "--judge") if args.judge else None
    if (problem := folder_problem(Path(args.out), "--out")) is not None:
        raise EvalUsageError(problem)
    return EvalPlan(items, pipelines, pairs, cache, configs, judge, Path(args.out))


def _progress(bar: Progress, task: TaskID, console: Console) -> Callable[[EvalEvent], None]:
    """The progress bar's (or, off a terminal, one line per report's) view of the events."""

    def on_event(event: EvalEvent) -> None:
        if event.type == "report_started":
            bar.update(task, description=f"{event.pipeline} on {event.id}")
        elif event.type == "report_finished":
            bar.advance(task)
            if not console.is_terminal:  # logs get one line per report instead of a bar
                console.print(
                    f"[{event.done}/{event.total}] {event.pipeline} on {event.id}: "
                    f"{event.status}{' (saved earlier)' if event.reused else ''}",
                    highlight=False,
                )
            if event.status not in ("succeeded", "degraded"):
                bar.console.print(
                    f"[red]{event.status}[/]: {event.pipeline} on {event.id}: {event.detail}",
                    highlight=False,
                )
        elif event.type in ("judged", "pair_judged"):
            bar.update(task, description=f"judge: {event.pipeline or ''} {event.id}")

    return on_event


async def _run(p: EvalPlan, console: Console, concurrency: int) -> Evaluation:
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn())  # fmt: skip
    with Progress(*columns, console=console, transient=False) as bar:
        task = bar.add_task("reports", total=len(p.items) * len(p.pipelines) * len(p.configs))
        evaluation = Evaluation(
            p.items, p.pipelines, p.out, on_event=_progress(bar, task, console),
            bounds=p.configs[0][0].transcript_bounds() if p.configs else None,
        )  # fmt: skip
        for cfg, label in p.configs:
            async with Engine.open(cfg) as engine:
                await evaluation.run_reports(engine_runner(engine), label, concurrency)
        if p.judge is not None:
            async with Engine.open(p.judge[0]) as jengine:
                await evaluation.judge_with(jengine, p.pairs)
    return evaluation


def with_price_labels(
    args: argparse.Namespace, items: list[EvalItem], console: Console
) -> list[EvalItem]:
    """--prices: each call's up/down labels from the prices after it replace its hand labels
    for the horizons the prices cover (read before any report runs: bad files stop at once)."""
    if not args.prices:
        return items
    from app.evaluation.backtest import BacktestError, price_labels

    calls = Path(args.calls) if args.calls else Path(args.dir) / "manifest.json"
    try:
        derived = price_labels(Path(args.prices), calls, args.benchmark or None)
    except BacktestError as exc:
        raise EvalUsageError(f"backtest: {exc}") from None
    priced = sum(i.id in derived for i in items)
    hand = sum(i.id not in derived and bool(i.labels) for i in items)
    console.print(
        f"decision labels: from prices for {priced} call(s), hand labels for {hand}, "
        f"none for {len(items) - priced - hand}",
        highlight=False,
    )
    return [
        replace(i, labels={**(i.labels or {}), **derived[i.id]}) if i.id in derived else i
        for i in items
    ]


async def fetch_data(
    args: argparse.Namespace, settings: Settings, items: list[EvalItem], console: Console
) -> list[EvalItem]:
    """--fetch: each call's statements and prices that its folder did not give, from the chosen
    source (cached, rate-limited), for the ticker and call date its manifest entry names; a
    call without them, or one the source cannot fill, stops the evaluation naming the call."""
    from app.market.http import VendorError
    from app.market.sources import fill

    out: list[EvalItem] = []
    for item in items:
        if item.financials is not None and item.prices is not None:
            out.append(item)
            continue
        if not item.call.ticker or item.call_date is None:
            raise EvalUsageError(
                f"--fetch: {item.id} needs a ticker and a call_date in manifest.json "
                "(nothing dated on or after the call is used)"
            )
        try:
            filled = await fill(settings, args.source, item.call.ticker, item.call_date,
                                item.financials, item.prices, args.benchmark)  # fmt: skip
        except VendorError as exc:
            raise EvalUsageError(f"--fetch: {item.id}: {exc}") from None
        console.print(f"{item.id}: market data: {filled.describe()}", highlight=False,
                      markup=False)  # fmt: skip
        out.append(replace(item, financials=filled.financials, prices=filled.prices))
    return out


async def run_eval_cli(args: argparse.Namespace, settings: Settings, console: Console) -> int:
    p = plan(args, settings)
    if args.fetch:
        p = replace(p, items=await fetch_data(args, settings, p.items, console))
    p = replace(p, items=with_price_labels(args, p.items, console))
    console.print(
        f"eval: {len(p.items)} call(s) x {len(p.pipelines)} pipeline(s) x {len(p.configs)} "
        f"model(s) -> {p.out}; cache {'off' if p.cache is None else p.cache}",
        highlight=False,
    )
    evaluation = await _run(p, console, args.concurrency)
    records = evaluation.records()
    table = write_tables(
        p.out,
        records,
        evaluation.pairwise_results(),
        evaluation.ectsum_rows(),
        evaluation.data_rows(),
    )
    chart = write_chart(p.out, records)
    console.print(table, highlight=False, markup=False)
    t = evaluation.tally
    console.print(
        f"this run: {t.ran} report(s) run, {t.reused} reused from {p.out}, {t.failed} failed; "
        f"{t.model_calls} model call(s), {t.cached_calls} answered from the cache"
        + (f"; {t.judged} graded, {t.pairs} pair(s) judged" if p.judge else ""),
        highlight=False,
    )
    out = p.out
    console.print(
        f"wrote {out / 'summary.md'}, {out / 'summary.csv'}, {out / 'per_report.csv'}, {chart}",
        highlight=False,
    )
    if args.prices:
        from app.evaluation.backtest import BacktestError, backtest, write

        calls = Path(args.calls) if args.calls else Path(args.dir) / "manifest.json"
        try:
            result = backtest(out, Path(args.prices), calls, args.benchmark or None)
        except BacktestError as exc:
            raise EvalUsageError(f"backtest: {exc}") from None
        paths = write(result, out / "backtest")
        console.print(paths[0].read_text(encoding="utf-8"), highlight=False, markup=False)
        console.print(f"wrote {', '.join(str(x) for x in paths)}", highlight=False)
    return 1 if t.failed else 0
