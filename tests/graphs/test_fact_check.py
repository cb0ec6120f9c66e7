"""The fact-check step in every pipeline: fixed on its one correction, still failing (flagged in
the evidence and footnoted in the Markdown), nothing to fix, switched off; and evidence links."""

from __future__ import annotations

from typing import Any

import pytest

from core.llm.fake import FakeModels, Script, block, canned
from core.options import RunOptions
from core.transcript import parse_transcript
from graphs import PIPELINES
from tests.scripts import findebate_models, prose

INVENTED = "## Summary\nRevenue grew 8.4% to $612 million and the backlog hit $7.7 billion.\n"
FIXED = "## Summary\nRevenue grew 8.4% to $612 million and the backlog hit $1.9 billion.\n"


def zero_shot_models(writer: str, checker: Script) -> FakeModels:
    return FakeModels(
        {
            "synthesizer": Script.of(default=writer),
            "extractor": Script.of(default=block()),
            "fact_checker": checker,
        }
    )


async def run(fake_engine: Any, models: FakeModels, text: str, **settings: Any) -> Any:
    async with fake_engine(models, fact_check=True, **settings) as engine:
        out = await engine.run(engine.request("zero_shot", parse_transcript(text)))
    assert out.report is not None, out.error
    return out.report


async def test_invented_figure_fixed_by_the_one_correction(
    fake_engine: Any, sample_text: str
) -> None:
    checker = Script.of(FIXED)
    report = await run(fake_engine, zero_shot_models(INVENTED, checker), sample_text)
    (call,) = checker.calls
    assert '"$7.7 billion"' in call.text  # the figure is listed with its context
    assert "contract backlog now stands at $1.9 billion" in call.text  # and the passage about it
    fc = report.evidence.fact_check
    assert fc.enabled and fc.correction_attempted and fc.corrected
    assert (fc.ungrounded_before, fc.still_ungrounded) == (["$7.7 billion"], [])
    assert "$7.7 billion" not in report.markdown and "$1.9 billion" in report.markdown
    assert "Unverified" not in report.markdown
    assert all(n.grounded and not n.flagged for n in report.evidence.numbers)
    assert report.status == "succeeded"


async def test_still_failing_after_correction_is_flagged_and_footnoted(
    fake_engine: Any, sample_text: str
) -> None:
    checker = Script.of(INVENTED)  # the model "corrects" nothing
    report = await run(fake_engine, zero_shot_models(INVENTED, checker), sample_text)
    assert len(checker.calls) == 1  # one chance only
    fc = report.evidence.fact_check
    assert fc.correction_attempted and not fc.corrected
    assert fc.still_ungrounded == ["$7.7 billion"] and "original text is kept" in (fc.note or "")
    flagged = [n for n in report.evidence.numbers if n.flagged]
    assert [n.text for n in flagged] == ["$7.7 billion"] and not flagged[0].grounded
    md = report.markdown
    assert "backlog hit $7.7 billion[^unverified-1]" in md
    assert "[^unverified-1]: **Unverified:** $7.7 billion is not stated" in md
    assert md.index("[^unverified-1]:") < md.index("## Recommendations")  # report ends in calls
    assert any("fact_check:" in n for n in report.notes)


async def test_correction_that_guts_the_report_is_refused(
    fake_engine: Any, sample_text: str
) -> None:
    long_report = INVENTED + "\n".join(f"Point {i} about the quarter's drivers." for i in range(40))
    checker = Script.of("Revenue grew 8.4%.")
    report = await run(fake_engine, zero_shot_models(long_report, checker), sample_text)
    fc = report.evidence.fact_check
    assert not fc.corrected and "kept only" in (fc.note or "")
    assert "Point 39" in report.markdown


async def test_a_correction_that_removes_a_figure_with_a_source_is_refused(
    fake_engine: Any, sample_text: str
) -> None:
    """The fact-check may remove what nothing supports, never a figure with a source (issue
    39): a correction that fixes the backlog but drops the call's $612 million is not kept."""
    dropped = "## Summary\nRevenue grew 8.4% and the backlog hit $1.9 billion.\n"
    report = await run(fake_engine, zero_shot_models(INVENTED, Script.of(dropped)), sample_text)
    fc = report.evidence.fact_check
    assert fc.correction_attempted and not fc.corrected
    assert "removed 1 figure(s) that have a source ($612 million)" in (fc.note or "")
    assert "$612 million" in report.markdown


async def test_new_invention_in_the_correction_is_flagged(
    fake_engine: Any, sample_text: str
) -> None:
    two = INVENTED + "Margins were 31.5%.\n"
    checker = Script.of(FIXED + "Margins were 24.1%. Cash was $999 million.\n")
    report = await run(fake_engine, zero_shot_models(two, checker), sample_text)
    fc = report.evidence.fact_check
    assert fc.corrected and fc.still_ungrounded == ["$999 million"]
    assert "$999 million[^unverified-1]" in report.markdown


async def test_nothing_to_fix_makes_no_call(fake_engine: Any, sample_text: str) -> None:
    checker = Script.of()  # any call would fail the test: the script is empty
    report = await run(fake_engine, zero_shot_models(FIXED, checker), sample_text)
    assert checker.calls == []
    fc = report.evidence.fact_check
    assert fc.enabled and not fc.correction_attempted and fc.checked == 3
    trace = {t.node: t for t in report.trace}
    assert trace["fact_check"].calls == 0


async def test_switched_off_no_call_but_still_flagged(fake_engine: Any, sample_text: str) -> None:
    checker = Script.of()
    models = zero_shot_models(INVENTED, checker)
    async with fake_engine(models) as engine:  # the fixture's default: fact_check off
        out = await engine.run(engine.request("zero_shot", parse_transcript(sample_text)))
        on = await engine.run(
            engine.request(
                "zero_shot",
                parse_transcript(sample_text),
                options=RunOptions(fact_check=False, parse_retries=0),
            )
        )
    for report in (out.report, on.report):
        assert checker.calls == []
        assert report.evidence.fact_check.enabled is False
        assert "[^unverified-1]" in report.markdown


async def test_empty_correction_keeps_the_original(fake_engine: Any, sample_text: str) -> None:
    checker = Script.of(default="   ")
    report = await run(fake_engine, zero_shot_models(INVENTED, checker), sample_text)
    fc = report.evidence.fact_check
    assert len(checker.calls) == 2  # the empty answer retried once, like any completion
    assert not fc.corrected and "empty" in (fc.note or "")
    assert "$7.7 billion[^unverified-1]" in report.markdown


# every pipeline a model writes in (`facts` has no model text to check: tests/graphs/test_facts.py)
@pytest.mark.parametrize("pipeline", [p for p in PIPELINES if p != "facts"])
async def test_every_pipeline_fact_checks_before_its_report(
    fake_engine: Any, sample_text: str, pipeline: str
) -> None:
    """The canned text states figures the sample call does not: every pipeline asks the
    fact-checker once, and the report footnotes what it could not fix."""
    models = FakeModels(
        {"fact_checker": Script.of(default=canned)}, default=Script.of(default=canned)
    )
    async with fake_engine(models, fact_check=True) as engine:
        out = await engine.run(engine.request(pipeline, parse_transcript(sample_text)))
    report = out.report
    assert report is not None, out.error
    nodes = [t.node for t in report.trace]
    assert nodes[-2:] == ["fact_check", "report"]
    assert len(models.script("fact_checker").calls) == 1
    assert report.evidence.fact_check.correction_attempted
    assert "**Unverified:**" in report.markdown


async def test_citations_resolve_to_passages_and_figures(
    fake_engine: Any, sample_text: str
) -> None:
    """Ids the report cites resolve to section/speaker/offsets; each grounded figure links to
    the chunk stating it; invented ids are noted, not linked."""
    transcript = parse_transcript(sample_text)
    from core.chunking import recursive_chunks

    chunk = next(c for c in recursive_chunks(transcript) if "$1.9 billion" in c.text)
    text = (
        f"## Summary\nThe backlog reached $1.9 billion [{chunk.id}], a record "
        "[abcdef123456-0999].\n"
    )
    models = findebate_models(block(), block(), specialist_text="analysis")
    models.scripts["synthesizer"] = Script.of(default=text)
    models.scripts["leader"] = Script.of(default=text)
    async with fake_engine(models) as engine:
        out = await engine.run(engine.request("findebate", transcript))
    report = out.report
    assert report is not None
    cited = [c for c in report.evidence.citations if c.via == "cited"]
    assert [c.chunk_id for c in cited] == [chunk.id]
    assert (cited[0].start, cited[0].end, cited[0].section) == (
        chunk.start,
        chunk.end,
        chunk.section,
    )
    assert transcript.text[cited[0].start : cited[0].end] == chunk.text
    (fig,) = [n for n in report.evidence.numbers if n.text == "$1.9 billion"]
    assert fig.chunk_id is not None and fig.source_start is not None
    link = next(c for c in report.evidence.citations if c.via == "figure")
    assert link.figure == "$1.9 billion" and link.start <= fig.source_start < link.end
    assert any("abcdef123456-0999" in n for n in report.notes), report.markdown
    assert "$1.9 billion" in prose(report.markdown)


async def test_a_fact_check_outage_degrades_and_keeps_the_draft(
    fake_engine: Any, sample_text: str
) -> None:
    """The fact-checker's model failing (503 on every attempt) is an optional step's outage:
    a `degraded` report with the draft, the deterministic check and a note naming node and
    reason, never a failed run (issue 18, defect 7)."""
    import httpx2 as httpx  # what the openai client is built on
    import openai

    def unavailable(messages: Any, tool: str | None) -> Any:
        request = httpx.Request("POST", "http://model/v1/chat/completions")
        response = httpx.Response(503, request=request)
        return openai.InternalServerError("503 Service Unavailable", response=response, body=None)

    checker = Script.of(default=unavailable)
    report = await run(fake_engine, zero_shot_models(INVENTED, checker), sample_text)
    assert len(checker.calls) == 1  # scripted handles do not retry (core.llm.chat's retries are
    # tested in tests/core/test_llm_retry.py); the outage is what reaches the node
    assert report.status == "degraded" and "$7.7 billion" in report.markdown  # the draft kept
    fc = report.evidence.fact_check
    assert fc.correction_attempted and not fc.corrected and fc.still_ungrounded == ["$7.7 billion"]
    assert any(n.flagged for n in report.evidence.numbers)  # the deterministic part stands
    [failure] = report.failures
    assert failure.node == "fact_check" and "server_error" in failure.reason
    assert any(n.startswith("fact_check: the correction model failed (server_error") for n in
               report.notes)  # fmt: skip


async def test_computed_changes_and_scorecard_values_pass_untouched(
    fake_engine: Any, sample_text: str
) -> None:
    """Figures code computed (QoQ/YoY, the market scorecard) are supported, each with its
    provenance: the fact-check sends nothing back; a changed digit in one of them is sent."""
    from core.inputs import changes
    from core.market import scorecard
    from tests.core.test_provenance import FIN, PRICES

    card = scorecard(PRICES)
    revenue = {(c.label, c.basis): c for c in changes(FIN)}[("Revenue", "YoY")]
    quoted = (
        f"## Summary\nRevenue grew {revenue.text()} year over year. The stock's RSI is "
        f"{card.rsi_14:.1f} with a 30-day return of {card.returns_pct[30]:.1f}%.\n"
    )
    checker = Script.of(default="never asked")
    async with fake_engine(zero_shot_models(quoted, checker), fact_check=True) as engine:
        out = await engine.run(
            engine.request(
                "zero_shot", parse_transcript(sample_text), financials=FIN, prices=PRICES
            )
        )
    report = out.report
    assert checker.calls == [] and report.evidence.fact_check.ungrounded_before == []
    assert "Unverified" not in report.markdown and revenue.text() in report.markdown
    by_text = {n.text: n for n in report.evidence.numbers}
    assert by_text[revenue.text().lstrip("+")].provenance == f"computed: {revenue.formula}"
    rsi = by_text[f"{card.rsi_14:.1f}"]
    assert (
        rsi.origin == "market"
        and "NWL" in (rsi.provenance or "")
        and "rsi_14" in (rsi.provenance or "")
    )

    rsi_text = f"{card.rsi_14:.1f}"
    wrong = rsi_text[:-1] + str((int(rsi_text[-1]) + 5) % 10)
    checker = Script.of(default=quoted)
    bad = quoted.replace(rsi_text, wrong)
    async with fake_engine(zero_shot_models(bad, checker), fact_check=True) as engine:
        out = await engine.run(
            engine.request(
                "zero_shot", parse_transcript(sample_text), financials=FIN, prices=PRICES
            )
        )
    assert out.report.evidence.fact_check.ungrounded_before == [wrong]  # only that one
    assert f'"{wrong}"' in checker.calls[0].text
