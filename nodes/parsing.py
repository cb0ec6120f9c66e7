"""Write a report and parse its recommendation block with the extractor model (validated,
retried): what every report-writing node (synthesize, leader) does."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel

from core.context import RunContext
from core.contract import NodeFailure, Recommendation
from core.llm.chat import Structured, complete_structured
from core.recommendations import RecommendationBlock, to_recommendations
from core.roles import Role, roles
from core.state import Draft
from nodes.calls import say
from prompts import render

ROLES = roles(
    # local: the bounded block's worst case (3 x (300 + 3 x 120) chars, ~550 tokens) always
    # fits, so grammar-constrained output is never cut off mid-JSON
    Role("extractor", remote=1000, local=768),
)


EXTRACTOR_ROLE = "extractor"
S = TypeVar("S", bound=BaseModel)


def unparseable(node: str, what: str, result: Structured[Any]) -> NodeFailure:
    """The failure a node records when a structured answer never validated (no default)."""
    return NodeFailure(
        node=node,
        reason=f"{what} unparseable after {result.attempts} attempts: {result.error}",
        raw_output=result.raw_output,
    )


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
    ctx: RunContext, role: str, author: str, template: str, **variables: Any
) -> tuple[Draft, Structured[list[Recommendation]]]:
    """One report from `role`'s model (the prompt `template` filled with `variables`, sized to
    its window like `nodes.calls.say`), with its recommendations parsed (or the failure)."""
    markdown, model = await say(ctx, role, template, **variables)
    parsed = await parse_recommendations(ctx, markdown)
    draft = Draft(
        author=author,
        model=model,
        markdown=markdown,
        recommendations=parsed.value,
        parse_error=parsed.error,
    )
    return draft, parsed
