"""Fault injection: a chat-model wrapper that fails the way real model servers do, at the nodes
a plan names, so tests (and `EDESK_FAULTS` with the fake provider) prove each failure is retried
within its budget and, past it, ends the run `failed` or `degraded` naming node and reason.

Faults, per call made at a node, in order (calls after the list pass through):
  timeout          the request timed out (openai.APITimeoutError)
  429, 500, 503    the server answered that HTTP status (openai.RateLimitError / APIStatusError)
  empty            an empty answer
  garbage          text that is no answer at all (and no tool call when one is asked for)
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

import httpx2 as httpx  # what the openai client (3.x) is built on
import openai
from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import ConfigDict, SkipValidation

Fault = Literal["timeout", "429", "500", "503", "empty", "garbage"]
FAULTS: tuple[str, ...] = get_args(Fault)
GARBAGE = "}}{{ ⁂ <|endoftext|> ]]] null null null"


def http_error(fault: str) -> Exception:
    request = httpx.Request("POST", "http://model.invalid/v1/chat/completions")
    if fault == "timeout":
        return openai.APITimeoutError(request=request)
    status = int(fault)
    response = httpx.Response(status, request=request, json={"error": {"message": fault}})
    if status == 429:
        return openai.RateLimitError("rate limited (injected)", response=response, body=None)
    return openai.InternalServerError(f"HTTP {status} (injected)", response=response, body=None)


@dataclass
class FaultPlan:
    """node -> faults for its successive model calls; `injected` records (node, fault)."""

    at: dict[str, list[str]]
    injected: list[tuple[str, str]] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __post_init__(self) -> None:
        for node, faults in self.at.items():
            bad = [f for f in faults if f not in FAULTS]
            if bad:
                raise ValueError(f"unknown fault(s) {bad} at {node!r}; known: {', '.join(FAULTS)}")
        self.at = {node: list(faults) for node, faults in self.at.items()}

    @classmethod
    def of(cls, plan: Mapping[str, Sequence[str]]) -> FaultPlan:
        return cls({k: list(v) for k, v in plan.items()})

    def take(self, node: str | None) -> str | None:
        with self._lock:
            queue = self.at.get(node or "")
            if not queue:
                return None
            fault = queue.pop(0)
            self.injected.append((node or "", fault))
            return fault


def _node(run_manager: Any) -> str | None:
    meta = getattr(run_manager, "metadata", None) or {}
    node = meta.get("langgraph_node")
    if node is None:
        try:
            from langgraph.config import get_config

            node = get_config().get("metadata", {}).get("langgraph_node")
        except RuntimeError:  # not inside a graph
            return None
    return str(node) if node is not None else None


class FaultyChatModel(BaseChatModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    inner: Any  # the wrapped chat model (or its tool-bound form)
    plan: SkipValidation[FaultPlan]
    disable_streaming: bool | Literal["tool_calling"] = True

    @property
    def _llm_type(self) -> str:
        return "faulty"

    def bind_tools(self, tools: Sequence[Any], *, tool_choice: Any = None, **kwargs: Any) -> Any:
        return self.model_copy(
            update={"inner": self.inner.bind_tools(tools, tool_choice=tool_choice, **kwargs)}
        )

    def _fault_message(self, fault: str) -> AIMessage:
        if fault in ("empty", "garbage"):
            text = "" if fault == "empty" else GARBAGE
            return AIMessage(
                content=text,
                usage_metadata={"input_tokens": 0, "output_tokens": 0, "total_tokens": 0},
            )
        raise http_error(fault)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        fault = self.plan.take(_node(run_manager))
        msg = self._fault_message(fault) if fault else self.inner.invoke(messages)
        return ChatResult(generations=[ChatGeneration(message=msg)])

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        fault = self.plan.take(_node(run_manager))
        msg = self._fault_message(fault) if fault else await self.inner.ainvoke(messages)
        return ChatResult(generations=[ChatGeneration(message=msg)])
