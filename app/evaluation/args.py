"""The `eval` command's arguments, apart from the command (`app.evaluation.cli`), so the CLI
builds its parser without importing what an evaluation runs."""

from __future__ import annotations

from typing import Any, get_args

from app.market import MarketSource


def add_parser(sub: Any) -> None:
    ev = sub.add_parser(
        "eval",
        help="run pipelines over a folder of calls; metrics, tables and a chart",
        description="Runs every (call, pipeline) pair, scores each report, writes per-report "
        "JSON, summary.csv/.md, per_report.csv and chart.png. Re-running the same command "
        "resumes: saved reports are reused, and model answers come from the LLM cache.",
    )
    ev.add_argument("dir", help="folder in the ECTSum layout (ID.txt / ID.full.md, summaries)")
    ev.add_argument(
        "--pipelines",
        default="facts,findebate,zero_shot,multi_agent",
        help="comma-separated; a variant is name@VALUE or name@key=value (adversarial@S1, "
        "writer_feedback@advanced_feedback, findebate@rounds=2): each is its own column",
    )
    ev.add_argument(
        "--models",
        help="comma-separated model specs: local, fake, openai:NAME (default: the settings')",
    )
    ev.add_argument("--judge", metavar="SPEC", help="judge model spec (no judge when omitted)")
    ev.add_argument(
        "--pairwise",
        metavar="X,Y",
        action="append",
        help="pipelines or variants to duel, from --pipelines; repeat for several pairs "
        "(default: the first two, with --judge)",
    )
    ev.add_argument("--concurrency", type=int, default=1, help="runs at once per model (1)")
    ev.add_argument("--out", default="reports/eval", help="output folder (reports/eval)")
    ev.add_argument("--ids", help="comma-separated call ids to evaluate (default: all)")
    ev.add_argument("--limit", type=int, help="evaluate the first N calls only")
    ev.add_argument(
        "--prefer", choices=["txt", "full"], default="txt", help="format when a call has both"
    )
    ev.add_argument("--no-cache", action="store_true", help="do not use the LLM response cache")
    ev.add_argument(
        "--prices", metavar="DIR",
        help="price files per ticker: the reports are then backtested (see `backtest`)",
    )  # fmt: skip
    ev.add_argument(
        "--calls", metavar="FILE",
        help="call dates for --prices: CSV id,ticker,date or manifest (DIR/manifest.json)",
    )  # fmt: skip
    ev.add_argument("--benchmark", default="SPY", help="benchmark ticker in --prices (SPY)")
    ev.add_argument(
        "--fetch", action="store_true",
        help="fill each call's statements and prices its folder lacks, for its manifest ticker "
        "and call_date (nothing from that day on): Alpha Vantage or keyless, see --source",
    )  # fmt: skip
    ev.add_argument(
        "--source", choices=get_args(MarketSource), default=None,
        help="where --fetch gets market data (default EDESK_MARKET_SOURCE)",
    )  # fmt: skip
    ev.add_argument(
        "--cache", metavar="FILE", help="LLM cache file (default <EDESK_DATA_DIR>/llm-cache.sqlite)"
    )
