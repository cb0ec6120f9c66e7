from __future__ import annotations

import pytest
from pydantic import ValidationError

from core.contract import Horizon, Position, Recommendation, Report, check_three_horizons
from core.llm.fake import block
from core.recommendations import (
    RecommendationBlock,
    integrity_check,
    render_recommendations,
    to_recommendations,
)


def recs(
    positions: tuple[str, str, str] = ("LONG", "LONG", "LONG"),
    convictions: tuple[int, int, int] = (75, 75, 75),
) -> list[Recommendation]:
    return to_recommendations(RecommendationBlock.model_validate(block(positions, convictions)))


def test_block_to_three_ordered_horizons() -> None:
    r = recs(("LONG", "SHORT", "NEUTRAL"), (70, 75, 80))
    assert [x.horizon for x in r] == [Horizon.DAY, Horizon.WEEK, Horizon.MONTH]
    assert [x.position for x in r] == [Position.LONG, Position.SHORT, Position.NEUTRAL]


@pytest.mark.parametrize("conviction", [-1, 101, 900])
def test_conviction_out_of_range_rejected(conviction: int) -> None:
    with pytest.raises((ValueError, ValidationError)):
        recs(convictions=(75, conviction, 75))


def test_empty_rationale_rejected() -> None:
    data = block()
    data["one_day"]["rationale"] = "   "
    with pytest.raises((ValueError, ValidationError)):
        to_recommendations(
            RecommendationBlock.model_construct(
                **{
                    k: RecommendationBlock.model_fields[k].annotation.model_construct(**v)  # type: ignore[union-attr]
                    for k, v in data.items()
                }
            )
        )


def test_schema_enforces_bounds_for_grammar_decoding() -> None:
    schema = RecommendationBlock.model_json_schema()["$defs"]["HorizonCall"]["properties"]
    assert schema["conviction"]["enum"] == list(range(101))
    assert schema["position"]["enum"] == ["LONG", "SHORT", "NEUTRAL"]


def test_three_horizons_exactly() -> None:
    r = recs()
    with pytest.raises(ValueError):
        check_three_horizons(r[:2])
    with pytest.raises(ValueError):
        check_three_horizons([r[0], r[0], r[1]])


def test_integrity_identical_is_kept() -> None:
    d = integrity_check(recs(), recs(), max_conviction_shift=10)
    assert not d.reverted and d.reasons == []


def test_integrity_each_reason() -> None:
    d = integrity_check(
        recs(), recs(("LONG", "SHORT", "LONG"), (75, 75, 60)), max_conviction_shift=10
    )
    assert d.reverted
    assert d.reasons == [
        "1w: position changed LONG -> SHORT",
        "1m: conviction moved 15 points (75% -> 60%, limit 10)",
    ]
    missing = integrity_check(recs(), recs()[:2], max_conviction_shift=10)
    assert missing.reasons == ["1m: horizon missing after the debate"]
    none = integrity_check(recs(), None, max_conviction_shift=10)
    assert none.reverted and "missing" in none.reasons[0]


def test_integrity_threshold_boundary() -> None:
    assert not integrity_check(
        recs(), recs(convictions=(85, 65, 75)), max_conviction_shift=10
    ).reverted
    assert integrity_check(recs(), recs(convictions=(86, 75, 75)), max_conviction_shift=10).reverted


def test_render_table() -> None:
    md = render_recommendations(recs(("LONG", "SHORT", "NEUTRAL"), (70, 75, 80)))
    assert md.startswith("## Recommendations")
    assert "| 1 day | LONG | 70% |" in md and "| 1 month | NEUTRAL | 80% |" in md


def test_report_refuses_invented_or_missing_stances() -> None:
    base = dict(
        pipeline="x", created_at="2026-01-01T00:00:00Z", transcript_sha256="0", markdown="m"
    )
    with pytest.raises(ValidationError, match="three recommendations"):
        Report(status="succeeded", **base)  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match="which node failed"):
        Report(status="degraded", **base)  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        Report(status="succeeded", recommendations=recs()[:2], **base)  # type: ignore[arg-type]
