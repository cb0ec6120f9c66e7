"""A report as tables analysts open: an .xlsx workbook (openpyxl) and the same sheets as CSV
files in a zip. Sheets: Recommendations, Key figures and Guidance (when the call facts have
them: each row with its role, basis, segment, unit, the change and prior figure stated with it,
and its quote), Unconfirmed (rows read by rules that have not earned "verified", each naming
them), Grounded figures (each with the passage that states it), Trace (per node)."""

from __future__ import annotations

import io
import zipfile
from typing import Any

from app.exports import csv_cells
from core.contract import GuidanceItem, KeyFigure, Report, StatedFigure, without_bidi

Table = tuple[list[str], list[list[Any]]]

KEY_FIGURE_COLUMNS = [
    "metric", "label", "figure", "value", "unit", "role", "basis", "segment", "period",
    "change", "change value", "change unit", "prior", "prior value", "prior period",
    "comparison", "quote", "speaker", "section", "start", "end",
]  # fmt: skip
GUIDANCE_COLUMNS = [
    "metric", "label", "figure", "low", "high", "unit", "role", "basis", "segment",
    "qualitative", "period", "direction", "quote", "speaker", "section", "start", "end",
]  # fmt: skip


def _stated(figure: StatedFigure | None) -> list[Any]:
    """A change or prior figure stated with a key figure: its text and signed value."""
    return ["", None] if figure is None else [figure.text, figure.value]


def _key_figure_row(k: KeyFigure) -> list[Any]:
    change = [*_stated(k.change), k.change.unit if k.change else ""]
    prior = [*_stated(k.prior), (k.prior.period or "") if k.prior else ""]
    return [k.metric, k.label, k.text, k.value, k.unit, k.role, k.basis or "", k.segment or "",
            k.period or "", *change, *prior, k.comparison or "", k.sentence, k.speaker or "",
            k.section, k.start, k.end]  # fmt: skip


def _guidance_row(g: GuidanceItem) -> list[Any]:
    return [g.metric, g.label, g.text, g.low, g.high, g.unit, g.role, g.basis or "",
            g.segment or "", g.qualitative, g.period or "", g.direction or "",
            g.sentence, g.speaker or "", g.section, g.start, g.end]  # fmt: skip


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
        rows = [_key_figure_row(k) for k in facts.key_figures]
        out["Key figures"] = (list(KEY_FIGURE_COLUMNS), rows)
    if facts is not None and facts.guidance:
        out["Guidance"] = (list(GUIDANCE_COLUMNS), [_guidance_row(g) for g in facts.guidance])
    if facts is not None and (facts.unconfirmed_key_figures or facts.unconfirmed_guidance):
        # read by code with a rule that has not earned "verified": apart, with those rules
        out["Unconfirmed"] = (
            ["kind", "metric", "label", "figure", "period", "role", "basis", "segment",
             "direction", "unconfirmed rules", "quote", "start", "end"],
            [["key figure", k.metric, k.label, k.text, k.period or "", k.role, k.basis or "",
              k.segment or "", "", "; ".join(k.weak_rules), k.sentence, k.start, k.end]
             for k in facts.unconfirmed_key_figures]
            + [["guidance", g.metric, g.label, g.text, g.period or "", g.role, g.basis or "",
                g.segment or "", g.direction or "", "; ".join(g.weak_rules), g.sentence,
                g.start, g.end] for g in facts.unconfirmed_guidance],
        )  # fmt: skip
    out["Grounded figures"] = (
        ["figure", "value", "kind", "grounded", "origin", "provenance", "source figure",
         "passage", "flagged"],
        [[n.text, n.value, n.kind, n.grounded, n.origin, n.provenance or "",
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
            # bidirectional controls would display a quote reversed: removed from every cell
            ws.append([without_bidi(v) if isinstance(v, str) else v for v in row])
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
            w = csv_cells.Writer(text)
            w.writerow(header)
            w.writerows(rows)
            zf.writestr(f"{name.lower().replace(' ', '_')}.csv", text.getvalue())
    return buf.getvalue()
