"""The report as a PDF, rendered by the server in pure Python (markdown-it -> HTML -> fpdf2).
The report's Markdown is rendered with raw HTML disabled, so anything a transcript smuggled into
the text prints as text. DejaVu Sans is used when installed (Debian `fonts-dejavu-core`, full
Unicode); otherwise the core Helvetica font, with characters outside Latin-1 replaced by `?`."""

from __future__ import annotations

from pathlib import Path

from fpdf import FPDF
from markdown_it import MarkdownIt

from core.contract import Report

DEJAVU = Path("/usr/share/fonts/truetype/dejavu")
_STYLES = {"": "DejaVuSans.ttf", "B": "DejaVuSans-Bold.ttf", "I": "DejaVuSans-Oblique.ttf",
           "BI": "DejaVuSans-BoldOblique.ttf"}  # fmt: skip


def _html(markdown: str) -> str:
    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    html: str = md.render(markdown)
    return html


def report_pdf(report: Report, *, font_dir: Path = DEJAVU) -> bytes:
    pdf = FPDF(format="A4")
    pdf.set_margins(18, 16, 18)
    pdf.set_auto_page_break(auto=True, margin=16)
    unicode_font = all((font_dir / f).is_file() for f in _STYLES.values())
    if unicode_font:
        for style, name in _STYLES.items():
            pdf.add_font("DejaVu", style, str(font_dir / name))
        family = "DejaVu"
    else:
        family = "Helvetica"
    pdf.set_title("Earnings Desk report")
    pdf.set_creator("Earnings Desk")
    pdf.add_page()
    pdf.set_font(family, size=10)
    html = _html(report.markdown)
    if not unicode_font:
        html = html.encode("latin-1", "replace").decode("latin-1")
    pdf.write_html(html, font_family=family)
    return bytes(pdf.output())
