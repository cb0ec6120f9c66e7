"""zero_shot, standard_rag and multi_agent: each route, driven by scripted fakes."""

from __future__ import annotations

from typing import Any

import pytest

from core.llm.fake import FakeModels, Script
from core.transcript import parse_transcript
from nodes.specialists import SPECIALISTS
from tests.scripts import block, findebate_models

pytestmark = pytest.mark.asyncio


async def test_multi_agent_has_no_debate(fake_engine: Any, sample_text: str) -> None:
    models = findebate_models(block())
    async with fake_engine(models) as engine:
        out = await engine.run(engine.request("multi_agent", parse_transcript(sample_text)))
    assert out.report is not None and out.report.status == "succeeded"
    assert out.report.debate is None
    nodes = [t.node for t in out.report.trace]
    assert set(SPECIALISTS) <= set(nodes) and "trust" not in nodes
    assert models.script("trust").calls == []


async def test_zero_shot_sees_the_transcript_and_notes_truncation(
    fake_engine: Any, sample_text: str
) -> None:
    writer = Script.of(default="report")
    models = FakeModels({"synthesizer": writer, "extractor": Script.of(block())})
    async with fake_engine(models, transcript_words=150) as engine:
        out = await engine.run(engine.request("zero_shot", parse_transcript(sample_text)))
    assert out.report is not None and out.report.status == "succeeded"
    assert [t.node for t in out.report.trace] == ["facts", "synthesize", "fact_check", "report"]
    prompt = writer.calls[0].text
    # the opening first, then the passages that best match what a reader of a call looks for
    assert "Northwind" in prompt and "speculate on that" not in prompt and "[...]" in prompt
    note = next(n for n in out.report.notes if n.startswith("synthesize: transcript cut"))
    assert "150-word cap (transcript_words)" in note and "by relevance" in note
    assert out.report.evidence.passages == []


async def test_zero_shot_gets_the_call_and_the_task_only(
    fake_engine: Any, sample_text: str
) -> None:
    """FinDebate's zero-shot baseline has "no additional information": the run extracts call
    facts (for the report's own section) but the writer's prompt never carries them; the
    synthesizer in findebate does."""
    writer = Script.of(default="report")
    models = FakeModels({"synthesizer": writer, "extractor": Script.of(block())})
    async with fake_engine(models) as engine:
        out = await engine.run(engine.request("zero_shot", parse_transcript(sample_text)))
    assert out.report is not None and out.report.facts is not None  # facts were extracted
    prompt = writer.calls[0].text
    assert "Call facts (extracted by code)" not in prompt
    assert "Executive summary" in prompt and "Northwind" in prompt
    fd = findebate_models(block())
    async with fake_engine(fd) as engine:
        await engine.run(engine.request("findebate", parse_transcript(sample_text)))
    assert "Call facts (extracted by code)" in fd.script("synthesizer").calls[0].text


async def test_zero_shot_degraded_when_block_never_parses(
    fake_engine: Any, sample_text: str
) -> None:
    models = FakeModels(
        {"synthesizer": Script.of(default="report"), "extractor": Script.of(default="no tool")}
    )
    async with fake_engine(models, parse_retries=1) as engine:
        out = await engine.run(engine.request("zero_shot", parse_transcript(sample_text)))
    assert out.report is not None and out.report.status == "degraded"
    assert out.report.failures[0].node == "synthesize"
    assert "2 attempts" in out.report.failures[0].reason
    assert len(models.script("extractor").calls) == 2


async def test_standard_rag_uses_fixed_chunks_and_one_query_set(
    fake_engine: Any, sample_text: str
) -> None:
    writer = Script.of(default="report")
    models = FakeModels({"synthesizer": writer, "extractor": Script.of(block())})
    async with fake_engine(models) as engine:
        # keep_checkpoint: a finished run's state is otherwise deleted; this test reads it
        out = await engine.run(
            engine.request("standard_rag", parse_transcript(sample_text), keep_checkpoint=True)
        )
        collection = (
            await engine.graphs["standard_rag"].aget_state(
                {"configurable": {"thread_id": out.run_id}}
            )
        ).values["collection"]
    assert out.report is not None and out.report.status == "succeeded"
    assert "-fix150-" in collection
    assert {d for p in out.report.evidence.passages for d in p.dimensions} == {"standard"}
    assert any(f"[{p.chunk_id}]" in writer.calls[0].text for p in out.report.evidence.passages)


async def test_retriever_option_and_standard_rag_pinned_to_dense(
    fake_engine: Any, sample_text: str, monkeypatch: Any
) -> None:
    from core.options import RunOptions
    from core.rag import TranscriptIndex

    seen: list[str] = []
    original = TranscriptIndex.search

    def spy(self: TranscriptIndex, *args: Any, **kwargs: Any) -> Any:
        seen.append(kwargs["retriever"])
        return original(self, *args, **kwargs)

    monkeypatch.setattr(TranscriptIndex, "search", spy)
    models = FakeModels(
        default=Script.of(default="report"), scripts={"extractor": Script.of(default=block())}
    )
    async with fake_engine(models) as engine:
        await engine.run(engine.request("multi_agent", parse_transcript(sample_text)))
        await engine.run(
            engine.request(
                "multi_agent", parse_transcript(sample_text), options=RunOptions(retriever="bm25")
            )
        )
        await engine.run(
            engine.request(
                "standard_rag", parse_transcript(sample_text), options=RunOptions(retriever="bm25")
            )
        )
    assert seen == ["hybrid", "bm25", "dense"]


async def test_standard_rag_keeps_the_general_embedding_findebate_the_financial_one(
    fake_engine: Any, sample_text: str
) -> None:
    """The paper's contrast: with a financial embedding model configured, findebate indexes and
    searches with it while standard_rag keeps the general model; without, both use the
    general one."""

    def names(index: Any) -> set[str]:
        return {c if isinstance(c, str) else c.name for c in index._client.list_collections()}

    transcript = parse_transcript(sample_text)
    models = findebate_models(block())
    async with fake_engine(models, financial_embeddings="fake") as engine:
        general, financial = engine.context.index, engine.context.financial_index
        assert financial is not None and financial is not general
        await engine.run(engine.request("findebate", transcript))
        await engine.run(engine.request("standard_rag", transcript))
        fin_names, gen_names = names(financial), names(general)
    assert any("-rec" in n for n in fin_names) and not any("-fix" in n for n in fin_names)
    assert any("-fix" in n for n in gen_names) and not any("-rec" in n for n in gen_names)
    async with fake_engine(findebate_models(block())) as engine:
        assert engine.context.financial_index is None
        assert engine.context.index_for("financial") is engine.context.index
