"""writer_feedback's routes: each variant alone; the simple writer's transcript-only baseline and
the feedback flows' writer given the financial data; the panel's ALL GOOD on the first, second and
no iteration; reviewers all approve (no rewrite) vs one rejects; the ensemble judge picking the
highest weighted grade, keeping every grade, and never inventing a grade it could not parse."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from core.inputs import Financials
from core.llm.fake import FakeModels, Script, block
from core.options import RunOptions
from core.transcript import parse_transcript
from tests.outside_data import FILED, OUTSIDE_THE_CALL, PRICES

pytestmark = pytest.mark.asyncio

REPORT = "Recommendation: Long with high conviction.\n\n## Final Recommendation\nNext Day: LONG 75%"


def grade(a: int, d: int, r: int, s: int, c: int) -> dict[str, Any]:
    return {
        "content_accuracy": a,
        "analytical_depth": d,
        "investment_recommendation": r,
        "structure_clarity": s,
        "comprehensive_coverage": c,
        "comment": "Thin on risks.",
    }


def given(messages: Any) -> str:
    """The simple writer's report says whether its prompt held the financial data."""
    return " (data)" if "## Financial data" in messages[0].content else ""


def models(
    *,
    panel: tuple[str, ...] = (),
    reviewers: dict[str, str] | None = None,
    grader: Any = None,
    extractor: Any = None,
) -> FakeModels:
    n = itertools.count(1)
    reviewers = reviewers or {}
    scripts = {
        "simple_writer": Script.of(default=lambda m, t: f"SIMPLE {next(n)}{given(m)}\n{REPORT}"),
        "advanced_writer": Script.of(default=f"ADVANCED\n{REPORT}"),
        "panel": Script.of(*panel, default="- The margin figure is unsupported."),
        "rewriter": Script.of(default=f"REWRITTEN\n{REPORT}"),
        "grader": grader if isinstance(grader, Script) else Script.of(default=grade(3, 3, 3, 3, 3)),
        "extractor": Script.of(default=extractor or block()),
    }
    for role in ("financial_expert", "risk_reviewer", "persuasiveness"):
        scripts[role] = Script.of(default=reviewers.get(role, "APPROVED"))
    return FakeModels(scripts)


async def run(fake_engine: Any, m: FakeModels, variant: str, sample: str, **kw: Any) -> Any:
    options = RunOptions(writer_variant=variant, fact_check=False, **kw.pop("options", {}))  # type: ignore[arg-type]
    async with fake_engine(m) as engine:
        return await engine.run(
            engine.request("writer_feedback", parse_transcript(sample), options=options, **kw)
        )


def ran(report: Any) -> list[str]:
    return [t.node for t in report.trace]


def wf(report: Any) -> dict[str, Any]:
    extras: dict[str, Any] = report.extras["writer_feedback"]
    return extras


async def test_simple_writer_alone(fake_engine: Any, sample_text: str) -> None:
    m = models()
    out = await run(fake_engine, m, "simple_writer", sample_text)
    r = out.report
    assert r.status == "succeeded" and len(r.recommendations) == 3
    assert ran(r) == ["facts", "plan", "simple_writer", "finalize", "fact_check", "report"]
    assert "SIMPLE 1" in r.markdown and wf(r)["chosen"] == "simple_writer"
    prompt = m.script("simple_writer").calls[0]
    assert "Financial Overview" in prompt.text and "## Financial data" not in prompt.text


async def test_the_simple_writer_is_the_transcript_only_baseline(
    fake_engine: Any, sample_text: str
) -> None:
    """Jetsons' "single-agent writer baseline that only uses the earnings call transcripts":
    with statements, the vendor's consensus and prices in the run, its prompt has the call and
    its call facts, and nothing from outside the call; a note says where the data went."""
    m = models()
    out = await run(fake_engine, m, "simple_writer", sample_text, financials=FILED, prices=PRICES)
    (prompt,) = m.script("simple_writer").calls
    assert "Revenue grew 8.4% year over year to $612 million" in prompt.text  # the call
    assert "## Call facts (extracted by code)" in prompt.text
    for outside in OUTSIDE_THE_CALL:
        assert outside not in prompt.text, outside
    assert any("transcript-only baseline" in n for n in out.report.notes)


@pytest.mark.usefixtures("all_rules_verified")  # plumbing, not which rows earned it
async def test_the_feedback_flows_write_with_the_data(fake_engine: Any, sample_text: str) -> None:
    """The paper gave its data to the advanced writer and to all multi-agent flows: their
    simple writer (first report and revisions), the panel, the reviewers and the rewriter get
    it; the advanced writer too."""
    m = models(panel=("- Add the guidance range.", "ALL GOOD"))
    out = await run(fake_engine, m, "simple_feedback", sample_text, financials=FILED)
    assert ran(out.report)[:4] == ["facts", "plan", "feedback_writer", "panel"]
    assert "SIMPLE 2 (data)" in out.report.markdown
    m = models(reviewers={"risk_reviewer": "- Liquidity risk is missing."})
    await run(fake_engine, m, "advanced_feedback", sample_text, financials=FILED)
    for role in ("simple_writer", "financial_expert", "risk_reviewer", "rewriter"):
        for call in m.script(role).calls:
            assert all(o in call.text for o in OUTSIDE_THE_CALL[:5]), role


async def test_ensemble_with_data_writes_the_baseline_without_it(
    fake_engine: Any, sample_text: str
) -> None:
    """In an ensemble given financial data the simple writer writes twice, in parallel: the
    transcript-only baseline (its own candidate) and the flows' first report with the data."""
    m = models(panel=("ALL GOOD",))
    out = await run(fake_engine, m, "ensemble", sample_text, financials=FILED)
    r = out.report
    nodes = ran(r)
    assert nodes.count("simple_writer") == 1 and nodes.count("feedback_writer") == 1
    cands = {v: c["markdown"] for v, c in wf(r)["candidates"].items()}
    assert "(data)" not in cands["simple_writer"]
    assert "(data)" in cands["simple_feedback"] and "(data)" in cands["advanced_feedback"]
    assert cands["simple_feedback"] == cands["advanced_feedback"]  # one first report, shared


async def test_advanced_writer_uses_qoq_and_yoy(fake_engine: Any, sample_text: str) -> None:
    fin = Financials.model_validate(
        {
            "most_recent_earnings": {"fiscalDateEnding": "2026-06-30", "totalRevenue": "1200"},
            "previous_earnings": {"fiscalDateEnding": "2026-03-31", "totalRevenue": "1000"},
            "same_quarter_last_year_earnings": {
                "fiscalDateEnding": "2025-06-30",
                "totalRevenue": "1500",
            },
        }
    )
    m = models()
    out = await run(fake_engine, m, "advanced_writer", sample_text, financials=fin)
    assert ran(out.report) == [
        "facts",
        "plan",
        "advanced_writer",
        "finalize",
        "fact_check",
        "report",
    ]
    prompt = m.script("advanced_writer").calls[0].text
    assert "| Revenue | 1,200 | 1,000 | +20.0% | 1,500 | -20.0% |" in prompt
    assert "Insights from the Q&A" in prompt and "Final Recommendation" in prompt
    assert "ADVANCED" in out.report.markdown


async def test_advanced_writer_without_financials_says_so(
    fake_engine: Any, sample_text: str
) -> None:
    out = await run(fake_engine, models(), "advanced_writer", sample_text)
    assert any("no financials supplied" in n for n in out.report.notes)


async def test_the_panel_sees_the_financial_data_the_writer_used(
    fake_engine: Any, sample_text: str
) -> None:
    """Jetsons' panel checks every claim traces to "the transcript or external data": it gets
    the same computed table the writers get; without financials it is told there are none."""
    fin = Financials.model_validate(
        {
            "most_recent_earnings": {"fiscalDateEnding": "2026-06-30", "totalRevenue": "1200"},
            "previous_earnings": {"fiscalDateEnding": "2026-03-31", "totalRevenue": "1000"},
        }
    )
    m = models(panel=("ALL GOOD",))
    await run(fake_engine, m, "simple_feedback", sample_text, financials=fin)
    (call,) = m.script("panel").calls
    assert "| Revenue | 1,200 | 1,000 | +20.0% |" in call.text
    assert "## Financial data" in call.text
    (written,) = m.script("simple_writer").calls  # the report it reviews was written with it
    assert "| Revenue | 1,200 | 1,000 | +20.0% |" in written.text
    m = models(panel=("ALL GOOD",))
    await run(fake_engine, m, "simple_feedback", sample_text)
    assert "Not supplied: use the figures the call states." in m.script("panel").calls[0].text


async def test_panel_all_good_first_time(fake_engine: Any, sample_text: str) -> None:
    m = models(panel=("ALL GOOD",))
    out = await run(fake_engine, m, "simple_feedback", sample_text)
    r = out.report
    assert ran(r) == ["facts", "plan", "simple_writer", "panel", "finalize", "fact_check", "report"]
    assert "SIMPLE 1" in r.markdown and wf(r)["panel_iterations"] == 1
    assert [x["approved"] for x in wf(r)["reviews"]] == [True]


async def test_panel_all_good_second_time(fake_engine: Any, sample_text: str) -> None:
    m = models(panel=("- Add the guidance range.", "  ALL GOOD\n"))
    out = await run(fake_engine, m, "simple_feedback", sample_text)
    r = out.report
    assert ran(r) == [
        "facts",
        "plan",
        "simple_writer",
        "panel",
        "revise",
        "panel",
        "finalize",
        "fact_check",
        "report",
    ]
    assert "SIMPLE 2" in r.markdown  # the revision the panel accepted
    revise_prompt = m.script("simple_writer").calls[1].text
    assert "Add the guidance range." in revise_prompt and "SIMPLE 1" in revise_prompt


async def test_panel_never_satisfied_stops_after_three(fake_engine: Any, sample_text: str) -> None:
    # near misses are not "ALL GOOD"
    m = models(panel=("All good.", "ALL GOOD, but add risks", "all good"))
    out = await run(fake_engine, m, "simple_feedback", sample_text)
    r = out.report
    assert ran(r).count("panel") == 3 and ran(r).count("revise") == 3
    assert "SIMPLE 4" in r.markdown  # the last revision, whatever the verdict
    assert any("no ALL GOOD after 3 iteration(s)" in n for n in r.notes)
    assert r.status == "succeeded"


async def test_panel_iteration_limit_is_an_option(fake_engine: Any, sample_text: str) -> None:
    out = await run(
        fake_engine, models(), "simple_feedback", sample_text, options={"feedback_iterations": 1}
    )
    assert ran(out.report).count("panel") == 1 and "SIMPLE 2" in out.report.markdown


async def test_reviewers_all_approve_no_rewrite(fake_engine: Any, sample_text: str) -> None:
    m = models()
    out = await run(fake_engine, m, "advanced_feedback", sample_text)
    r = out.report
    nodes = ran(r)
    assert nodes[:3] == ["facts", "plan", "simple_writer"]
    assert set(nodes[3:6]) == {"financial_expert", "risk_reviewer", "persuasiveness"}
    assert "rewriter" not in nodes and m.script("rewriter").calls == []
    assert "SIMPLE 1" in r.markdown
    assert any("all three reviewers approved" in n for n in r.notes)


async def test_one_reviewer_rejects_rewrite_once(fake_engine: Any, sample_text: str) -> None:
    m = models(reviewers={"risk_reviewer": "- Liquidity risk is missing."})
    out = await run(fake_engine, m, "advanced_feedback", sample_text)
    r = out.report
    assert ran(r).count("rewriter") == 1 and "REWRITTEN" in r.markdown
    prompt = m.script("rewriter").calls[0].text
    assert "Liquidity risk is missing." in prompt and "SIMPLE 1" in prompt
    assert "Review by the financial expert (approved)" in prompt
    assert any("not approved by risk_reviewer" in n for n in r.notes)


async def test_reviewers_run_in_parallel(fake_engine: Any, sample_text: str) -> None:
    m = models()
    m.latency = 0.2
    out = await run(fake_engine, m, "advanced_feedback", sample_text)
    spans = [t for t in out.report.trace if t.node in ("financial_expert", "persuasiveness")]
    assert spans[0].started_at < spans[1].ended_at and spans[1].started_at < spans[0].ended_at


async def test_ensemble_picks_highest_grade_and_keeps_all(
    fake_engine: Any, sample_text: str
) -> None:
    def by_report(messages: Any, tool: str | None) -> Any:
        text = messages[-1].content
        if "ADVANCED" in text:
            return grade(5, 4, 4, 4, 4)  # 4.25
        if "REWRITTEN" in text:
            return grade(4, 4, 4, 4, 4)  # 4.0
        return grade(3, 3, 3, 3, 3)

    m = models(
        panel=("ALL GOOD",),
        reviewers={"persuasiveness": "- Weak thesis."},
        grader=Script.of(default=by_report),
    )
    out = await run(fake_engine, m, "ensemble", sample_text)
    r = out.report
    assert r.status == "succeeded"
    nodes = ran(r)
    assert nodes.count("simple_writer") == 1  # shared by the feedback variants
    assert nodes.count("judge") == 1 and nodes.index("judge") > nodes.index("rewriter")
    assert wf(r)["chosen"] == "advanced_writer" and "ADVANCED" in r.markdown
    grades = {v: c["grade"]["overall"] for v, c in wf(r)["candidates"].items()}
    assert grades == {
        "simple_writer": 3.0,
        "advanced_writer": 4.25,
        "simple_feedback": 3.0,
        "advanced_feedback": 4.0,
    }
    assert any("advanced_writer chosen" in n for n in r.notes)
    assert wf(r)["candidates"]["advanced_writer"]["grade"]["band"] == "Strong"
    assert wf(r)["candidates"]["advanced_writer"]["grade"]["flags"] == []


async def test_ensemble_reports_the_judges_flags(fake_engine: Any, sample_text: str) -> None:
    """The Jetsons judge's Critical / Warning / Review flags, by its rules, on every grade."""

    def by_report(messages: Any, tool: str | None) -> Any:
        text = messages[-1].content
        if "ADVANCED" in text:
            return grade(1, 4, 4, 4, 4)  # critical: accuracy below 2; spread 3 -> review
        return grade(3, 1, 3, 3, 3)  # warning: depth below 2

    m = models(panel=("ALL GOOD",), grader=Script.of(default=by_report))
    out = await run(fake_engine, m, "ensemble", sample_text)
    flags = {v: c["grade"]["flags"] for v, c in wf(out.report)["candidates"].items()}
    assert flags["advanced_writer"] == [
        "Critical: content accuracy below 2",
        "Warning: content_accuracy below 2",
        "Review: metric scores more than 2 points apart",
    ]
    assert flags["simple_writer"] == ["Warning: analytical_depth below 2"]
    assert "judge: advanced_writer: Critical: content accuracy below 2" in out.report.notes


async def test_ensemble_ungradeable_candidate_is_missing(
    fake_engine: Any, sample_text: str
) -> None:
    def by_report(messages: Any, tool: str | None) -> Any:
        if "ADVANCED" in messages[1].content:
            return "I cannot grade this."  # never a tool call
        return grade(2, 2, 2, 2, 2)

    m = models(grader=Script.of(default=by_report))
    out = await run(
        fake_engine,
        m,
        "ensemble",
        sample_text,
        options={"ensemble_variants": ("simple_writer", "advanced_writer")},
    )
    r = out.report
    cands = wf(r)["candidates"]
    assert cands["advanced_writer"]["grade"]["overall"] is None
    assert cands["advanced_writer"]["grade"]["error"]
    assert wf(r)["chosen"] == "simple_writer" and r.status == "succeeded"


async def test_ensemble_with_no_grade_is_degraded(fake_engine: Any, sample_text: str) -> None:
    m = models(grader=Script.of(default="no tool call"))
    out = await run(
        fake_engine,
        m,
        "ensemble",
        sample_text,
        options={"ensemble_variants": ("advanced_writer", "simple_writer")},
    )
    r = out.report
    assert r.status == "degraded" and r.failures[0].node == "judge"
    assert wf(r)["chosen"] == "advanced_writer"
    assert any("no grade parsed" in n for n in r.notes)


async def test_unparseable_recommendations_degrade(fake_engine: Any, sample_text: str) -> None:
    out = await run(fake_engine, models(extractor="no block"), "simple_writer", sample_text)
    r = out.report
    assert r.status == "degraded" and r.recommendations == []
    assert r.failures[0].node == "finalize"
