"""`earnings-desk eval` on the bundled model: one real ECTSum call through zero_shot with the
local judge, then the same evaluation into a new folder: every answer from the LLM cache, zero
model calls, the same metrics. Structure only (the 135M model's prose is not meaningful; its
judge verdicts may be missing, which must show as missing, never as a score)."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest

from app.cli import main

pytestmark = [pytest.mark.local_model, pytest.mark.embeddings]


def test_eval_on_the_bundled_model_then_zero_calls(
    ectsum: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    for var in ("EDESK_PROVIDER", "EDESK_EMBEDDINGS", "EDESK_OPENAI_BASE_URL", "EDESK_MODEL"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("EDESK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("EDESK_MAX_TOKENS", json.dumps({"synthesizer": 300, "fact_checker": 300}))
    monkeypatch.setenv("EDESK_TRANSCRIPT_WORDS", "500")
    base = ["eval", str(ectsum), "--ids", "CFR_q3_2019", "--pipelines", "zero_shot"]
    out1, out2 = tmp_path / "out1", tmp_path / "out2"
    assert main([*base, "--out", str(out1), "--judge", "local"]) == 0
    first = capsys.readouterr().out
    rec = json.loads((out1 / "reports/local/zero_shot/CFR_q3_2019.json").read_text())
    assert rec["status"] == "succeeded", rec.get("error")
    assert [r["horizon"] for r in rec["report"]["recommendations"]] == ["1d", "1w", "1m"]
    metrics = rec["metrics"]
    assert metrics["model_calls"] >= 2 and metrics["cached_calls"] == 0
    assert metrics["coverage"] is not None  # CFR has gold bullets with figures
    assert 0 <= metrics["abstractiveness"] <= 1 and metrics["fkgl"] is not None
    judge = rec["judge"]
    assert judge["judge"].startswith("local:")
    for rubric, error in (
        ("findebate", "findebate_error"),
        ("weighted", "weighted_error"),
        ("e2i", "e2i_error"),
    ):
        assert (judge[rubric] is None) != (judge[error] is None)  # a score or why it is missing
    assert "this run: 1 report(s) run" in first and (out1 / "chart.png").is_file()

    assert main([*base, "--out", str(out2)]) == 0
    second = capsys.readouterr().out
    assert "; 0 model call(s)" in second
    again = json.loads((out2 / "reports/local/zero_shot/CFR_q3_2019.json").read_text())
    assert again["metrics"]["model_calls"] == 0
    assert again["metrics"]["cached_calls"] == metrics["model_calls"]
    assert again["report"]["markdown"] == rec["report"]["markdown"]

    def row(out: Path) -> dict[str, str]:
        with (out / "per_report.csv").open() as f:
            (only,) = list(csv.DictReader(f))
        return {
            k: v
            for k, v in only.items()
            if k
            not in (
                "judge_findebate",
                "judge_overall",
                "judge_e2i",
                "model_calls",
                "cached_calls",
                "wall_s",
            )
        }

    assert row(out2) == row(out1)
