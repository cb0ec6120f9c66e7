"""The engine: settings -> local model server, model factory, transcript index, checkpointer and
every pipeline compiled once. `run(request)` executes one pipeline and reports progress as
events."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field, replace
from typing import Any, Final

from langchain_core.embeddings import Embeddings
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import StreamMode
from pydantic import BaseModel

from app.llm.factory import ConfigError, LazyEmbeddings, ModelFactory
from app.llm.local import BUNDLED_NOTE, LocalLlamaServer, bundled_model_path
from app.service.events import RunError, RunFinished, RunStarted, map_chunk
from app.service.requests import RunRequest
from app.settings import Settings
from app.storage.checkpoints import checkpointer
from app.storage.errors import is_infra_error
from core.context import RunContext, RunControl, RunStopped
from core.contract import CallInfo, NodeTrace, Report
from core.facts.tone import load_lexicon
from core.llm.chat import ChatHandle, ModelSource
from core.logctx import run_id_var
from core.memory import CompanyMemory
from core.options import RunOptions
from core.rag import TranscriptIndex
from core.state import PipelineInput
from core.telemetry import tracer
from core.transcript import Transcript
from graphs import PIPELINES, get_pipeline, state_types

EventSink = Callable[[BaseModel], Awaitable[None] | None]
Emit = Callable[[BaseModel], Awaitable[None]]


@dataclass
class RunOutcome:
    run_id: str
    pipeline: str
    status: str
    report: Report | None = None
    error: str | None = None
    failed_node: str | None = None
    reason: str | None = None
    events: list[BaseModel] = field(default_factory=list)


def model_note(settings: Settings) -> str | None:
    if settings.provider == "fake":
        return "Written by a scripted fake model (testing only); the content is canned."
    if settings.uses_local() and settings.local_model_path is None:
        return BUNDLED_NOTE
    return None


class NoChatModels:
    """The model source of an engine opened for a pipeline that asks no chat model."""

    def chat(self, role: str) -> ChatHandle:
        raise ConfigError(
            f"role {role} asked for a chat model, but this engine was opened without chat models "
            "(for the facts pipeline)"
        )


class Engine:
    def __init__(
        self,
        settings: Settings,
        models: ModelSource,
        index: TranscriptIndex,
        graphs: dict[str, CompiledStateGraph[Any, Any, Any, Any]],
        checkpointer: BaseCheckpointSaver[Any],
        financial_index: TranscriptIndex | None = None,
    ) -> None:
        self.settings = settings
        self.checkpointer = checkpointer
        self.models = models
        self.index = index
        self.graphs = graphs
        self.context = RunContext(
            models=models,
            index=index,
            financial_index=financial_index,
            options=settings.run_defaults(),
            model_note=model_note(settings),
        )

    @classmethod
    @asynccontextmanager
    async def open(
        cls,
        settings: Settings,
        *,
        models: ModelSource | None = None,
        embeddings: Embeddings | None = None,
        embedding_name: str | None = None,
        chat_models: bool = True,
    ) -> AsyncIterator[Engine]:
        """Start what the settings need; stop it all on exit. `models`/`embeddings` replace the
        factory's (tests, benchmarks). `chat_models=False`: no chat model is started (the local
        model's server stays down), for a run of a pipeline that asks none (`facts`)."""
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        async with AsyncExitStack() as stack:
            await asyncio.to_thread(load_lexicon)  # the facts node's dictionary, once a process
            if models is None and not chat_models:
                models = NoChatModels()
            if models is None:
                local_url = None
                if settings.uses_local():
                    server = LocalLlamaServer(
                        settings.local_model_path or bundled_model_path(),
                        n_ctx=settings.local_n_ctx,
                        threads=settings.local_threads,
                        flash_attn=settings.local_flash_attn,
                        startup_timeout=settings.local_startup_timeout,
                        log_path=settings.data_dir / "llama-server.log",
                    )
                    await asyncio.to_thread(server.start)
                    stack.callback(server.stop)
                    local_url = server.base_url
                models = ModelFactory(settings, local_base_url=local_url)
            if embeddings is None:
                lazy = LazyEmbeddings(settings)
                embeddings, embedding_name = lazy, lazy.name
            name = embedding_name or type(embeddings).__name__
            if settings.chroma_url:
                index = await asyncio.to_thread(
                    TranscriptIndex.remote, settings.chroma_url, embeddings, name
                )
            else:
                index = await asyncio.to_thread(
                    TranscriptIndex.on_disk, settings.chroma_path, embeddings, name
                )
            financial = None
            if settings.financial_embeddings:  # its own index (and folder on disk)
                fin = LazyEmbeddings(
                    settings.model_copy(update={"embeddings": settings.financial_embeddings})
                )
                if settings.chroma_url:
                    financial = await asyncio.to_thread(
                        TranscriptIndex.remote, settings.chroma_url, fin, fin.name
                    )
                else:
                    folder = settings.chroma_path.with_name(f"{settings.chroma_path.name}-fin")
                    financial = await asyncio.to_thread(
                        TranscriptIndex.on_disk, folder, fin, fin.name
                    )
            builders = {name: spec.build() for name, spec in PIPELINES.items()}
            allowed = state_types(builders.values())  # off the same builders, built once
            saver = await stack.enter_async_context(
                checkpointer(settings.database_url, settings.checkpoints_path, allowed)
            )
            graphs = {name: b.compile(checkpointer=saver) for name, b in builders.items()}
            yield cls(settings, models, index, graphs, saver, financial)

    def run_context(
        self,
        options: RunOptions,
        control: RunControl | None = None,
        memory: CompanyMemory | None = None,
    ) -> RunContext:
        """This run's context: the engine's models and index, the run's options (from which the
        context reads the run's token budget and word caps), its brakes and the company's
        stored calls it reads its track record from."""
        return replace(
            self.context, options=options, control=control or RunControl(), memory=memory
        )

    def request(
        self,
        pipeline: str,
        transcript: Transcript | None,
        call: CallInfo | None = None,
        options: RunOptions | None = None,
        **fields: Any,
    ) -> RunRequest:
        """A request on this engine: `options` as given (whole and resolved, never merged),
        else the engine's defaults (the `EDESK_` values). `fields`: RunRequest's others."""
        return RunRequest(
            pipeline,
            transcript,
            self.context.options if options is None else options,
            call or CallInfo(),
            **fields,
        )

    async def run(
        self,
        request: RunRequest,
        *,
        on_event: EventSink | None = None,
        control: RunControl | None = None,
    ) -> RunOutcome:
        """Run one pipeline to its end, or resume it from its checkpoint (`request.transcript`
        None). Failures and stops come back in the outcome, naming the node; nothing is raised.
        `control`: a handle to cancel the run from outside (the service's); the budget it is
        checked against is `request.options.token_budget`. See `RunRequest` for durability.
        A run that ended well (succeeded, degraded) or was cancelled is never resumed and its
        report holds what it made, so its checkpoints (a copy of its state) are deleted
        (`forget`) unless `request.keep_checkpoint` (the service reads the final state first).
        A failed run keeps its newest checkpoint (what was done is kept) until the run is
        deleted; an outage raised mid-run keeps it for the retry."""
        get_pipeline(request.pipeline)  # a clear KeyError for an unknown name
        run_id_var.set(request.run_id)  # this task's log lines name the run (JSON logs)
        outcome = RunOutcome(run_id=request.run_id, pipeline=request.pipeline, status="running")
        context = self.run_context(request.options, control, request.memory)
        await self._stream(request, context, outcome,
                           _emitter(outcome, on_event))  # fmt: skip
        if not request.keep_checkpoint:
            await self.settle(outcome)
        return outcome

    async def settle(self, outcome: RunOutcome) -> None:
        """A run has ended: unless it failed (its newest checkpoint is what was done), its
        checkpoints go."""
        if outcome.status != "failed":
            await self.forget(outcome.run_id)

    async def forget(self, run_id: str) -> None:
        """Delete a run's checkpoints (idempotent)."""
        await self.checkpointer.adelete_thread(run_id)

    async def _stream(
        self, request: RunRequest, context: RunContext, outcome: RunOutcome, emit: Emit
    ) -> None:
        """Stream the graph into `outcome` (events, status, report, the failed node)."""
        run_id, pipeline = request.run_id, request.pipeline
        graph = self.graphs[pipeline]
        config: RunnableConfig = {"configurable": {"thread_id": run_id}}
        state_in: PipelineInput | None = None
        finished: set[str] = set()  # tasks of the interrupted step that already wrote their result
        if request.transcript is not None:
            state_in = {
                "transcript": request.transcript, "call": request.call, "pipeline": pipeline,
                "financials": request.financials, "prices": request.prices,
            }  # fmt: skip
        else:
            context.control.tokens_used, finished = await _resume_point(graph, config, run_id)
        attrs: dict[str, str | bool] = {
            "edesk.pipeline": pipeline, "edesk.run_id": run_id, "edesk.resumed": request.resumed,
        }  # fmt: skip
        with tracer().start_as_current_span(f"run {pipeline}", attributes=attrs) as span:
            try:
                await emit(RunStarted(run_id=run_id, pipeline=pipeline, resumed=request.resumed))
                streaming = context.options.stream_tokens
                report_out: Report | None = None
                modes: list[StreamMode] = ["tasks", "messages"] if streaming else ["tasks"]
                try:
                    async for mode, chunk in graph.astream(
                        state_in, config, context=context, stream_mode=modes,
                        durability=request.durability,
                    ):  # fmt: skip
                        if _rerun_of(mode, chunk, finished):
                            continue  # finished before the interruption: not started again
                        written = _report_written(mode, chunk)
                        report_out = written if written is not None else report_out
                        for event in map_chunk(run_id, mode, chunk):
                            if isinstance(event, RunError):
                                outcome.failed_node, outcome.error = event.node, event.message
                            await emit(event)
                except RunStopped as stop:
                    status: Final = "cancelled" if stop.reason == "cancelled" else "failed"
                    outcome.status, outcome.reason, outcome.error = status, stop.reason, stop.detail
                    await emit(RunFinished(run_id=run_id, status=status, reason=stop.reason))
                    return
                except Exception as exc:  # the run failed: record it (node and reason)
                    if is_infra_error(exc):
                        raise  # an outage, not the run's failure: the caller decides (retries)
                    await _failed(outcome, exc, emit)
                    return
                # the report node's own write, as streamed; read back from the checkpoint
                # (the whole state, the call included) only when the stream did not carry it
                report: Report = (
                    report_out
                    if report_out is not None
                    else (await graph.aget_state(config)).values["report"]
                )
                outcome.report, outcome.status = report, report.status
                await emit(RunFinished(run_id=run_id, status=report.status))
            finally:
                span.set_attribute("edesk.status", outcome.status)
                if outcome.failed_node:
                    span.set_attribute("edesk.failed_node", outcome.failed_node)


def _report_written(mode: str, chunk: Any) -> Report | None:
    """The Report a finished `report` task wrote, from a "tasks" stream chunk; else None."""
    if mode != "tasks" or not isinstance(chunk, dict) or chunk.get("name") != "report":
        return None
    result = chunk.get("result")
    if not result or chunk.get("error") is not None:
        return None
    written = result if isinstance(result, dict) else dict(result)
    report = written.get("report")
    return report if isinstance(report, Report) else None


def _emitter(
    outcome: RunOutcome, on_event: EventSink | None
) -> Callable[[BaseModel], Awaitable[None]]:
    """Record each event in the outcome and hand it to `on_event` (sync or async)."""

    async def emit(event: BaseModel) -> None:
        outcome.events.append(event)
        if on_event is not None:
            result = on_event(event)
            if asyncio.iscoroutine(result):
                await result

    return emit


async def _resume_point(
    graph: CompiledStateGraph[Any, Any, Any, Any], config: RunnableConfig, run_id: str
) -> tuple[int, set[str]]:
    """Where a resumed run stands: the tokens its finished nodes already spent (its budget
    counts them), and the ids of the interrupted step's tasks that had finished and saved their
    result (LangGraph reuses those results without running the node again)."""
    snapshot = await graph.aget_state(config)
    if not snapshot.values:
        raise KeyError(f"run {run_id} has no checkpoint to resume from")
    spent = sum(t.prompt_tokens + t.completion_tokens for t in snapshot.values.get("trace", []))
    done = {t.id for t in snapshot.tasks if t.result is not None and t.error is None}
    for task in snapshot.tasks:  # their traces are in the saved results, not yet in the state
        if task.id in done and isinstance(task.result, dict):
            spent += sum(
                t.prompt_tokens + t.completion_tokens
                for t in task.result.get("trace", [])
                if isinstance(t, NodeTrace)
            )
    return spent, done


def _rerun_of(mode: str, chunk: Any, finished: set[str]) -> bool:
    """LangGraph announces every task of the step it resumes, including those whose saved
    result it reuses: those announcements (and nothing else) are dropped, so a resumed run's
    event log never starts a node that had finished."""
    return (
        mode == "tasks"
        and isinstance(chunk, dict)
        and "input" in chunk
        and chunk.get("id") in finished
    )


async def _failed(outcome: RunOutcome, exc: Exception, emit: Emit) -> None:
    """The run failed inside the graph: the reason (e.g. rate_limited, timeout) and the node."""
    outcome.status = "failed"
    outcome.reason = str(getattr(exc, "reason", "error"))
    outcome.error = outcome.error or f"{type(exc).__name__}: {exc}"
    if outcome.failed_node is None:
        await emit(RunError(run_id=outcome.run_id, message=outcome.error))
    await emit(RunFinished(run_id=outcome.run_id, status="failed", reason=outcome.reason))
