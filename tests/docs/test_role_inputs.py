"""The inputs table of each pipeline's docs page is what the code gives each prompt today
(`python -m bench.role_inputs --write` regenerates them): recorded from runs of every pipeline
and variant, under both profiles, on the fake model with the sample call, statements and prices
(issue 39). Under `paper` every role reads only what its paper gives it (`core/profiles.py`)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from bench.role_inputs import documented, record_all, tables
from core.profiles import PAPER_INPUTS


@pytest.fixture(scope="module")
def recorded() -> Any:
    return asyncio.run(record_all())


def test_each_pipelines_page_lists_the_inputs_its_prompts_receive(recorded: Any) -> None:
    found = tables(recorded)
    assert set(found) == {"findebate", "multi_agent", "standard_rag", "zero_shot",
                          "conversation", "writer_feedback", "adversarial"}  # fmt: skip
    stale = [name for name, table in found.items() if documented(name) != table]
    assert not stale, (
        f"docs/pipelines/{stale[0]}.md's inputs table is not what the code gives its prompts; "
        "run `.venv/bin/python -m bench.role_inputs --write` and read the diff"
    )
    # what the tables must show: the market analyst reads the scorecard (and, on the desk, the
    # call facts), the advanced writer the statements
    market = (
        "| adversarial@S2 | `adversarial/market_analyst` | `facts`, `scorecard` | `scorecard` |"
    )
    assert market in found["adversarial"]
    assert "`writer_feedback/advanced_writer` | `call`, `facts`, `financials`, `transcript` | " \
        "`call`, `financials`, `transcript` |" in found["writer_feedback"]  # fmt: skip


def test_under_paper_each_role_reads_only_what_its_paper_gives_it(recorded: Any) -> None:
    for spec, profiles in recorded.items():
        for template, given in profiles["paper"].items():
            extra = set(given) - PAPER_INPUTS[template].reads
            assert not extra, f"{spec}: {template} read {sorted(extra)} under paper"
        assert "shared/fact_check" not in profiles["paper"]  # annotated, never rewritten
        # the desk's additions are there under desk: the call facts reach the roles
        desk = profiles["desk"]
        if desk and spec != "zero_shot":  # (the facts pipeline asks no model)
            assert any("facts" in given for given in desk.values()), spec
