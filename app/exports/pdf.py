"""The report as a PDF, rendered by the server in pure Python (markdown-it -> HTML -> fpdf2).
The report's Markdown is rendered with raw HTML disabled, so anything a transcript smuggled into
the text prints as text. DejaVu Sans is used when installed (Debian `fonts-dejavu-core`, full
Unicode); otherwise the core Helvetica font, with characters outside Latin-1 replaced by `?`.

fpdf2's HTML layout takes a subset of HTML, so the token stream is reduced to it first: table
cells hold plain text only (a `code` span inside a cell used to be a 500) and images print as
their alt text (never fetched: a report must not make the server read a path or a URL). Should
the layout still refuse, the report prints as its Markdown source rather than not at all."""

from __future__ import annotations

import logging
from pathlib import Path

from fpdf import FPDF
from fpdf.enums import WrapMode
from markdown_it import MarkdownIt
from markdown_it.token import Token

from core.contract import Report

DEJAVU = Path("/usr/share/fonts/truetype/dejavu")
_STYLES = {"": "DejaVuSans.ttf", "B": "DejaVuSans-Bold.ttf", "I": "DejaVuSans-Oblique.ttf",
           "BI": "DejaVuSans-BoldOblique.ttf"}  # fmt: skip


log = logging.getLogger(__name__)


def _plain(children: list[Token]) -> str:
    parts: list[str] = []
    for t in children:
        if t.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif t.type == "image":
            parts.append(t.content)  # the alt text
        else:
            parts.append(t.content)
    return " ".join("".join(parts).split())


def _html(markdown: str) -> str:
    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    tokens = md.parse(markdown)
    in_cell = False
    for tok in tokens:
        if tok.type in ("th_open", "td_open"):
            in_cell = True
        elif tok.type in ("th_close", "td_close"):
            in_cell = False
        elif tok.type == "inline" and tok.children:
            if in_cell:
                tok.children = [Token("text", "", 0, content=_plain(tok.children))]
            else:
                tok.children = [
                    Token("text", "", 0, content=c.content) if c.type == "image" else c
                    for c in tok.children
                ]
    html: str = md.renderer.render(tokens, md.options, {})
    return html


def _new_pdf(font_dir: Path) -> tuple[FPDF, str]:
    pdf = FPDF(format="A4")
    pdf.set_margins(18, 16, 18)
    pdf.set_auto_page_break(auto=True, margin=16)
    family = "Helvetica"
    if all((font_dir / f).is_file() for f in _STYLES.values()):
        for style, name in _STYLES.items():
            pdf.add_font("DejaVu", style, str(font_dir / name))
        family = "DejaVu"
    pdf.set_title("Earnings Desk report")
    pdf.set_creator("Earnings Desk")
    pdf.add_page()
    pdf.set_font(family, size=10)
    return pdf, family


APPENDIX_TITLE = "Written by code, outside the report's format"


def report_pdf(report: Report, *, font_dir: Path = DEJAVU) -> bytes:
    pdf, family = _new_pdf(font_dir)
    markdown = report.markdown
    if report.appendix:  # code's sections, kept apart from a paper's fixed format
        markdown += f"\n\n---\n\n## {APPENDIX_TITLE}\n\n{report.appendix}"
    if family == "Helvetica":
        markdown = markdown.encode("latin-1", "replace").decode("latin-1")
    try:
        pdf.write_html(_html(markdown), font_family=family)
    except Exception as exc:  # fpdf2's HTML subset refused something: print the source instead
        log.warning("PDF layout failed (%s: %s); printing the Markdown source", type(exc), exc)
        pdf, family = _new_pdf(font_dir)
        pdf.set_font(family, size=9)
        pdf.multi_cell(0, 4.5, markdown, wrapmode=WrapMode.CHAR)
    return bytes(pdf.output())
