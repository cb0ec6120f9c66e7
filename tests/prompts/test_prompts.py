"""Every prompt renders, has its required parts, and refuses a missing slot."""

from __future__ import annotations

from typing import Any

import jinja2
import pytest

import prompts
from core.contract import CallInfo
from core.facts import call_facts
from core.filing import check, filed_values
from core.judging import Challenges, Verdict
from core.llm.window import Fit
from core.state import Analysis
from core.transcript import parse_transcript
from nodes.conversation import SECTIONS, ConversationTurn
from nodes.specialists import SPECIALISTS, analyses_fit
from nodes.writer_feedback import Review, simple_inputs
from tests.conftest import SAMPLE
from tests.outside_data import FILED, OUTSIDE_THE_CALL

CALL = CallInfo(company="Northwind", ticker="NWL", period="Q2 2026")
ANALYSES = [Analysis(role=r, model="m", text=f"<<{r} text>>") for r in SPECIALISTS]
VARS = {
    "call": CALL,
    "evidence": "[abc-0001] (Q&A, CFO)\nEVIDENCE-SLOT",
    "analyses": analyses_fit({a.role: a for a in ANALYSES}).whole(),
    "report": "REPORT-SLOT",
    "original": "ORIGINAL-SLOT",
    "trust": "TRUST-SLOT",
    "skeptic": "SKEPTIC-SLOT",
    "transcript": "TRANSCRIPT-SLOT",
    "manuscript": "MANUSCRIPT-SLOT",
    "sections": SECTIONS,
    "financials": "FINANCIALS-SLOT",
    "answers": "ANSWERS-SLOT",
    "length": "LENGTH-SLOT",
    "feedback": ConversationTurn(speaker="editor", round=1, model="m", text="FEEDBACK-SLOT"),
    # writer_feedback
    "draft": "DRAFT-SLOT",
    "review": "REVIEW-SLOT",
    "reviews": [
        Review(reviewer="risk_reviewer", iteration=1, model="m", text="RISK-SLOT", approved=False),
        Review(reviewer="persuasiveness", iteration=1, model="m", text="APPROVED", approved=True),
    ],
    # adversarial
    "act": "rebuttal",
    "own_challenges": ["OWN-CHALLENGE-SLOT"],
    "challenges": Challenges(
        challenges_to_bull=["BULL-CHALLENGE-SLOT"], challenges_to_bear=["BEAR-CHALLENGE-SLOT"]
    ),
    "question": "QUESTION-SLOT",
    "briefing": "BRIEFING-SLOT",
    "history": "HISTORY-SLOT",
    "requirements": "REQUIREMENTS-SLOT",
    "bull": "BULL-SLOT",
    "bear": "BEAR-SLOT",
    "scorecard": '{"rsi_14": 55.0}',
    "unavailable": ["beta_30d"],
    "winner": "Bull",
    "decision": "DECISION-SLOT",
    "verdict": Verdict(winner="Bear", justification="JUSTIFICATION-SLOT is long enough."),
    "stress": "STRESS-SLOT",
    "thesis": "THESIS-SLOT",
    # fact-check
    "problems": [{"text": "$9.99 billion", "context": "PROBLEM-CONTEXT-SLOT"}],
    "passages": "PASSAGES-SLOT",
    # eval judge
    "first": "FIRST-REPORT-SLOT",
    "second": "SECOND-REPORT-SLOT",
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
    for part in ("Analytical framework", "Technical requirements", "Output"):
        assert part in p.user
    assert "70% and 80%" in p.user and "Northwind (NWL)" in p.system
    # the evidence is material: before the role, with the run's shared context (the five
    # specialists' passages, in transcript order, share their common opening as one prefix)
    assert p.system.index("EVIDENCE-SLOT") < p.system.index("## Your role")
    assert "EVIDENCE-SLOT" not in p.user
    # under the paper's layout the role alone is the system message; the evidence is material
    paper = prompts.render(f"findebate/{role}", "paper", **VARS)
    assert "EVIDENCE-SLOT" in paper.user and "EVIDENCE-SLOT" not in paper.system


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
        assert f"<<{r} text>>" in p.system


@pytest.mark.parametrize("name", ["findebate/trust", "findebate/skeptic", "findebate/leader"])
def test_debate_agents_must_keep_the_stance(name: str) -> None:
    p = prompts.render(name, **VARS)
    assert "1-day, 1-week" in p.system or "1-day, 1-week and 1-month" in p.system
    assert "position" in p.system.lower()


def test_leader_sees_all_three_reports_and_the_analyses() -> None:
    p = prompts.render("findebate/leader", **{**VARS, "analyses": "ANALYSES-SLOT"})
    for slot in ("ORIGINAL-SLOT", "TRUST-SLOT", "SKEPTIC-SLOT"):
        assert slot in p.user
    assert "ANALYSES-SLOT" in p.system  # shared with the synthesizer, Trust and Skeptic


def test_missing_slot_is_an_error() -> None:
    with pytest.raises(jinja2.UndefinedError):
        prompts.render("findebate/earnings_analyst", call=CALL)


def test_reserved_name_refused() -> None:
    with pytest.raises(KeyError):
        prompts.render("findebate/trust", SPLIT="x", **VARS)


def test_conversation_writer_modes() -> None:
    first = prompts.render("conversation/writer", **{**VARS, "manuscript": None, "feedback": None})
    assert "first draft" in first.user and "requirements" not in first.user
    briefed = prompts.render("conversation/writer", **{**VARS, "manuscript": None})
    assert "## The client's requirements\nFEEDBACK-SLOT" in briefed.user  # the Client's brief
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
    analyst = prompts.render("conversation/analyst", **VARS)
    assert "## Financial data\nFINANCIALS-SLOT" in analyst.system and "four" in analyst.user
    assert "TERMINATE" in prompts.render("conversation/client", **VARS).user
    editor = prompts.render("conversation/editor", **VARS).user
    assert all(s in editor for s in SECTIONS)


def test_every_new_pipeline_prompt_is_listed() -> None:
    names = prompts.available()
    for n in (
        "simple_writer",
        "advanced_writer",
        "panel",
        "financial_expert",
        "risk_reviewer",
        "persuasiveness",
        "rewriter",
        "grader",
    ):
        assert f"writer_feedback/{n}" in names
    for n in (
        "factual_analyst",
        "behavioral_analyst",
        "market_analyst",
        "bull",
        "bear",
        "devils_advocate",
        "assess_rebuttals",
        "judge",
        "stress_analyst",
        "lead_analyst",
    ):
        assert f"adversarial/{n}" in names


def test_simple_writer_first_draft_and_revision() -> None:
    first = prompts.render("writer_feedback/simple_writer", **{**VARS, "draft": None})
    for s in (
        "Financial Overview",
        "Key Drivers",
        "Risks",
        "Opportunities",
        "Final Recommendation",
    ):
        assert s in first.user
    assert "REVIEW-SLOT" not in first.user and "Next Day" in first.user
    revision = prompts.render("writer_feedback/simple_writer", **VARS)
    assert "REVIEW-SLOT" in revision.user and "DRAFT-SLOT" in revision.user


@pytest.mark.usefixtures("all_rules_verified")  # plumbing, not which rows earned it
def test_the_simple_writer_baseline_prompt_holds_nothing_from_outside_the_call() -> None:
    """The simple writer's real prompt, its inputs taken from a state that holds statements
    (with the call facts' filing check) and the vendor's consensus: the transcript-only baseline
    gets the call and its call facts and none of that data; the feedback flows' writer gets it."""
    facts = check(call_facts(parse_transcript(SAMPLE.read_text())), filed_values(FILED, "given"))
    state: Any = {"call": CALL, "facts": facts, "financials": FILED}

    def prompt(with_data: bool) -> str:
        inputs = simple_inputs(state, with_data=with_data)
        whole = {k: v.whole() if isinstance(v, Fit) else v for k, v in inputs.items()}
        p = prompts.render(
            "writer_feedback/simple_writer",
            **whole,
            transcript="TRANSCRIPT-SLOT",
            draft=None,
            review=None,
        )
        return p.system + "\n" + p.user

    baseline, flows = prompt(with_data=False), prompt(with_data=True)
    assert "TRANSCRIPT-SLOT" in baseline and "Northwind (NWL)" in baseline
    assert "## Call facts (extracted by code)" in baseline and "$612 million" in baseline
    for outside in OUTSIDE_THE_CALL[:5]:  # prices never reach a writer_feedback prompt
        assert outside in flows, outside
        assert outside not in baseline, outside


def test_advanced_writer_has_nine_sections_in_order() -> None:
    p = prompts.render("writer_feedback/advanced_writer", **VARS)
    titles = [
        "Company Overview",
        "Executive Summary",
        "Financial Performance",
        "Key Financial Metrics",
        "Strategic Outlook and Investments",
        "Insights from the Q&A",
        "Projections and External Perspectives",
        "Conclusion and Investor Takeaways",
        "Final Recommendation",
    ]
    found = [p.user.index(f"{i}. {t}") for i, t in enumerate(titles, 1)]
    assert found == sorted(found)
    assert "FINANCIALS-SLOT" in p.system and "year-over-year" in p.user


def test_panel_and_reviewers_name_their_exact_approval() -> None:
    panel = prompts.render("writer_feedback/panel", **VARS)
    assert "the two words ALL GOOD alone" in " ".join(panel.user.split())
    for r in ("financial_expert", "risk_reviewer", "persuasiveness"):
        p = prompts.render(f"writer_feedback/{r}", **VARS)
        assert "exactly the word APPROVED" in " ".join(p.system.split())
        assert "never rewrite" in p.system


def test_rewriter_gets_every_review() -> None:
    p = prompts.render("writer_feedback/rewriter", **VARS)
    assert "RISK-SLOT" in p.user and "Review by the persuasiveness (approved)" in p.user


def test_advocate_acts() -> None:
    for act, marker in (
        ("opening", "opening argument"),
        ("rebuttal", "OWN-CHALLENGE-SLOT"),
        ("press", "QUESTION-SLOT"),
        ("closing", "closing argument"),
    ):
        p = prompts.render("adversarial/bull", **{**VARS, "act": act})
        assert marker in p.user and "Bull" in p.system
        case = p.system.index("## The committee's briefing\nBRIEFING-SLOT")
        history = p.system.index("## Arguments made so far\nHISTORY-SLOT")
        assert case < history < p.system.index("Bull")
    assert "BULL-CHALLENGE-SLOT" not in prompts.render("adversarial/bear", **VARS).user


def test_lead_analyst_sections_and_no_debate() -> None:
    p = prompts.render("adversarial/lead_analyst", **VARS)
    for s in (
        "Introduction & Executive Summary",
        "Quarterly Performance Review",
        "Key Analytical Takeaways",
        "Primary Risk & Mitigation",
        "Forward Outlook & Catalysts",
        "700 to 800 words",
        "STRESS-SLOT",
        "BEAR",
    ):
        assert s in p.user, s
    assert "never mentions a debate" in p.system
    unsettled = prompts.render("adversarial/lead_analyst", **{**VARS, "verdict": None})
    assert "No thesis was settled" in unsettled.user


def test_fact_check_lists_each_figure_and_its_context() -> None:
    p = prompts.render("shared/fact_check", **VARS)
    assert '"$9.99 billion" in: "...PROBLEM-CONTEXT-SLOT..."' in p.user
    assert (
        "REPORT-SLOT" in p.system and "PASSAGES-SLOT" in p.system and "FINANCIALS-SLOT" in p.system
    )
    # the report first (the recommendation extractor reads it first too: one prefix for both),
    # then the call facts and the passages, then the role
    with_facts = prompts.render("shared/fact_check", **{**VARS, "facts": "FACTS-SLOT"}).system
    order = [
        with_facts.index(x) for x in ("REPORT-SLOT", "FACTS-SLOT", "PASSAGES-SLOT", "## Your role")
    ]
    assert order == sorted(order) and with_facts.count("FACTS-SLOT") == 1
    extractor = prompts.render("shared/extract_recommendations", **VARS)
    opening = extractor.system[: extractor.system.index("REPORT-SLOT")]
    assert p.system.startswith(opening) and "FACTS-SLOT" not in opening
    without = prompts.render("shared/fact_check", **{**VARS, "financials": ""})
    assert "Financial data" not in without.system + without.user


def test_pairwise_shows_both_reports_in_the_given_order() -> None:
    p = prompts.render("eval/pairwise", **VARS)
    assert p.user.index("FIRST-REPORT-SLOT") < p.user.index("SECOND-REPORT-SLOT")
    assert "TRANSCRIPT-SLOT" in p.system and "order" in p.user


def test_judge_rubrics_name_every_dimension() -> None:
    from core.judging import FINDEBATE_DIMENSIONS, GRADE_WEIGHTS

    eight = prompts.render("eval/findebate_grade", **VARS).user
    assert all(d in eight for d in FINDEBATE_DIMENSIONS) and "REPORT-SLOT" in eight
    five = prompts.render("eval/weighted_grade", **VARS).user
    assert all(m in five for m in GRADE_WEIGHTS)


@pytest.mark.parametrize("name", prompts.available())
def test_verified_facts_come_in_the_shared_context_when_given(name: str) -> None:
    """With `facts`, every prompt's shared context carries the facts block and the rule to
    take figures from it, before the role; without, no empty heading."""
    block = "- Revenue: $612 million (Q2 2026; grew 8.4% year over year; CEO)"
    with_facts = prompts.render(name, **VARS, facts=block)
    assert block in with_facts.system
    assert with_facts.system.index(block) < with_facts.system.index("## Your role")
    without = prompts.render(name, **VARS)
    assert "Call facts (extracted by code)" not in without.system + without.user


def shared_prefix(a: str, b: str) -> str:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return a[:n]


def test_every_prompt_opens_with_the_same_context_and_ends_with_its_role() -> None:
    """Prefix caches serve what prompts share from their first byte: every prompt given the same
    call, facts and call text starts with the same bytes (the house rules, the call, the call
    facts, the call text, the financials), then its material, then its role. The call facts sit in
    that context, or, where a pipeline's speakers share a longer prefix without them (the
    adversarial case file, the report the fact-checker and the extractor both read), right after
    it; either way once, before the role."""
    names = [
        n for n in prompts.available() if "TRANSCRIPT-SLOT" in prompts.render(n, **VARS).system
    ]
    assert len(names) >= 15, names
    rendered = [prompts.render(n, **{**VARS, "facts": "FACTS-SLOT"}) for n in names]
    plain = prompts.render("baselines/zero_shot", **{**VARS, "facts": "FACTS-SLOT"})
    context = plain.system[: plain.system.index("## Your role")].rstrip()
    bare = prompts.render("baselines/zero_shot", **VARS)
    context_without_facts = bare.system[: bare.system.index("## Your role")].rstrip()
    for slot in ("FACTS-SLOT", "TRANSCRIPT-SLOT", "Northwind (NWL)"):
        assert slot in context
    later = []
    for p in rendered:
        head = p.system[: p.system.index("## Your role")]
        assert head.count("FACTS-SLOT") == 1, p.name
        if not p.system.startswith(context):
            assert p.system.startswith(context_without_facts), p.name
            later.append(p.name)
    assert {"adversarial/judge", "adversarial/lead_analyst", "shared/fact_check"} <= set(later)
    # the five specialists: one prefix up to the first passage in which their evidence differs
    heads = [prompts.render(f"findebate/{r}", **VARS).system for r in SPECIALISTS]
    assert len({h[: h.index("EVIDENCE-SLOT")] for h in heads}) == 1
    # financials follow the call text, so a node without them still shares the whole call
    with_fin = prompts.render("writer_feedback/simple_writer", **VARS)
    without = prompts.render("writer_feedback/panel", **VARS)
    assert "TRANSCRIPT-SLOT" in shared_prefix(with_fin.system, without.system)


def test_a_change_anywhere_changes_the_prompt() -> None:
    """The LLM cache keys on the whole prompt: the shared context moving first must not hide a
    change in it (facts, call, financials) or in the role part."""
    base = prompts.render("writer_feedback/panel", **{**VARS, "facts": "F1"})
    for change in ({"facts": "F2"}, {"transcript": "OTHER"}, {"report": "OTHER REPORT"}):
        other = prompts.render("writer_feedback/panel", **{**VARS, "facts": "F1", **change})
        assert (other.system, other.user) != (base.system, base.user), change


PRECEDENCE = "(your role's own instructions on data come first)"


@pytest.mark.parametrize("name", prompts.available())
def test_one_figure_rule_with_its_precedence_written_once(name: str) -> None:
    """Every prompt carries the one figure rule (provenance for every figure, the role's own data
    instructions first) exactly once, in the shared context; no older rule contradicts it."""
    p = prompts.render(name, **VARS, facts="FACTS-SLOT")
    text = p.system + p.user
    assert text.count("## Figures (every role)") == 1
    assert text.count(PRECEDENCE) == 1
    assert p.system.index(PRECEDENCE) < p.system.index("## Your role")
    for old in ("never state a figure that neither gives", "Quote figures exactly as the call"):
        assert old not in text, (name, old)
    assert not ("list every" in text and "bullet" in text), name  # no "every" under a cap


def test_the_conviction_band_is_findebates_only() -> None:
    band = "70-80%"
    for name in ("findebate/synthesizer", "baselines/zero_shot", "baselines/standard_rag"):
        assert band in prompts.render(name, **VARS).user, name
    lead = prompts.render("adversarial/lead_analyst", **VARS)
    assert band not in lead.system + lead.user and "Conviction: an integer percent" in lead.user


def test_synthesizer_keeps_the_analyses_ids_but_is_not_asked_for_passages() -> None:
    synth = prompts.render("findebate/synthesizer", **VARS).user
    assert "cite its id" not in synth and "keep\nthat id" in synth
    rag = prompts.render("baselines/standard_rag", **VARS).user
    assert "cite its id in square brackets" in rag and "EVIDENCE-SLOT" in rag


def test_zero_shot_is_the_synthesizers_task_on_the_call_alone() -> None:
    """FinDebate's zero-shot baseline: the synthesizer's role and sections, the call, nothing
    else (no specialists, no passages)."""
    zero = prompts.render("baselines/zero_shot", **VARS)
    synth = prompts.render("findebate/synthesizer", **VARS)
    role = synth.system[synth.system.index("## Your role") :]
    assert zero.system.endswith(role)
    for section in ("Executive summary", "Financial performance", "Valuation view",
                    "Risks and mitigants", "Market outlook by horizon"):  # fmt: skip
        assert section in zero.user and section in synth.user
    assert "from the earnings analyst" in synth.user and "analyst)" not in zero.user
    assert "TRANSCRIPT-SLOT" in zero.system
    for other in ("EVIDENCE-SLOT", "specialist", "passage"):
        assert other not in zero.system + zero.user, other


def test_the_stress_analyst_reads_the_winning_thesis_not_the_case_file() -> None:
    p = prompts.render("adversarial/stress_analyst", **VARS)
    assert "THESIS-SLOT" in p.system and "DECISION-SLOT" in p.user
    for other in ("BRIEFING-SLOT", "HISTORY-SLOT"):
        assert other not in p.system + p.user, other


def test_si4fin_writer_keeps_the_conversation_and_the_analyst_gives_trends() -> None:
    edit = prompts.render("conversation/writer", **VARS)
    assert "## The client's requirements (from the start of the conversation)\n" in edit.user
    assert "REQUIREMENTS-SLOT" in edit.user and "HISTORY-SLOT" in edit.user
    assert "## Financial data\nFINANCIALS-SLOT" in edit.system
    analyst = " ".join(prompts.render("conversation/analyst", **VARS).user.split())
    assert "trends across the quarters" in analyst and "Check every figure" not in analyst
