"""Transcripts as analysts get them (issue 41): PDF, Word, a saved web page, standard input, and
the "Speaker: text" layout; what cannot be read says why. The PDF and the Word file are written
by the tests (fpdf2, python-docx), never downloaded."""

from __future__ import annotations

import io
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

from core.documents import html_text, kind_of, transcript_text
from core.transcript import TranscriptError, layout_note, parse_transcript
from tests.conftest import REPO

CALL = [
    "Operator: Good morning and welcome to the Acme third quarter 2021 earnings call.",
    "Jane Doe -- Chief Executive Officer: Thank you. Revenue grew 8% to $612 million.",
    "CFO: Gross margin was 24.1%, down 60 basis points from a year ago.",
    "Question-and-Answer Session",
    "Operator: Our first question comes from John Smith with Big Bank.",
    "John Smith: Thanks. Can you talk about pricing in cold chain and the new hubs this year?",
    "Jane Doe -- Chief Executive Officer: Pricing is firm and utilisation reached 78% in June.",
    "John Smith: Thank you.",
]


def _pdf(pages: list[list[str]]) -> bytes:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_auto_page_break(auto=False)  # one page of the PDF a page of the call
    pdf.set_font("helvetica", size=10)
    for n, lines in enumerate(pages, 1):
        pdf.add_page()
        pdf.cell(0, 6, "Acme Corp Q3 2021 Earnings Call Transcript", new_x="LMARGIN", new_y="NEXT")
        for line in lines:
            pdf.multi_cell(0, 6, line, new_x="LMARGIN", new_y="NEXT")
        pdf.set_y(-15)
        pdf.cell(0, 6, f"Page {n} of {len(pages)}")
    return bytes(pdf.output())


def test_a_pdf_is_read_without_its_running_header_and_page_numbers() -> None:
    data = _pdf([CALL[:3], CALL[3:6], CALL[6:]])
    assert kind_of(data) == "pdf"
    text = transcript_text(data, "call.pdf")
    assert "Earnings Call Transcript" not in text and "Page 1 of 3" not in text
    t = parse_transcript(text)
    assert [x.speaker for x in t.turns][:3] == ["Operator", "Jane Doe (Chief Executive Officer)",
                                               "CFO"]  # fmt: skip
    assert any(x.speaker == "Analyst John Smith" and x.section == "Questions and Answers"
               for x in t.turns)  # fmt: skip


def test_a_two_page_pdf_loses_its_running_header_too() -> None:
    text = transcript_text(_pdf([CALL[:4], CALL[4:]]), "call.pdf")
    assert "Earnings Call Transcript" not in text and "Page 2 of 2" not in text
    assert len(parse_transcript(text).turns) == 7


def test_sections_with_no_speaker_say_the_layout_was_not_recognised() -> None:
    t = parse_transcript(
        "### Prepared remarks\nCEO\n: Revenue grew 8%.\n### Q&A\nAnalyst\n: How?\n"
    )
    assert "no speaker layout was recognised" in (layout_note(t) or "")


def test_a_scanned_pdf_says_it_has_no_text() -> None:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.rect(10, 10, 50, 50)  # a page with no text layer, as a scan has
    with pytest.raises(TranscriptError, match="no text layer"):
        transcript_text(bytes(pdf.output()), "scan.pdf")


def test_a_word_file_is_read_by_paragraph() -> None:
    import docx

    document = docx.Document()
    for line in CALL:
        document.add_paragraph(line)
    buffer = io.BytesIO()
    document.save(buffer)
    data = buffer.getvalue()
    assert kind_of(data) == "docx"
    t = parse_transcript(transcript_text(data, "call.docx"))
    assert len(t.turns) == 7 and t.turns[2].speaker == "CFO"


def test_a_saved_web_page_keeps_its_speakers_lines() -> None:
    page = ("<!doctype html><html><head><title>x</title><script>var a = 1;</script></head><body>"
            + "".join(f"<p>{line}</p>" for line in CALL) + "</body></html>")  # fmt: skip
    assert kind_of(page.encode()) == "html"
    text = html_text(page)
    assert "var a" not in text and text.splitlines()[0] == CALL[0]
    assert len(parse_transcript(transcript_text(page.encode(), "call.html")).turns) == 7


def test_files_that_are_not_transcripts_say_what_they_are() -> None:
    with pytest.raises(TranscriptError, match=r"old binary Word file \(\.doc\)"):
        transcript_text(b"\xd0\xcf\x11\xe0" + b"\x00" * 100, "call.doc")
    with pytest.raises(TranscriptError, match="zip archive"):
        transcript_text(b"PK\x03\x04" + b"\x00" * 100, "calls.zip")
    for member, what in (
        ("xl/workbook.xml", r"spreadsheet \(\.xlsx\)"),
        ("ppt/presentation.xml", r"presentation \(\.pptx\)"),
        ("notes/call.txt", "zip archive, not a transcript: unpack it first"),
    ):
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as archive:
            archive.writestr("[Content_Types].xml", "<Types/>")  # every Office file has one
            archive.writestr(member, "<x/>")
        with pytest.raises(TranscriptError, match=what):
            transcript_text(buffer.getvalue(), "file")


def test_the_pasted_layout_is_split_into_turns_and_qa() -> None:
    t = parse_transcript("\n".join(CALL) + "\n")
    assert [(x.section, x.speaker) for x in t.turns] == [
        ("Prepared Remarks", "Operator"),
        ("Prepared Remarks", "Jane Doe (Chief Executive Officer)"),
        ("Prepared Remarks", "CFO"),
        ("Questions and Answers", "Operator"),
        ("Questions and Answers", "Analyst John Smith"),
        ("Questions and Answers", "Jane Doe (Chief Executive Officer)"),
        ("Questions and Answers", "Analyst John Smith"),
    ]
    assert layout_note(t) is None
    # sentences with a colon are not speakers: plain text, and the note says what was assumed
    plain = parse_transcript("Revenue for the quarter: up 8% to $612 million.\n"
                             "Outlook: we expect $2.4 billion for the year.\n")  # fmt: skip
    assert plain.format == "plain" and "no speaker layout was recognised" in (
        layout_note(plain) or "")  # fmt: skip


def test_a_call_pasted_on_one_line_is_still_split_into_turns() -> None:
    """A page copied with its line breaks lost: a title, "Operator", "Name -- Title" or the
    Q&A marker starting a sentence opens a turn; every turn's span is a span of the text as
    given; a bare name or a phrase with a colon mid-line is not a speaker."""
    text = " ".join(CALL)
    t = parse_transcript(text)
    assert [(x.section, x.speaker) for x in t.turns] == [
        ("Prepared Remarks", "Operator"),
        ("Prepared Remarks", "Jane Doe (Chief Executive Officer)"),
        ("Prepared Remarks", "CFO"),
        ("Questions and Answers", "Operator"),
        # on one line there is no roster: "John Smith:" stays inside the operator's turn
        ("Questions and Answers", "Jane Doe (Chief Executive Officer)"),
    ]
    assert t.text == text and layout_note(t) is None
    assert text[t.turns[2].start : t.turns[2].end] == CALL[2].removeprefix("CFO: ")
    glued = parse_transcript("Revenue for the quarter: up 8%. Outlook: we expect $2.4 billion. "
                             "Our CEO: Jane Doe said so. John Smith: thanks.")  # fmt: skip
    assert glued.format == "plain"


def test_the_cli_reads_standard_input_and_refuses_a_web_address(
    tmp_path: Path, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = {"EDESK_PROVIDER": "fake", "EDESK_EMBEDDINGS": "fake",
           "EDESK_DATA_DIR": str(tmp_path / "data"), "PATH": "/usr/bin:/bin"}  # fmt: skip
    out = tmp_path / "out"
    proc = subprocess.run(
        [sys.executable, "-m", "app.cli", "analyze", "-", "--pipeline", "facts", "--out",
         str(out)], input="\n".join(CALL).encode(), cwd=REPO, env=env, capture_output=True,
        timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr.decode()
    assert (out / "report.md").is_file()
    from app.cli import main

    for key, value in env.items():
        monkeypatch.setenv(key, value)
    assert main(["analyze", "https://example.com/call", "--pipeline", "facts"]) == 2
    assert "reads files, not web addresses" in capsys.readouterr().err


def test_the_cli_names_a_refused_file_once(
    tmp_path: Path, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from app.cli import main

    monkeypatch.setenv("EDESK_DATA_DIR", str(tmp_path / "data"))
    old = tmp_path / "old.doc"
    old.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1 rest of an OLE file")
    assert main(["analyze", str(old), "--pipeline", "facts"]) == 2
    err = capsys.readouterr().err
    assert f"error: {old} is an old binary Word file" in err and err.count(str(old)) == 1
