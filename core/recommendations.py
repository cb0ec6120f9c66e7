"""The recommendation block: the schema a model fills, its validation, the safe-debate integrity
check (Algorithm 1's core_compromised) and the canonical `## Recommendations` markdown."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from core.contract import (
    HORIZON_LABELS,
    HORIZONS,
    Horizon,
    Position,
    Recommendation,
    RevertDecision,
    check_three_horizons,
    markdown_text,
)

# Bounds are also written as an enum and lengths so that grammar-constrained decoding (llama.cpp)
# enforces them: small models ignore a bare minimum/maximum (seen on the bundled model). Values
# are still validated.
_CONVICTION_SCHEMA: dict[str, Any] = {"enum": list(range(101))}


class HorizonCall(BaseModel):
    """One horizon of the multi-timeframe strategy, as stated in the report."""

    position: Literal["LONG", "SHORT", "NEUTRAL"] = Field(
        description="the report's position for this horizon"
    )
    conviction: int = Field(
        ge=0,
        le=100,
        description="conviction as an integer percent between 0 and 100",
        json_schema_extra=_CONVICTION_SCHEMA,
    )
    rationale: str = Field(
        min_length=1, max_length=300, description="one or two sentences explaining the call"
    )
    catalysts: list[Annotated[str, Field(max_length=120)]] = Field(
        max_length=3, description="up to three catalysts or drivers the report names"
    )


class RecommendationBlock(BaseModel):
    """The report's recommendations for the next day, week and month."""

    one_day: HorizonCall
    one_week: HorizonCall
    one_month: HorizonCall


def to_recommendations(block: RecommendationBlock) -> list[Recommendation]:
    """Validate a filled block into the contract's three recommendations (raises ValueError)."""
    calls = {
        Horizon.DAY: block.one_day,
        Horizon.WEEK: block.one_week,
        Horizon.MONTH: block.one_month,
    }
    recs = [
        Recommendation(
            horizon=h,
            position=Position(c.position),
            conviction=c.conviction,
            rationale=c.rationale.strip(),
            catalysts=[s.strip() for s in c.catalysts if s.strip()],
        )
        for h, c in calls.items()
    ]
    return check_three_horizons(recs)


def integrity_check(
    original: Sequence[Recommendation],
    revised: Sequence[Recommendation] | None,
    *,
    max_conviction_shift: int,
) -> RevertDecision:
    """core_compromised(R*, R0): any position changed, horizon missing, or conviction moved
    more than `max_conviction_shift` points means the debate is reverted."""
    if revised is None:
        return RevertDecision(
            reverted=True,
            reasons=["the leader's report has no parseable recommendations (all horizons missing)"],
        )
    before = {r.horizon: r for r in original}
    after = {r.horizon: r for r in revised}
    reasons: list[str] = []
    for h in HORIZONS:
        if h not in before:
            continue
        if h not in after:
            reasons.append(f"{h.value}: horizon missing after the debate")
            continue
        if after[h].position != before[h].position:
            reasons.append(
                f"{h.value}: position changed {before[h].position.value} -> "
                f"{after[h].position.value}"
            )
        shift = abs(after[h].conviction - before[h].conviction)
        if shift > max_conviction_shift:
            reasons.append(
                f"{h.value}: conviction moved {shift} points "
                f"({before[h].conviction}% -> {after[h].conviction}%, limit {max_conviction_shift})"
            )
    return RevertDecision(reverted=bool(reasons), reasons=reasons)


RECOMMENDATIONS_HEADING = "## Recommendations"


def render_recommendations(recs: Sequence[Recommendation]) -> str:
    """The canonical section every report ends with, written from the parsed values."""
    lines = [
        RECOMMENDATIONS_HEADING,
        "",
        "| Horizon | Position | Conviction | Rationale | Catalysts |",
        "|---|---|---|---|---|",
    ]
    for r in recs:
        catalysts = "; ".join(r.catalysts) if r.catalysts else "-"
        lines.append(
            f"| {HORIZON_LABELS[r.horizon]} | {r.position.value} | {r.conviction}% | "
            f"{_cell(r.rationale)} | {_cell(catalysts)} |"
        )
    return "\n".join(lines) + "\n"


def render_missing_recommendations(node: str, reason: str) -> str:
    return (
        f"{RECOMMENDATIONS_HEADING}\n\n"
        f"**Not available.** The recommendations written by `{node}` could not be parsed "
        f"({_cell(reason)}). This report is marked degraded; no stance has been invented.\n"
    )


def _cell(text: str) -> str:
    """A model's (or the call's) text as one table cell that renders as itself: one line,
    escaped like the report's company and ticker (no links, HTML, emphasis or pipes)."""
    return markdown_text(" ".join(text.split()))
