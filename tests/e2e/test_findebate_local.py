"""End to end on the real offline defaults: bundled GGUF via llama.cpp, bundled MiniLM
embeddings, Chroma on disk, a real ECTSum transcript, through the CLI as a user runs it.
Checks structure, not prose quality (the 135M model's analysis is not meaningful)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.cli import EXIT_OK, main
from nodes.specialists import SPECIALISTS

pytestmark = [pytest.mark.local_model, pytest.mark.embeddings]


def test_findebate_on_real_transcript(
    ectsum: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for var in ("EDESK_PROVIDER", "EDESK_EMBEDDINGS", "EDESK_OPENAI_BASE_URL", "EDESK_MODEL"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("EDESK_DATA_DIR", str(tmp_path / "data"))
    # the defaults with shorter prompts and answers (the CI budget: reading and writing tokens is
    # the run's time on 2 cores); every node, model call and parse of the default run is made
    monkeypatch.setenv("EDESK_TRANSCRIPT_WORDS", "600")
    monkeypatch.setenv("EDESK_EVIDENCE_WORDS", "300")
    short = {role: 150 for role in SPECIALISTS} | {
        "trust": 200,
        "skeptic": 200,
        "synthesizer": 400,
        "fact_checker": 400,
    }
    monkeypatch.setenv("EDESK_MAX_TOKENS", json.dumps(short))  # the leader's as by default
    source = ectsum / "CFR_q3_2019.txt"
    out = tmp_path / "out"
    code = main(
        [
            "analyze",
            str(source),
            "--company",
            "Cullen/Frost Bankers",
            "--ticker",
            "CFR",
            "--period",
            "Q3 2019",
            "--out",
            str(out),
        ]
    )
    assert code == EXIT_OK
    report = json.loads((out / "report.json").read_text())
    assert report["status"] == "succeeded"
    recs = report["recommendations"]
    assert [r["horizon"] for r in recs] == ["1d", "1w", "1m"]
    assert all(r["position"] in ("LONG", "SHORT", "NEUTRAL") for r in recs)
    assert all(0 <= r["conviction"] <= 100 and r["rationale"] for r in recs)
    nodes = [t["node"] for t in report["trace"]]
    assert nodes[:3] == ["facts", "ingest", "retrieve"] and set(SPECIALISTS) <= set(nodes)
    assert {"trust", "skeptic", "leader", "integrity_check"} <= set(nodes)
    assert ("accept" in nodes) != ("revert" in nodes)
    assert report["debate"]["decision"] is not None and len(report["debate"]["turns"]) == 3
    assert all(m.startswith("local:") for m in report["models"].values())
    assert "not meaningful" in report["model_note"]
    assert sum(t["prompt_tokens"] + t["completion_tokens"] for t in report["trace"]) > 1000
    text = source.read_text()
    passages = report["evidence"]["passages"]
    assert passages and all(text[p["start"] : p["end"]] == p["text"] for p in passages)
    md = (out / "report.md").read_text()
    assert md.rstrip().endswith("|") and "## Recommendations" in md
