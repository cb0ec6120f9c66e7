"""The CLI reference (docs/cli.md) is generated from the parser; this fails when they disagree.
Regenerate with `.venv/bin/python -m scripts.gen_cli_docs`."""

from __future__ import annotations

from scripts import gen_cli_docs as gen


def test_the_committed_cli_reference_is_what_the_parser_says() -> None:
    page = gen.PAGE.read_text(encoding="utf-8")
    assert gen.render() == page, f"docs/cli.md is stale; regenerate it with: {gen.COMMAND}"
    for command in ("analyze", "runs", "ingest", "history", "eval", "backtest", "serve",
                    "worker", "pipelines", "graph"):  # fmt: skip
        assert f"## {command}\n" in page, command
