"""The commands of `earnings-desk` (the parser and the dispatch are `app.cli`): analyze, the
pipelines' listing and graphs, backtest, serve and worker."""

from __future__ import annotations

import argparse
import asyncio
import errno
import re
import socket
import sys
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from rich.console import Console

from app.cli import EXIT_DEGRADED, EXIT_FAILED, EXIT_OK, EXIT_USAGE
from app.cli.options import OptionError, folder_problem, resolve
from app.cli.progress import Progress
from app.cli.runs import stored_record
from app.llm.factory import ConfigError
from app.logs import configure
from app.market import MarketSource
from app.service.companies import StoreMemory, remember_call
from app.service.engine import Engine, RunOutcome
from app.service.requests import RunRequest
from app.settings import Settings
from app.storage import RunInput, Store, now
from core.contract import CallInfo
from core.inputs import (
    Financials,
    InputError,
    Prices,
    before_the_call,
    read_financials,
    read_prices,
)
from core.transcript import (
    Transcript,
    TranscriptError,
    layout_note,
    parse_transcript,
)
from graphs import draw, get_pipeline


def writable_folder(path: Path, flag: str) -> Path:
    """`path` made now as the folder a command writes into, else a UsageError naming `flag`."""
    if (problem := folder_problem(path, flag)) is not None:
        raise UsageError(problem)
    return path


class UsageError(Exception):
    """Bad input from the user: printed as a message, exit code 2."""


def node_names(pipeline: str) -> list[str]:
    graph = draw(get_pipeline(pipeline).build().compile())
    return [n for n in graph.nodes if not n.startswith("__")]


def flow(pipeline: str) -> list[str]:
    """The graph as text, one line per node: `a -> b, c` (always) and `a ?-> x | y` (routed)."""
    graph = draw(get_pipeline(pipeline).build().compile())
    order = {n: i for i, n in enumerate(graph.nodes)}
    lines = []
    for source in graph.nodes:
        out = sorted((e for e in graph.edges if e.source == source), key=lambda e: order[e.target])
        fixed = [e.target for e in out if not e.conditional]
        routed = [e.target for e in out if e.conditional]
        if fixed:
            lines.append(f"{source} -> {', '.join(fixed)}")
        if routed:
            lines.append(f"{source} ?-> {' | '.join(routed)}")
    return lines


def mermaid(pipeline: str) -> str:
    return str(draw(get_pipeline(pipeline).build().compile()).draw_mermaid())


def read_transcript(path: Path | str, settings: Settings) -> Transcript:
    """The call from a file (text, markdown, PDF, Word, a saved web page: core.documents) or
    from standard input (`-`), within the server's bounds (EDESK_MAX_TRANSCRIPT_BYTES, _LINES):
    a usage error naming the bound otherwise (exit 2)."""
    from core.documents import transcript_text

    bounds = settings.transcript_bounds()
    typed, path = str(path), Path(path)  # the message quotes what was typed ("https://...")
    if typed == "-":
        data = sys.stdin.buffer.read(settings.max_transcript_bytes + 1)
        try:
            return parse_transcript(transcript_text(data, "standard input", **bounds), **bounds)
        except TranscriptError as exc:
            raise UsageError(f"standard input: {exc}") from None
    if re.match(r"^[a-z][a-z0-9+.-]*:/", typed, re.IGNORECASE) and not path.exists():
        raise UsageError(
            f"{typed}: the CLI reads files, not web addresses; save the page (an HTML page from "
            "a transcript site is read) or the PDF and give its path, or pipe the text with `-`"
        )
    if not path.exists():
        raise UsageError(f"{path}: no such file")
    if not path.is_file():
        raise UsageError(f"{path}: not a file")
    size = path.stat().st_size
    if size > settings.max_transcript_bytes:  # refused before it is read
        raise UsageError(
            f"{path}: {size:,} bytes is over the {settings.max_transcript_bytes:,}-byte limit "
            f"(EDESK_MAX_TRANSCRIPT_BYTES={settings.max_transcript_bytes})"
        )
    try:
        return parse_transcript(transcript_text(path.read_bytes(), str(path), **bounds), **bounds)
    except TranscriptError as exc:  # the document readers' messages name the file already
        said = str(exc)
        raise UsageError(said if said.startswith(str(path)) else f"{path}: {said}") from None


def read_inputs(args: argparse.Namespace) -> tuple[Financials | None, Prices | None]:
    """--financials / --prices files: JSON, or CSV by extension; refused with the reason."""
    loaded: dict[str, Any] = {}
    for flag in ("financials", "prices"):
        name = getattr(args, flag)
        if not name:
            loaded[flag] = None
            continue
        path = Path(name)
        if not path.is_file():
            raise UsageError(f"--{flag} {path}: no such file")
        try:
            loaded[flag] = (
                read_financials(path) if flag == "financials"
                else read_prices(path, ticker=args.ticker, benchmark=args.benchmark)
            )  # fmt: skip
        except (InputError, ValidationError) as exc:
            raise UsageError(f"--{flag} {path}: {exc}") from None
    prices = loaded["prices"]
    if isinstance(prices, Prices) and args.benchmark and prices.benchmark is None:
        print(f"note: --benchmark {args.benchmark}: not in {args.prices}, so no returns "
              "relative to a benchmark", file=sys.stderr)  # fmt: skip
    return loaded["financials"], loaded["prices"]


async def fetch_inputs(
    args: argparse.Namespace,
    settings: Settings,
    financials: Financials | None,
    prices: Prices | None,
    console: Console | None = None,
) -> tuple[Financials | None, Prices | None]:
    """--fetch: what the files did not give, from the chosen source (--source, else
    EDESK_MARKET_SOURCE; cached, rate-limited), saying where each input came from."""
    from datetime import date

    from app.market.http import VendorError
    from app.market.sources import fill

    if not args.ticker:
        raise UsageError("--fetch needs --ticker")
    if not args.call_date:
        raise UsageError("--fetch needs --call-date YYYY-MM-DD (nothing from that day on is used)")
    try:
        call_date = date.fromisoformat(args.call_date)
    except ValueError:
        raise UsageError(f"--call-date {args.call_date!r}: not a YYYY-MM-DD date") from None
    try:
        filled = await fill(
            settings, args.source, args.ticker, call_date, financials, prices, args.benchmark
        )
    except VendorError as exc:
        raise UsageError(str(exc)) from None
    if console is not None:
        console.print(f"market data: {filled.describe()}", highlight=False, markup=False)
    return filled.financials, filled.prices


def write_outputs(outcome: RunOutcome, out_dir: Path) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    assert outcome.report is not None
    from app.exports.tables import report_xlsx

    md, js = out_dir / "report.md", out_dir / "report.json"
    md.write_text(outcome.report.markdown + "\n", encoding="utf-8")
    js.write_text(outcome.report.model_dump_json(indent=2) + "\n", encoding="utf-8")
    xlsx = out_dir / "report.xlsx"
    xlsx.write_bytes(report_xlsx(outcome.report))
    written = [md, js, xlsx]
    if outcome.report.appendix:  # code's sections, outside a paper's fixed format
        appendix = out_dir / "appendix.md"
        appendix.write_text(outcome.report.appendix + "\n", encoding="utf-8")
        written.append(appendix)
    return written


async def _analyze(args: argparse.Namespace, settings: Settings, console: Console) -> int:
    if args.pipeline != "facts" and (missing := settings.missing_openai_key()):
        raise UsageError(missing)  # before anything runs: a setting, not the run's failure
    transcript = read_transcript(args.path, settings)
    financials, prices = read_inputs(args)
    if args.fetch:
        financials, prices = await fetch_inputs(args, settings, financials, prices, console)
    elif args.call_date:
        # the files' statements and prices: nothing dated on or after the call (the report
        # says what was cut)
        from datetime import date

        try:
            call_date = date.fromisoformat(args.call_date)
        except ValueError:
            raise UsageError(f"--call-date {args.call_date!r}: not a YYYY-MM-DD date") from None
        try:
            financials, prices = before_the_call(financials, prices, call_date)
        except ValueError as exc:  # InputError too
            raise UsageError(
                f"--financials/--prices before --call-date {call_date}: {exc}"
            ) from None
    try:
        options = resolve(args, args.pipeline, settings.run_defaults())
    except OptionError as exc:
        raise UsageError(str(exc)) from None
    call = CallInfo(company=args.company, ticker=args.ticker, period=args.period)
    out_dir = (
        Path(args.out)
        if args.out
        else Path("reports")
        / ("stdin" if args.path == "-" else Path(args.path).name.split(".")[0])
        / args.pipeline
    )
    writable_folder(out_dir, "--out")  # before the run, not after it
    console.print(
        f"[bold]{args.pipeline}[/] on {args.path} "
        f"({'speaker turns' if transcript.format == 'markdown' else 'plain text'}, "
        f"{transcript.n_words:,} words, "
        f"{len(transcript.turns)} turns); "
        + ("no language model" if args.pipeline == "facts" else f"provider {settings.provider}")
        + (f"; variant {options.writer_variant}" if args.pipeline == "writer_feedback" else ""),
        highlight=False,
    )
    if (layout := layout_note(transcript)) is not None:
        console.print(f"[yellow]note:[/] {layout}", highlight=False)
    store = await Store.open(settings.database_url, settings.runs_path)  # runs, company calls
    started = now()
    try:
        # the facts pipeline asks no model: the local model's server is not started for it
        async with Engine.open(settings, chat_models=args.pipeline != "facts") as engine:
            with Progress(
                console, node_names(args.pipeline), f"{args.pipeline}: {args.path}"
            ) as progress:
                request = RunRequest(
                    args.pipeline, transcript, options, call, financials=financials,
                    prices=prices, memory=StoreMemory(store, None),
                )  # fmt: skip
                outcome = await engine.run(request, on_event=progress)
        # kept in the store `serve` reads: `earnings-desk runs`, the History, /v1/runs (no key)
        stored = RunInput(transcript=transcript.text, call=call, options=options,
                          financials=financials, prices=prices)  # fmt: skip
        await store.create(stored_record(outcome.run_id, args.pipeline, stored, outcome, started))
        if outcome.report is not None:
            kept = await remember_call(store, None, outcome.run_id, outcome.report, transcript.text)
            if kept is None and outcome.report.facts is not None:
                why = (
                    f"--period {args.period!r} is not a fiscal period it can place (e.g. "
                    '"Q3 2021", "FY 2021")'
                    if args.period
                    # fmt: skip
                    else 'its fiscal period is not stated (give --period, e.g. --period "Q3 2021")'
                )
                console.print(f"[yellow]note:[/] the call is not kept for its company's track "
                              f"record: {why}", highlight=False)  # fmt: skip
    finally:
        await store.close()
    if outcome.report is None:
        console.print(f"[red]run failed[/] at node {outcome.failed_node or '?'}: {outcome.error}")
        return EXIT_FAILED
    paths = write_outputs(outcome, out_dir)
    report = outcome.report
    for rec in report.recommendations:
        console.print(
            f"  {rec.horizon.value}: {rec.position.value} {rec.conviction}%", highlight=False
        )
    for failure in report.failures:
        console.print(f"[magenta]degraded[/]: {failure.node}: {failure.reason}", highlight=False)
    console.print(f"wrote {', '.join(str(p) for p in paths)} ({report.tokens['total']:,} tokens)")
    return EXIT_OK if report.status == "succeeded" else EXIT_DEGRADED


async def fetch_price_files(
    folder: Path, calls: Path, benchmark: str | None, source: MarketSource | None = None
) -> list[str]:
    """backtest --fetch: TICKER.json (every daily bar the source has: Alpha Vantage, or Stooq
    when keyless) for each ticker of the calls, and the benchmark, that `folder` has no file
    for. Returns the tickers fetched."""
    from app.evaluation.backtest import BacktestError, PriceFolder, read_calls
    from app.market.alphavantage import AlphaVantage
    from app.market.http import VendorError
    from app.market.sources import resolve_source
    from app.market.stooq import Stooq

    wanted = sorted({c.ticker for c in read_calls(calls).values()} | {benchmark or ""} - {""})
    folder.mkdir(parents=True, exist_ok=True)
    have = PriceFolder(folder)
    missing = [t for t in wanted if have.path(t) is None]
    settings = Settings()
    try:  # one client: one rate-limit gate
        vendor: AlphaVantage | Stooq = (
            Stooq.from_settings(settings)
            if resolve_source(source, settings) == "keyless"
            else AlphaVantage.from_settings(settings)
        )
        for ticker in missing:
            series = await vendor.series(ticker)
            (folder / f"{ticker}.json").write_text(series.model_dump_json(), encoding="utf-8")
    except (VendorError, ValidationError) as exc:
        raise BacktestError(str(exc)) from None
    return missing


def run_backtest(args: argparse.Namespace, console: Console, err: Console) -> int:
    from app.evaluation.backtest import BacktestError, backtest, write

    eval_out = Path(args.eval_out)
    if args.out and (problem := folder_problem(Path(args.out), "--out")) is not None:
        err.print(f"[red]error:[/] {problem}", highlight=False)
        return EXIT_USAGE
    try:
        if args.fetch:
            fetched = asyncio.run(fetch_price_files(Path(args.prices), Path(args.calls),
                                                    args.benchmark, args.source))  # fmt: skip
            if fetched:
                console.print(f"fetched prices of {', '.join(fetched)}", highlight=False)
        result = backtest(eval_out, Path(args.prices), Path(args.calls), args.benchmark or None)
        paths = write(result, Path(args.out) if args.out else eval_out / "backtest")
    except BacktestError as exc:
        err.print(f"[red]error:[/] {exc}", highlight=False)
        return EXIT_USAGE
    if not result.boards:
        err.print("[red]error:[/] no report could be priced:", highlight=False)
        for line in result.unpriced:
            err.print(f"  {line}", highlight=False, markup=False)
        return EXIT_USAGE
    console.print(paths[0].read_text(encoding="utf-8"), highlight=False, markup=False)
    console.print(f"wrote {', '.join(str(p) for p in paths)}", highlight=False)
    return EXIT_OK


def serve(args: argparse.Namespace, settings: Settings) -> int:
    import uvicorn

    from app.api import create_app

    configure(args.log_level, settings.log_format)
    # uvicorn's own access log prints query strings (which may hold an access_token): ours
    # (app.api) logs method, path, status and time only.
    from app.api.limits import guarded_h11

    # The address is taken before the application starts (the bundled model's server asks the
    # kernel for a free port while it starts, and startup takes seconds): an address in use is
    # said at once, and nothing started meanwhile can take it.
    sock = listen_socket(args.host, args.port)
    config = uvicorn.Config(
        create_app(settings),
        host=args.host,
        port=args.port,
        http=guarded_h11(settings.header_timeout),  # slow headers: the connection is closed
        log_level=args.log_level,
        access_log=False,
        # uvicorn's own lines (its tracebacks too) go through the root handler, which scrubs
        log_config=None,
    )
    with sock:
        uvicorn.Server(config).run(sockets=[sock])
    return EXIT_OK


def listen_socket(host: str, port: int) -> socket.socket:
    """A bound socket for `serve` (what uvicorn would bind: SO_REUSEADDR, IPv6 for an IPv6
    host); an address that cannot be bound is a ConfigError naming it."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        reason = "already in use" if exc.errno == errno.EADDRINUSE else exc.strerror or str(exc)
        raise ConfigError(f"cannot serve on {host}:{port}: {reason}") from None
    return sock


def worker(args: argparse.Namespace, settings: Settings) -> int:
    from app.service.worker import is_alive, run_worker

    if args.alive:
        return EXIT_OK if is_alive(settings) else 1
    if not (settings.database_url and settings.redis_url):
        raise ConfigError("the worker needs EDESK_DATABASE_URL and EDESK_REDIS_URL")
    configure(args.log_level, settings.log_format)
    from app import telemetry

    if telemetry.enabled():  # OTEL_EXPORTER_OTLP_ENDPOINT: spans per run and node
        telemetry.setup()
    asyncio.run(run_worker(settings))
    return EXIT_OK
