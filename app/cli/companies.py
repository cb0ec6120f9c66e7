"""`earnings-desk ingest DIR` and `earnings-desk history TICKER` (issue 40): a folder of past
calls read into the local store (call facts only, no model), and one company's stored calls
with the track record of its newest, as a table in the terminal. The CLI's store is the data
folder's (EDESK_DATA_DIR, or EDESK_DATABASE_URL), without an API key: what `serve` without keys
and `analyze` read and add to."""

from __future__ import annotations

import argparse
import json
import re
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the commands import what they run when they run (a light `--help`)
    from rich.console import Console

    from app.settings import Settings
    from app.storage import Store

# ECTSum's file names: TICKER_qN_YYYY (the call's fiscal quarter), read when nothing else says
_ECTSUM_NAME = re.compile(r"^(?P<ticker>[A-Z][A-Z.]{0,9})_q(?P<q>[1-4])_(?P<year>\d{4})$")


class CompaniesUsageError(Exception):
    """A bad folder, ticker or flag: the CLI prints it and exits 2."""


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    ing = sub.add_parser(
        "ingest",
        help="read a folder of past calls into the local store (call facts only, no model)",
        description="Read every ID.txt / ID.full.md of DIR (the eval folder layout) into the "
        "local store, under its company, for later calls' track records. Identity: --ticker / "
        "--company / --period over the folder's manifest.json (ticker, company, fiscal_period) "
        "over an ECTSum file name (TICKER_qN_YYYY) over what the call's text states. A call "
        "whose period cannot be placed is skipped; one with no company is stored unlinked.",
    )
    ing.add_argument("dir", help="a folder of transcripts (ID.txt or ID.full.md)")
    ing.add_argument("--ticker", help="every call's ticker (one company's folder)")
    ing.add_argument("--company", help="every call's company name")
    ing.add_argument("--period", help="the call's fiscal period (a folder of one call)")
    hist = sub.add_parser(
        "history", help="a company's stored calls and the track record of its newest"
    )
    hist.add_argument("ticker", help="the company's ticker (or its name, quoted)")
    hist.add_argument("--json", action="store_true", help="the calls and track record as JSON")


async def _store(settings: Settings) -> Store:
    from app.storage import Store

    return await Store.open(settings.database_url, settings.runs_path)


async def run_ingest(args: argparse.Namespace, settings: Settings, console: Console) -> int:
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    from app.evaluation.dataset import DatasetError, load_dataset
    from core.contract import CallInfo
    from core.facts import call_facts
    from core.memory import company_key, record_of
    from core.transcript import parse_transcript, transcript_sha256

    folder = Path(args.dir)
    try:
        items = load_dataset(folder, prefer="full")
    except DatasetError as exc:
        raise CompaniesUsageError(str(exc)) from None
    if args.period and len(items) > 1:
        raise CompaniesUsageError(
            f"--period names one call's period; {folder} holds {len(items)} calls (give each "
            "its fiscal_period in manifest.json instead)"
        )
    store = await _store(settings)
    stored = unlinked = 0
    skipped: list[str] = []
    started = time.perf_counter()
    try:
        columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                   TimeElapsedColumn())  # fmt: skip
        with Progress(*columns, console=console, transient=True) as progress:
            task = progress.add_task("ingest", total=len(items))
            for item in items:
                named = _ECTSUM_NAME.match(item.id)
                ticker = args.ticker or item.call.ticker or (named["ticker"] if named else None)
                period = args.period or item.call.period or (
                    f"Q{named['q']} {named['year']}" if named else None)  # fmt: skip
                company = args.company or item.call.company
                text = item.path.read_text(encoding="utf-8")
                facts = call_facts(parse_transcript(text), call=CallInfo(
                    company=company, ticker=ticker, period=period))  # fmt: skip
                record = record_of(item.id, facts, company=company, ticker=ticker, period=period)
                progress.advance(task)
                if record is None:
                    skipped.append(f"{item.id}: its fiscal period is not stated (give --period "
                                   "or fiscal_period in manifest.json)")  # fmt: skip
                    continue
                await store.save_call(None, record, source="ingest",
                                      transcript_sha=transcript_sha256(text))  # fmt: skip
                stored += 1
                unlinked += company_key(record.ticker, record.company) is None
    finally:
        await store.close()
    seconds = time.perf_counter() - started
    console.print(f"ingested {stored} call(s) from {folder} in {seconds:.1f} s"
                  + (f"; {unlinked} unlinked (no ticker or company read)" if unlinked else ""),
                  highlight=False)  # fmt: skip
    for line in skipped:
        console.print(f"[yellow]skipped[/] {line}", highlight=False)
    return 0 if stored else 1


async def run_history(args: argparse.Namespace, settings: Settings, console: Console) -> int:
    from rich.table import Table

    from app.service.companies import AmbiguousCompany, find_company
    from core.memory import company_key, track_record_markdown

    if company_key(args.ticker, None) is None and company_key(None, args.ticker) is None:
        raise CompaniesUsageError(f"{args.ticker!r}: give a ticker or a company name")
    store = await _store(settings)
    try:
        found = await find_company(store, None, args.ticker)
    except AmbiguousCompany as exc:
        raise CompaniesUsageError(str(exc)) from None
    finally:
        await store.close()
    if found is None:
        missing = (f"no stored call of {args.ticker} (earnings-desk ingest DIR, or analyze "
                   "with --ticker, keeps calls)")  # fmt: skip
        if args.json:  # still JSON on standard output, for a script reading it
            print(json.dumps({"company": None, "error": missing, "calls": []}, indent=2))
        else:
            console.print(missing, highlight=False)
        return 1
    newest = {r.call_id for r in found.current}
    if args.json:
        print(json.dumps({
            "company": found.key,
            "calls": [{"id": c.id, "period": c.period, "company": c.company, "ticker": c.ticker,
                       "source": c.source, "run_id": c.run_id,
                       "stored_at": c.created_at.isoformat(),
                       "superseded": c.record.call_id not in newest} for c in found.calls],
            "track_record": found.track_record.model_dump() if found.track_record else None,
        }, indent=2))  # fmt: skip
        return 0
    shown = (found.key.removeprefix("T:") if found.key.startswith("T:")
             else found.calls[-1].company or args.ticker)  # as stored, not as typed  # fmt: skip
    table = Table(title=f"{shown}: {len(found.calls)} stored call(s)")
    for col in ("period", "stored", "source", "run", "read as"):
        table.add_column(col)
    for c in sorted(found.calls, key=lambda c: (c.record.order, c.created_at)):
        superseded = "" if c.record.call_id in newest else " (superseded)"
        table.add_row(c.period + superseded, c.created_at.strftime("%Y-%m-%d %H:%M"), c.source,
                      c.run_id or "", " ".join(dict.fromkeys(x for x in (c.company, c.ticker)
                                                             if x)))  # fmt: skip
    console.print(table)
    if found.track_record is not None:
        console.print(track_record_markdown(found.track_record), markup=False, highlight=False)
    else:
        console.print("one period stored: no track record yet", highlight=False)
    return 0
