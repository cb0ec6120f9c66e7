"""Graph-shape snapshots: a changed edge shows up as a diff of the stored mermaid.
Regenerate with UPDATE_SNAPSHOTS=1 after an intended change."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from graphs import PIPELINES, draw

SNAPSHOTS = Path(__file__).parent / "snapshots"


@pytest.mark.parametrize("name", list(PIPELINES))
def test_graph_shape(name: str) -> None:
    mermaid = draw(PIPELINES[name].build().compile()).draw_mermaid()
    path = SNAPSHOTS / f"{name}.mmd"
    if os.environ.get("UPDATE_SNAPSHOTS") == "1" or not path.exists():
        if os.environ.get("CI") and not path.exists():
            pytest.fail(f"missing snapshot {path}")
        path.write_text(mermaid, encoding="utf-8")
    assert mermaid == path.read_text(encoding="utf-8")


def test_findebate_routes_are_explicit() -> None:
    graph = PIPELINES["findebate"].build().compile().get_graph()
    conditional = {(e.source, e.target, e.data) for e in graph.edges if e.conditional}
    assert ("synthesize", "trust", "debate") in conditional
    assert ("synthesize", "fact_check", "skip") in conditional
    targets = {(s, t) for s, t, _ in conditional}
    assert ("integrity_check", "revert") in targets and ("integrity_check", "accept") in targets
