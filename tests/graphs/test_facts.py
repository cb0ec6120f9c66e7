"""The `facts` pipeline: call facts and a rule-based stance, no model at all (any model call
fails these tests); every rule that fires is quoted; nothing to find gives NEUTRAL, not an error.
Every other pipeline starts with the same facts node and carries the facts in its report."""

from __future__ import annotations

from typing import Any

import pytest

from core.contract import CallInfo, Position
from core.llm.fake import FakeModels
from core.transcript import parse_transcript
from nodes.facts import NO_MODEL_NOTE
from tests.calls import CALL
from tests.scripts import block, findebate_models


@pytest.mark.usefixtures("all_rules_verified")  # plumbing, not which rows earned it
async def test_facts_pipeline_needs_no_model(fake_engine: Any) -> None:
    models = FakeModels({})  # no script at all: a model call would fail the run
    async with fake_engine(models, fact_check=True) as engine:
        out = await engine.run(engine.request("facts", parse_transcript(CALL)))
    r = out.report
    assert r is not None and r.status == "succeeded", out.error
    assert [t.node for t in r.trace] == ["facts", "stance", "report"]
    assert all(t.calls == 0 and not t.models for t in r.trace)
    assert r.model_note == NO_MODEL_NOTE and NO_MODEL_NOTE in r.markdown
    assert [x.position for x in r.recommendations] == [Position.LONG] * 3
    assert "guidance raised (Revenue)" in r.markdown and "raising our" in r.markdown
    assert r.recommendations[2].conviction >= r.recommendations[0].conviction  # 1m: fundamentals
    assert r.facts is not None and r.facts.guidance
    assert not [n for n in r.evidence.numbers if not n.grounded]  # rules' weights are apparatus


@pytest.mark.parametrize(
    "text",
    [
        "The company had a good quarter and the team worked hard.",
        "**CEO**\n: We are cautious. Demand is weak, and costs rose 4%.",
    ],
)
async def test_facts_pipeline_with_nothing_decisive_is_neutral(fake_engine: Any, text: str) -> None:
    async with fake_engine(FakeModels({})) as engine:
        out = await engine.run(engine.request("facts", parse_transcript(text)))
    r = out.report
    assert r is not None and r.status == "succeeded"
    assert {x.position for x in r.recommendations} == {Position.NEUTRAL}
    assert all(x.conviction == 50 for x in r.recommendations)
    assert r.facts is not None and r.facts.notes


async def test_model_pipelines_carry_the_facts(fake_engine: Any, sample_text: str) -> None:
    async with fake_engine(findebate_models(block(), block())) as engine:
        out = await engine.run(engine.request("findebate", parse_transcript(sample_text)))
    r = out.report
    assert r is not None and r.facts is not None and r.facts.key_figures
    assert r.trace[0].node == "facts" and r.trace[0].calls == 0
    head, _, prose = r.markdown.partition("_End of the call facts.")
    assert "## Call facts" in head and "$612 million" in head
    assert "## Final report" in prose  # the model's text follows the code's section


@pytest.mark.parametrize(
    ("pipeline", "roles"),
    [
        ("findebate", ["earnings_analyst", "risk_analyst", "synthesizer", "trust", "skeptic",
                       "leader"]),
        ("standard_rag", ["synthesizer"]),  # zero_shot: none (tests/graphs/test_baselines.py)
    ],
)  # fmt: skip
async def test_models_are_given_the_verified_facts(
    fake_engine: Any, sample_text: str, pipeline: str, roles: list[str]
) -> None:
    models = findebate_models(block(), block())
    async with fake_engine(models) as engine:
        out = await engine.run(engine.request(pipeline, parse_transcript(sample_text)))
    assert out.report is not None
    for role in roles:
        prompt = models.script(role).calls[0].text
        assert "## Call facts (extracted by code)" in prompt and "$612 million" in prompt, role
        assert "the quote wins" in prompt and "Call as read: Northwind Logistics" in prompt, role
    assert "Call facts (extracted by code)" not in models.script("extractor").calls[0].text


@pytest.mark.parametrize("pipeline", ["conversation", "writer_feedback", "adversarial"])
async def test_every_writing_role_is_given_the_facts(
    fake_engine: Any, sample_text: str, pipeline: str
) -> None:
    """Writers, reviewers, the debate, the judge and the fact-checker: every model call that
    writes about the call carries the call facts (the recommendation extractor reads only
    the report), except where the paper confines a role's inputs: SAS's Bull and Bear argue
    from the briefing alone and the Stress analyst reads the winning thesis."""
    from core.llm.fake import Script, canned

    shared = Script.of(default=canned)
    models = FakeModels({"fact_checker": Script.of(default=canned)}, default=shared)
    async with fake_engine(models, fact_check=True) as engine:
        out = await engine.run(engine.request(pipeline, parse_transcript(sample_text)))
    assert out.report is not None, out.error
    calls = [*shared.calls, *models.script("fact_checker").calls]
    confined = ("You are the Bull", "You are the Bear", "You guard the committee against a thesis")
    writing = [
        c for c in calls
        if c.tool != "RecommendationBlock" and not any(r in c.text for r in confined)
    ]  # fmt: skip
    assert len(writing) >= 4
    assert all("## Call facts (extracted by code)" in c.text for c in writing)


async def test_the_title_names_the_call_as_read_when_the_user_gave_nothing(
    fake_engine: Any, sample_text: str
) -> None:
    """The demo call names its company in its first line: the report's title says so instead of
    "Earnings call", and the section names the call as read."""
    async with fake_engine(FakeModels({})) as engine:
        out = await engine.run(engine.request("facts", parse_transcript(sample_text)))
    r = out.report
    assert r is not None and r.facts is not None
    assert r.facts.call.company == "Northwind Logistics" and r.facts.call.period == "Q2 2026"
    assert r.markdown.startswith("# Northwind Logistics Q2 2026: analyst report")
    assert "The call as read: Northwind Logistics, Q2 2026." in r.markdown


async def test_what_the_user_stated_about_the_call_wins_and_is_escaped(
    fake_engine: Any, sample_text: str
) -> None:
    """The run's CallInfo reaches the facts (call_facts' `call=`), and the title escapes it."""
    call = CallInfo(company="Globex *Corp*", ticker="GBX")
    async with fake_engine(FakeModels({})) as engine:
        out = await engine.run(engine.request("facts", parse_transcript(sample_text), call))
    r = out.report
    assert r is not None and r.facts is not None
    assert (r.facts.call.company, r.facts.call.ticker) == ("Globex *Corp*", "GBX")
    assert r.markdown.startswith(r"# Globex \*Corp\* (GBX) Q2 2026: analyst report")
    assert r"The call as read: Globex \*Corp\* (GBX), Q2 2026." in r.markdown
