"""Write a report and parse its recommendation block with the extractor model (validated,
retried): what every report-writing node (synthesize, leader) does."""

from __future__ import annotations

from core.context import RunContext
from core.contract import Recommendation
from core.llm import Structured, complete, complete_structured
from core.recommendations import RecommendationBlock, to_recommendations
from core.state import Draft
from prompts import Prompt, render

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


async def write_draft(
    ctx: RunContext, role: str, author: str, prompt: Prompt
) -> tuple[Draft, Structured[list[Recommendation]]]:
    """One report from `role`'s model, with its recommendations parsed (or the parse failure)."""
    handle = ctx.models.chat(role)
    markdown = await complete(handle, prompt.messages(), role=role)
    parsed = await parse_recommendations(ctx, markdown)
    draft = Draft(
        author=author,
        model=handle.name,
        markdown=markdown,
        recommendations=parsed.value,
        parse_error=parsed.error,
    )
    return draft, parsed
