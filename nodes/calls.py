"""The one way a node asks a model: pick the role's model, render the prompt, call it (for text,
or for a validated structure). Usage and retries land in the running node's trace
(nodes.tracing.traced); the model's name comes back for the node's output."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel

from core.context import RunContext
from core.llm import Structured, complete, complete_structured
from prompts import render

S = TypeVar("S", bound=BaseModel)


async def say(ctx: RunContext, role: str, template: str, **variables: Any) -> tuple[str, str]:
    """`role`'s answer to the prompt `template` filled with `variables`: (text, model name)."""
    handle = ctx.models.chat(role)
    text = await complete(handle, render(template, **variables).messages(), role=role)
    return text, handle.name


async def ask(
    ctx: RunContext, role: str, schema: type[S], template: str, **variables: Any
) -> tuple[Structured[S], str]:
    """`role`'s model fills `schema` (validated, retried within the run's parse budget): the
    outcome (a failure is returned, never defaulted) and the model's name."""
    handle = ctx.models.chat(role)
    result = await complete_structured(
        handle,
        schema,
        render(template, **variables).messages(),
        validate=lambda value: value,
        retries=ctx.options.parse_retries,
    )
    return result, handle.name
