"""Which inputs each prompt of each pipeline receives, recorded from the code: every pipeline and
each of its paper's variants runs on the scripted fake model with the sample call, its statements
and its prices, and every prompt the run renders is recorded with the names of the variables it
was given a value for. The tables in `docs/pipelines/<pipeline>.md` (between their "role inputs"
markers) are this output; `tests/docs/test_role_inputs.py` fails when they differ.

    .venv/bin/python -m bench.role_inputs            # print the tables
    .venv/bin/python -m bench.role_inputs --write    # write them into the docs

Each prompt is recorded under both profiles: `desk` (the default) and `paper` (each role
reads what its paper gives it: `core/profiles.py`).
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bench.common import REPO

DOCS = REPO / "docs" / "pipelines"
SAMPLES = REPO / "samples"
START, END = "<!-- role inputs: start -->", "<!-- role inputs: end -->"


@contextmanager
def recording() -> Iterator[dict[str, set[str]]]:
    """Every prompt rendered while inside, with the variables given a value (not None or
    empty)."""
    import nodes.calls

    seen: dict[str, set[str]] = {}
    original = nodes.calls.fitted

    def spy(handle: Any, template: str, variables: dict[str, Any], **kw: Any) -> Any:
        given = {
            k for k, v in variables.items() if v is not None and v != "" and v != [] and v != {}
        }
        seen.setdefault(template, set()).update(given)
        return original(handle, template, variables, **kw)

    nodes.calls.fitted = spy  # every role's prompt is rendered by nodes.calls (say, ask)
    try:
        yield seen
    finally:
        nodes.calls.fitted = original


def variants() -> list[str]:
    """Every pipeline's named variants, or the pipeline itself when it has none (a pipeline's
    bare name runs one of its variants: listed once)."""
    from core.options import named_variants
    from graphs import PIPELINES

    names = named_variants(PIPELINES)
    return [n for n in names if "@" in n or not any(m.startswith(f"{n}@") for m in names)]


PROFILES = ("desk", "paper")


async def record_all() -> dict[str, dict[str, dict[str, list[str]]]]:
    """pipeline or variant -> profile -> prompt -> the variables it received (a value given)."""
    from langchain_core.embeddings import DeterministicFakeEmbedding

    from app.service.engine import Engine
    from app.settings import Settings
    from core.contract import CallInfo
    from core.inputs import financials_from_text, prices_from_text
    from core.llm.fake import FakeModels, Script, canned
    from core.options import parse_variant
    from core.transcript import parse_transcript

    transcript = parse_transcript((SAMPLES / "northwind_q2_2026.md").read_text(encoding="utf-8"))
    financials = financials_from_text(
        (SAMPLES / "northwind_financials.json").read_text(encoding="utf-8"), csv_format=False
    )
    prices = prices_from_text(
        (SAMPLES / "northwind_prices.csv").read_text(encoding="utf-8"), csv_format=True,
        ticker="NWL",
    )  # fmt: skip
    out: dict[str, dict[str, dict[str, list[str]]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=Path(tmp), provider="fake")
        async with Engine.open(
            settings,
            models=FakeModels(default=Script.of(default=canned)),
            embeddings=DeterministicFakeEmbedding(size=32),
        ) as engine:
            for spec in variants():
                variant = parse_variant(spec)
                for profile in PROFILES:
                    options = variant.apply(engine.context.options).merged({"profile": profile})
                    with recording() as seen:
                        request = engine.request(
                            variant.pipeline, transcript, CallInfo(company="Northwind Logistics"),
                            options, financials=financials, prices=prices,
                        )  # fmt: skip
                        await engine.run(request)
                    out.setdefault(spec, {})[profile] = {
                        t: sorted(v) for t, v in sorted(seen.items())
                    }
    return out


def _cells(given: list[str] | None) -> str:
    if given is None:
        return "not run"
    return ", ".join(f"`{g}`" for g in given) or "none"


def _sampling_line(templates: set[str]) -> str:
    from core.profiles import sampling

    stated: dict[str, list[str]] = {}
    for template in sorted(templates):
        if template.startswith("shared/"):
            continue
        s = sampling("paper", template)
        if s is None:
            continue
        values = ", ".join(f"{k} {v}" for k, v in (("temperature", s.temperature),
                           ("top_p", s.top_p), ("frequency_penalty", s.frequency_penalty))
                           if v is not None) or "the run's settings"  # fmt: skip
        stated.setdefault(f"{values} ({s.source})", []).append(f"`{template}`")
    if len(stated) == 1:
        return f"every role: {next(iter(stated))}"
    return "; ".join(f"{', '.join(t)}: {v}" for v, t in stated.items())


def tables(recorded: dict[str, dict[str, dict[str, list[str]]]]) -> dict[str, str]:
    """pipeline -> its Markdown table (variants of one pipeline in one table): each prompt's
    inputs under `desk` and under `paper`, and where the paper gives them."""
    from core.profiles import PAPER_INPUTS

    by_pipeline: dict[str, list[tuple[str, str, list[str] | None, list[str] | None]]] = {}
    for spec, profiles in recorded.items():
        name = spec.partition("@")[0]
        templates = sorted(set(profiles["desk"]) | set(profiles["paper"]))
        for template in templates:
            by_pipeline.setdefault(name, []).append(
                (spec, template, profiles["desk"].get(template), profiles["paper"].get(template))
            )
    out: dict[str, str] = {}
    for name, rows in by_pipeline.items():
        multi = any("@" in spec for spec, _, _, _ in rows)
        head = "| variant | prompt | desk | paper | the paper's role reads |" if multi else (
            "| prompt | desk | paper | the paper's role reads |")  # fmt: skip
        lines = [
            "Recorded from the code by `python -m bench.role_inputs`: each prompt a run renders "
            "and the inputs it is given a value for, under the `desk` profile (the default) and "
            "the `paper` profile (`--profile paper`), on the sample call with its statements "
            "and prices. `call` is the call's identity line (company, period); `facts` the "
            "code-built call facts. Under `paper` the role is the system message and the "
            "material and task the user message; no fact-check rewrite runs (the report is "
            "annotated).",
            "",
            head,
            "|" + "---|" * (head.count("|") - 1),
        ]
        for spec, template, desk, paper in rows:
            role = PAPER_INPUTS.get(template)
            source = role.source if role is not None else "ours: no paper has this step"
            cells = f"`{template}` | {_cells(desk)} | {_cells(paper)} | {source}"
            lines.append(f"| {spec} | {cells} |" if multi else f"| {cells} |")
        lines += ["", "Sampling under `paper`: "
                  + _sampling_line({t for _, t, _, _ in rows}) + "."]  # fmt: skip
        out[name] = "\n".join(lines)
    return out


def documented(name: str) -> str | None:
    """The table now between the markers of `docs/pipelines/<name>.md`, if it has them."""
    page = DOCS / f"{name}.md"
    text = page.read_text(encoding="utf-8") if page.is_file() else ""
    if START not in text or END not in text:
        return None
    return text.split(START, 1)[1].split(END, 1)[0].strip()


def write(found: dict[str, str]) -> list[Path]:
    written: list[Path] = []
    for name, table in found.items():
        page = DOCS / f"{name}.md"
        if not page.is_file():
            continue
        text = page.read_text(encoding="utf-8")
        block = f"{START}\n{table}\n{END}"
        if START in text and END in text:
            head, rest = text.split(START, 1)
            text = head + block + rest.split(END, 1)[1]
        else:
            text = text.rstrip("\n") + "\n\n## Inputs of each prompt\n\n" + block + "\n"
        page.write_text(text, encoding="utf-8")
        written.append(page)
    return written


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.role_inputs", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    ap.add_argument("--write", action="store_true", help="write the tables into docs/pipelines/")
    args = ap.parse_args(argv)
    found = tables(asyncio.run(record_all()))
    if args.write:
        for page in write(found):
            print(f"wrote {page.relative_to(REPO)}")
        return 0
    for name, table in found.items():
        print(f"## {name}\n\n{table}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
