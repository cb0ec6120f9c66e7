"""`earnings-desk`: analyze a transcript, keep and read a company's calls, evaluate pipelines over
a folder of calls, backtest, list pipelines, print a pipeline's graph, serve the API and the web
page.

Exit codes: 0 succeeded, 1 run failed, 2 bad input or settings, 3 report degraded (written, but
a node's output could not be parsed; see the report's failures).

This module only builds the parser and dispatches: the commands (`app.cli.commands` and its
siblings) are imported once the arguments are read, so `--help` and `--version` answer without
loading the models' libraries.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import get_args

from app.cli.companies import add_parsers as add_company_parsers
from app.cli.options import add_flags, int_within
from app.cli.runs import add_parser as add_runs_parser
from app.evaluation.args import add_parser as add_eval_parser
from app.market import MarketSource
from core.options import PIPELINE_NAMES

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_DEGRADED = 0, 1, 2, 3


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("earnings-desk")
    except PackageNotFoundError:  # a checkout run without installing
        return "(not installed)"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="earnings-desk", description=" ".join(__doc__.split("\n\n")[0].split())
    )
    parser.add_argument("--version", action="version", version=f"earnings-desk {_version()}")
    sub = parser.add_subparsers(dest="command", required=True)
    an = sub.add_parser("analyze", help="turn a transcript into report.md and report.json")
    an.add_argument(
        "path",
        help="the call: text or markdown (speaker lines or 'Speaker: text' lines), a PDF, a Word "
        "file, an HTML page saved from a transcript site, or - for standard input",
    )
    an.add_argument("--pipeline", default="findebate", choices=list(PIPELINE_NAMES))
    an.add_argument("--company")
    an.add_argument("--ticker")
    an.add_argument("--period")
    an.add_argument("--out", help="output folder (default reports/<transcript>/<pipeline>)")
    an.add_argument(
        "--financials",
        metavar="FILE",
        help="quarterly statements, JSON (Alpha Vantage layout) or CSV",
    )
    an.add_argument(
        "--prices",
        metavar="FILE",
        help="daily OHLCV before the call, JSON or CSV (symbol column optional)",
    )
    an.add_argument("--benchmark", default="SPY", help="benchmark symbol in --prices (SPY)")
    an.add_argument(
        "--fetch",
        action="store_true",
        help="fetch statements, prices and EPS consensus for --ticker (needs --call-date): "
        "from Alpha Vantage (EDESK_ALPHAVANTAGE_API_KEY) or keyless (SEC EDGAR statements, "
        "Stooq prices; EDESK_SEC_USER_AGENT), see --source",
    )
    an.add_argument(
        "--source",
        choices=get_args(MarketSource),
        default=None,
        help="where --fetch gets market data (default EDESK_MARKET_SOURCE, auto: Alpha Vantage "
        "with a key, else keyless)",
    )
    an.add_argument("--call-date", metavar="YYYY-MM-DD", help="the call's date (for --fetch)")
    add_flags(an)
    sub.add_parser("pipelines", help="list pipelines and their nodes").add_argument(
        "--json", action="store_true"
    )
    add_eval_parser(sub)
    add_company_parsers(sub)
    add_runs_parser(sub)
    bt = sub.add_parser(
        "backtest",
        help="judge an evaluation's recommendations against the prices after each call",
        description="Event-window returns (1 day, 5 and 21 trading days) after each call, raw "
        "and in excess of a benchmark; per model, pipeline and horizon: hit rate, conviction-"
        "weighted excess return, LONG vs SHORT returns, Brier score, calibration.",
    )
    bt.add_argument("eval_out", help="an `earnings-desk eval` output folder (holds reports/)")
    bt.add_argument("--prices", required=True, metavar="DIR", help="TICKER.csv / TICKER.json files")
    bt.add_argument(
        "--calls", required=True, metavar="FILE",
        help="call dates: CSV id,ticker,date or a manifest.json with call_date per item",
    )  # fmt: skip
    bt.add_argument("--benchmark", default="SPY", help="benchmark ticker in --prices (SPY)")
    bt.add_argument(
        "--fetch",
        action="store_true",
        help="first fetch the daily prices --prices lacks (each call's ticker and the "
        "benchmark) into it: from Alpha Vantage (EDESK_ALPHAVANTAGE_API_KEY) or keyless from "
        "Stooq, see --source",
    )
    bt.add_argument(
        "--source",
        choices=get_args(MarketSource),
        default=None,
        help="where --fetch gets prices (default EDESK_MARKET_SOURCE, auto: Alpha Vantage "
        "with a key, else Stooq)",
    )
    bt.add_argument("--out", help="output folder (default EVAL_OUT/backtest)")
    gr = sub.add_parser("graph", help="print a pipeline's graph as mermaid")
    gr.add_argument("name", choices=list(PIPELINE_NAMES))
    sv = sub.add_parser("serve", help="run the HTTP API (OpenAPI docs at /docs)")
    sv.add_argument("--host", default="127.0.0.1")
    sv.add_argument("--port", type=int_within(1, 65535), default=8000, help="1-65535 (8000)")
    sv.add_argument("--log-level", default="info", choices=["debug", "info", "warning", "error"])
    wk = sub.add_parser(
        "worker",
        help="execute queued runs (needs EDESK_DATABASE_URL and EDESK_REDIS_URL; start many)",
    )
    wk.add_argument("--log-level", default="info", choices=["debug", "info", "warning", "error"])
    wk.add_argument(
        "--alive",
        action="store_true",
        help="health check: exit 0 if a worker with these settings is alive, else 1",
    )
    for choice in sub._choices_actions:  # each command's --help opens with its summary
        command = sub.choices[choice.dest]
        if command.description is None:
            command.description = choice.help

    return parser


def _warn_unknown_settings(err: object) -> None:
    """An EDESK_ variable that is no setting (a typo: EDESK_PROVIDR) would be ignored: say so,
    with the nearest setting's name."""
    import difflib
    import os

    from app.settings import Settings

    known = {f"EDESK_{name.upper()}" for name in Settings.model_fields} | {
        "EDESK_CHROMIUM",
        "EDESK_FUZZ_EXAMPLES",
        "EDESK_FUZZ_SEED",
    }  # the test tools' own
    for var in sorted(v for v in os.environ if v.startswith("EDESK_") and v not in known):
        near = difflib.get_close_matches(var, sorted(known), n=1)
        hint = f" (did you mean {near[0]}?)" if near else ""
        err.print(f"[yellow]warning:[/] {var} is not an Earnings Desk setting and is ignored{hint}",  # type: ignore[attr-defined]
                  highlight=False)  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    try:
        return _main(argv)
    except BrokenPipeError:  # `earnings-desk pipelines --json | head`: the reader stopped
        import os

        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # no second error when Python flushes at exit
        return EXIT_OK


def _main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)  # --help and --version end here, before the imports
    from pydantic import ValidationError
    from rich.console import Console

    from app.cli.commands import (
        UsageError,
        _analyze,
        flow,
        mermaid,
        node_names,
        run_backtest,
        serve,
        worker,
    )
    from app.cli.companies import CompaniesUsageError, run_history, run_ingest
    from app.cli.runs import RunsUsageError, run_runs
    from app.evaluation.cli import EvalUsageError, run_eval_cli
    from app.llm.factory import ConfigError, check_roles
    from app.llm.local import LocalModelError
    from app.settings import Settings, describe_settings_error, describe_settings_source_error
    from graphs import PIPELINES

    console = Console(soft_wrap=True, emoji=False)
    _warn_unknown_settings(Console(stderr=True, soft_wrap=True, emoji=False))
    err = Console(stderr=True, soft_wrap=True, emoji=False)
    if args.command == "pipelines":
        listing = {
            name: {"summary": spec.summary, "nodes": node_names(name), "flow": flow(name)}
            for name, spec in PIPELINES.items()
        }
        if args.json:
            print(json.dumps(listing, indent=2))
        else:
            for name, info in listing.items():
                console.print(f"[bold]{name}[/]: {info['summary']}", highlight=False)
                for line in info["flow"]:
                    console.print(f"    {line}", highlight=False, markup=False)
            console.print("(-> always, ?-> routed at run time; mermaid: earnings-desk graph NAME)")
        return EXIT_OK
    if args.command == "graph":
        print(mermaid(args.name))
        return EXIT_OK
    if args.command == "backtest":
        return run_backtest(args, console, err)
    from pydantic_settings import SettingsError

    try:
        settings = Settings()
        check_roles(settings)  # the roles a setting names are the nodes' (before any start-up)
    except SettingsError as exc:  # a JSON setting that is not JSON
        err.print("[red]error:[/] invalid EDESK_ settings:")
        err.print(describe_settings_source_error(exc), highlight=False, markup=False)
        return EXIT_USAGE
    except ValidationError as exc:
        err.print("[red]error:[/] invalid EDESK_ settings:")
        err.print(describe_settings_error(exc), highlight=False, markup=False)
        return EXIT_USAGE
    except ConfigError as exc:
        err.print(f"[red]error:[/] {exc}", highlight=False)
        return EXIT_USAGE
    if args.command in ("serve", "worker"):
        try:
            return serve(args, settings) if args.command == "serve" else worker(args, settings)
        except (ConfigError, LocalModelError, ValueError) as exc:
            err.print(f"[red]error:[/] {exc}", highlight=False)
            return EXIT_USAGE
    try:
        if args.command == "eval":
            return asyncio.run(run_eval_cli(args, settings, console))
        if args.command == "ingest":
            return asyncio.run(run_ingest(args, settings, console))
        if args.command == "history":
            return asyncio.run(run_history(args, settings, console))
        if args.command == "runs":
            return asyncio.run(run_runs(args, settings, console))
        return asyncio.run(_analyze(args, settings, console))
    except (UsageError, EvalUsageError, CompaniesUsageError, RunsUsageError, ConfigError,
            LocalModelError) as exc:  # fmt: skip
        err.print(f"[red]error:[/] {exc}", highlight=False)
        return EXIT_USAGE
    except KeyboardInterrupt:
        err.print(
            "interrupted"
            + ("; run the same command again to resume" if args.command == "eval" else "")
        )
        return 130


if __name__ == "__main__":
    sys.exit(main())
