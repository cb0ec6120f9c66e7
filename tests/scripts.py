"""Scripted fake models for the FinDebate family: one script per role, extractor answers queued."""

from __future__ import annotations

import re
from datetime import date, timedelta
from typing import Any

from core.llm.fake import FakeModels, Script, block
from nodes.specialists import SPECIALISTS

DRAFT = (
    "## Summary\nRevenue rose 10.7% to $1.54 billion.\n\n"
    "## Multi-Timeframe Investment Strategy\n..."
)
LEADER = "## Final report\nRevenue rose 10.7% to $1.54 billion; risks are manageable."


def prose(markdown: str) -> str:
    """A report's Markdown without the fact-check's footnote marks."""
    return re.sub(r"\[\^unverified-\d+\]", "", markdown)


def findebate_models(*extractor: Any, specialist_text: str = "analysis") -> FakeModels:
    """Fakes for every role; `extractor` answers are consumed in order (draft, then leader)."""
    scripts = {role: Script.of(default=f"{role} {specialist_text}") for role in SPECIALISTS}
    scripts["synthesizer"] = Script.of(default=DRAFT)
    scripts["trust"] = Script.of(default="TRUST: stronger evidence, same stance.")
    scripts["skeptic"] = Script.of(default="SKEPTIC: risks and hedges, same stance.")
    scripts["leader"] = Script.of(default=LEADER)
    scripts["extractor"] = Script.of(*extractor)
    return FakeModels(scripts)


def weekdays(start: date, n: int) -> list[date]:
    """`n` trading days (Monday to Friday) from `start`: synthetic price calendars."""
    days: list[date] = []
    d = start
    while len(days) < n:
        if d.weekday() < 5:
            days.append(d)
        d += timedelta(days=1)
    return days


__all__ = ["DRAFT", "LEADER", "block", "findebate_models", "prose", "weekdays"]
