"""`earnings-desk runs`: the runs of the local store, the same store `serve` reads
(`EDESK_DATA_DIR/runs.sqlite`, or EDESK_DATABASE_URL), so a run made by `analyze` is found again
here, in the web page's History and at `/v1/runs`. A CLI run belongs to no API key: a server
without keys shows it to everyone; a server with keys shows it to no key (only `runs` here).

    earnings-desk runs [--pipeline P] [--status S] [--company TEXT] [--since YYYY-MM-DD]
    earnings-desk runs show ID
    earnings-desk runs export ID --format md|json|pdf|xlsx|csv [--out FILE]
    earnings-desk runs compare A B
"""

from __future__ import annotations

import argparse
import os
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.cli.options import int_within
from core.options import PIPELINE_NAMES

if TYPE_CHECKING:  # imported when a command runs (a light `--help`)
    from rich.console import Console

    from app.settings import Settings
    from app.storage import RunRecord, Store

FORMATS = ("md", "json", "pdf", "xlsx", "csv")


class RunsUsageError(Exception):
    """A bad id, format or filter: printed, exit 2."""


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    runs = sub.add_parser(
        "runs",
        help="list, show, export and compare the runs of the local store (analyze's and serve's)",
        description=(__doc__ or "").split("\n\n")[0],
    )
    runs.add_argument(
        "action", nargs="?", default="list", choices=("list", "show", "export", "compare"),
        help="list (the default), show ID, export ID, compare A B",
    )  # fmt: skip
    runs.add_argument("ids", nargs="*", help="a run id (or its first characters)")
    runs.add_argument("--pipeline", choices=list(PIPELINE_NAMES))
    runs.add_argument("--status", choices=("queued", "running", "succeeded", "degraded", "failed",
                                           "cancelled"))  # fmt: skip
    runs.add_argument("--company", help="runs whose call names this company or ticker")
    runs.add_argument("--since", help="runs created on or after this day (YYYY-MM-DD)")
    runs.add_argument("--limit", type=int_within(1), default=30,
                      help="list at most this many (30)")  # fmt: skip
    runs.add_argument("--format", choices=FORMATS, default=None,
                      help="export: the file's kind (default: what --out's name ends in, else "
                      "md; csv: the report's tables as CSV files, in a zip: report-ID12.csv.zip; "
                      "ID12: the id's first 12 characters)")  # fmt: skip
    runs.add_argument(
        "--out",
        help="export: the file to write, or a folder (one that exists, or a name ending in /) "
        "for the default name (default: report-ID12.EXT here)",
    )


def _call_name(r: RunRecord) -> str:
    call = r.call_named
    parts = [call.company, f"({call.ticker})" if call.ticker else None, call.period]
    return " ".join(p for p in parts if p) or "(call not named)"


async def _find(store: Store, prefix: str) -> RunRecord:
    found = await store.get(prefix)
    if found is not None:
        return found
    items, _ = await store.list_runs(owner=None, limit=200)
    matches = [r for r in items if r.id.startswith(prefix)]
    if len(matches) == 1:
        full = await store.get(matches[0].id)
        assert full is not None
        return full
    if not matches:
        raise RunsUsageError(
            f"no run {prefix!r} in the local store (earnings-desk runs lists them)"
        )
    raise RunsUsageError(f"{prefix!r} names {len(matches)} runs: give more of its id")


async def run_runs(args: argparse.Namespace, settings: Settings, console: Console) -> int:
    from app.storage import Store

    store = await Store.open(settings.database_url, settings.runs_path)
    try:
        if args.action == "list":
            if args.ids:  # "runs list 4184": an id the list would ignore
                raise RunsUsageError(
                    f"runs list takes no run id (got {' '.join(args.ids)}): "
                    f"runs show {args.ids[0]} shows one"
                )
            return await _list(store, args, console)
        if args.action in ("show", "export") and len(args.ids) != 1:
            raise RunsUsageError(f"runs {args.action} takes one run id")
        if args.action == "show":
            return _show(await _find(store, args.ids[0]), console)
        if args.action == "export":
            return _export(await _find(store, args.ids[0]), args, console)
        if len(args.ids) != 2:
            raise RunsUsageError("runs compare takes two run ids")
        a, b = [await _find(store, i) for i in args.ids]
        return _compare(a, b, console)
    finally:
        await store.close()


async def _list(store: Store, args: argparse.Namespace, console: Console) -> int:
    from rich.table import Table

    since = None
    if args.since:
        try:
            since = datetime.combine(date.fromisoformat(args.since), datetime.min.time(), UTC)
        except ValueError:
            raise RunsUsageError(f"--since {args.since!r}: not a YYYY-MM-DD date") from None
    items, _ = await store.list_runs(owner=None, status=args.status, pipeline=args.pipeline,
                                     limit=1000)  # fmt: skip
    _, stored = await store.list_runs(owner=None, limit=1)
    matching = [
        r
        for r in items
        if (since is None or r.created_at >= since)
        and (not args.company or args.company.lower() in _call_name(r).lower())
    ]
    rows = matching[: args.limit]
    filtered = any((args.status, args.pipeline, args.company, since))
    if not stored:
        console.print("no runs in the local store yet (`earnings-desk analyze` and `serve` keep "
                      "every run there)", highlight=False)  # fmt: skip
        return 0
    if not matching:
        console.print(f"no run matches ({stored} in the local store)", highlight=False)
        return 0
    title = f"{len(rows)} of {len(matching)} run(s)" + (" matching" if filtered else "")
    table = Table(title=f"{title}; {stored} in the local store")
    for col in ("id", "call", "pipeline", "status", "created", "tokens"):
        table.add_column(col)
    for r in rows:
        table.add_row(r.id[:12], _call_name(r), r.pipeline, r.status,
                      r.created_at.strftime("%Y-%m-%d %H:%M"),
                      f"{r.prompt_tokens + r.completion_tokens:,}")  # fmt: skip
    console.print(table)
    return 0


def _show(r: RunRecord, console: Console) -> int:
    console.print(f"[bold]{r.id}[/] {_call_name(r)}: {r.pipeline}, {r.status}", highlight=False)
    console.print(f"created {r.created_at:%Y-%m-%d %H:%M}; tokens "
                  f"{r.prompt_tokens + r.completion_tokens:,}", highlight=False)  # fmt: skip
    if r.error:
        console.print(f"[red]error[/] at {r.failed_node or '?'}: {r.error}", highlight=False)
    if r.report is not None:
        for rec in r.report.recommendations:
            console.print(f"  {rec.horizon.value}: {rec.position.value} {rec.conviction}%",
                          highlight=False)  # fmt: skip
        console.print("export: earnings-desk runs export "
                      f"{r.id[:12]} --format md|json|pdf|xlsx|csv", highlight=False)  # fmt: skip
    return 0


_SUFFIX_FORMATS = {".md": "md", ".json": "json", ".pdf": "pdf", ".xlsx": "xlsx", ".zip": "csv"}


def _export_format(args: argparse.Namespace) -> str:
    """--format, else the kind --out's name ends in (report.json: json), else md; a --format
    that contradicts --out's ending is refused rather than written under the wrong name."""
    named = _SUFFIX_FORMATS.get(Path(args.out).suffix.lower()) if args.out else None
    if args.format and named and args.format != named:
        raise RunsUsageError(f"--format {args.format} and --out {args.out}: the name says {named}")
    return str(args.format or named or "md")


def _export(r: RunRecord, args: argparse.Namespace, console: Console) -> int:
    if r.report is None:
        raise RunsUsageError(f"run {r.id} has no report ({r.status})")
    fmt = _export_format(args)
    default = Path(f"report-{r.id[:12]}.{fmt}" + (".zip" if fmt == "csv" else ""))
    out = Path(args.out) if args.out else default
    if out.is_dir() or (args.out and args.out.endswith(("/", os.sep))):
        out = out / default.name  # a folder (one named with a trailing /: made): the default name
    out.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "md":
        out.write_text(r.report.markdown + "\n", encoding="utf-8")
    elif fmt == "json":
        out.write_text(r.report.model_dump_json(indent=2) + "\n", encoding="utf-8")
    elif fmt == "pdf":
        from app.exports.pdf import report_pdf

        out.write_bytes(report_pdf(r.report))
    elif fmt == "xlsx":
        from app.exports.tables import report_xlsx

        out.write_bytes(report_xlsx(r.report))
    else:  # csv: one file a table, zipped (the API's report.csv.zip)
        from app.exports.tables import report_csv_zip

        out.write_bytes(report_csv_zip(r.report))
    console.print(f"wrote {out}", highlight=False)
    return 0


def _compare(a: RunRecord, b: RunRecord, console: Console) -> int:
    from rich.table import Table

    if a.report is None or b.report is None:
        raise RunsUsageError("both runs need a report to compare")
    if a.report.transcript_sha256 != b.report.transcript_sha256:
        console.print("[yellow]note:[/] the two runs read different calls", highlight=False)
    by: dict[str, dict[str, Any]] = {}
    for side, r in (("a", a), ("b", b)):
        for rec in r.report.recommendations if r.report else []:
            by.setdefault(rec.horizon.value, {})[side] = rec
    table = Table(title=f"{a.id[:12]} ({a.pipeline}) against {b.id[:12]} ({b.pipeline})")
    for col in ("horizon", "a", "b", ""):
        table.add_column(col)
    for horizon in ("1d", "1w", "1m"):
        pair = by.get(horizon, {})
        x, y = pair.get("a"), pair.get("b")
        cells = [f"{r.position.value} {r.conviction}%" if r else "-" for r in (x, y)]
        differs = bool(x and y and x.position != y.position)
        table.add_row(horizon, *cells, "[red]differ[/]" if differs else "")
    console.print(table)
    return 0


def stored_record(
    run_id: str, pipeline: str, input_: Any, outcome: Any, started: datetime
) -> RunRecord:
    """The finished CLI run as the store keeps a run (no key)."""
    from app.storage import RunRecord
    from app.storage.records import now

    report = outcome.report
    tokens = report.tokens if report is not None else {}
    return RunRecord(
        id=run_id, pipeline=pipeline, status=outcome.status, owner=None, created_at=started,
        started_at=started, finished_at=now(), input=input_, report=report,
        error=outcome.error, failed_node=outcome.failed_node, reason=outcome.reason,
        prompt_tokens=int(tokens.get("prompt", 0)),
        completion_tokens=int(tokens.get("completion", 0)),
    )  # fmt: skip
