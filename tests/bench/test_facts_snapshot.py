"""The rows of every labelled and review call are what `tests/fixtures/facts_snapshot.json` holds:
a change in the call facts' output shows here as a diff, and is approved on purpose with
`.venv/bin/python -m bench.facts_snapshot --write` (then read in the commit's diff)."""

from __future__ import annotations

import json

from bench.facts_snapshot import SNAPSHOT, calls, current, differences
from tests.conftest import ectsum_dir


def test_every_row_of_every_labelled_and_review_call_is_the_approved_one() -> None:
    ectsum_dir()  # ../shared: skipped with a message when absent, a failure under CI=true
    paths = calls()
    missing = [str(p) for p in paths.values() if not p.is_file()]
    assert not missing, f"calls not found: {missing[:3]}"
    stored = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    diff = differences(stored, current(paths))
    assert not diff, (
        "the call facts' rows changed; if intended, approve with "
        "`.venv/bin/python -m bench.facts_snapshot --write`:\n" + "\n".join(diff[:80])
    )


def test_a_changed_row_shows_in_the_diff() -> None:
    stored = {"x": {"call": {}, "key_figures": [{"text": "$1", "metric": "revenue"}],
                    "guidance": []}}  # fmt: skip
    now = {"x": {"call": {}, "key_figures": [{"text": "$1", "metric": "eps"}], "guidance": []}}
    diff = differences(stored, now)
    assert any('"metric": "revenue"' in d and d.startswith("-") for d in diff)
    assert any('"metric": "eps"' in d and d.startswith("+") for d in diff)
    assert differences(stored, stored) == []
    assert differences(stored, {}) == [
        "x: in the snapshot, not built now (its transcript is missing?)"
    ]
