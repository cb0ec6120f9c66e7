"""langgraph.json declares every pipeline; each target imports without side effects, builds a
compiled graph Studio can draw, and runs with a fake model when given its run context."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding

from core.context import RunContext
from core.contract import CallInfo
from core.llm.fake import FakeModels, Script, block
from core.options import RunOptions
from core.rag import TranscriptIndex
from core.transcript import parse_transcript
from graphs import PIPELINES

ROOT = Path(__file__).resolve().parents[2]


def targets() -> dict[str, Any]:
    spec = json.loads((ROOT / "langgraph.json").read_text(encoding="utf-8"))
    assert (ROOT / spec["env"]).is_file() and spec["dependencies"] == ["."]
    out = {}
    for name, target in spec["graphs"].items():
        path, _, attr = target.partition(":")
        module_spec = importlib.util.spec_from_file_location(f"studio_{name}", ROOT / path)
        assert module_spec is not None and module_spec.loader is not None
        module = importlib.util.module_from_spec(module_spec)
        module_spec.loader.exec_module(module)
        out[name] = getattr(module, attr)
    return out


def test_every_pipeline_is_declared_and_draws() -> None:
    found = targets()
    assert set(found) == set(PIPELINES)
    for name, factory in found.items():
        graph = factory()
        drawn = graph.get_graph().draw_mermaid()
        assert "fact_check" in drawn or name == "facts", name
        assert "facts" in drawn


@pytest.mark.asyncio
async def test_a_declared_graph_runs_with_a_fake_model(tmp_path: Path, sample_text: str) -> None:
    graph = targets()["zero_shot"]()
    index = TranscriptIndex.on_disk(tmp_path / "chroma", DeterministicFakeEmbedding(size=16), "f")
    models = FakeModels({"synthesizer": Script.of(default="A report."),
                         "extractor": Script.of(default=block())})  # fmt: skip
    context = RunContext(models=models, index=index, options=RunOptions(fact_check=False))
    out = await graph.ainvoke(
        {"transcript": parse_transcript(sample_text), "call": CallInfo(), "pipeline": "zero_shot"},
        context=context,
    )
    report = out["report"]
    assert report.status == "succeeded" and len(report.recommendations) == 3
