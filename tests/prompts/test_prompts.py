"""Every prompt renders, has its required parts, and refuses a missing slot."""

from __future__ import annotations

import jinja2
import pytest

import prompts
from core.contract import CallInfo
from core.state import Analysis, ConversationTurn
from nodes.conversation import SECTIONS
from nodes.specialists import SPECIALISTS

CALL = CallInfo(company="Northwind", ticker="NWL", period="Q2 2026")
ANALYSES = [Analysis(role=r, model="m", text=f"<<{r} text>>") for r in SPECIALISTS]
VARS = {
    "call": CALL,
    "evidence": "[abc-0001] (Q&A, CFO)\nEVIDENCE-SLOT",
    "analyses": ANALYSES,
    "report": "REPORT-SLOT",
    "original": "ORIGINAL-SLOT",
    "trust": "TRUST-SLOT",
    "skeptic": "SKEPTIC-SLOT",
    "transcript": "TRANSCRIPT-SLOT",
    "manuscript": "MANUSCRIPT-SLOT",
    "sections": SECTIONS,
    "financials": "FINANCIALS-SLOT",
    "feedback": ConversationTurn(speaker="editor", round=1, model="m", text="FEEDBACK-SLOT"),
}
HORIZON_WORDS = ("1-Day", "1-Week", "1-Month", "Position", "Conviction")


def test_every_prompt_is_listed() -> None:
    names = prompts.available()
    for role in SPECIALISTS:
        assert f"findebate/{role}" in names
    for n in (
        "findebate/synthesizer",
        "findebate/trust",
        "findebate/skeptic",
        "findebate/leader",
        "shared/extract_recommendations",
        "baselines/zero_shot",
        "baselines/standard_rag",
    ):
        assert n in names


@pytest.mark.parametrize("name", prompts.available())
def test_renders_with_system_and_user(name: str) -> None:
    p = prompts.render(name, **VARS)
    assert p.system and p.user
    assert [m.type for m in p.messages()] == ["system", "human"]


@pytest.mark.parametrize("role", list(SPECIALISTS))
def test_specialist_two_level_structure(role: str) -> None:
    p = prompts.render(f"findebate/{role}", **VARS)
    assert "mission" in p.system.lower() and "quality standard" in p.system.lower()
    for part in ("Analytical framework", "Technical requirements", "Output", "EVIDENCE-SLOT"):
        assert part in p.user
    assert "70% and 80%" in p.user and "Northwind (NWL)" in p.user
    assert "EVIDENCE-SLOT" not in p.system


@pytest.mark.parametrize(
    "name", ["findebate/synthesizer", "baselines/zero_shot", "baselines/standard_rag"]
)
def test_writers_ask_for_the_three_horizons(name: str) -> None:
    p = prompts.render(name, **VARS)
    for word in HORIZON_WORDS:
        assert word in p.user, word
    assert "LONG, SHORT or NEUTRAL" in p.user


def test_synthesizer_includes_every_analysis() -> None:
    p = prompts.render("findebate/synthesizer", **VARS)
    for r in SPECIALISTS:
        assert f"<<{r} text>>" in p.user


@pytest.mark.parametrize("name", ["findebate/trust", "findebate/skeptic", "findebate/leader"])
def test_debate_agents_must_keep_the_stance(name: str) -> None:
    p = prompts.render(name, **VARS)
    assert "1-day, 1-week" in p.system or "1-day, 1-week and 1-month" in p.system
    assert "position" in p.system.lower()


def test_leader_sees_all_three_reports() -> None:
    p = prompts.render("findebate/leader", **VARS)
    for slot in ("ORIGINAL-SLOT", "TRUST-SLOT", "SKEPTIC-SLOT"):
        assert slot in p.user


def test_missing_slot_is_an_error() -> None:
    with pytest.raises(jinja2.UndefinedError):
        prompts.render("findebate/earnings_analyst", call=CALL)


def test_reserved_name_refused() -> None:
    with pytest.raises(KeyError):
        prompts.render("findebate/trust", SPLIT="x", **VARS)


def test_conversation_writer_modes() -> None:
    first = prompts.render("conversation/writer", **{**VARS, "manuscript": None})
    assert "first draft" in first.user and "FEEDBACK-SLOT" not in first.user
    edit = prompts.render("conversation/writer", **VARS)
    assert "targeted edits" in " ".join(edit.user.split()) and "FEEDBACK-SLOT" in edit.user
    assert "MANUSCRIPT-SLOT" in edit.user and "from the editor" in edit.user
    for i, title in enumerate(SECTIONS, 1):
        assert f"{i}. {title}" in edit.system
    assert "Never rewrite the" in edit.system


@pytest.mark.parametrize("role", ["analyst", "psychologist", "editor", "client"])
def test_conversation_reviewers_only_give_feedback(role: str) -> None:
    p = prompts.render(f"conversation/{role}", **VARS)
    assert "never rewrite" in p.system and "MANUSCRIPT-SLOT" in p.user


def test_analyst_sees_financials_and_client_knows_the_word() -> None:
    assert "FINANCIALS-SLOT" in prompts.render("conversation/analyst", **VARS).user
    assert "TERMINATE" in prompts.render("conversation/client", **VARS).user
    editor = prompts.render("conversation/editor", **VARS).user
    assert all(s in editor for s in SECTIONS)
