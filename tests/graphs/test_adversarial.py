"""adversarial's routes: briefing in parallel, with and without prices; press asked of one side,
both, or neither; cross-examination never parseable (rebuttals skipped); judge JSON malformed then
valid (retry) vs never valid (degraded, no default winner); stress analyst's one sentence; the
lead analyst's checks; the recommendation block."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import pytest

from core.inputs import Prices
from core.llm.fake import FakeModels, Script, block
from core.transcript import parse_transcript
from nodes.adversarial import LEAD_SECTIONS, NO_MARKET_DATA, lead_checks

pytestmark = pytest.mark.asyncio

CHALLENGES = {
    "challenges_to_bull": ["Is the margin gain repeatable without the one-off?"],
    "challenges_to_bear": ["Why ignore the raised guidance?"],
}
VERDICT = {"winner": "Bull", "justification": "The Bull tied its thesis to the raised guidance."}
LEAD = "\n\n".join(f"## {s}\n" + "word " * 150 for s in LEAD_SECTIONS)


def assessment(bull: bool, bear: bool) -> dict[str, Any]:
    return {
        "bull_convincing": bull,
        "bull_follow_up": "What if the one-off does not recur?",
        "bear_convincing": bear,
        "bear_follow_up": "How do you square the guidance raise?",
    }


def da(*, challenges: Any = CHALLENGES, assess: Any = None) -> Script:
    assess = assess if assess is not None else assessment(True, True)

    def answer(messages: Any, tool: str | None) -> Any:
        if tool == "Challenges":
            return challenges
        if tool == "RebuttalAssessment":
            return assess
        raise AssertionError(f"unexpected devils_advocate call (tool={tool})")

    return Script.of(default=answer)


def models(
    *,
    devils_advocate: Script | None = None,
    judge: Script | None = None,
    stress: str = "Everything hinges on the one-off gain recurring.",
    lead: str = LEAD,
    extractor: Any = None,
) -> FakeModels:
    def speech(side: str) -> Any:
        return lambda m, t: f"{side.upper()} says: " + m[-1].content.split("\n")[0][:60]

    scripts = {
        "factual_analyst": Script.of(default="- Revenue $1.54 billion, up 10.7%."),
        "behavioral_analyst": Script.of(default='- Confident on guidance: "we raised it".'),
        "market_analyst": Script.of(default="Momentum is positive; RSI neutral."),
        "bull": Script.of(default=speech("bull")),
        "bear": Script.of(default=speech("bear")),
        "devils_advocate": devils_advocate or da(),
        "judge": judge or Script.of(default=VERDICT),
        "stress_analyst": Script.of(default=stress),
        "lead_analyst": Script.of(default=lead),
        "extractor": extractor
        if isinstance(extractor, Script)
        else Script.of(default=extractor or block()),
    }
    return FakeModels(scripts)


async def run(fake_engine: Any, m: FakeModels, sample: str, **kw: Any) -> Any:
    async with fake_engine(m) as engine:
        return await engine.run(engine.request("adversarial", parse_transcript(sample), **kw))


def nodes(report: Any) -> list[str]:
    return [t.node for t in report.trace]


def acts(report: Any) -> list[tuple[str, str]]:
    return [(a["speaker"], a["act"]) for a in report.extras["adversarial"]["debate"]]


def prices() -> Prices:
    start = date(2026, 1, 1)

    def bars(base: int) -> list[dict[str, Any]]:
        return [
            {
                "date": str(start + timedelta(days=i)),
                "open": base + i,
                "high": base + i + 1,
                "low": base + i - 1,
                "close": base + i + (i % 3),
                "volume": 1000,
            }
            for i in range(70)
        ]

    return Prices.model_validate(
        {
            "company": {"symbol": "NWL", "bars": bars(100)},
            "benchmark": {"symbol": "SPY", "bars": bars(400)},
        }
    )


async def test_no_press_when_both_rebuttals_convince(fake_engine: Any, sample_text: str) -> None:
    m = models()
    out = await run(fake_engine, m, sample_text)
    r = out.report
    assert r.status == "succeeded" and len(r.recommendations) == 3
    n = nodes(r)
    assert n[0] == "facts"  # the call facts, by code, before any model writes
    assert n[1] == "plan"  # which SAS system runs (S4 by default)
    assert set(n[2:5]) == {"factual_analyst", "behavioral_analyst", "market_analyst"}
    assert n[5] == "briefing" and "bull_press" not in n and "bear_press" not in n
    assert acts(r) == [
        ("bull", "opening"),
        ("bear", "opening"),
        ("devils_advocate", "cross_examination"),
        ("bull", "rebuttal"),
        ("bear", "rebuttal"),
        ("devils_advocate", "assessment"),
        ("bull", "closing"),
        ("bear", "closing"),
        ("judge", "verdict"),
        ("stress_analyst", "weakest_link"),
    ]
    assert r.extras["adversarial"]["press_asked"] == []
    assert r.extras["adversarial"]["verdict"]["winner"] == "Bull"
    assert any("both rebuttals convincing; no press" in x for x in r.notes)


async def test_press_only_the_unconvincing_side(fake_engine: Any, sample_text: str) -> None:
    m = models(devils_advocate=da(assess=assessment(False, True)))
    out = await run(fake_engine, m, sample_text)
    r = out.report
    assert "bull_press" in nodes(r) and "bear_press" not in nodes(r)
    assert r.extras["adversarial"]["press_asked"] == ["bull"]
    press_prompt = next(c.text for c in m.script("bull").calls if "presses one last" in c.text)
    assert "What if the one-off does not recur?" in press_prompt
    assert nodes(r).index("bull_press") < nodes(r).index("bull_closing")
    assert nodes(r).count("judge") == 1


async def test_press_both_sides(fake_engine: Any, sample_text: str) -> None:
    out = await run(
        fake_engine, models(devils_advocate=da(assess=assessment(False, False))), sample_text
    )
    assert sorted(out.report.extras["adversarial"]["press_asked"]) == ["bear", "bull"]


async def test_rebuttals_answer_their_own_challenges(fake_engine: Any, sample_text: str) -> None:
    m = models()
    await run(fake_engine, m, sample_text)
    bull_rebuttal = next(c.text for c in m.script("bull").calls if "challenged your" in c.text)
    own = bull_rebuttal.split("## Challenges to you")[1].split("## The debate so far")[0]
    assert "Is the margin gain repeatable" in own and "Why ignore" not in own
    closing = m.script("bear").calls[-1].text
    assert "Bull, opening" in closing and "Devils Advocate, cross examination" in closing


async def test_unparseable_cross_examination_skips_to_closings(
    fake_engine: Any, sample_text: str
) -> None:
    m = models(devils_advocate=da(challenges={"challenges_to_bull": []}))
    out = await run(fake_engine, m, sample_text)
    r = out.report
    assert r.status == "degraded" and r.failures[0].node == "devils_advocate"
    n = nodes(r)
    assert "bull_rebuttal" not in n and "assess_rebuttals" not in n
    assert "bull_closing" in n and "judge" in n
    assert len(r.recommendations) == 3  # the report is still written, and says what failed


async def test_unparseable_assessment_asks_no_press(fake_engine: Any, sample_text: str) -> None:
    bad = {"bull_convincing": False, "bull_follow_up": "?", "bear_convincing": True}
    out = await run(fake_engine, models(devils_advocate=da(assess=bad)), sample_text)
    r = out.report
    assert r.status == "degraded" and [f.node for f in r.failures] == ["assess_rebuttals"]
    assert "bull_press" not in nodes(r) and "bear_press" not in nodes(r)
    assert r.extras["adversarial"]["assessment"] is None
    assert "judge" in nodes(r) and len(r.recommendations) == 3


async def test_judge_malformed_then_valid(fake_engine: Any, sample_text: str) -> None:
    judge = Script.of(
        {"winner": "Draw", "justification": "Both sides were equally good here."}, VERDICT
    )
    m = models(judge=judge)
    out = await run(fake_engine, m, sample_text)
    r = out.report
    assert r.status == "succeeded" and r.extras["adversarial"]["verdict"]["winner"] == "Bull"
    assert next(t for t in r.trace if t.node == "judge").retries == 1
    assert "rejected" in judge.calls[1].text


async def test_judge_never_valid_is_degraded_without_winner(
    fake_engine: Any, sample_text: str
) -> None:
    m = models(judge=Script.of(default="The Bull wins, obviously."))
    out = await run(fake_engine, m, sample_text)
    r = out.report
    assert r.status == "degraded"
    assert [f.node for f in r.failures] == ["judge"]
    assert r.extras["adversarial"]["verdict"] is None
    lead_prompt = m.script("lead_analyst").calls[0].text
    assert "No thesis was settled" in lead_prompt and "Adopt this thesis" not in lead_prompt
    assert "no winner was declared" in " ".join(r.notes)


async def test_stress_analyst_keeps_one_sentence(fake_engine: Any, sample_text: str) -> None:
    m = models(stress="The one-off may not recur. Also costs. And more.")
    out = await run(fake_engine, m, sample_text)
    r = out.report
    assert r.extras["adversarial"]["weakest_link"] == "The one-off may not recur."
    assert any("wrote 3 sentences" in x for x in r.notes)
    assert "The one-off may not recur." in m.script("lead_analyst").calls[0].text


async def test_market_analyst_without_prices_says_so(fake_engine: Any, sample_text: str) -> None:
    m = models()
    out = await run(fake_engine, m, sample_text)
    assert m.script("market_analyst").calls == []
    assert out.report.extras["adversarial"]["briefing"]["market_analyst"]["text"] == NO_MARKET_DATA
    assert "No market data was supplied" in m.script("bull").calls[0].text


async def test_market_analyst_reads_the_scorecard(fake_engine: Any, sample_text: str) -> None:
    m = models()
    out = await run(fake_engine, m, sample_text, prices=prices())
    prompt = m.script("market_analyst").calls[0].text
    assert '"rsi_14"' in prompt and '"beta_30d"' in prompt and '"returns_pct"' in prompt
    assert "market_scorecard" in out.report.extras


async def test_lead_analyst_checks(fake_engine: Any, sample_text: str) -> None:
    assert lead_checks(LEAD) == []
    bad = "## Introduction & Executive Summary\nThe bull case won the debate. " + "w " * 100
    notes = lead_checks(bad)
    assert any("words (asked 700-800)" in n for n in notes)
    assert any("missing: Quarterly Performance Review" in n for n in notes)
    assert any("mentions the debate (bull, debate)" in n for n in notes)
    out = await run(fake_engine, models(lead=bad), sample_text)
    assert any("mentions the debate" in n for n in out.report.notes)


async def test_unparseable_recommendations_degrade(fake_engine: Any, sample_text: str) -> None:
    out = await run(fake_engine, models(extractor="none"), sample_text)
    r = out.report
    assert r.status == "degraded" and r.recommendations == []
    assert r.failures[0].node == "lead_analyst"


async def test_lead_contradicting_the_verdict_is_revised_once(
    fake_engine: Any, sample_text: str
) -> None:
    """A Bull verdict with SHORT everywhere is sent back to the Lead once, with the reason."""
    extractor = Script.of(block(positions=("SHORT",) * 3), block())
    m = models(extractor=extractor)
    out = await run(fake_engine, m, sample_text)
    report = out.report
    assert nodes(report).count("lead_analyst") == 2 and nodes(report).count("verdict_check") == 2
    second = m.script("lead_analyst").calls[1].text
    assert "contradicted that thesis" in second and "SHORT/SHORT/SHORT" in second
    assert report.extras["verdict_check"] == {"consistent": True, "reason": "", "revisions": 1}
    assert any("revised once to match the verdict" in n for n in report.notes)
    assert [r.position.value for r in report.recommendations] == ["LONG"] * 3


async def test_lead_still_contradicting_after_the_revision_is_reported(
    fake_engine: Any, sample_text: str
) -> None:
    m = models(extractor=block(positions=("SHORT", "NEUTRAL", "SHORT")))
    out = await run(fake_engine, m, sample_text)
    report = out.report
    assert report.status in ("succeeded", "degraded")
    assert nodes(report).count("lead_analyst") == 2  # the loop stops after one revision
    check = report.extras["verdict_check"]
    assert check["consistent"] is False and check["revisions"] == 1
    assert any("still inconsistent after one revision" in n for n in report.notes)


async def test_neutral_or_mixed_positions_are_not_a_contradiction(
    fake_engine: Any, sample_text: str
) -> None:
    m = models(extractor=block(positions=("SHORT", "LONG", "NEUTRAL")))
    out = await run(fake_engine, m, sample_text)
    assert nodes(out.report).count("lead_analyst") == 1
    assert out.report.extras["verdict_check"]["consistent"] is True


@pytest.mark.parametrize(
    ("system", "ran", "absent"),
    [
        ("S1", ["plan", "lead_analyst", "verdict_check"],
         ["factual_analyst", "briefing", "bull_opening", "judge", "stress_analyst"]),
        ("S2", ["plan", "factual_analyst", "briefing", "lead_analyst"],
         ["bull_opening", "devils_advocate", "judge", "stress_analyst"]),
        ("S3", ["briefing", "bull_opening", "bear_opening", "judge", "stress_analyst",
                "lead_analyst"],
         ["devils_advocate", "bull_rebuttal", "assess_rebuttals", "bull_closing"]),
        ("S4", ["devils_advocate", "bull_rebuttal", "assess_rebuttals", "bull_closing", "judge"],
         []),
    ],
)  # fmt: skip
async def test_sas_ablations_s1_to_s3(
    fake_engine: Any, sample_text: str, system: str, ran: list[str], absent: list[str]
) -> None:
    from core.options import RunOptions

    m = models()
    out = await run(fake_engine, m, sample_text, options=RunOptions(sas_system=system))  # type: ignore[arg-type]
    report = out.report
    assert report.status == "succeeded", report.failures
    names = nodes(report)
    assert all(n in names for n in ran), names
    assert not any(n in names for n in absent), names
    assert names.count("judge") <= 1 and names.count("devils_advocate") <= 1
    assert report.extras["adversarial"]["system"] == system
    lead = m.script("lead_analyst").calls[0].text
    if system == "S1":  # the raw call and the market data, nothing distilled
        assert "Northwind" in lead and "No market data was supplied" in lead
        assert "## Arguments made so far\n(none yet)" in lead
    if system == "S2":
        assert "Facts and figures stated on the call" in lead
        assert "## Arguments made so far\n(none yet)" in lead
    if system == "S3":
        assert "## Arguments made so far\n### Bull, opening" in lead
        assert "press" not in acts_of(report)


def acts_of(report: Any) -> set[str]:
    return {a["act"] for a in report.extras["adversarial"]["debate"]}


async def test_each_role_sees_what_the_sas_paper_gives_it(
    fake_engine: Any, sample_text: str
) -> None:
    """Bull and Bear argue from the CIO briefing alone (no call facts); their closings are
    symmetric (the Bull, closing after a press, never reads the Bear's closing); the Judge reads
    the whole debate; the Stress analyst gets the winning (Bull's) thesis, not the Bear's."""

    def numbered(side: str) -> Script:
        n = iter(range(1, 100))
        return Script.of(default=lambda m, t: f"{side.upper()}-SPEECH-{next(n)}")

    m = models(devils_advocate=da(assess=assessment(False, True)))
    m.scripts["bull"], m.scripts["bear"] = numbered("bull"), numbered("bear")
    out = await run(fake_engine, m, sample_text)
    assert out.report is not None and out.report.facts is not None
    assert out.report.appendix and "**Key figures**" not in out.report.markdown  # memo format
    bull, bear = m.script("bull").calls, m.script("bear").calls
    assert len(bull) == 4 and len(bear) == 3  # opening, rebuttal, press (bull), closing
    for call in [*bull, *bear]:
        assert "Call facts (extracted by code)" not in call.text
        assert "## The committee's briefing" in call.text
    bull_closing, bear_closing = bull[-1].text, bear[-1].text
    assert "BEAR-SPEECH-2" in bull_closing and "BEAR-SPEECH-3" not in bull_closing
    assert "BULL-SPEECH-4" not in bear_closing
    (judge,) = m.script("judge").calls
    assert "BULL-SPEECH-4" in judge.text and "BEAR-SPEECH-3" in judge.text
    assert "Call facts (extracted by code)" in judge.text
    (stress,) = m.script("stress_analyst").calls
    assert all(f"BULL-SPEECH-{i}" in stress.text for i in range(1, 5))
    assert "BEAR-SPEECH" not in stress.text and "committee's briefing" not in stress.text
    assert "## The call" not in stress.text
    assert "The Bull tied its thesis to the raised guidance." in stress.text
