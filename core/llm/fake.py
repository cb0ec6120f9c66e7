"""Scripted fake chat models for tests, benchmarks and the `fake` provider.

A `Script` is a queue of responses shared by a fake and its tool-bound copies, and it records
every prompt received, so tests check what a node sent as well as what it got back. A response is
text (str), a tool call's arguments (dict, needs a bound tool), an exception to raise, or a
callable `(messages, tool_name) -> one of those`.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import re
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.messages.tool import tool_call_chunk
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import ConfigDict, Field

from core.llm.chat import ChatHandle, ModelSource
from core.llm.window import Window

Response = str | dict[str, Any] | BaseException | Callable[[list[BaseMessage], str | None], Any]
_ids = itertools.count(1)


@dataclass
class Call:
    messages: list[BaseMessage]
    tool: str | None

    @property
    def text(self) -> str:
        return "\n".join(str(m.content) for m in self.messages)


@dataclass
class Script:
    responses: deque[Response] = field(default_factory=deque, repr=False)
    default: Response | None = field(default=None, repr=False)
    calls: list[Call] = field(default_factory=list, repr=False)
    record: bool = True  # a long-lived server's fake (provider "fake") keeps no prompts
    served: int = 0

    @classmethod
    def of(
        cls, *responses: Response, default: Response | None = None, record: bool = True
    ) -> Script:
        return cls(deque(responses), default, record=record)

    def next(self, messages: list[BaseMessage], tool: str | None) -> Any:
        self.served += 1
        if self.record:
            self.calls.append(Call(list(messages), tool))
        if self.responses:
            item = self.responses.popleft()
        elif self.default is not None:
            item = self.default
        else:
            raise AssertionError(f"fake model script exhausted (call {self.served}, tool={tool})")
        if callable(item) and not isinstance(item, BaseException):
            item = item(list(messages), tool)
        if isinstance(item, BaseException):
            raise item
        return item


def _words(messages: Sequence[BaseMessage]) -> int:
    return sum(len(str(m.content).split()) for m in messages)


class ScriptedChatModel(BaseChatModel):
    """A chat model that answers from a Script; supports bind_tools / with_structured_output.
    Streaming is off unless built with `disable_streaming=False` (the `fake` provider of a
    server): then, when a caller streams (LangGraph's messages mode), text arrives word by word
    over the call's latency, as a real model's would."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    script: Script = Field(repr=False)  # LangChain serializes an unserializable model by repr
    latency: float = 0.0
    tool_name: str | None = None
    disable_streaming: bool | Literal["tool_calling"] = True

    @property
    def _llm_type(self) -> str:
        return "scripted-fake"

    def bind_tools(self, tools: Sequence[Any], *, tool_choice: Any = None, **kwargs: Any) -> Any:
        names = [convert_to_openai_tool(t)["function"]["name"] for t in tools]
        return self.model_copy(update={"tool_name": names[0] if names else None})

    def _message(self, messages: list[BaseMessage]) -> AIMessage:
        item = self.script.next(messages, self.tool_name)
        usage = {"input_tokens": _words(messages), "output_tokens": 0, "total_tokens": 0}
        if isinstance(item, dict):
            if self.tool_name is None:
                raise AssertionError("scripted a tool call but no tool is bound")
            msg = AIMessage(
                content="",
                tool_calls=[{"name": self.tool_name, "args": item, "id": f"call_{next(_ids)}"}],
            )
            usage["output_tokens"] = len(str(item).split())
        else:
            msg = AIMessage(content=str(item))
            usage["output_tokens"] = len(str(item).split())
        usage["total_tokens"] = usage["input_tokens"] + usage["output_tokens"]
        msg.usage_metadata = usage  # type: ignore[assignment]
        return msg

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        if self.latency:
            time.sleep(self.latency)
        return ChatResult(generations=[ChatGeneration(message=self._message(messages))])

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        if self.latency:
            await asyncio.sleep(self.latency)
        return ChatResult(generations=[ChatGeneration(message=self._message(messages))])

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        msg = self._message(messages)
        usage = msg.usage_metadata
        if msg.tool_calls:
            if self.latency:
                await asyncio.sleep(self.latency)
            calls = [
                tool_call_chunk(name=c["name"], args=json.dumps(c["args"]), id=c["id"], index=i)
                for i, c in enumerate(msg.tool_calls)
            ]
            chunk = AIMessageChunk(content="", tool_call_chunks=calls, usage_metadata=usage)
            yield ChatGenerationChunk(message=chunk)
            return
        pieces = re.findall(r"\s*\S+", str(msg.content)) or [str(msg.content)]
        for i, piece in enumerate(pieces):
            if self.latency:
                await asyncio.sleep(self.latency / len(pieces))
            last = i == len(pieces) - 1
            yield ChatGenerationChunk(
                message=AIMessageChunk(content=piece, usage_metadata=usage if last else None)
            )


class FakeModels(ModelSource):
    """A ModelSource of scripted fakes: one Script per role, a shared default for the rest."""

    def __init__(
        self,
        scripts: dict[str, Script] | None = None,
        *,
        default: Script | None = None,
        latency: float = 0.0,
        stream: bool = False,
        window: Window | None = None,
    ) -> None:
        self.scripts = dict(scripts or {})
        self.window = window  # the context every fake declares (None: prompts are never cut)
        self.default = default
        self.latency = latency
        self.stream = stream
        self._handles: dict[str, ChatHandle] = {}

    def script(self, role: str) -> Script:
        if role in self.scripts:
            return self.scripts[role]
        if self.default is None:
            raise AssertionError(f"no fake script for role {role!r}")
        return self.default

    def chat(self, role: str) -> ChatHandle:
        """One handle per role, as the real model factory keeps them."""
        if role not in self._handles:
            model = ScriptedChatModel(
                script=self.script(role), latency=self.latency, disable_streaming=not self.stream
            )
            self._handles[role] = ChatHandle(model=model, name=f"fake:{role}", window=self.window)
        return self._handles[role]


def block(
    positions: Iterable[str] = ("LONG", "LONG", "LONG"), convictions: Iterable[int] = (75, 75, 75)
) -> dict[str, Any]:
    """Arguments of a valid RecommendationBlock tool call."""
    keys = ("one_day", "one_week", "one_month")
    return {
        k: {
            "position": p,
            "conviction": c,
            "rationale": f"{p.title()} because the quarter's results support it.",
            "catalysts": ["guidance raise"],
        }
        for k, p, c in zip(keys, positions, convictions, strict=True)
    }


CANNED_TOOLS: dict[str, dict[str, Any]] = {
    "Challenges": {
        "challenges_to_bull": ["Is the margin gain repeatable without the one-off?"],
        "challenges_to_bear": ["Why discount the raised full-year guidance?"],
    },
    "RebuttalAssessment": {
        "bull_convincing": False,
        "bull_follow_up": "What happens to margins if the one-off does not recur?",
        "bear_convincing": True,
        "bear_follow_up": "Would a guidance cut change your view?",
    },
    "Verdict": {"winner": "Bull", "justification": "The Bull tied its case to the guidance raise."},
    "E2IGrade": {
        "clarity": 5,
        "logic": 5,
        "persuasiveness": 4,
        "readability": 6,
        "usefulness": 5,
    },  # fmt: skip
    "FinDebateGrade": {
        "readability": 3,
        "linguistic_abstractness": 2,
        "coherence": 3,
        "key_point_coverage": 3,
        "background_context": 2,
        "management_sentiment": 3,
        "future_outlook": 2,
        "factual_accuracy": 3,
    },
    "Preference": {"winner": "A", "reason": "Canned preference from the fake model."},
    "ReportGrade": {
        "content_accuracy": 4,
        "analytical_depth": 3,
        "investment_recommendation": 4,
        "structure_clarity": 4,
        "comprehensive_coverage": 3,
        "comment": "Canned grade from the fake model.",
    },
}


def canned(messages: list[BaseMessage], tool: str | None) -> Any:
    """A plausible answer to any prompt: a short report for text, valid arguments for tools."""
    if tool:
        return CANNED_TOOLS.get(tool) or block()
    return (
        "## Summary\nRevenue rose 10.7% to $1.54 billion and guidance was raised.\n\n"
        "## Multi-Timeframe Investment Strategy\n"
        "### 1-Day Trading Recommendation\nPosition: LONG\nConviction: 75%\n"
        "### 1-Week Momentum Strategy\nPosition: LONG\nConviction: 75%\n"
        "### 1-Month Fundamental Position\nPosition: LONG\nConviction: 75%\n"
    )
