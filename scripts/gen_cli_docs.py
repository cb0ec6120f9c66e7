"""The CLI reference (docs/cli.md), generated from the parser so it cannot drift: every command,
its usage and each of its arguments with their help, as `earnings-desk COMMAND --help` prints
them. `tests/docs/test_cli_docs.py` fails when the page and the parser disagree.

    .venv/bin/python -m scripts.gen_cli_docs          # rewrite docs/cli.md
    .venv/bin/python -m scripts.gen_cli_docs --check  # exit 1 if the page is stale
"""

from __future__ import annotations

import argparse
from pathlib import Path

from scripts.pages import write_or_check

PAGE = Path(__file__).resolve().parent.parent / "docs" / "cli.md"
COMMAND = ".venv/bin/python -m scripts.gen_cli_docs"

HEAD = """# CLI reference

Generated from the parser by `{command}` (do not edit by hand). Every command also prints this
with `--help`. Exit codes: 0 succeeded, 1 run failed (or nothing to do), 2 bad input or
settings (the message names the flag or the `EDESK_` setting), 3 report degraded (written, but a
node's output could not be parsed: the report's failures say which). Every `--flag` of a run
option defaults to its `EDESK_` setting ([Configuration](configuration.md#run-options)).
"""


def _cell(text: str | None) -> str:
    return " ".join((text or "").split()).replace("|", "\\\\|")


def render() -> str:
    from app.cli import build_parser

    parser = build_parser()
    parser.prog = "earnings-desk"
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    lines = [HEAD.format(command=COMMAND).rstrip(), ""]
    lines += ["| command | what it does |", "|---|---|"]
    helps = {c.dest: c.help for c in sub._choices_actions}
    for name in sub.choices:
        lines.append(f"| [`{name}`](#{name}) | {_cell(helps.get(name))} |")
    for name, cmd in sub.choices.items():
        lines += ["", f"## {name}", "", _cell(cmd.description or helps.get(name)), "", "```text",
                  " ".join(cmd.format_usage().split()), "```", ""]  # fmt: skip
        lines += ["| argument | help |", "|---|---|"]
        for action in cmd._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            names = ", ".join(action.option_strings) or action.dest
            if action.choices and not isinstance(action, argparse._SubParsersAction):
                names += " {" + ",".join(str(c) for c in action.choices) + "}"
            lines.append(f"| `{_cell(names)}` | {_cell(action.help)} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if the page is stale")
    args = ap.parse_args(argv)
    return write_or_check(PAGE, render(), COMMAND, check=args.check)


if __name__ == "__main__":
    raise SystemExit(main())
