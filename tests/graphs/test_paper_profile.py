"""The `paper` profile (issue 39): each role reads what its paper gives it, in its paper's layout
(the role alone is the system message) and sampling, with no call-facts block, no consensus and
no fact-check rewrite; `desk` (the default) keeps our additions. Runs on the scripted fake
models, which record every prompt."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from core.inputs import Financials, financials_from_text, prices_from_text
from core.llm.fake import FakeModels, Script, block, canned
from core.options import parse_variant
from core.profiles import PAPER_INPUTS, PAPER_SAMPLING, for_profile, paper_role, sampling
from core.transcript import parse_transcript
from prompts import available, render

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
INVENTED = "## Summary\nRevenue grew 8.4% to $612 million and the backlog hit $7.7 billion.\n"
FACTS_HEADING = "## Call facts (extracted by code)"


@pytest.fixture
def sample_financials() -> Financials:
    text = (SAMPLES / "northwind_financials.json").read_text(encoding="utf-8")
    return financials_from_text(text, csv_format=False)


@pytest.fixture
def sample_prices() -> Any:
    text = (SAMPLES / "northwind_prices.csv").read_text(encoding="utf-8")
    return prices_from_text(text, csv_format=True, ticker="NWL")


def _consensus_financials(financials: Financials) -> Financials:
    data = financials.model_dump(by_alias=True, mode="json")
    quarter_end = data["most_recent_earnings"]["fiscalDateEnding"]
    data["consensus"] = {"fiscalDateEnding": quarter_end, "reportedDate": "2026-07-28",
                         "reportedEPS": 1.12, "estimatedEPS": 0.99}  # fmt: skip
    return Financials.model_validate(data)


async def _run(fake_engine: Any, spec: str, profile: str, text: str, financials: Any,
               prices: Any = None) -> tuple[Any, Script]:  # fmt: skip
    script = Script.of(default=canned)
    models = FakeModels(default=script)
    variant = parse_variant(spec)
    async with fake_engine(models, fact_check=True) as engine:
        options = variant.apply(engine.context.options).merged({"profile": profile})
        request = engine.request(variant.pipeline, parse_transcript(text), None, options,
                                 financials=financials, prices=prices)  # fmt: skip
        out = await engine.run(request)
    assert out.report is not None, out.error
    return out.report, script


SPECS = ["findebate", "zero_shot", "standard_rag", "conversation", "writer_feedback@ensemble",
         "adversarial@S1", "adversarial@S4"]  # fmt: skip


@pytest.mark.parametrize("spec", SPECS)
async def test_paper_runs_without_our_additions_and_desk_keeps_them(
    fake_engine: Any, sample_text: str, sample_financials: Financials, sample_prices: Any,
    spec: str,
) -> None:  # fmt: skip
    financials = _consensus_financials(sample_financials)
    paper, paper_script = await _run(fake_engine, spec, "paper", sample_text, financials,
                                     sample_prices)  # fmt: skip
    desk, desk_script = await _run(fake_engine, spec, "desk", sample_text, financials,
                                   sample_prices)  # fmt: skip
    role_calls = [c for c in paper_script.calls if c.tool != "RecommendationBlock"]
    assert role_calls, "the paper run asked no role"
    for call in role_calls:
        system = str(call.messages[0].content)
        assert FACTS_HEADING not in call.text  # no call-facts block
        assert "consensus" not in call.text.lower()  # no paper gives the consensus
        assert "## The call\n" not in system  # the material is in the user message
        assert "Figures (every role)" not in call.text  # our house rule
    # the report is annotated, never rewritten: no fact-check call, and the note says why
    fc = paper.evidence.fact_check
    assert not fc.correction_attempted and "paper profile" in (fc.note or "")
    assert "the `paper` profile" in paper.markdown and "`paper` profile" not in desk.markdown
    # desk keeps our additions where the pipeline has them
    if spec != "zero_shot":
        assert any(FACTS_HEADING in c.text for c in desk_script.calls)
    if spec in ("conversation", "writer_feedback@ensemble"):
        assert any("consensus" in c.text.lower() for c in desk_script.calls)


async def test_the_jetsons_writers_answer_long_or_short_only_under_paper(
    fake_engine: Any, sample_text: str, sample_financials: Financials
) -> None:
    _, paper = await _run(fake_engine, "writer_feedback@advanced_writer", "paper", sample_text,
                          sample_financials)  # fmt: skip
    _, desk = await _run(fake_engine, "writer_feedback@advanced_writer", "desk", sample_text,
                         sample_financials)  # fmt: skip
    (writer,) = [c for c in paper.calls if "Final Recommendation" in c.text]
    assert "the paper's answer space has no neutral" in writer.text
    # the paper's data: three quarters of statement lines as given, nothing computed
    assert "| totalRevenue |" in writer.text and "QoQ" not in writer.text
    (desk_writer,) = [c for c in desk.calls if "Final Recommendation" in c.text]
    assert "NEUTRAL only when" in desk_writer.text and "QoQ" in desk_writer.text


async def test_a_paper_reviewer_reads_the_report_only(
    fake_engine: Any, sample_text: str, sample_financials: Financials
) -> None:
    _, script = await _run(fake_engine, "writer_feedback@advanced_feedback", "paper",
                           sample_text, sample_financials)  # fmt: skip
    reviews = [c for c in script.calls if "financial expert checking" in c.text]
    assert reviews
    for call in reviews:
        assert "contract backlog now stands" not in call.text  # no transcript
        assert "totalRevenue" not in call.text and "QoQ" not in call.text  # no statements


def test_every_prompt_a_paper_role_renders_states_its_papers_inputs() -> None:
    roles = [p for p in available() if not p.startswith("eval/") and p != "shared/fact_check"]
    assert sorted(PAPER_INPUTS) == roles
    with pytest.raises(KeyError, match="no paper inputs stated"):
        paper_role("shared/fact_check")  # never runs under paper
    for role in PAPER_INPUTS.values():
        assert role.source and "facts" not in role.reads


def test_the_profile_filters_inputs_and_lays_the_prompt_out() -> None:
    given = {"report": "R", "transcript": "T", "facts": "F", "call": None}
    assert for_profile("desk", "writer_feedback/risk_reviewer", given) == given
    paper = for_profile("paper", "writer_feedback/risk_reviewer", given)
    assert paper == {"report": "R", "transcript": "", "facts": "", "call": ""}
    kw: dict[str, Any] = {"report": INVENTED, "transcript": "the call's words", "facts": "",
                          "financials": "", "call": ""}  # fmt: skip
    desk = render("writer_feedback/panel", **kw)
    laid = render("writer_feedback/panel", "paper", **kw)
    assert "the call's words" in desk.system and "the call's words" not in desk.user
    assert "the call's words" in laid.user and "the call's words" not in laid.system
    assert "## Your role" in desk.system and "## Your role" not in laid.system


def test_each_papers_stated_sampling() -> None:
    assert sampling("desk", "findebate/leader") is None
    fd = sampling("paper", "findebate/leader")
    assert fd is not None and (fd.temperature, fd.top_p, fd.frequency_penalty) == (0.6, 0.85, 0.1)
    aw = sampling("paper", "writer_feedback/advanced_writer")
    assert aw is not None and (aw.temperature, aw.top_p) == (0.7, 0.95)
    panel = sampling("paper", "writer_feedback/panel")
    assert panel is not None and (panel.temperature, panel.top_p) == (0.7, 1.0)
    sas = sampling("paper", "adversarial/judge")
    assert sas is not None and sas.temperature is None and "not stated" in sas.source
    assert set(PAPER_SAMPLING) >= {"findebate", "writer_feedback", "conversation", "adversarial"}


async def test_the_paper_sampling_reaches_the_model(
    fake_engine: Any, sample_text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The role's model is asked with its paper's settings (a copy: the run's model keeps its
    own)."""
    import nodes.calls as calls

    seen: list[tuple[str, Any]] = []
    real = calls._for_run

    def spy(ctx: Any, role: str, template: str) -> Any:
        handle = real(ctx, role, template)
        seen.append((template, getattr(handle.model, "temperature", "n/a")))
        return handle

    monkeypatch.setattr(calls, "_for_run", spy)
    models = FakeModels({"synthesizer": Script.of(default=INVENTED),
                         "extractor": Script.of(default=block())})  # fmt: skip
    async with fake_engine(models) as engine:
        options = engine.context.options.merged({"profile": "paper"})
        out = await engine.run(engine.request("zero_shot", parse_transcript(sample_text), None,
                                              options))  # fmt: skip
    assert out.report is not None
    # the fake chat model has no sampling fields: the handle is the run's own; a model that has
    # them gets FinDebate's settings for its baseline (see test_a_model_with_sampling_fields_...)
    assert seen and seen[0][0] == "baselines/zero_shot"


def test_a_model_with_sampling_fields_gets_its_papers_settings() -> None:
    from langchain_openai import ChatOpenAI

    from core.context import RunContext
    from core.llm.chat import ChatHandle
    from core.options import RunOptions
    from nodes.calls import _for_run

    model = ChatOpenAI(api_key="x", base_url="http://127.0.0.1:9", temperature=0.2, top_p=0.5)  # type: ignore[arg-type]

    class Source:
        def chat(self, role: str) -> ChatHandle:
            return ChatHandle(model, "remote:test", None, 0, 0.0)

    for profile, template, expected in (
        ("desk", "writer_feedback/panel", (0.2, 0.5)),
        ("paper", "writer_feedback/panel", (0.7, 1.0)),
        ("paper", "writer_feedback/advanced_writer", (0.7, 0.95)),
        ("paper", "conversation/writer", (0.2, 0.5)),  # not stated: the run's own
    ):
        ctx = RunContext(models=Source(), index=None, options=RunOptions(profile=profile))  # type: ignore[arg-type]
        got: Any = _for_run(ctx, "writer", template).model
        assert (got.temperature, got.top_p) == expected, (profile, template)
    assert (model.temperature, model.top_p) == (0.2, 0.5)  # the run's model is not changed


async def test_a_neutral_outside_the_jetsons_space_is_kept_and_flagged_under_paper(
    fake_engine: Any, sample_text: str, sample_financials: Financials
) -> None:
    """Jetsons answers Long or Short: a NEUTRAL the report states is never turned into a side;
    under `paper` the run says it fell outside the paper's space, under `desk` it is an answer."""

    def neutral_month(messages: list[Any], tool: str | None) -> Any:
        return (
            block(("LONG", "SHORT", "NEUTRAL"))
            if tool == "RecommendationBlock"
            else canned(messages, tool)
        )

    for profile, flagged in (("paper", True), ("desk", False)):
        models = FakeModels(default=Script.of(default=neutral_month))
        async with fake_engine(models) as engine:
            variant = parse_variant("writer_feedback@advanced_writer")
            options = variant.apply(engine.context.options).merged({"profile": profile})
            request = engine.request(variant.pipeline, parse_transcript(sample_text), None,
                                     options, financials=sample_financials)  # fmt: skip
            report = (await engine.run(request)).report
        assert report is not None
        assert [r.position.value for r in report.recommendations] == ["LONG", "SHORT", "NEUTRAL"]
        reasons = [f.reason for f in report.failures]
        said = any("outside the Jetsons answer space" in r and "1m" in r for r in reasons)
        assert said is flagged
        assert (report.status == "degraded") is flagged
