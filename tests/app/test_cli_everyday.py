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
