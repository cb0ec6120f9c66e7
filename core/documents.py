"""Transcripts as analysts get them (issue 41): a PDF (its text layer, page by page, with the
lines every page repeats at its top or bottom and the page numbers removed), a Word file (its
paragraphs), an HTML page saved from a transcript site (its text, a line per block, scripts and
styles dropped), or UTF-8 text. Told apart by their first bytes, not their names. What cannot be
read says why: a scanned PDF with no text layer, an old binary .doc, a file of another kind."""

from __future__ import annotations

import io
import re
from collections import Counter
from html.parser import HTMLParser

from core.transcript import TranscriptError, decode_transcript

_PAGE_NUMBER = re.compile(r"^\s*(?:page\s+)?\d{1,4}(?:\s*(?:of|/)\s*\d{1,4})?\s*$", re.IGNORECASE)


def kind_of(data: bytes) -> str:
    """ "pdf", "docx", "xlsx", "pptx", "zip", "doc", "html" or "text", from the bytes."""
    head = data[:1024].lstrip()
    if head.startswith(b"%PDF-"):
        return "pdf"
    if head.startswith(b"PK\x03\x04"):
        return _zip_kind(data)
    if head.startswith(b"\xd0\xcf\x11\xe0"):
        return "doc"
    lowered = head[:512].lower()
    if lowered.startswith((b"<!doctype html", b"<html")) or b"<html" in lowered[:200]:
        return "html"
    return "text"


_OFFICE = {"word/": "docx", "xl/": "xlsx", "ppt/": "pptx"}


def _zip_kind(data: bytes) -> str:
    """A zip's kind from its members: a Word file, a spreadsheet, a presentation or a zip."""
    import io
    import zipfile

    try:
        names = zipfile.ZipFile(io.BytesIO(data)).namelist()
    except (zipfile.BadZipFile, ValueError):
        return "zip"
    for prefix, kind in _OFFICE.items():
        if any(n.startswith(prefix) for n in names):
            return kind
    return "zip"


def transcript_text(data: bytes, name: str = "the file", **bounds: int) -> str:
    """The call's text from a file's bytes, whatever its kind (see the module); TranscriptError
    naming the file and what to do otherwise. `bounds`: the text limits (max_bytes,
    max_lines), applied to the text read."""
    kind = kind_of(data)
    if kind == "pdf":
        text = pdf_text(data, name)
    elif kind == "docx":
        text = docx_text(data, name)
    elif kind == "doc":
        raise TranscriptError(f"{name} is an old binary Word file (.doc): save it as .docx, PDF "
                              "or text")  # fmt: skip
    elif kind in ("xlsx", "pptx"):
        what = "a spreadsheet (.xlsx)" if kind == "xlsx" else "a presentation (.pptx)"
        raise TranscriptError(f"{name} is {what}, not a transcript: save the call as PDF, Word "
                              "(.docx) or text")  # fmt: skip
    elif kind == "zip":
        raise TranscriptError(f"{name} is a zip archive, not a transcript: unpack it first")
    elif kind == "html":
        text = html_text(decode_transcript(data, **bounds))
    else:
        return decode_transcript(data, **bounds)
    return decode_transcript(text.encode("utf-8"), **bounds)


def pdf_text(data: bytes, name: str = "the PDF") -> str:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(io.BytesIO(data))
        pages = [(page.extract_text() or "") for page in reader.pages]
    except (PdfReadError, ValueError, KeyError, OSError) as exc:
        raise TranscriptError(f"{name}: not a readable PDF ({exc})") from None
    if not any(p.strip() for p in pages):
        raise TranscriptError(
            f"{name} is a PDF with no text layer (a scan, {len(pages)} page(s)): run OCR on it "
            "first, or paste the call's text"
        )
    return "\n".join(_without_running_lines(pages))


def _without_running_lines(pages: list[str]) -> list[str]:
    """Each page's lines without the page numbers and the lines that open or close most pages
    (the running header and footer)."""
    split = [[ln.rstrip() for ln in p.splitlines()] for p in pages]
    edges: Counter[str] = Counter()
    for lines in split:
        body = [ln.strip() for ln in lines if ln.strip()]
        edges.update({*body[:2], *body[-2:]})
    running = {ln for ln, n in edges.items() if len(pages) >= 2 and n >= 0.6 * len(pages)}
    out: list[str] = []
    for lines in split:
        kept = [ln for ln in lines if ln.strip() not in running and not _PAGE_NUMBER.match(ln)]
        out.append("\n".join(kept).strip("\n"))
    return out


def docx_text(data: bytes, name: str = "the Word file") -> str:
    import docx

    try:
        document = docx.Document(io.BytesIO(data))
    except Exception as exc:  # python-docx raises several kinds for a damaged file
        raise TranscriptError(f"{name}: not a readable Word file ({exc})") from None
    paragraphs = [p.text for p in document.paragraphs]
    if not any(p.strip() for p in paragraphs):
        raise TranscriptError(f"{name}: the Word file has no text")
    return "\n".join(paragraphs)


_BLOCK = {"p", "div", "br", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "section",
          "article", "blockquote", "dt", "dd", "table", "ul", "ol", "header", "footer"}  # fmt: skip
_SKIP = {"script", "style", "noscript", "template", "svg", "head", "nav"}


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skipping = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIP:
            self.skipping += 1
        elif tag in _BLOCK:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIP and self.skipping:
            self.skipping -= 1
        elif tag in _BLOCK:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.skipping:
            self.parts.append(data)


def html_text(html: str) -> str:
    """A saved web page's text: a line per block element, the speakers' lines kept as lines."""
    parser = _Text()
    parser.feed(html)
    parser.close()
    lines = [" ".join(ln.split()) for ln in "".join(parser.parts).splitlines()]
    return "\n".join(ln for ln in lines if ln)
