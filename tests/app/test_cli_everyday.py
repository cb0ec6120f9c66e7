"""Everyday CLI details (issue 41): --version, the full description, a closed pipe, `none` for
an option that may be unset, and the facts pipeline without a chat model."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from app.cli import EXIT_OK, build_parser, main
from tests.conftest import REPO, SAMPLE


def test_version_and_a_description_that_ends_where_its_sentence_does(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as done:
        build_parser().parse_args(["--version"])
    assert done.value.code == 0 and capsys.readouterr().out.startswith("earnings-desk ")
    description = build_parser().description or ""
    assert description.endswith("serve the API and the web page.")


def test_a_closed_pipe_ends_quietly() -> None:
    """`earnings-desk pipelines --json | head -1`: no BrokenPipeError traceback."""
    code = "import sys; from app.cli import main; sys.exit(main(['pipelines', '--json']))"
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=REPO, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)  # fmt: skip
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.readline()
    proc.stdout.close()  # the reader goes away after one line
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 0 and "Traceback" not in err, err


def test_none_unsets_an_option_and_facts_needs_no_chat_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    """`--token-budget none` as the help says; `--pipeline facts` on the local provider starts
    no model (a chat model asked for would fail the run)."""
    monkeypatch.setenv("EDESK_PROVIDER", "local")
    monkeypatch.setenv("EDESK_LOCAL_MODEL_PATH", str(tmp_path / "no-such-model.gguf"))
    monkeypatch.setenv("EDESK_EMBEDDINGS", "fake")
    monkeypatch.setenv("EDESK_DATA_DIR", str(tmp_path / "data"))
    args = ["analyze", str(SAMPLE), "--pipeline", "facts", "--token-budget", "none",
            "--out", str(tmp_path / "out")]  # fmt: skip
    assert main(args) == EXIT_OK, capsys.readouterr()
    assert (tmp_path / "out" / "report.md").is_file()
    capsys.readouterr()
    with pytest.raises(SystemExit) as refused:
        main([*args[:-2], "--token-budget", "lots"])
    assert refused.value.code == 2 and "--token-budget" in capsys.readouterr().err


def test_cli_runs_are_found_again_listed_exported_and_compared(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    """An `analyze` run is kept in the store `serve` reads: `runs` lists it with its call named
    as the report names it, `runs show` and `runs export` (every format) find it by the start of
    its id, `runs compare` sets two runs' horizons side by side; the API lists it too."""
    from fastapi.testclient import TestClient

    from app.api import create_app
    from app.settings import Settings

    monkeypatch.setenv("EDESK_PROVIDER", "fake")
    monkeypatch.setenv("EDESK_EMBEDDINGS", "fake")
    monkeypatch.setenv("EDESK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("COLUMNS", "200")  # the table on one line a row
    monkeypatch.chdir(tmp_path)
    for ticker in ("NWL", None):
        args = ["analyze", str(SAMPLE), "--pipeline", "facts", "--out", str(tmp_path / "o")]
        assert main(args + (["--ticker", ticker] if ticker else [])) == EXIT_OK
    capsys.readouterr()
    # a call whose period is not known is not kept for its company's track record, and says so
    (tmp_path / "excerpt.txt").write_text("Revenue grew 8% to $612 million.\n", encoding="utf-8")
    assert main(["analyze", str(tmp_path / "excerpt.txt"), "--pipeline", "facts", "--ticker",
                 "XYZ", "--out", str(tmp_path / "o3")]) == EXIT_OK  # fmt: skip
    assert "not kept for its company's track record" in capsys.readouterr().out
    assert main(["runs", "--company", "NWL"]) == EXIT_OK
    listed = capsys.readouterr().out
    assert "Northwind Logistics (NWL) Q2 2026" in listed
    assert "1 of 1 run(s) matching; 3 in the local store" in listed
    assert main(["runs", "--limit", "2"]) == EXIT_OK
    assert "2 of 3 run(s); 3 in the local store" in capsys.readouterr().out
    # a filter that cannot match anything, or a limit below one, is bad input
    for bad in (["--pipeline", "nope"], ["--limit", "0"], ["--limit", "-1"]):
        with pytest.raises(SystemExit) as exit_:
            main(["runs", *bad])
        assert exit_.value.code == 2
    assert "invalid choice: 'nope'" in capsys.readouterr().err
    run_id = next(w for w in listed.split() if len(w) == 12 and w.isalnum())
    assert main(["runs", "show", run_id[:8]]) == EXIT_OK
    assert "1d: NEUTRAL 50%" in capsys.readouterr().out
    for fmt, name in (("md", f"report-{run_id}.md"), ("json", f"report-{run_id}.json"),
                      ("pdf", f"report-{run_id}.pdf"), ("xlsx", f"report-{run_id}.xlsx"),
                      ("csv", f"report-{run_id}.csv.zip")):  # fmt: skip
        assert main(["runs", "export", run_id, "--format", fmt]) == EXIT_OK
        assert (tmp_path / name).stat().st_size > 100, name
    # --out into folders that do not exist yet, or into a folder: made, and the default name
    assert main(["runs", "export", run_id, "--format", "json", "--out", "a/b/r.json"]) == EXIT_OK
    assert (tmp_path / "a" / "b" / "r.json").is_file()
    assert main(["runs", "export", run_id, "--format", "md", "--out", "a"]) == EXIT_OK
    assert (tmp_path / "a" / f"report-{run_id}.md").is_file()
    # a folder named with a trailing / that does not exist yet: made, the default name in it
    assert main(["runs", "export", run_id, "--out", "newdir/"]) == EXIT_OK
    assert (tmp_path / "newdir" / f"report-{run_id}.md").is_file()
    # no --format: the kind --out's name ends in; a --format that contradicts it is refused
    assert main(["runs", "export", run_id, "--out", "x.json"]) == EXIT_OK
    assert (tmp_path / "x.json").read_text().lstrip().startswith("{")
    capsys.readouterr()
    assert main(["runs", "export", run_id, "--format", "md", "--out", "y.pdf"]) == 2
    assert "--format md and --out y.pdf: the name says pdf" in capsys.readouterr().err
    assert main(["runs", "--status", "cancelled"]) == EXIT_OK
    assert "no run matches (3 in the local store)" in capsys.readouterr().out
    assert main(["runs", "compare", run_id, "nope"]) == 2
    assert "no run 'nope'" in capsys.readouterr().err
    with TestClient(create_app(Settings())) as client:
        body = client.get("/v1/runs").json()
        assert body["total"] == 3
        sample = [r for r in body["items"] if r["call"].get("ticker") != "XYZ"]
        assert {r["call"].get("ticker") for r in sample} == {"NWL", None}
        assert all(r["call"]["company"] == "Northwind Logistics" for r in sample)
    ids = [r["id"] for r in sample]
    assert main(["runs", "compare", *ids]) == EXIT_OK
    assert "1d" in capsys.readouterr().out


def test_a_bad_setting_is_named_in_our_words(monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    monkeypatch.setenv("EDESK_LEASE_SECONDS", "abc")
    assert main(["runs"]) == 2
    err = capsys.readouterr().err
    assert "EDESK_LEASE_SECONDS: " in err and "'abc'" in err
    assert "pydantic" not in err and "lease_seconds\n" not in err


def test_a_misspelled_node_in_edesk_faults_is_refused(
    monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    monkeypatch.setenv("EDESK_PROVIDER", "fake")
    monkeypatch.setenv("EDESK_FAULTS", '{"synthesise": ["429"]}')
    assert main(["runs"]) == 2
    err = capsys.readouterr().err
    assert "EDESK_FAULTS: unknown node 'synthesise'" in err and "synthesize" in err


def test_the_parser_loads_no_model_library() -> None:
    """`--help` answers before the models' libraries load (bench/cli_help.py times it): the
    parser's module imports neither LangGraph, torch nor the engine, and the pipeline choices it
    lists are the registered pipelines."""
    code = ("import sys, app.cli; print(sorted(m for m in ('langgraph', 'torch', 'langchain_core', "
            "'app.service.engine', 'sqlalchemy') if m in sys.modules))")  # fmt: skip
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True,
                         timeout=60, check=True).stdout.strip()  # fmt: skip
    assert out == "[]", out
    from core.options import PIPELINE_NAMES
    from graphs import PIPELINES

    assert tuple(PIPELINES) == PIPELINE_NAMES


def test_settings_problems_found_in_the_walkthrough(
    monkeypatch: pytest.MonkeyPatch, capsys: Any, tmp_path: Path
) -> None:
    """A JSON setting that is not JSON, a bound checked across settings, `none` for a setting
    that may be unset, and a misspelled variable: each said in our words."""
    monkeypatch.setenv("EDESK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("EDESK_ROLE_MODELS", "notjson")
    assert main(["runs"]) == 2
    err = capsys.readouterr().err
    assert "EDESK_ROLE_MODELS: not valid JSON" in err and "Traceback" not in err
    monkeypatch.delenv("EDESK_ROLE_MODELS")
    monkeypatch.setenv("EDESK_MAX_RUNS", "0")
    assert main(["runs"]) == 2
    err = capsys.readouterr().err  # the bound, the value given and what the setting sets
    assert "EDESK_MAX_RUNS: must be >= 1 (given '0') (what it sets: runs executing" in err
    monkeypatch.delenv("EDESK_MAX_RUNS")
    monkeypatch.setenv("EDESK_LEASE_SECONDS", "1")
    assert main(["runs"]) == 2
    assert "EDESK_LEASE_SECONDS: must be >= 3" in capsys.readouterr().err
    monkeypatch.delenv("EDESK_LEASE_SECONDS")
    monkeypatch.setenv("EDESK_ENSEMBLE_VARIANTS", "simple_writer")
    assert main(["runs"]) == 2
    assert "(given 'simple_writer')" in capsys.readouterr().err  # as typed, not a tuple
    monkeypatch.delenv("EDESK_ENSEMBLE_VARIANTS")
    monkeypatch.setenv("EDESK_TOKEN_BUDGET", "none")
    monkeypatch.setenv("EDESK_PROVIDR", "fake")
    assert main(["runs"]) == 0
    assert "EDESK_PROVIDR is not an Earnings Desk setting" in capsys.readouterr().err
    from app.settings import Settings

    assert Settings().token_budget is None
    with pytest.raises(SystemExit):  # a command's --help opens with its one-line summary
        build_parser().parse_args(["analyze", "--help"])
    assert "turn a transcript into report.md and report.json" in capsys.readouterr().out


def test_a_url_is_quoted_as_typed(
    monkeypatch: pytest.MonkeyPatch, capsys: Any, tmp_path: Path
) -> None:
    monkeypatch.setenv("EDESK_DATA_DIR", str(tmp_path / "data"))
    assert main(["analyze", "https://example.com/call.html", "--pipeline", "facts"]) == 2
    assert "https://example.com/call.html: the CLI reads files" in capsys.readouterr().err


def test_standard_input_gets_a_folder_named_for_it_and_ports_are_bounded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    """`analyze -` writes to reports/stdin/PIPELINE (not a folder named "-"); the header names
    the layout read; `serve --port` outside 1-65535 is bad input, not another port."""
    import io
    import sys

    monkeypatch.setenv("EDESK_EMBEDDINGS", "fake")
    monkeypatch.setenv("EDESK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(SAMPLE.read_bytes())))
    assert main(["analyze", "-", "--pipeline", "facts"]) == EXIT_OK
    out = capsys.readouterr().out
    assert (tmp_path / "reports" / "stdin" / "facts" / "report.md").is_file()
    assert "(speaker turns, " in out and not (tmp_path / "reports" / "-").exists()
    for port in ("0", "65536", "99999", "http"):
        with pytest.raises(SystemExit) as refused:
            main(["serve", "--port", port])
        assert refused.value.code == 2
    assert "--port" in capsys.readouterr().err


def test_serve_on_an_address_in_use_says_so_before_starting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    """The address is bound before the application starts: one in use is exit 2 naming it,
    and the application (the bundled model's server with it) is never built."""
    import socket

    import app.api

    built: list[object] = []
    monkeypatch.setattr(app.api, "create_app", lambda settings: built.append(settings))
    monkeypatch.setenv("EDESK_PROVIDER", "fake")
    monkeypatch.setenv("EDESK_DATA_DIR", str(tmp_path / "data"))
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["serve", "--port", str(port)]) == 2
    assert f"cannot serve on 127.0.0.1:{port}: already in use" in capsys.readouterr().err
    assert built == []


def test_an_output_folder_that_cannot_be_written_is_refused_before_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    """`--out` naming a file, or a folder that cannot be made, is exit 2 naming the flag, before
    any run (nothing stored): never a traceback after a run that succeeded."""
    monkeypatch.setenv("EDESK_EMBEDDINGS", "fake")
    monkeypatch.setenv("EDESK_PROVIDER", "fake")
    monkeypatch.setenv("EDESK_DATA_DIR", str(tmp_path / "data"))
    a_file = tmp_path / "afile"
    a_file.write_text("x", encoding="utf-8")
    calls = tmp_path / "calls"
    calls.mkdir()
    (calls / "ACME_q3_2021.txt").write_text(SAMPLE.read_text(), encoding="utf-8")
    for args in (["analyze", str(SAMPLE), "--pipeline", "facts"],
                 ["eval", str(calls), "--pipelines", "facts"]):  # fmt: skip
        for out in (a_file, a_file / "below"):
            assert main([*args, "--out", str(out)]) == 2
            err = capsys.readouterr().err
            assert f"--out {out}:" in err and "Traceback" not in err
    assert main(["runs"]) == 0
    assert "no runs in the local store yet" in capsys.readouterr().out  # none was made
    assert main(["runs", "list", "4184"]) == 2
    assert "runs show 4184 shows one" in capsys.readouterr().err


def test_a_list_too_short_is_said_in_our_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    monkeypatch.setenv("EDESK_DATA_DIR", str(tmp_path / "data"))
    assert main(["analyze", str(SAMPLE), "--pipeline", "writer_feedback", "--ensemble",
                 "simple_writer"]) == 2  # fmt: skip
    said = capsys.readouterr()
    assert "--ensemble: needs at least 2 items, got 1" in said.out + said.err
    assert "Tuple should" not in said.out + said.err
    monkeypatch.setenv("EDESK_ENSEMBLE_VARIANTS", "simple_writer")
    assert main(["analyze", str(SAMPLE), "--pipeline", "facts"]) == 2
    out = capsys.readouterr()
    assert "EDESK_ENSEMBLE_VARIANTS: needs at least 2 items, got 1" in out.out + out.err


def test_an_ensemble_is_refused_for_what_is_wrong_with_it_and_never_ignored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    """An unknown variant is named alone (not "needs at least 2 items" of a list of two); the
    setting may be a JSON array as other settings are; `--ensemble` alone runs the ensemble and
    beside another `--variant` is refused, never ignored."""
    monkeypatch.setenv("EDESK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("EDESK_PROVIDER", "fake")
    monkeypatch.setenv("EDESK_EMBEDDINGS", "fake")
    run = ["analyze", str(SAMPLE), "--pipeline", "writer_feedback"]
    assert main([*run, "--ensemble", "simple_writer,bogus"]) == 2
    said = capsys.readouterr().err
    assert "--ensemble ('bogus'): Input should be 'simple_writer'" in said
    assert "needs at least" not in said
    assert main([*run, "--ensemble", "simple_writer,advanced_writer", "--variant",
                 "simple_writer"]) == 2  # fmt: skip
    assert "--ensemble applies with --variant ensemble, not --variant simple_writer" in (
        capsys.readouterr().err)  # fmt: skip
    assert main([*run, "--ensemble", "simple_writer,advanced_writer",
                 "--out", str(tmp_path / "ens")]) == EXIT_OK  # fmt: skip
    assert "; variant ensemble" in capsys.readouterr().out
    monkeypatch.setenv("EDESK_ENSEMBLE_VARIANTS", '["simple_writer", "advanced_feedback"]')
    assert main([*run, "--variant", "ensemble", "--out", str(tmp_path / "ens2")]) == EXIT_OK


def test_a_bad_financials_file_is_said_plainly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    monkeypatch.setenv("EDESK_DATA_DIR", str(tmp_path / "data"))
    bad = tmp_path / "fin.json"
    bad.write_text('{"bad": 1}', encoding="utf-8")
    assert main(["analyze", str(SAMPLE), "--pipeline", "facts", "--financials", str(bad)]) == 2
    said = capsys.readouterr()
    text = said.out + said.err
    assert "most_recent_earnings: missing (required)" in text and "bad: not a known field" in text
    assert "pydantic" not in text and "Field required" not in text


def test_walkthrough_five_a_key_a_period_and_a_benchmark(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    """OpenAI's API without a key is a setting problem (exit 2, before anything runs); a --period
    that cannot be placed and a --benchmark the prices file lacks are said, not assumed."""
    monkeypatch.setenv("EDESK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("EDESK_EMBEDDINGS", "fake")
    monkeypatch.setenv("EDESK_PROVIDER", "openai")
    monkeypatch.setenv("EDESK_MODEL", "gpt-4o-mini")
    monkeypatch.delenv("EDESK_OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("EDESK_OPENAI_BASE_URL", raising=False)
    assert main(["analyze", str(SAMPLE), "--pipeline", "zero_shot"]) == 2
    said = capsys.readouterr()
    assert "EDESK_OPENAI_API_KEY is required" in said.out + said.err
    prices = SAMPLE.parent / "northwind_prices.csv"
    args = ["analyze", str(SAMPLE), "--pipeline", "facts", "--ticker", "NWL", "--prices",
            str(prices), "--benchmark", "QQQ", "--period", "third quarter",
            "--out", str(tmp_path / "o")]  # fmt: skip
    assert main(args) == 0  # the facts pipeline needs no key
    said = capsys.readouterr()
    text = said.out + said.err
    assert "--benchmark QQQ: not in" in text
    assert "--period 'third quarter' is not a fiscal period it can place" in text
    # a quarter that does not exist is not the year it names
    args[args.index("third quarter")] = "Q5 2026"
    assert main(args) == 0
    said = capsys.readouterr()
    assert "--period 'Q5 2026' is not a fiscal period it can place" in said.out + said.err


def test_the_facts_report_flags_none_of_its_own_rule_weights(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The facts pipeline's report is code's, from quoted rows: its thresholds and weights
    (`+1.5`, `+1 x 1.5`) are apparatus, so no figure is flagged and no footnote is added."""
    import json

    monkeypatch.setenv("EDESK_EMBEDDINGS", "fake")
    monkeypatch.setenv("EDESK_DATA_DIR", str(tmp_path / "data"))
    out = tmp_path / "out"
    assert main(["analyze", str(SAMPLE), "--pipeline", "facts", "--out", str(out)]) == EXIT_OK
    report = json.loads((out / "report.json").read_text())
    assert [n["text"] for n in report["evidence"]["numbers"] if n.get("flagged")] == []
    md = (out / "report.md").read_text()
    assert "x 1.5`)" in md and "[^unverified" not in md
