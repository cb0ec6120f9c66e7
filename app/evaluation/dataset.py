"""An evaluation folder in the ECTSum layout: `ID.txt` and/or `ID.full.md` transcripts, optional
`ID.summary.txt` gold bullets, optional `manifest.json` (company, ticker, period, call_date,
stock_labels, financials, prices), and each call's data: `ID.financials.json|csv` and
`ID.prices.json|csv` beside its transcript, or the files its manifest entry names (paths inside
the folder). With a call date, nothing dated on or after it is used (`before_the_call`)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any, Literal

from core.contract import CallInfo
from core.inputs import (
    Financials,
    InputError,
    Prices,
    before_the_call,
    read_financials,
    read_prices,
)

Prefer = Literal["txt", "full"]


class DatasetError(ValueError):
    """The folder cannot be evaluated (missing, empty, unreadable manifest)."""


@dataclass(frozen=True)
class EvalItem:
    id: str
    path: Path
    summary: str | None = None
    labels: dict[str, Any] | None = None
    call: CallInfo = field(default_factory=CallInfo)
    financials: Financials | None = None
    prices: Prices | None = None
    call_date: date | None = None
    cut: tuple[str, ...] = ()  # what the call date cut from its data, said in the summary


def _data_file(folder: Path, cid: str, kind: str, named: object) -> Path | None:
    """The call's `kind` file: the one its manifest entry names (inside the folder), else
    `ID.kind.json` or `ID.kind.csv` beside the transcript."""
    if named is not None:
        if not isinstance(named, str) or not named.strip():
            raise DatasetError(f"manifest.json, {cid}: {kind} must be a file name in the folder")
        path = (folder / named).resolve()
        if not path.is_relative_to(folder.resolve()):
            raise DatasetError(f"manifest.json, {cid}: {kind} {named!r} is outside the folder")
        if not path.is_file():
            raise DatasetError(f"manifest.json, {cid}: {kind} file {named!r} not found")
        return path
    for ext in ("json", "csv"):
        path = folder / f"{cid}.{kind}.{ext}"
        if path.is_file():
            return path
    return None


def _call_data(
    folder: Path, cid: str, meta: dict[str, Any], ticker: str | None
) -> tuple[Financials | None, Prices | None, date | None, tuple[str, ...]]:
    """A call's statements and prices (files), cut at its call date; a clear error naming the
    call and the field for a file that cannot be read."""
    raw_date = meta.get("call_date")
    call_date = None
    if raw_date is not None:
        try:
            call_date = date.fromisoformat(str(raw_date))
        except ValueError:
            raise DatasetError(
                f"manifest.json, {cid}: call_date {raw_date!r} is not a YYYY-MM-DD date"
            ) from None
    loaded: dict[str, Any] = {}
    for kind in ("financials", "prices"):
        path = _data_file(folder, cid, kind, meta.get(kind))
        if path is None:
            loaded[kind] = None
            continue
        try:
            loaded[kind] = (
                read_financials(path) if kind == "financials" else read_prices(path, ticker=ticker)
            )
        except (InputError, ValueError) as exc:
            raise DatasetError(f"{path.name} ({cid}'s {kind}): {exc}") from None
    financials, prices = loaded["financials"], loaded["prices"]
    cut: tuple[str, ...] = ()
    if call_date is not None and (financials is not None or prices is not None):
        try:
            financials, prices = before_the_call(financials, prices, call_date)
        except InputError as exc:
            raise DatasetError(f"{cid}: data before its call_date {call_date}: {exc}") from None
        cut = tuple(x.cut for x in (financials, prices) if x is not None and x.cut)
    return financials, prices, call_date, cut


def load_dataset(
    folder: Path,
    *,
    prefer: Prefer = "txt",
    ids: list[str] | None = None,
    roots: list[Path] | None = None,
) -> list[EvalItem]:
    """One item per call id, sorted. When a call has both formats, `prefer` picks which: `txt`
    (ECTSum's text, the one its gold bullets were written from) or `full` (the full call with
    Q&A). With `roots` (a server's allowed folders), every file is resolved (links followed)
    and must stay inside them."""
    if not folder.is_dir():
        raise DatasetError(f"{folder}: not a folder")
    if roots is not None:
        for p in folder.iterdir():
            real = p.resolve()
            if not any(real.is_relative_to(r) for r in roots):
                raise DatasetError(
                    f"{p.name} links outside the folders this server allows (EDESK_EVAL_DIRS)"
                )
    manifest: dict[str, dict[str, Any]] = {}
    mpath = folder / "manifest.json"
    if mpath.is_file():
        try:
            data = json.loads(mpath.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise DatasetError(f"{mpath}: not valid JSON ({exc})") from None
        items = data.get("items", []) if isinstance(data, dict) else data
        manifest = {str(m["id"]): m for m in items if isinstance(m, dict) and "id" in m}
    found: dict[str, dict[str, Path]] = {}
    for p in folder.iterdir():
        if p.name.endswith(".summary.txt"):
            continue
        if p.name.endswith(".full.md"):
            found.setdefault(p.name.removesuffix(".full.md"), {})["full"] = p
        elif p.suffix == ".txt" and p.name not in ("README.txt", "LICENSE.txt"):
            found.setdefault(p.stem, {})["txt"] = p
    if ids:
        unknown = sorted(set(ids) - set(found))
        if unknown:
            raise DatasetError(f"{folder}: no transcript for id(s) {', '.join(unknown)}")
        found = {k: v for k, v in found.items() if k in ids}
    if not found:
        raise DatasetError(f"{folder}: no ID.txt or ID.full.md transcripts")
    out: list[EvalItem] = []
    for cid in sorted(found):
        files = found[cid]
        path = files.get(prefer) or next(iter(files.values()))
        summary_path = folder / f"{cid}.summary.txt"
        meta = manifest.get(cid, {})
        labels = meta.get("stock_labels")
        financials, prices, call_date, cut = _call_data(folder, cid, meta, meta.get("ticker"))
        out.append(
            EvalItem(
                id=cid,
                path=path,
                summary=summary_path.read_text(encoding="utf-8")
                if summary_path.is_file()
                else None,
                labels=labels if isinstance(labels, dict) else None,
                call=CallInfo(
                    company=meta.get("company"),
                    ticker=meta.get("ticker"),
                    period=meta.get("fiscal_period"),
                ),
                financials=financials,
                prices=prices,
                call_date=call_date,
                cut=cut,
            )
        )
    return out
