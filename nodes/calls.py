"""The one way a node asks a model: pick the role's model, render the prompt sized to that
model's context window, call it (for text, or for a validated structure). Usage, retries and
any cut made to fit land in the running node's trace (nodes.tracing.traced); the model's name
comes back for the node's output."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any, TypeVar

from pydantic import BaseModel

from core.context import RunContext
from core.cpu import offload
from core.llm.chat import ChatHandle, Structured, complete, complete_structured, record_cut
from core.llm.window import ContextError, Cut, Fit, Window
from core.profiles import for_profile, sampling
from prompts import Layout, Prompt, render

S = TypeVar("S", bound=BaseModel)


def _for_run(ctx: RunContext, role: str, template: str) -> ChatHandle:
    """`role`'s model, with its paper's sampling under the `paper` profile."""
    handle = ctx.models.chat(role)
    stated = sampling(ctx.options.profile, template)
    if stated is None:
        return handle
    given = {"temperature": stated.temperature, "top_p": stated.top_p,
             "frequency_penalty": stated.frequency_penalty}  # fmt: skip
    update = {k: v for k, v in given.items()
              if v is not None and k in type(handle.model).model_fields}  # fmt: skip
    return replace(handle, model=handle.model.model_copy(update=update)) if update else handle


async def say(ctx: RunContext, role: str, template: str, **variables: Any) -> tuple[str, str]:
    """`role`'s answer to the prompt `template` filled with `variables`: (text, model name).
    `Fit` variables are sent whole when the model's window allows, else cut by relevance.
    Under the `paper` profile, the role reads only what its paper gives it (core.profiles), in
    its paper's layout and sampling."""
    handle = _for_run(ctx, role, template)
    profile = ctx.options.profile
    variables = for_profile(profile, template, variables)
    prompt = await offload(fitted, handle, template, variables, layout=profile)
    text = await complete(handle, prompt.messages(), role=role)
    return text, handle.name


async def ask(
    ctx: RunContext, role: str, schema: type[S], template: str, **variables: Any
) -> tuple[Structured[S], str]:
    """`role`'s model fills `schema` (validated, retried within the run's parse budget): the
    outcome (a failure is returned, never defaulted) and the model's name."""
    handle = _for_run(ctx, role, template)
    profile = ctx.options.profile
    variables = for_profile(profile, template, variables)
    tools = json.dumps(schema.model_json_schema())
    prompt = await offload(fitted, handle, template, variables, tools=tools, layout=profile)
    result = await complete_structured(
        handle,
        schema,
        prompt.messages(),
        validate=lambda value: value,
        retries=ctx.options.parse_retries,
    )
    return result, handle.name


def fitted(
    handle: ChatHandle,
    template: str,
    variables: dict[str, Any],
    *,
    tools: str = "",
    layout: Layout = "desk",
) -> Prompt:
    """Render `template` so it fits `handle`'s window (CPU-bound on a long call: the async
    callers run it in a worker thread): each `Fit` variable whole when the whole
    prompt fits, else cut by relevance to its share of the room left by the rest of the prompt
    (shares in proportion to their size). Every cut is recorded with the share kept."""
    fits = {k: v for k, v in variables.items() if isinstance(v, Fit)}
    if not fits:
        return render(template, layout, **variables)
    texts: dict[str, str] = {}
    for key, fit in fits.items():
        texts[key], cap = fit.capped()
        if cap is not None:
            record_cut(cap)
    whole = render(template, layout, **{**variables, **texts})
    window = handle.window
    if window is None:
        return whole
    room = window.prompt_room - (window.counter.count(tools) if tools else 0)
    if _size(whole, window) <= room:
        return whole
    empty = render(template, layout, **{**variables, **dict.fromkeys(fits, "")})
    fixed = _size(empty, window)
    if fixed >= room:
        raise ContextError(
            f"{template}: the prompt without its {', '.join(f.label for f in fits.values())} "
            f"is {fixed:,} tokens; {handle.name}'s {window.tokens:,}-token window keeps "
            f"{room:,} for prompts after the answer's {window.answer:,}"
        )
    sizes = {k: max(1, window.counter.count(t)) for k, t in texts.items()}
    total = sum(sizes.values())
    spare = room - fixed
    for _ in range(4):  # the pieces' counts can fall short of the joined text's: re-measure
        kept: dict[str, float] = {}
        for key, fit in fits.items():
            share = spare * sizes[key] // total
            texts[key], kept[key] = _cut(fit, texts[key], share, window)
        prompt = render(template, layout, **{**variables, **texts})
        over = _size(prompt, window) - room
        if over <= 0:
            break
        spare -= over + 8
    else:
        raise ContextError(f"{template}: could not fit {handle.name}'s window")
    for key, fit in fits.items():
        if kept[key] < 1.0:
            limit = f"{handle.name}'s {window.tokens:,}-token context window"
            record_cut(Cut(fit.label, kept[key], sizes[key], "tokens", limit))
    return prompt


def _cut(fit: Fit, text: str, tokens: int, window: Window) -> tuple[str, float]:
    if window.counter.count(text) <= tokens:
        return text, 1.0
    return fit.within(tokens, window.counter)


def _size(prompt: Prompt, window: Window) -> int:
    return window.counter.count(prompt.system) + window.counter.count(prompt.user)
