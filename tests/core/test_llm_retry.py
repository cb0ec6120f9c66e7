"""core.llm.chat retries what a model server does transiently (timeout, 429, 5xx), honours
Retry-After, and never retries a bug."""

from __future__ import annotations

import time

import pytest
from langchain_core.messages import HumanMessage

from core.llm.chat import ChatHandle, ModelCallError, complete, transient
from core.llm.fake import Script, ScriptedChatModel
from core.llm.faults import http_error


async def test_non_transient_errors_are_not_retried() -> None:
    script = Script.of(ValueError("a bug"), default="fine")
    handle = ChatHandle(ScriptedChatModel(script=script), "fake", retries=3, backoff=0.0)
    with pytest.raises(ValueError, match="a bug"):
        await complete(handle, [HumanMessage("hi")], role="r")
    assert len(script.calls) == 1


async def test_retry_after_is_honoured_and_the_reason_named() -> None:
    err = http_error("429")
    err.response.headers["retry-after"] = "0.3"  # type: ignore[attr-defined]
    assert transient(err) == ("rate_limited", 0.3)
    script = Script.of(err, http_error("500"), http_error("timeout"), default="late")
    handle = ChatHandle(ScriptedChatModel(script=script), "fake", retries=2, backoff=0.0)
    t0 = time.monotonic()
    with pytest.raises(ModelCallError, match="timeout after 3 attempt") as info:
        await complete(handle, [HumanMessage("hi")], role="r")
    assert time.monotonic() - t0 >= 0.3 and info.value.reason == "timeout"
