"""CSV as every file the product writes it (a report's tables, an evaluation's summary and
per-report rows, a backtest's): every cell quoted, so a `;` or `,` inside a cell never splits it
whatever separator a spreadsheet assumes, and text a spreadsheet would run as a formula (a
leading = + - @, tab or carriage return: OWASP's CSV injection) kept as text by a leading `'`.
Numbers stay numbers; a negative number written as text ("-5") is a number, not a formula."""

from __future__ import annotations

import csv
from collections.abc import Iterable, Sequence
from typing import IO, Any

from core.contract import without_bidi

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def cell(value: Any) -> Any:
    """A value as a CSV cell a spreadsheet shows as written (bidirectional controls, which
    would display it reversed, removed)."""
    if isinstance(value, str):
        value = without_bidi(value)
    if not isinstance(value, str) or not value.startswith(FORMULA_START):
        return value
    try:
        float(value)  # "-5", "+1.5": a number, shown as one
    except ValueError:
        return "'" + value
    return value


class Writer:
    """`csv.writer` with every cell quoted and guarded (`cell`)."""

    def __init__(self, fh: IO[str]) -> None:
        self._w = csv.writer(fh, quoting=csv.QUOTE_ALL)

    def writerow(self, row: Iterable[Any]) -> None:
        self._w.writerow([cell(v) for v in row])

    def writerows(self, rows: Iterable[Iterable[Any]]) -> None:
        for row in rows:
            self.writerow(row)


def write_dicts(fh: IO[str], rows: Sequence[dict[str, Any]]) -> None:
    """Dicts as CSV, the first row's keys as the header (nothing for no rows)."""
    if not rows:
        return
    w = Writer(fh)
    header = list(rows[0])
    w.writerow(header)
    w.writerows([row.get(k, "") for k in header] for row in rows)
