"""The evaluation harness: dataset layout, judge parsing (valid, invalid, partial), pairwise with
the order swapped, resume after an interruption, and the CLI end to end (second run: zero model
calls, same table)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Literal

import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding

from app.cli import main
from app.evaluation.dataset import DatasetError, load_dataset
from app.evaluation.judge import grade, pairwise
from app.evaluation.runner import EvalEvent, Evaluation, engine_runner, reads_data
from app.service.engine import Engine
from app.settings import Settings
from core.llm.fake import CANNED_TOOLS, FakeModels, Script, canned

GOLD = "q2 revenue $612 million.\nadjusted eps $1.12.\nbacklog $1.9 billion."


def fake_settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The CLI's settings for these tests: the fake model and embeddings, a temp data dir."""
    monkeypatch.setenv("EDESK_PROVIDER", "fake")
    monkeypatch.setenv("EDESK_EMBEDDINGS", "fake")
    monkeypatch.setenv("EDESK_DATA_DIR", str(tmp_path / "data"))


def make_dataset(root: Path, sample: str, n: int = 2) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    ids = [f"NW{i}_q2_2026" for i in range(n)]
    for cid in ids:
        (root / f"{cid}.txt").write_text(sample.replace("Northwind", f"Northwind{cid[2]}"))
        (root / f"{cid}.summary.txt").write_text(GOLD)
    (root / f"{ids[0]}.full.md").write_text(sample)
    manifest = {
        "items": [
            {"id": ids[0], "ticker": "NWL", "company": "Northwind", "fiscal_period": "Q2 2026",
             "stock_labels": {"day": 1, "week": -1, "month": 1}},
        ]
    }  # fmt: skip
    (root / "manifest.json").write_text(json.dumps(manifest))
    return root


def test_dataset_layout(tmp_path: Path, sample_text: str) -> None:
    root = make_dataset(tmp_path / "ds", sample_text)
    items = load_dataset(root)
    assert [i.id for i in items] == ["NW0_q2_2026", "NW1_q2_2026"]
    assert items[0].path.name == "NW0_q2_2026.txt" and items[0].summary == GOLD
    assert items[0].labels == {"day": 1, "week": -1, "month": 1} and items[1].labels is None
    assert items[0].call.ticker == "NWL" and items[1].call.ticker is None
    assert load_dataset(root, prefer="full")[0].path.name == "NW0_q2_2026.full.md"
    with pytest.raises(DatasetError, match="no transcript for id"):
        load_dataset(root, ids=["NOPE"])
    with pytest.raises(DatasetError, match="no ID.txt"):
        load_dataset(tmp_path)


def handle(*responses: Any) -> Any:
    return FakeModels({"grader": Script.of(*responses)}).chat("grader")


async def test_judge_valid_grades() -> None:
    h = handle(
        CANNED_TOOLS["FinDebateGrade"], CANNED_TOOLS["ReportGrade"], CANNED_TOOLS["E2IGrade"]
    )
    scores = await grade(h, "report", "call", retries=0)
    assert scores.findebate is not None and scores.findebate["readability"] == 3
    assert scores.findebate_mean == 2.625  # (3+2+3+3+2+3+2+3) / 8
    assert scores.overall == 3.6  # .25*4 + .2*3 + .2*4 + .15*4 + .2*3
    assert scores.findebate_error is None and scores.weighted_error is None
    # Earnings2Insights' human rubric, 1-7: clarity, logic, persuasiveness, readability, usefulness
    assert scores.e2i == {"clarity": 5, "logic": 5, "persuasiveness": 4, "readability": 6,
                          "usefulness": 5} and scores.e2i_mean == 5.0  # fmt: skip


async def test_judge_invalid_is_missing_never_a_middle_score() -> None:
    out_of_range = {**CANNED_TOOLS["FinDebateGrade"], "coherence": 5}  # 1-4 scale
    h = handle(out_of_range, "no tool call at all", {**CANNED_TOOLS["E2IGrade"], "logic": 8})
    scores = await grade(h, "report", "call", retries=0)
    assert scores.e2i is None and scores.e2i_mean is None and "logic" in (scores.e2i_error or "")
    assert scores.findebate is None and scores.findebate_mean is None
    assert scores.overall is None and scores.weighted is None
    assert "coherence" in (scores.findebate_error or "")
    assert "no call" in (scores.weighted_error or "")


async def test_judge_partial_and_retry() -> None:
    missing_field = {k: v for k, v in CANNED_TOOLS["ReportGrade"].items() if k != "comment"}
    h = handle(
        CANNED_TOOLS["FinDebateGrade"], missing_field, missing_field, CANNED_TOOLS["E2IGrade"]
    )
    scores = await grade(h, "report", "call", retries=1)
    assert scores.findebate_mean == 2.625 and scores.overall is None  # partial: one rubric
    assert "comment" in (scores.weighted_error or "")
    h2 = handle(
        CANNED_TOOLS["FinDebateGrade"], missing_field, CANNED_TOOLS["ReportGrade"],
        CANNED_TOOLS["E2IGrade"],
    )  # fmt: skip
    assert (await grade(h2, "report", "call", retries=1)).overall == 3.6  # fixed on retry


async def test_pairwise_swaps_the_order_and_counts_both() -> None:
    pick = {"winner": "A", "reason": "first is better"}
    script = Script.of(pick, pick)  # a judge with position bias: always the first shown
    res = await pairwise(
        FakeModels({"g": script}).chat("g"), ("findebate", "FD-REPORT"), ("zero_shot", "ZS"),
        "call", retries=0,
    )  # fmt: skip
    first, second = (c.text for c in script.calls)
    assert first.index("FD-REPORT") < first.index("ZS") and second.index("ZS") < second.index(
        "FD-REPORT"
    )
    assert [(v.order, v.winner) for v in res.verdicts] == [("x_first", "x"), ("y_first", "y")]
    assert res.consistent is False
    steady = Script.of(pick, {"winner": "B", "reason": "second is better"})
    res2 = await pairwise(
        FakeModels({"g": steady}).chat("g"), ("a", "A-REP"), ("b", "B-REP"), "call", retries=0
    )
    assert [v.winner for v in res2.verdicts] == ["x", "x"] and res2.consistent is True
    broken = Script.of(pick, "not a tool call")
    res3 = await pairwise(
        FakeModels({"g": broken}).chat("g"), ("a", "A"), ("b", "B"), "call", retries=0
    )
    assert res3.verdicts[1].winner is None and res3.verdicts[1].error
    assert res3.consistent is None


async def test_resume_after_interruption(tmp_path: Path, sample_text: str) -> None:
    items = load_dataset(make_dataset(tmp_path / "ds", sample_text, n=3))
    settings = Settings(data_dir=tmp_path / "data", provider="fake")
    models = FakeModels(default=Script.of(default=canned))
    out = tmp_path / "out"

    class Stop(Exception):
        pass

    def stop_after_two(event: EvalEvent) -> None:
        if event.type == "report_finished" and event.done == 2:
            raise Stop

    async with Engine.open(
        settings, models=models, embeddings=DeterministicFakeEmbedding(size=32)
    ) as engine:
        first = Evaluation(items, ["zero_shot"], out, on_event=stop_after_two)
        with pytest.raises(Stop):
            await first.run_reports(engine_runner(engine), "fake", concurrency=1)
        assert len(list((out / "reports").rglob("*.json"))) == 2
        (out / "reports" / "fake" / "zero_shot" / "stray.tmp").write_text("{half")
        calls = len(models.default.calls)  # type: ignore[union-attr]
        again = Evaluation(items, ["zero_shot"], out, on_event=None)
        await again.run_reports(engine_runner(engine), "fake", concurrency=1)
    assert (again.tally.reused, again.tally.ran) == (2, 1)
    assert len(models.default.calls) > calls  # type: ignore[union-attr]
    recs = again.records()
    assert len(recs) == 3 and all(r.status == "succeeded" for r in recs)
    labelled = next(r for r in recs if r.id == "NW0_q2_2026")
    assert labelled.metrics is not None and labelled.metrics.decision is not None
    assert labelled.metrics.decision["per_horizon"] == {"1d": "hit", "1w": "miss", "1m": "hit"}


def test_cli_eval_end_to_end_then_zero_calls(
    tmp_path: Path, sample_text: str, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    root = make_dataset(tmp_path / "ds", sample_text)
    fake_settings(monkeypatch, tmp_path)
    out = tmp_path / "out"
    argv = ["eval", str(root), "--pipelines", "findebate,zero_shot", "--out", str(out)]
    assert main([*argv, "--judge", "fake"]) == 0
    first = capsys.readouterr().out
    for name in ("summary.md", "summary.csv", "per_report.csv", "chart.png"):
        assert (out / name).stat().st_size > 0
    assert (out / "chart.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(list((out / "reports" / "fake").rglob("*.json"))) == 4
    assert len(list((out / "pairwise").rglob("*.json"))) == 2
    table = (out / "summary.md").read_text()
    assert (
        "| fake | findebate | 2 | 2 |" in table and "| fake | findebate | zero_shot | 4 |" in table
    )
    per = (out / "per_report.csv").read_text().splitlines()
    # every cell quoted (issue 27, 3: a ; or , in a cell never splits it)
    assert len(per) == 5 and per[0].startswith('"model","pipeline","id","transcript_file","status"')
    rec = json.loads((out / "reports/fake/findebate/NW0_q2_2026.json").read_text())
    assert rec["metrics"]["coverage"] is not None and rec["metrics"]["grounding"] is not None
    assert rec["judge"]["overall"] == 3.6 and rec["report"]["evidence"]["fact_check"]
    assert "model call(s)" in first and " 0 model call(s)" not in first

    # the same command again: everything reused, zero model calls, the same table
    assert main([*argv, "--judge", "fake"]) == 0
    second = capsys.readouterr().out
    assert "0 report(s) run, 4 reused" in second and "; 0 model call(s), 0 answered" in second
    assert (out / "summary.md").read_text() == table

    # a fresh output folder: every answer from the LLM cache, the same metrics
    out2 = tmp_path / "out2"
    assert main(["eval", str(root), "--pipelines", "findebate,zero_shot", "--out", str(out2)]) == 0
    third = capsys.readouterr().out
    assert "4 report(s) run" in third and "; 0 model call(s)" in third
    per2 = (out2 / "per_report.csv").read_text().splitlines()

    def metric_columns(rows: list[str]) -> list[list[str]]:
        return [r.split(",")[:14] for r in rows]

    assert metric_columns(per2) == metric_columns(per)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--pipelines", "nope"], "--pipelines: unknown nope"),
        (["--concurrency", "0"], "--concurrency must be >= 1"),
        (["--models", "gpt"], "--models: model spec 'gpt'"),
        (["--judge", "bogus"], "--judge: model spec 'bogus'"),
        (["--pairwise", "findebate,findebate"], "--pairwise takes two different"),
        (["--ids", "NOPE"], "no transcript for id(s) NOPE"),
        (["--pipelines", "adversarial@S9"], "'adversarial@S9': sas_system: Input should be 'S1'"),
        (["--pipelines", "findebate@nope=1"], "findebate: no option 'nope'"),
        (["--pipelines", "zero_shot@S1"], "zero_shot has no one variant option"),
        (["--pipelines", "adversarial@S1,adversarial@S1"], "named twice"),
        (
            [
                "--pipelines",
                "adversarial@S1,adversarial@S2",
                "--pairwise",
                "adversarial@S1,adversarial@S4",
            ],
            "--pairwise takes two different pipelines from --pipelines",
        ),
    ],
)
def test_cli_eval_bad_input(
    tmp_path: Path, sample_text: str, monkeypatch: pytest.MonkeyPatch, capsys: Any,
    extra: list[str], message: str,
) -> None:  # fmt: skip
    root = make_dataset(tmp_path / "ds", sample_text)
    monkeypatch.setenv("EDESK_PROVIDER", "fake")
    monkeypatch.setenv("EDESK_DATA_DIR", str(tmp_path / "data"))
    assert main(["eval", str(root), "--out", str(tmp_path / "o"), *extra]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_cli_eval_missing_folder(tmp_path: Path, capsys: Any) -> None:
    assert main(["eval", str(tmp_path / "nowhere")]) == 2
    assert "not a folder" in capsys.readouterr().err


async def test_judge_is_blind_to_the_pipeline(tmp_path: Path, sample_text: str) -> None:
    items = load_dataset(make_dataset(tmp_path / "ds", sample_text, n=1))
    settings = Settings(data_dir=tmp_path / "data", provider="fake")
    models = FakeModels(default=Script.of(default=canned))
    grader = Script.of(default=canned)
    async with Engine.open(
        settings, models=models, embeddings=DeterministicFakeEmbedding(size=32)
    ) as engine:
        ev = Evaluation(items, ["findebate", "zero_shot"], tmp_path / "out", on_event=None)
        await ev.run_reports(engine_runner(engine), "fake", concurrency=1)
        await ev.judge(
            FakeModels({"g": grader}).chat("g"), retries=0, excerpt_words=200,
            pairs=[("findebate", "zero_shot")],
        )  # fmt: skip
    assert len(grader.calls) == 3 * 2 + 2  # three rubrics per report, two orders per pair
    for call in grader.calls:
        assert "findebate" not in call.text and "zero_shot" not in call.text
        assert "Model note" not in call.text and "Position: LONG" in call.text
        # what code wrote around the models' text is not judged (issue 39): the grounding's
        # footnotes and their marks, the table rendered from the structured recommendations
        assert "## Recommendations" not in call.text and "| Horizon |" not in call.text
        assert "[^" not in call.text and "Unverified" not in call.text
    assert ev.tally.judged == 2 and ev.tally.pairs == 1
    run_calls = sum(r.metrics.model_calls for r in ev.records() if r.metrics)
    assert ev.tally.model_calls == run_calls + 8  # the judge's calls are counted too


def test_ectsum_measures_in_the_summary(tmp_path: Path, sample_text: str) -> None:
    """With gold bullets, the summary has ECTSum's table: the code's highlights vs LEAD on
    ROUGE-1/2/L, numeric precision and gold-figure recall (ectsum.csv per call)."""
    from app.evaluation.summary import write_tables

    items = load_dataset(make_dataset(tmp_path / "ds", sample_text))
    ev = Evaluation(items, ["facts"], tmp_path / "out", on_event=None)
    rows = ev.ectsum_rows()
    assert rows and {"highlights_rouge2", "lead_rouge2", "highlights_recall"} <= set(rows[0])
    assert all(0 <= r["highlights_precision"] <= 1 for r in rows)
    table = write_tables(tmp_path / "out", [], [], rows)
    assert "| highlights (call facts, code) |" in table and "| LEAD baseline |" in table
    assert (tmp_path / "out" / "ectsum.csv").is_file()


def test_cli_eval_with_prices_backtests_its_reports(
    tmp_path: Path, sample_text: str, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    """`eval --prices DIR` judges the reports against the prices after each call (dates from
    the manifest's call_date); a call without a date is listed, not dropped."""
    from datetime import date, timedelta

    root = make_dataset(tmp_path / "ds", sample_text)
    manifest = json.loads((root / "manifest.json").read_text())
    manifest["items"][0]["call_date"] = "2024-01-10"
    (root / "manifest.json").write_text(json.dumps(manifest))
    prices = tmp_path / "prices"
    prices.mkdir()
    days = [date(2024, 1, 1) + timedelta(days=i) for i in range(60)]
    days = [d for d in days if d.weekday() < 5]
    for sym, after in (("NWL", 110.0), ("SPY", 400.0)):
        before = 100.0 if sym == "NWL" else 400.0
        rows = [f"{d},{c},{c},{c},{c}" for d in days
                for c in [before if d < date(2024, 1, 10) else after]]  # fmt: skip
        (prices / f"{sym}.csv").write_text("date,open,high,low,close\n" + "\n".join(rows))
    fake_settings(monkeypatch, tmp_path)
    out = tmp_path / "out"
    argv = ["eval", str(root), "--pipelines", "facts,zero_shot", "--out", str(out)]
    assert main([*argv, "--prices", str(prices)]) == 0
    text = (out / "backtest" / "backtest.md").read_text()
    assert "| local/facts | 1d |" in text or "/facts | 1d |" in text
    assert "NW1_q2_2026: no date and ticker in --calls" in text
    assert "| baseline/always_long | 1d | 1 | 1 | 0 | 1 | 0 |" in text  # a baseline row
    assert "| baseline/pead | 1d | 1 | 0 |" in text  # no consensus in the manifest: no call
    assert "| fake/zero_shot | baseline/always_long | 1d | 1 |" in text
    printed = capsys.readouterr().out
    assert "# Backtest" in printed
    # the decision column reads the prices' labels (up on every horizon: +10% held), not the
    # hand labels (week -1) of the same call
    assert "decision labels: from prices for 1 call(s), hand labels for 0, none for 1" in printed
    assert decisions(out, "facts") == expected_decision(out, "facts", {"day": 1, "week": 1,
                                                                        "month": 1})  # fmt: skip
    # the same folder scored again without prices: the hand labels, saved reports reused
    assert main(argv) == 0
    assert decisions(out, "facts") == expected_decision(out, "facts", {"day": 1, "week": -1,
                                                                        "month": 1})  # fmt: skip


def decisions(out: Path, pipeline: str) -> str:
    import csv

    rows = list(csv.DictReader((out / "summary.csv").open(encoding="utf-8")))
    return next(r["decision"] for r in rows if r["pipeline"] == pipeline)


def expected_decision(out: Path, pipeline: str, labels: dict[str, int]) -> str:
    from core.contract import Report
    from core.metrics import decision_accuracy

    saved = json.loads(next((out / "reports").glob(f"*/{pipeline}/NW0_q2_2026.json")).read_text())
    score = decision_accuracy(Report.model_validate(saved["report"]), labels)
    assert score is not None
    return f"{score.hits}/{score.misses}/{score.neutral}"


def test_paired_comparisons_say_not_significant_rather_than_rank_noise() -> None:
    from app.evaluation.stats import paired, wilson

    noise = paired([0.1, -0.1, 0.05, -0.05, 0.02, -0.03])
    assert noise["verdict"] == "not significant" and noise["ci_low"] < 0 < noise["ci_high"]
    clear = paired([0.2, 0.25, 0.3, 0.22, 0.28, 0.26, 0.24, 0.21])
    assert clear["verdict"] == "significant" and clear["p"] < 0.05 and clear["ci_low"] > 0
    assert paired([0.0, 0.0, 0.0])["p"] == 1.0
    assert paired([0.3])["verdict"] == "not significant"  # one call proves nothing
    low, high = wilson(7, 10)
    assert low is not None and high is not None and low < 0.5 < high  # 7/10 is not enough
    assert (round(low, 4), round(high, 4)) == (0.3968, 0.8922)  # scipy's Wilson for 7 of 10


def test_a_tie_counts_as_half_a_win_in_the_win_rate() -> None:
    """Ties are their own column and half a win for each side, never out of the denominator
    (issue 39): 3 x wins, 1 y win, 4 ties -> (3 + 2) / 8 = 0.62, not 3 / 4 = 0.75."""
    from app.evaluation.judge import PairVerdict, Pairwise
    from app.evaluation.summary import pairwise_table

    def pair(*winners: Literal["x", "y", "tie"]) -> Pairwise:
        return Pairwise(
            x="a",
            y="b",
            judge="j",
            verdicts=[PairVerdict(order="x_first", winner=w) for w in winners],
        )

    table = pairwise_table(
        [("m", pair("x", "x", "tie", "tie")), ("m", pair("x", "y", "tie", "tie"))]
    )
    row = table.splitlines()[-1]
    assert "| m | a | b | 8 | 3 | 1 | 4 | 0 |" in row
    assert "| 0.62 [" in row and "not significant" in row


@pytest.mark.usefixtures("all_rules_verified")  # plumbing, not which rows earned it
def test_summary_has_paired_comparisons_and_win_rate_intervals(
    tmp_path: Path, sample_text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_dataset(tmp_path / "ds", sample_text)
    fake_settings(monkeypatch, tmp_path)
    out = tmp_path / "out"
    argv = ["eval", str(root), "--pipelines", "facts,zero_shot", "--out", str(out)]
    assert main([*argv, "--judge", "fake"]) == 0
    text = (out / "summary.md").read_text()
    assert (
        "## Paired comparisons" in text and "| fake | facts - zero_shot | grounding | 2 |" in text
    )
    assert "not significant" in text  # two calls cannot separate them
    assert "x win rate, a tie half a win (95% Wilson)" in text
    assert (out / "comparisons.csv").is_file()


def test_cli_eval_pairs_variants_of_one_pipeline(
    tmp_path: Path, sample_text: str, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    """The SAS paper's comparisons in one invocation: variants run with their own options,
    each pair judged twice (order swapped) and tabled, and the paired statistics name them."""
    root = make_dataset(tmp_path / "ds", sample_text, n=1)
    fake_settings(monkeypatch, tmp_path)
    out = tmp_path / "out"
    s1, s2, s4 = "adversarial@S1", "adversarial@S2", "adversarial@S4"
    argv = ["eval", str(root), "--pipelines", f"{s1},{s2},{s4},findebate@rounds=2",
            "--pairwise", f"{s2},{s1}", "--pairwise", f"{s4},{s2}", "--judge", "fake",
            "--out", str(out)]  # fmt: skip
    assert main(argv) == 0
    printed = capsys.readouterr().out
    recs = {
        p.parent.name: json.loads(p.read_text()) for p in (out / "reports" / "fake").rglob("*.json")
    }
    assert set(recs) == {"adversarial_S1", "adversarial_S2", "adversarial_S4", "findebate_rounds_2"}
    assert recs["adversarial_S1"]["pipeline"] == s1
    nodes = {k: [t["node"] for t in r["report"]["trace"]] for k, r in recs.items()}
    assert "lead_analyst" in nodes["adversarial_S1"]
    assert "bull_opening" not in nodes["adversarial_S1"]  # S1: the Lead alone
    assert "bull_opening" in nodes["adversarial_S4"]  # S4, the full framework, debates
    assert nodes["adversarial_S1"] != nodes["adversarial_S2"]
    assert nodes["findebate_rounds_2"].count("trust") == 2  # two debate rounds
    duels = sorted(p.name for p in (out / "pairwise" / "fake").iterdir())
    assert duels == ["adversarial_S2__vs__adversarial_S1", "adversarial_S4__vs__adversarial_S2"]
    summary = (out / "summary.md").read_text()
    for row in (f"| fake | {s2} | {s1} | 2 |", f"| fake | {s4} | {s2} | 2 |"):
        assert row in summary and row in printed  # printed: the pairwise table too
    paired = summary.split("## Paired comparisons")[1]
    assert f"| fake | {s1} - {s2} | judge_overall | 1 |" in paired


SAMPLES = Path(__file__).resolve().parents[2] / "samples"


def _with_data(root: Path, sample: str) -> Path:
    """Two calls: NW0 carries statements and prices (a call date that cuts the last bars), NW1
    carries nothing."""
    make_dataset(root, sample)
    (root / "NW0_q2_2026.financials.json").write_text(
        (SAMPLES / "northwind_financials.json").read_text()
    )
    (root / "NW0_q2_2026.prices.csv").write_text((SAMPLES / "northwind_prices.csv").read_text())
    manifest = json.loads((root / "manifest.json").read_text())
    manifest["items"][0]["call_date"] = "2026-07-20"
    (root / "manifest.json").write_text(json.dumps(manifest))
    return root


def test_a_calls_data_files_are_carried_and_cut_at_its_call_date(
    tmp_path: Path, sample_text: str
) -> None:
    items = load_dataset(_with_data(tmp_path / "ds", sample_text))
    first, second = items
    assert first.financials is not None and first.prices is not None
    assert first.financials.most_recent_earnings.totalRevenue == 612_000_000
    assert max(b.date for b in first.prices.company.bars).isoformat() < "2026-07-20"
    assert first.cut and "cut" in first.cut[0]  # the bars of 07-20 .. 07-24, said
    assert (second.financials, second.prices, second.cut) == (None, None, ())


@pytest.mark.parametrize(
    ("name", "text", "manifest", "expected"),
    [
        ("NW0_q2_2026.financials.json", "{not json", {}, "NW0_q2_2026's financials"),
        ("NW0_q2_2026.prices.csv", "date,close\n2026-01-01,x\n", {}, "NW0_q2_2026's prices"),
        (None, None, {"financials": "../elsewhere.json"}, "outside the folder"),
        (None, None, {"prices": "missing.csv"}, "prices file 'missing.csv' not found"),
        (None, None, {"call_date": "2026-13-45"}, "call_date '2026-13-45' is not a YYYY-MM-DD"),
    ],
)  # fmt: skip
def test_a_calls_data_that_cannot_be_read_is_refused_naming_the_call_and_field(
    tmp_path: Path, sample_text: str, name: str | None, text: str | None,
    manifest: dict[str, str], expected: str,
) -> None:  # fmt: skip
    root = make_dataset(tmp_path / "ds", sample_text)
    if name is not None and text is not None:
        (root / name).write_text(text)
    if manifest:
        data = json.loads((root / "manifest.json").read_text())
        data["items"][0].update(manifest)
        (root / "manifest.json").write_text(json.dumps(data))
    with pytest.raises(DatasetError, match=re.escape(expected)):
        load_dataset(root)


async def test_each_data_reading_arm_receives_the_calls_data_in_an_eval(
    tmp_path: Path, sample_text: str
) -> None:
    """SAS's market analyst (S2) reads the prices, the Jetsons advanced writer and SI4Fin's
    Analyst the statements, when an eval carries them; a call without them runs and the summary
    says which pipelines ran without their data."""
    items = load_dataset(_with_data(tmp_path / "ds", sample_text))
    settings = Settings(data_dir=tmp_path / "data", provider="fake")
    script = Script.of(default=canned)
    pipelines = ["adversarial@S2", "writer_feedback@advanced_writer", "conversation"]
    async with Engine.open(
        settings, models=FakeModels(default=script), embeddings=DeterministicFakeEmbedding(size=32)
    ) as engine:
        ev = Evaluation(items, pipelines, tmp_path / "out", on_event=None)
        await ev.run_reports(engine_runner(engine), "fake", concurrency=1)
    texts = [c.text for c in script.calls]
    assert any("rsi_14" in t and "NWL" in t for t in texts), "the market analyst saw no scorecard"
    assert any("612,000,000" in t for t in texts), "no writer or analyst saw the statements"
    rows = {r["id"]: r for r in ev.data_rows()}
    assert rows["NW0_q2_2026"]["ran_without"] == ""
    assert rows["NW1_q2_2026"]["ran_without"] == (
        "adversarial@S2 (prices); writer_feedback@advanced_writer (financials); "
        "conversation (financials)"
    )
    from app.evaluation.summary import write_tables

    text = write_tables(tmp_path / "out", ev.records(), [], [], ev.data_rows())
    summary = (tmp_path / "out" / "summary.md").read_text()
    assert "## The calls' data" in summary and "| NW1_q2_2026 | no | no |" in summary
    assert text  # the table the CLI prints


@pytest.mark.parametrize(
    ("pipeline", "marker"),
    [
        ("adversarial@S2", "rsi_14"),  # the market analyst's scorecard, from the prices
        ("adversarial@S3", "rsi_14"),
        ("adversarial@S4", "rsi_14"),
        ("writer_feedback@advanced_writer", "612,000,000"),  # the statements' table
        ("writer_feedback@advanced_feedback", "612,000,000"),
        ("writer_feedback@simple_feedback", "612,000,000"),
        ("conversation", "612,000,000"),  # SI4Fin's Analyst
    ],
)
async def test_each_data_arm_gets_the_eval_calls_data(
    tmp_path: Path, sample_text: str, pipeline: str, marker: str
) -> None:
    items = load_dataset(_with_data(tmp_path / "ds", sample_text), ids=["NW0_q2_2026"])
    settings = Settings(data_dir=tmp_path / "data", provider="fake")
    script = Script.of(default=canned)
    async with Engine.open(
        settings, models=FakeModels(default=script), embeddings=DeterministicFakeEmbedding(size=32)
    ) as engine:
        ev = Evaluation(items, [pipeline], tmp_path / "out", on_event=None)
        await ev.run_reports(engine_runner(engine), "fake", concurrency=1)
    assert any(marker in c.text for c in script.calls), f"{pipeline}: no role saw {marker}"
    assert reads_data(pipeline), pipeline
