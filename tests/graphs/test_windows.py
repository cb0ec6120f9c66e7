"""Every pipeline's prompts sized to the model's window: fake models declaring a small window get
prompts that fit it (the call and the histories cut by relevance, each cut a note naming the node
and the share kept); a large window gets the whole call and no note."""

from __future__ import annotations

from typing import Any

import pytest

from core.llm.fake import FakeModels, Script, canned
from core.llm.window import Window
from core.options import RunOptions
from core.transcript import parse_transcript

pytestmark = pytest.mark.asyncio

# the nodes that read the call itself, per pipeline (with a small window each must cut)
READERS = {
    "zero_shot": {"synthesize"},
    "writer_feedback": {"panel", "judge"},
    "adversarial": {"factual_analyst", "behavioral_analyst"},
    "conversation": {"writer"},
}
SMALL, LARGE = 1000, 200_000  # in the fakes' tokens (words)


def long_call(sample: str) -> str:
    """The sample call with its Q&A asked three times over (about 1,200 words)."""
    head, qa = sample.split("### Q&A", 1) if "### Q&A" in sample else (sample, "")
    return head + "### Q&A" + qa * 3 if qa else sample * 3


def pipeline_options(pipeline: str) -> RunOptions:
    if pipeline == "writer_feedback":
        return RunOptions(writer_variant="ensemble")
    if pipeline == "conversation":
        return RunOptions(conversation_rounds=1)
    return RunOptions()


async def run(fake_engine: Any, pipeline: str, text: str, tokens: int) -> tuple[Any, Script]:
    script = Script.of(default=canned)
    models = FakeModels(default=script, window=Window(tokens, 200))
    async with fake_engine(models) as engine:
        out = await engine.run(
            engine.request(pipeline, parse_transcript(text), options=pipeline_options(pipeline))
        )
    return out, script


@pytest.mark.parametrize("pipeline", sorted(READERS))
async def test_small_window_cuts_by_relevance_and_says_so(
    fake_engine: Any, sample_text: str, pipeline: str
) -> None:
    text = long_call(sample_text)
    out, script = await run(fake_engine, pipeline, text, SMALL)
    assert out.report is not None and out.report.status in ("succeeded", "degraded"), out.error
    room = Window(SMALL, 200).prompt_room
    assert script.calls and all(len(c.text.split()) <= room for c in script.calls)
    cuts = [n for n in out.report.notes if "cut by relevance" in n]
    cut_nodes = {n.split(":", 1)[0] for n in cuts}
    assert READERS[pipeline] <= cut_nodes, out.report.notes
    assert all("fake:" in n and "1,000-token context window" in n for n in cuts)


@pytest.mark.parametrize("pipeline", sorted(READERS))
async def test_large_window_reads_the_whole_call(
    fake_engine: Any, sample_text: str, pipeline: str
) -> None:
    text = long_call(sample_text)
    out, script = await run(fake_engine, pipeline, text, LARGE)
    assert out.report is not None and out.report.status in ("succeeded", "degraded"), out.error
    assert not [n for n in out.report.notes if "cut by relevance" in n]
    ending = parse_transcript(text).text.strip()[-80:]
    assert sum(ending in c.text for c in script.calls) >= len(READERS[pipeline])


async def test_adversarial_history_keeps_the_newest_speeches(
    fake_engine: Any, sample_text: str
) -> None:
    """With a window too small for the whole debate, the judge reads the latest speeches."""
    out, script = await run(fake_engine, "adversarial", long_call(sample_text), 1000)
    assert out.report is not None
    history_cuts = [n for n in out.report.notes if "debate history" in n]
    assert history_cuts, out.report.notes
    judged = [c.text for c in script.calls if "[earlier turns omitted for length]" in c.text]
    assert judged
