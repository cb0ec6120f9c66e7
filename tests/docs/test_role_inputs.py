"""The inputs table of each pipeline's docs page is what the code gives each prompt today
(`python -m bench.role_inputs --write` regenerates them): recorded from runs of every pipeline
and variant on the fake model with the sample call, statements and prices (issue 39)."""

from __future__ import annotations

import asyncio

from bench.role_inputs import documented, record_all, tables


def test_each_pipelines_page_lists_the_inputs_its_prompts_receive() -> None:
    found = tables(asyncio.run(record_all()))
    assert set(found) == {"findebate", "multi_agent", "standard_rag", "zero_shot",
                          "conversation", "writer_feedback", "adversarial"}  # fmt: skip
    stale = [name for name, table in found.items() if documented(name) != table]
    assert not stale, (
        f"docs/pipelines/{stale[0]}.md's inputs table is not what the code gives its prompts; "
        "run `.venv/bin/python -m bench.role_inputs --write` and read the diff"
    )
    # what the tables must show: the market analyst reads the scorecard, the advanced writer
    # the statements, and every model-written pipeline's prompts carry the call facts (desk)
    assert "| adversarial@S2 | `adversarial/market_analyst` | `facts`, `scorecard` |" in found[
        "adversarial"]  # fmt: skip
    assert "`writer_feedback/advanced_writer` | `call`, `facts`, `financials`, `transcript` |" in (
        found["writer_feedback"])  # fmt: skip
