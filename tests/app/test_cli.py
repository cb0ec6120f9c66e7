"""The CLI as a user runs it: exit codes, messages, outputs (fake model, fake embeddings)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.cli import EXIT_DEGRADED, EXIT_OK, EXIT_USAGE, main
from graphs import PIPELINES
from tests.conftest import SAMPLE


@pytest.fixture(autouse=True)
def fake_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("EDESK_PROVIDER", "fake")
    monkeypatch.setenv("EDESK_EMBEDDINGS", "fake")
    monkeypatch.setenv("EDESK_DATA_DIR", str(tmp_path / "data"))


@pytest.mark.parametrize("pipeline", list(PIPELINES))
@pytest.mark.usefixtures("all_rules_verified")  # plumbing, not which rows earned it
def test_analyze_writes_report(
    pipeline: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    code = main(
        [
            "analyze",
            str(SAMPLE),
            "--pipeline",
            pipeline,
            "--company",
            "Northwind",
            "--out",
            str(out),
        ]
    )
    assert code == EXIT_OK, capsys.readouterr()
    report = json.loads((out / "report.json").read_text())
    assert report["pipeline"] == pipeline and report["status"] == "succeeded"
    assert [r["horizon"] for r in report["recommendations"]] == ["1d", "1w", "1m"]
    assert report["call"]["company"] == "Northwind"
    md = (out / "report.md").read_text()
    note = "No language model wrote this report" if pipeline == "facts" else "fake model"
    assert "## Recommendations" in md and note in md
    if pipeline in ("conversation", "adversarial"):  # the paper fixes the format: apart
        assert "## Call facts" not in md and "## Call facts" in (out / "appendix.md").read_text()
    else:
        assert "## Call facts" in md and not (out / "appendix.md").exists()
    printed = capsys.readouterr().out
    assert "report" in printed and "1d: LONG" in printed


def test_analyze_default_out_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["analyze", str(SAMPLE), "--pipeline", "zero_shot"]) == EXIT_OK
    assert (tmp_path / "reports" / "northwind_q2_2026" / "zero_shot" / "report.md").is_file()


@pytest.mark.parametrize(
    ("content", "message"),
    [(b"", "empty"), (b"   \n\n", "empty"), (b"\xff\xfe\x00bad", "UTF-8")],
)
def test_bad_input_refused(
    content: bytes, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.txt"
    path.write_bytes(content)
    assert main(["analyze", str(path), "--out", str(tmp_path / "o")]) == EXIT_USAGE
    assert message in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_missing_file_and_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", str(tmp_path / "nope.txt")]) == EXIT_USAGE
    assert "no such file" in capsys.readouterr().err
    assert main(["analyze", str(tmp_path)]) == EXIT_USAGE
    assert "not a file" in capsys.readouterr().err


def test_over_limit(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("EDESK_MAX_TRANSCRIPT_BYTES", "100")
    assert main(["analyze", str(SAMPLE)]) == EXIT_USAGE
    assert "100-byte limit" in capsys.readouterr().err


def test_bad_settings(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("EDESK_TEMPERATURE", "7")
    assert main(["analyze", str(SAMPLE)]) == EXIT_USAGE
    assert "temperature" in capsys.readouterr().err


def test_unknown_pipeline(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["analyze", str(SAMPLE), "--pipeline", "nope"])
    assert exc.value.code == 2
    assert "invalid choice" in capsys.readouterr().err


def test_degraded_exit_code(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from core.llm import fake as fake_llm

    monkeypatch.setattr(fake_llm, "block", lambda *a, **k: {"one_day": {"position": "?"}})
    code = main(["analyze", str(SAMPLE), "--pipeline", "zero_shot", "--out", str(tmp_path / "o")])
    assert code == EXIT_DEGRADED
    report = json.loads((tmp_path / "o" / "report.json").read_text())
    assert report["status"] == "degraded" and report["recommendations"] == []


def test_pipelines_and_graph(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["pipelines", "--json"]) == EXIT_OK
    listing = json.loads(capsys.readouterr().out)
    assert set(listing) == set(PIPELINES)
    assert listing["findebate"]["nodes"][:3] == ["facts", "ingest", "retrieve"]
    assert main(["graph", "findebate"]) == EXIT_OK
    out = capsys.readouterr().out
    assert "integrity_check -.-> revert" in out and "graph TD" in out
    assert "writer_feedback" in listing and "adversarial" in listing
    assert "tally_reviews ?-> rewriter | judge | finalize" in listing["writer_feedback"]["flow"]
    assert main(["pipelines"]) == EXIT_OK
    text = capsys.readouterr().out
    for name, spec in PIPELINES.items():
        assert f"{name}: {spec.summary}" in text
    assert "    assess_rebuttals ?-> bull_press | bull_closing | bear_press | bear_closing" in text


def test_samples_load_as_inputs(tmp_path: Path) -> None:
    samples = SAMPLE.parent
    out = tmp_path / "out"
    args = ["analyze", str(SAMPLE), "--pipeline", "adversarial", "--ticker", "NWL"]
    args += ["--financials", str(samples / "northwind_financials.json")]
    args += ["--prices", str(samples / "northwind_prices.csv"), "--out", str(out)]
    assert main(args) == EXIT_OK
    report = json.loads((out / "report.json").read_text())
    card = report["extras"]["market_scorecard"]
    assert card["symbol"] == "NWL" and card["benchmark"] == "SPY" and not card["unavailable"]
    numbers = {n["text"]: n["grounded"] for n in report["evidence"]["numbers"]}
    assert numbers and all(isinstance(v, bool) for v in numbers.values())


def test_financials_and_prices_files(tmp_path: Path) -> None:
    fin = tmp_path / "fin.csv"
    fin.write_text("fiscalDateEnding,totalRevenue\n2026-06-30,612000000\n2025-06-30,564600000\n")
    prices = tmp_path / "prices.json"
    bars = [
        {"date": f"2026-07-{d:02d}", "open": 10, "high": 11, "low": 9, "close": 10.5}
        for d in range(1, 6)
    ]
    prices.write_text(json.dumps({"company": {"symbol": "NWL", "bars": bars}}))
    out = tmp_path / "out"
    code = main(
        [
            "analyze",
            str(SAMPLE),
            "--pipeline",
            "zero_shot",
            "--financials",
            str(fin),
            "--prices",
            str(prices),
            "--out",
            str(out),
        ]
    )
    assert code == EXIT_OK
    report = json.loads((out / "report.json").read_text())
    # the canned report says "$1.54 billion": in neither the call nor these financials
    assert {n["text"]: n["grounded"] for n in report["evidence"]["numbers"]}[
        "$1.54 billion"
    ] is False
    card = report["extras"]["market_scorecard"]  # prices given: the scorecard comes along
    assert card["symbol"] == "NWL" and card["bars_used"] == 5 and card["returns_pct"]["3"] == 0.0


@pytest.mark.parametrize(
    ("flag", "name", "content", "message"),
    [
        ("--financials", "f.json", "{not json", "not valid JSON"),
        (
            "--financials",
            "f.json",
            '{"most_recent_earnings": {"totalRevenue": "x"}}',
            "fiscalDateEnding",
        ),
        (
            "--prices",
            "p.csv",
            "date,open,high,low,close\n2026-07-01,1,2,0.5,-3\n",
            "company.bars.0.close: must be > 0",
        ),
        ("--prices", "p.json", '{"company": {"symbol": "X", "bars": []}}', "at least 2"),
    ],
)
def test_bad_input_files(
    flag: str,
    name: str,
    content: str,
    message: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = tmp_path / name
    path.write_text(content)
    assert main(["analyze", str(SAMPLE), flag, str(path), "--out", str(tmp_path / "o")]) == (
        EXIT_USAGE
    )
    err = capsys.readouterr().err
    assert flag in err and message in err
    assert not (tmp_path / "o").exists()


def test_missing_input_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", str(SAMPLE), "--prices", str(tmp_path / "nope.csv")]) == EXIT_USAGE
    assert "no such file" in capsys.readouterr().err


@pytest.mark.parametrize(
    "variant",
    ["simple_writer", "advanced_writer", "simple_feedback", "advanced_feedback", "ensemble"],
)
def test_writer_feedback_variants(
    variant: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    args = ["analyze", str(SAMPLE), "--pipeline", "writer_feedback", "--variant", variant]
    assert main([*args, "--out", str(out)]) == EXIT_OK, capsys.readouterr()
    report = json.loads((out / "report.json").read_text())
    extras = report["extras"]["writer_feedback"]
    assert extras["variant"] == variant
    expected = 4 if variant == "ensemble" else 1
    assert len(extras["candidates"]) == expected
    assert f"variant {variant}" in capsys.readouterr().out


def test_ensemble_flag_picks_members(tmp_path: Path) -> None:
    out = tmp_path / "out"
    args = ["analyze", str(SAMPLE), "--pipeline", "writer_feedback", "--variant", "ensemble"]
    assert main([*args, "--ensemble", "simple_writer,advanced_writer", "--out", str(out)]) == 0
    extras = json.loads((out / "report.json").read_text())["extras"]["writer_feedback"]
    assert sorted(extras["candidates"]) == ["advanced_writer", "simple_writer"]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--pipeline", "writer_feedback", "--ensemble", "simple_writer,bogus"], "('bogus')"),
        (["--pipeline", "writer_feedback", "--ensemble", "simple_writer"], "at least 2 items"),
        (["--pipeline", "writer_feedback", "--ensemble", "panel,panel"], "--ensemble"),
        (
            ["--pipeline", "writer_feedback", "--feedback-iterations", "0"],
            "--feedback-iterations: must be >= 1",
        ),
        (["--pipeline", "findebate", "--chunk-words", "5"], "--chunk-words"),
        (["--pipeline", "findebate", "--variant", "ensemble"], "writer_feedback only"),
        (["--pipeline", "findebate", "--rounds", "2"], "conversation only"),
        (  # the API's rule (core.options.inapplicable): every misplaced option named
            ["--pipeline", "zero_shot", "--debate-rounds", "2", "--sas-system", "S1"],
            "--debate-rounds applies to --pipeline findebate only; "
            "--sas-system applies to --pipeline adversarial only",
        ),
    ],
)
def test_bad_pipeline_options_refused(
    extra: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["analyze", str(SAMPLE), *extra]) == EXIT_USAGE
    assert message in capsys.readouterr().err


def test_worker_alive_check(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """`earnings-desk worker --alive` (the compose health check) reads the file a running
    worker's sweeper touches: missing or stale -> 1, fresh -> 0."""
    import os
    import time

    monkeypatch.setenv("EDESK_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("EDESK_LEASE_SECONDS", "5")
    assert main(["worker", "--alive"]) == 1
    alive = tmp_path / "worker.alive"
    alive.touch()
    assert main(["worker", "--alive"]) == EXIT_OK
    old = time.time() - 60
    os.utime(alive, (old, old))
    assert main(["worker", "--alive"]) == 1
