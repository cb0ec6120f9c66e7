"""Parse a report's recommendation block with the extractor model (validated, retried)."""

from __future__ import annotations

from core.context import RunContext
from core.contract import Recommendation
from core.llm import Structured, complete_structured
from core.recommendations import RecommendationBlock, to_recommendations
from prompts import render

EXTRACTOR_ROLE = "extractor"


async def parse_recommendations(
    ctx: RunContext, report_markdown: str
) -> Structured[list[Recommendation]]:
    """Read the 1d/1w/1m calls the report states; a failure is returned, never defaulted."""
    prompt = render("shared/extract_recommendations", report=report_markdown)
    return await complete_structured(
        ctx.models.chat(EXTRACTOR_ROLE),
        RecommendationBlock,
        prompt.messages(),
        validate=to_recommendations,
        retries=ctx.options.parse_retries,
    )
