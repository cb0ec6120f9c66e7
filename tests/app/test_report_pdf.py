"""GET /v1/runs/{id}/report.pdf: the server renders the report; HTML in a transcript prints as
text; before the report exists it is a 409; without DejaVu the Latin-1 fallback still works."""

from __future__ import annotations

import re
import zlib
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from app.exports.pdf import report_pdf
from core.contract import Report
from tests.app.api_helpers import api, wait_status

TEXT = "Revenue grew 8.4% to $612 million. Guidance was raised. Margins held up."


def _pdf_text(pdf: bytes) -> str:
    """The text drawn on the pages (fpdf2 compresses page streams with zlib)."""
    out = []
    for m in re.finditer(rb"stream\r?\n(.*?)\r?\nendstream", pdf, re.S):
        try:
            out.append(zlib.decompress(m.group(1)).decode("latin-1"))
        except zlib.error:
            continue
    return "\n".join(out)


def test_report_pdf_endpoint(tmp_path: Path) -> None:
    with api(tmp_path, latency=0.2) as client:
        created = client.post("/v1/runs", json={"transcript": TEXT, "pipeline": "zero_shot"}).json()
        early = client.get(created["links"]["report_pdf"])
        assert early.status_code == 409 and "no report" in early.json()["detail"]
        wait_status(client, created["id"], {"succeeded", "degraded"})
        resp = client.get(created["links"]["report_pdf"])
        assert client.get("/v1/runs/nope/report.pdf").status_code == 404
    assert resp.status_code == 200 and resp.headers["content-type"] == "application/pdf"
    assert "attachment" in resp.headers["content-disposition"]
    assert resp.content.startswith(b"%PDF-") and len(resp.content) > 1000


def _report(markdown: str) -> Report:
    return Report(
        pipeline="zero_shot", status="degraded", created_at=datetime.now(UTC),
        transcript_sha256="0" * 64, markdown=markdown,
        failures=[{"node": "synthesize", "reason": "test"}],  # type: ignore[list-item]
    )  # fmt: skip


def test_html_in_the_report_is_printed_not_interpreted(tmp_path: Path) -> None:
    md = "# Title\n\n<b>bold?</b> <script>alert(1)</script>\n\n| a | b |\n|---|---|\n| 1 | 2 |"
    pdf = report_pdf(_report(md), font_dir=tmp_path)  # no fonts there: core font fallback
    text = _pdf_text(pdf)
    assert "<script>alert" in text and "</script>" in text and "<b>bold?</b>" in text
    assert pdf.startswith(b"%PDF-")


def test_non_latin_text_falls_back_without_error(tmp_path: Path) -> None:
    pdf = report_pdf(_report("Résumé: guidance → up, 收入 增长"), font_dir=tmp_path)
    assert "Résumé" in _pdf_text(pdf)


def test_formatting_in_table_cells_and_images(tmp_path: Path) -> None:
    """fpdf2 lays out plain text in cells only (a `code` span in a cell was a 500), and a
    Markdown image must never make the server open a path or URL."""
    secret = tmp_path / "secret.png"
    md = (
        "| Horizon | Rationale |\n|---|---|\n"
        "| `1d` | **Beat** on `EPS` and [guidance](https://example.com) |\n\n"
        f"![a chart]({secret}) and ![remote](http://10.0.0.1/x.png)\n"
    )
    from PIL import Image

    Image.new("RGB", (8, 8), "red").save(secret)  # a real image the renderer could embed
    opened: list[str] = []
    real_open = Image.open

    def spy(fp: Any, *a: Any, **kw: Any) -> Any:
        opened.append(str(fp))
        return real_open(fp, *a, **kw)

    import socket

    def no_network(*a: Any, **kw: Any) -> Any:
        raise AssertionError(f"the PDF renderer opened a connection: {a}")

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Image, "open", spy)
        mp.setattr(socket, "create_connection", no_network)
        mp.setattr(socket.socket, "connect", no_network)
        pdf = report_pdf(_report(md), font_dir=tmp_path)
    text = _pdf_text(pdf)
    assert "Beat on EPS and guidance" in text and "a chart" in text and "remote" in text
    assert b"/Subtype /Image" not in pdf and not opened  # the alt text, never the image


def test_layout_refusal_prints_the_source(tmp_path: Path, monkeypatch: Any) -> None:
    import app.exports.pdf

    def refuse(markdown: str) -> str:
        raise NotImplementedError("unsupported")

    monkeypatch.setattr(app.exports.pdf, "_html", refuse)
    text = _pdf_text(report_pdf(_report("# Title\n\n| a |\n|---|\n| `x` |"), font_dir=tmp_path))
    assert "# Title" in text and "| `x` |" in text


def test_the_appendix_prints_after_the_report_under_its_own_heading(tmp_path: Path) -> None:
    report = _report("# Title\n\n## Key Financial and Strategic Highlights\nMODEL-TEXT")
    report = report.model_copy(update={"appendix": "**Key figures**\n\nCODE-FACTS"})
    text = _pdf_text(report_pdf(report, font_dir=tmp_path))
    assert text.index("MODEL-TEXT") < text.index("Written by code") < text.index("CODE-FACTS")
    assert "Written by code" not in _pdf_text(report_pdf(_report("# Title"), font_dir=tmp_path))
