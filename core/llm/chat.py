"""How nodes talk to models: one handle per role, usage recorded into the running node's trace,
structured output with validation and a bounded parse-and-retry loop (failures returned, never
defaulted)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import weakref
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from pydantic import BaseModel, ValidationError

from core.llm.cache import is_cache_hit
from core.llm.decoding import current_grammar
from core.llm.window import Cut, Window


@dataclass(frozen=True)
class ChatHandle:
    """A chat model for one role, with its display name and its provider's concurrency limit."""

    model: BaseChatModel
    name: str
    limiter: asyncio.Semaphore | None = None
    retries: int = 0  # transient failures (timeout, HTTP 429/5xx, connection) retried this often
    backoff: float = 0.5  # seconds before the first retry, doubling (or the server's Retry-After)
    window: Window | None = None  # the model's context window; None: prompts are never cut
    grammar: bool = False  # takes a GBNF `grammar` (llama.cpp): free text is grounded-decoded


class ModelSource(Protocol):
    """What nodes need from the model factory: a chat model per role."""

    def chat(self, role: str) -> ChatHandle: ...


class ModelOutputError(RuntimeError):
    """A model answered, but with nothing usable (e.g. empty text) after the retry budget."""

    reason = "empty_output"

    def __init__(self, role: str, message: str) -> None:
        super().__init__(f"{role}: {message}")
        self.role = role


class ModelCallError(RuntimeError):
    """The model did not answer (timeout, HTTP 429/5xx, connection) within the retry budget.
    `reason` is the run's failure reason: timeout | rate_limited | server_error | connection."""

    def __init__(self, model: str, reason: str, attempts: int, last: BaseException) -> None:
        super().__init__(
            f"model {model}: {reason} after {attempts} attempt(s): {type(last).__name__}: {last}"
        )
        self.reason = reason


def transient(exc: BaseException) -> tuple[str, float | None] | None:
    """(reason, server's Retry-After seconds) for a failure worth retrying; None otherwise."""
    import openai

    if isinstance(exc, openai.APITimeoutError | TimeoutError):
        return "timeout", None
    if isinstance(exc, openai.APIStatusError) and (
        exc.status_code == 429 or exc.status_code >= 500
    ):
        after: float | None = None
        with contextlib.suppress(ValueError):
            after = float(exc.response.headers.get("retry-after", ""))
        return ("rate_limited" if exc.status_code == 429 else "server_error"), after
    if isinstance(exc, openai.APIConnectionError):
        return "connection", None
    return None


@dataclass
class CallStats:
    """Usage of the model calls made while one node runs (collected through a context var)."""

    models: list[str] = field(default_factory=list)
    calls: int = 0  # answered by a model
    cached_calls: int = 0  # answered from the LLM cache (no model call)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    retries: int = 0
    usage: dict[str, tuple[int, int]] = field(default_factory=dict)
    cuts: list[Cut] = field(default_factory=list)  # prompt parts cut to fit a window

    def record(self, model: str, message: BaseMessage | None) -> None:
        if is_cache_hit(message):
            self.cached_calls += 1
        else:
            self.calls += 1
        if model not in self.models:
            self.models.append(model)
        usage = getattr(message, "usage_metadata", None) if message is not None else None
        if usage:
            prompt, completion = (
                int(usage.get("input_tokens", 0)),
                int(usage.get("output_tokens", 0)),
            )
            self.prompt_tokens += prompt
            self.completion_tokens += completion
            p0, c0 = self.usage.get(model, (0, 0))
            self.usage[model] = (p0 + prompt, c0 + completion)


current_stats: ContextVar[CallStats | None] = ContextVar("edesk_call_stats", default=None)


def record_cut(cut: Cut) -> None:
    """Note in the running node's trace that a prompt part was cut to fit (once per kind)."""
    stats = _stats()
    same = [c for c in stats.cuts if (c.label, c.limit) == (cut.label, cut.limit)]
    if not same:
        stats.cuts.append(cut)
    elif cut.kept < same[0].kept:  # a node's several calls: report the deepest cut
        stats.cuts[stats.cuts.index(same[0])] = cut


def _stats() -> CallStats:
    stats = current_stats.get()
    if stats is None:  # called outside a traced node (e.g. a unit test): count into a throwaway
        stats = CallStats()
        current_stats.set(stats)
    return stats


async def _invoke(handle: ChatHandle, runnable: Any, messages: Sequence[BaseMessage]) -> Any:
    """One model call; transient failures retried `handle.retries` times with backoff, then
    raised as ModelCallError naming the reason."""
    for attempt in range(handle.retries + 1):
        try:
            if handle.limiter is None:
                return await runnable.ainvoke(list(messages))
            async with handle.limiter:
                return await runnable.ainvoke(list(messages))
        except Exception as exc:
            kind = transient(exc)
            if kind is None:
                raise
            if attempt == handle.retries:
                raise ModelCallError(handle.name, kind[0], attempt + 1, exc) from exc
            _stats().retries += 1
            delay = kind[1] if kind[1] is not None else handle.backoff * 2**attempt
            await asyncio.sleep(min(delay, 60.0))
    raise AssertionError("unreachable")


async def complete(
    handle: ChatHandle, messages: Sequence[BaseMessage], *, role: str, retries: int = 1
) -> str:
    """Free-text completion; an empty answer is retried, then raised as ModelOutputError.
    Inside a node, a model that takes a grammar writes only the call's own figures
    (core.llm.decoding)."""
    stats = _stats()
    model: Any = handle.model
    grammar = current_grammar() if handle.grammar else None
    if grammar is not None:  # merged into the request's extra body (the answer's max_tokens)
        model = model.bind(
            extra_body={**(getattr(model, "extra_body", None) or {}), "grammar": grammar}
        )
    for attempt in range(retries + 1):
        message: AIMessage = await _invoke(handle, model, messages)
        stats.record(handle.name, message)
        text = message.text.strip() if isinstance(message, AIMessage) else str(message).strip()
        if text:
            return text
        if attempt < retries:
            stats.retries += 1
    raise ModelOutputError(role, f"model {handle.name} returned empty text {retries + 1} times")


S = TypeVar("S", bound=BaseModel)
R = TypeVar("R")


@dataclass(frozen=True)
class Structured(Generic[R]):
    """Outcome of a structured call: the validated value, or why every attempt failed."""

    value: R | None
    attempts: int
    error: str | None = None
    raw_output: str | None = None

    @property
    def ok(self) -> bool:
        return self.value is not None


def _raw_text(raw: Any) -> str:
    if not isinstance(raw, AIMessage):
        return str(raw)
    parts: list[str] = []
    if raw.text:
        parts.append(raw.text)
    for call in raw.tool_calls:
        parts.append(json.dumps(call.get("args", {}), ensure_ascii=False))
    for bad in raw.invalid_tool_calls:
        parts.append(str(bad.get("args", "")))
    return "\n".join(parts) if parts else "(empty output)"


_STRUCTURED: dict[int, dict[type[Any], Any]] = {}  # id(model) -> schema -> bound runnable


def _structured(model: Any, schema: type[Any]) -> Any:
    """`model` asking for `schema` by function calling, built once per model and schema: the
    schema's JSON (pydantic's generation, LangChain's conversion) is the same every call, and
    the bound runnable keeps nothing between calls. (Models are not hashable: kept by id, the
    entry dropped when the model is.)"""
    per_model = _STRUCTURED.get(id(model))
    if per_model is None:
        try:
            weakref.finalize(model, _STRUCTURED.pop, id(model), None)
        except TypeError:  # a model that cannot be weakly referenced: built each time
            return model.with_structured_output(schema, method="function_calling", include_raw=True)
        per_model = _STRUCTURED[id(model)] = {}
    if schema not in per_model:
        per_model[schema] = model.with_structured_output(
            schema, method="function_calling", include_raw=True
        )
    return per_model[schema]


async def complete_structured(
    handle: ChatHandle,
    schema: type[S],
    messages: Sequence[BaseMessage],
    *,
    validate: Callable[[S], R],
    retries: int,
) -> Structured[R]:
    """Ask for `schema` through function calling; validate; on failure retry with the error.

    `validate` turns the parsed schema into the value the caller needs and raises ValueError
    (or ValidationError) when it is not acceptable (e.g. a conviction of 900%).
    """
    stats = _stats()
    bound = _structured(handle.model, schema)
    convo = list(messages)
    error: str | None = None
    raw_text: str | None = None
    for attempt in range(retries + 1):
        if attempt:
            stats.retries += 1
        out = await _invoke(handle, bound, convo)
        raw = out.get("raw")
        stats.record(handle.name, raw)
        raw_text = _raw_text(raw)
        parsed = out.get("parsed")
        if out.get("parsing_error") is not None:
            error = f"could not parse the tool call: {out['parsing_error']}"
        elif parsed is None:
            error = f"no call to the {schema.__name__} tool in the answer"
        else:
            try:
                return Structured(validate(parsed), attempts=attempt + 1, raw_output=raw_text)
            except (ValueError, ValidationError) as exc:
                error = f"invalid values: {exc}"
        convo = [
            *messages,
            HumanMessage(
                content=(
                    f"Your previous answer was rejected ({error}). Previous answer:\n{raw_text}\n\n"
                    f"Call the {schema.__name__} tool again with every field filled correctly."
                )
            ),
        ]
    return Structured(None, attempts=retries + 1, error=error, raw_output=raw_text)
