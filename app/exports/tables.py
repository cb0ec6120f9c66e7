"""A report as tables analysts open: an .xlsx workbook (openpyxl) and the same sheets as CSV
files in a zip. Sheets: Recommendations, Key figures and Guidance (when the call facts have
them), Grounded figures (each with the passage that states it), Trace (per node)."""

from __future__ import annotations

import csv
import io
import zipfile
from typing import Any

from core.contract import Report

Table = tuple[list[str], list[list[Any]]]


def sheets(report: Report) -> dict[str, Table]:
    """Sheet name -> (header, rows), in workbook order; empty sheets are left out."""
    out: dict[str, Table] = {
        "Recommendations": (
            ["horizon", "position", "conviction", "rationale", "catalysts"],
            [
                [
                    r.horizon.value,
                    r.position.value,
                    r.conviction,
                    r.rationale,
                    "; ".join(r.catalysts),
                ]
                for r in report.recommendations
            ],
        ),  # fmt: skip
    }
    facts = report.facts
    if facts is not None and facts.key_figures:
        out["Key figures"] = (
            ["metric", "label", "figure", "value", "kind", "period", "comparison", "speaker",
             "section", "start", "end"],
            [[k.metric, k.label, k.text, k.value, k.kind, k.period or "", k.comparison or "",
              k.speaker or "", k.section, k.start, k.end] for k in facts.key_figures],
        )  # fmt: skip
    if facts is not None and facts.guidance:
        out["Guidance"] = (
            ["metric", "label", "figure", "low", "high", "kind", "period", "direction", "speaker",
             "section", "start", "end"],
            [[g.metric, g.label, g.text, g.low, g.high, g.kind, g.period or "",
              g.direction or "", g.speaker or "", g.section, g.start, g.end]
             for g in facts.guidance],
        )  # fmt: skip
    out["Grounded figures"] = (
        ["figure", "value", "kind", "grounded", "source", "source figure", "passage", "flagged"],
        [[n.text, n.value, n.kind, n.grounded,
          {0: "transcript", 1: "financials"}.get(n.source_index or -1, "")
          if n.source_index is not None else "",
          n.source_text or "", n.context, n.flagged] for n in report.evidence.numbers],
    )  # fmt: skip
    out["Trace"] = (
        ["node", "started", "ms", "models", "calls", "cached", "prompt tokens",
         "completion tokens", "retries", "outcome", "detail"],
        [[t.node, t.started_at.isoformat(), t.duration_ms, ", ".join(t.models), t.calls,
          t.cached_calls, t.prompt_tokens, t.completion_tokens, t.retries, t.outcome,
          t.detail or ""] for t in report.trace],
    )  # fmt: skip
    return out


def _cell(value: Any) -> Any:
    """CSV text a spreadsheet shows as text: a leading = + - @ would be read as a formula."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value


def report_xlsx(report: Report) -> bytes:
    from openpyxl import Workbook
    from openpyxl.styles import Font

    wb = Workbook()
    wb.remove(wb.active)
    for name, (header, rows) in sheets(report).items():
        ws = wb.create_sheet(name)
        ws.append(header)
        for cell in ws[1]:
            cell.font = Font(bold=True)
        for row in rows:
            ws.append(row)
            for cell in ws[ws.max_row]:
                if isinstance(cell.value, str) and cell.value.startswith("="):
                    cell.data_type = "s"  # text from a call or a model, never a formula
        ws.freeze_panes = "A2"
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


def report_csv_zip(report: Report) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, (header, rows) in sheets(report).items():
            text = io.StringIO()
            w = csv.writer(text)
            w.writerow(header)
            w.writerows([[_cell(v) for v in row] for row in rows])
            zf.writestr(f"{name.lower().replace(' ', '_')}.csv", text.getvalue())
    return buf.getvalue()
