"""Which rows have earned "verified": every rule that decided the row has a measured precision
at or above the threshold on the hand-labelled tuning calls (`rule_precision.json`, written by
`python -m bench.facts --rules --write`; the thresholds and the table are in
docs/results/facts.md). A rule measured on too few rows is measured with its family (all rules
that decide the same field); a rule the table does not know (new, never measured) has not earned
it. A row any weak rule decided is "read by code, unconfirmed": shown apart, never used as
verified data."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any

TABLE = Path(__file__).with_name("rule_precision.json")


@lru_cache(maxsize=1)
def _stored() -> dict[str, Any]:
    if not TABLE.is_file():  # a checkout without it: nothing has earned it
        return {"threshold": 0.95, "min_rows": 0, "rules": {}}
    data: dict[str, Any] = json.loads(TABLE.read_text(encoding="utf-8"))
    return data


_IN_USE: list[dict[str, Any]] = []


def table() -> dict[str, Any]:
    """The measured table (read once a process), or the one being measured
    (`measuring_with`)."""
    return _IN_USE[-1] if _IN_USE else _stored()


@contextmanager
def measuring_with(candidate: dict[str, Any]) -> Iterator[None]:
    """Rows gated by `candidate` instead of the stored table, while a benchmark measures it."""
    _IN_USE.append(candidate)
    try:
        yield
    finally:
        _IN_USE.pop()


def weak_rules(chains: Iterable[Mapping[str, str]]) -> list[str]:
    """The rules of the chains (field -> rule) that have not earned "verified", each once, in
    order: "metric.after (0.91 on 44 rows)", "period.exit_rate (not measured)"."""
    rules: dict[str, Any] = table()["rules"]
    out: list[str] = []
    for chain in chains:
        for name in chain.values():
            entry = rules.get(name)
            if entry is None:
                why = f"{name} (not measured)"
            elif entry["verified"]:
                continue
            else:
                why = f"{name} ({entry['used_precision']:.2f} on {entry['used_rows']} rows)"
            if why not in out:
                out.append(why)
    return out


def held_out_note() -> str:
    """What the verified rows were measured at on real calls the rules were never tuned on (the
    table's `held_out`, written with it), for the report to say beside the word "verified"."""
    held = table().get("held_out")
    if not held:
        return "Their precision on calls the rules were not tuned on has not been measured."
    return (
        f"On {held['calls']} real calls the rules were not tuned on, {held['precision']:.0%} of "
        f"these rows ({held['rows']}) were fully right when last measured ({held['date']}): "
        "check a row's quote before relying on it."
    )
