"""An evaluation folder in the ECTSum layout: `ID.txt` and/or `ID.full.md` transcripts, optional
`ID.summary.txt` gold bullets, optional `manifest.json` (company, ticker, period, stock_labels)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from core.contract import CallInfo

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
            )
        )
    return out
