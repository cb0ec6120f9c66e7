"""The conversation pipeline's routes: TERMINATE early vs all rounds, turn order, feedback
agents never editing, the analyst's financials, parse failure -> degraded."""

from __future__ import annotations

from typing import Any

import pytest

from core.inputs import Financials
from core.llm.fake import FakeModels, Script, block
from core.transcript import parse_transcript
from nodes.conversation import SECTIONS

pytestmark = pytest.mark.asyncio

GOOD = "\n\n".join(f"## {s}\nText about {s}." for s in SECTIONS)
ROUND = ["writer", "analyst", "writer", "psychologist", "writer", "editor", "writer", "client"]
BRIEF = ["client"]  # the Client opens the conversation with its requirements


def models(*client: str, extractor: Any = None, writer: Any = None) -> FakeModels:
    n = iter(range(1, 100))
    scripts = {
        "writer": Script.of(default=writer or (lambda m, t: f"{GOOD}\n\nDraft {next(n)}.")),
        "analyst": Script.of(default="ANALYST: check revenue."),
        "psychologist": Script.of(default="PSYCHOLOGIST: calibrate confidence."),
        "editor": Script.of(default="EDITOR: sections fine."),
        "client": Script.of(
            "CLIENT NEEDS: the guidance and the margin drivers.",
            *client,
            default="Not yet: add guidance.",
        ),  # fmt: skip
        "extractor": Script.of(default=extractor or block()),
    }
    return FakeModels(scripts)


async def run(fake_engine: Any, m: FakeModels, text: str, **kw: Any) -> Any:
    async with fake_engine(m, **kw.pop("settings", {})) as engine:
        return await engine.run(engine.request("conversation", parse_transcript(text), **kw))


async def test_terminate_in_first_round(fake_engine: Any, sample_text: str) -> None:
    m = models("TERMINATE")
    out = await run(fake_engine, m, sample_text)
    report = out.report
    assert report.status == "succeeded"
    speakers = [t["speaker"] for t in report.extras["conversation"]]
    assert speakers == BRIEF + ROUND
    assert "Draft 4." in report.markdown  # the writer's last edit is the report
    assert any("1 round(s); client answered TERMINATE" in n for n in report.notes)
    assert len(m.script("extractor").calls) == 1


async def test_terminate_in_second_round(fake_engine: Any, sample_text: str) -> None:
    out = await run(fake_engine, models("More detail please.", "  TERMINATE\n"), sample_text)
    speakers = [t["speaker"] for t in out.report.extras["conversation"]]
    assert speakers == BRIEF + ROUND * 2
    assert [t["round"] for t in out.report.extras["conversation"]][-1] == 2


async def test_three_full_rounds_without_terminate(fake_engine: Any, sample_text: str) -> None:
    m = models("TERMINATE.", "terminate", "Terminate now")  # not exactly TERMINATE
    out = await run(fake_engine, m, sample_text)
    turns = out.report.extras["conversation"]
    assert [t["speaker"] for t in turns] == BRIEF + ROUND * 3
    assert any("3 round(s); client did not terminate" in n for n in out.report.notes)
    assert out.report.status == "succeeded"


async def test_round_limit_is_a_setting(fake_engine: Any, sample_text: str) -> None:
    from core.options import RunOptions

    out = await run(fake_engine, models(), sample_text, options=RunOptions(conversation_rounds=1))
    assert [t["speaker"] for t in out.report.extras["conversation"]] == BRIEF + ROUND


async def test_feedback_reaches_the_writer_and_never_edits(
    fake_engine: Any, sample_text: str
) -> None:
    m = models("TERMINATE")
    out = await run(fake_engine, m, sample_text)
    calls = m.script("writer").calls
    assert len(calls) == 4
    assert "first draft" in calls[0].text and "CLIENT NEEDS: the guidance" in calls[0].text
    for call, who in zip(calls[1:], ("ANALYST", "PSYCHOLOGIST", "EDITOR"), strict=True):
        assert f"{who}:" in call.text and "targeted" in call.text
    assert "ANALYST" not in out.report.markdown  # reviewers' words are not in the report


async def test_analyst_gets_four_quarters(fake_engine: Any, sample_text: str) -> None:
    quarters = [
        {"fiscalDateEnding": f"202{y}-{mth}-30", "totalRevenue": str(100 + i)}
        for i, (y, mth) in enumerate([(6, "06"), (6, "03"), (5, 12), (5, "09"), (5, "06")])
    ]
    fin = Financials.model_validate({"most_recent_earnings": quarters[0], "quarters": quarters})
    m = models("TERMINATE")
    await run(fake_engine, m, sample_text, financials=fin)
    prompt = m.script("analyst").calls[0].text
    assert "2026-06-30" in prompt and "2025-09-30" in prompt and "2025-06-30" not in prompt
    assert "| Revenue | 100 | 101 | 102 | 103 |" in prompt


async def test_analyst_table_has_the_papers_lines(fake_engine: Any, sample_text: str) -> None:
    """Cash and short-term investments, shares outstanding, investing and financing cash flow
    and the change in cash (Alpha Vantage names, kept as given) reach the Analyst's table."""
    q = {"fiscalDateEnding": "2026-06-30", "totalRevenue": "100",
         "cashAndShortTermInvestments": "55", "commonStockSharesOutstanding": "1,000",
         "cashflowFromInvestment": "-20", "cashflowFromFinancing": "-5",
         "changeInCashAndCashEquivalents": "7"}  # fmt: skip
    fin = Financials.model_validate({"most_recent_earnings": q, "quarters": [q]})
    m = models("TERMINATE")
    await run(fake_engine, m, sample_text, financials=fin)
    prompt = m.script("analyst").calls[0].text
    for line in ("| Cash and short-term investments | 55 |", "| Shares outstanding | 1,000 |",
                 "| Investing cash flow | -20 |", "| Financing cash flow | -5 |",
                 "| Change in cash | 7 |"):  # fmt: skip
        assert line in prompt, line


async def test_psychologist_reads_managements_answers(fake_engine: Any, sample_text: str) -> None:
    m = models("TERMINATE")
    await run(fake_engine, m, sample_text)
    prompt = m.script("psychologist").calls[0].text
    assert "## Management's answers in the Q&A" in prompt
    assert "A (CEO):" in prompt and "Q (Analyst-1):" in prompt
    assert "speculate on that" in prompt  # the CEO's evasive answer to the last question


async def test_editor_compares_with_the_previous_version(
    fake_engine: Any, sample_text: str
) -> None:
    # first draft, the edit after the Analyst, the edit after the Psychologist (loses a figure)
    drafts = iter([f"{GOOD}\n\nFirst.", f"{GOOD}\n\nRevenue was $1.54 billion.",
                   f"{GOOD}\n\nRevenue grew."] + [GOOD] * 10)  # fmt: skip
    m = models("TERMINATE", writer=lambda msgs, tool: next(drafts))
    await run(fake_engine, m, sample_text)
    prompt = m.script("editor").calls[0].text
    assert "Compare the report with its previous version" in prompt
    assert "## The previous version" in prompt and "Revenue was $1.54 billion." in prompt
    assert "no longer does (found by code): $1.54 billion" in prompt


async def test_missing_sections_are_noted(fake_engine: Any, sample_text: str) -> None:
    out = await run(fake_engine, models("TERMINATE", writer="## Summary\nShort."), sample_text)
    assert any("does not have the five required sections" in n for n in out.report.notes)


async def test_unparseable_predictions_degrade(fake_engine: Any, sample_text: str) -> None:
    out = await run(fake_engine, models("TERMINATE", extractor="no tool call"), sample_text)
    assert out.report.status == "degraded" and out.report.recommendations == []
    assert out.report.failures[0].node == "finalize"


async def test_the_writer_keeps_the_clients_requirements_history_and_statements(
    fake_engine: Any, sample_text: str
) -> None:
    """SI4Fin's Writer works in one conversation: after the first draft it still has the
    Client's opening requirements and the earlier feedback, and it gets the statements."""
    q = {"fiscalDateEnding": "2026-06-30", "totalRevenue": "777"}
    fin = Financials.model_validate({"most_recent_earnings": q, "quarters": [q]})
    m = models("More detail please.", "TERMINATE")
    await run(fake_engine, m, sample_text, financials=fin)
    calls = m.script("writer").calls
    assert len(calls) == 8
    for call in calls:
        assert "| Revenue | 777 |" in call.text  # the statements it is told to use
    for call in calls[1:]:
        assert "CLIENT NEEDS: the guidance and the margin drivers." in call.text
    third = calls[2].text  # answering the Psychologist: the Analyst's earlier feedback kept
    assert "PSYCHOLOGIST: calibrate" in third and "ANALYST: check revenue." in third
    fifth = calls[4].text  # round 2 opens with the Client's round-1 feedback
    assert "Not yet" not in fifth and "More detail please." in fifth
    assert "EDITOR: sections fine." in fifth  # round 1's feedback survives into round 2


async def test_the_analyst_gives_trend_insight_from_the_quarters(
    fake_engine: Any, sample_text: str
) -> None:
    m = models("TERMINATE")
    await run(fake_engine, m, sample_text)
    prompt = " ".join(m.script("analyst").calls[0].text.split())
    assert "trends across the quarters" in prompt and "Check every figure" not in prompt


async def test_code_written_sections_stay_outside_the_papers_five_sections(
    fake_engine: Any, sample_text: str
) -> None:
    """SI4Fin fixes the report's format: the call facts go to `appendix` (report.json, a block
    of their own on the page and in the PDF), so the Markdown is the title, the five sections
    and the canonical recommendations."""
    import re

    out = await run(fake_engine, models("TERMINATE"), sample_text)
    r = out.report
    assert r.facts is not None and r.appendix is not None
    assert "**Key figures**" in r.appendix and "Key figures" not in r.markdown
    headings = re.findall(r"^## (.+)$", r.markdown, re.MULTILINE)
    assert headings == [*SECTIONS, "Recommendations"], headings
