"""The engine: settings -> local model server, model factory, transcript index, checkpointer and
every pipeline compiled once. `run()` executes one pipeline and reports progress as events."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import aiosqlite
from langchain_core.embeddings import Embeddings
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.graph.state import CompiledStateGraph
from pydantic import BaseModel

from app.events import RunError, RunFinished, RunStarted, map_chunk
from app.local_llm import BUNDLED_NOTE, LocalLlamaServer, bundled_model_path
from app.models import LazyEmbeddings, ModelFactory
from app.settings import Settings
from core.context import RunContext, RunOptions
from core.contract import CallInfo, Report
from core.llm import ModelSource
from core.rag import TranscriptIndex
from core.state import PipelineInput, checkpoint_types
from core.transcript import Transcript
from graphs import PIPELINES, get_pipeline

EventSink = Callable[[BaseModel], Awaitable[None] | None]


@dataclass
class RunOutcome:
    run_id: str
    pipeline: str
    status: str
    report: Report | None = None
    error: str | None = None
    failed_node: str | None = None
    events: list[BaseModel] = field(default_factory=list)


def options_from(settings: Settings) -> RunOptions:
    return RunOptions(
        parse_retries=settings.parse_retries,
        max_conviction_shift=settings.max_conviction_shift,
        chunk_words=settings.chunk_words,
        retrieval_k=settings.retrieval_k,
        evidence_per_dimension=settings.evidence_per_dimension,
        evidence_words=settings.evidence_budget(),
        transcript_words=settings.transcript_budget(),
    )


def model_note(settings: Settings) -> str | None:
    if settings.provider == "fake":
        return "Written by a scripted fake model (testing only); the content is canned."
    if settings.uses_local() and settings.local_model_path is None:
        return BUNDLED_NOTE
    return None


class Engine:
    def __init__(
        self,
        settings: Settings,
        models: ModelSource,
        index: TranscriptIndex,
        graphs: dict[str, CompiledStateGraph[Any, Any, Any, Any]],
    ) -> None:
        self.settings = settings
        self.models = models
        self.index = index
        self.graphs = graphs
        self.context = RunContext(
            models=models,
            index=index,
            options=options_from(settings),
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
    ) -> AsyncIterator[Engine]:
        """Start what the settings need; stop it all on exit. `models`/`embeddings` replace the
        factory's (tests, benchmarks)."""
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        async with AsyncExitStack() as stack:
            if models is None:
                local_url = None
                if settings.uses_local():
                    server = LocalLlamaServer(
                        settings.local_model_path or bundled_model_path(),
                        n_ctx=settings.local_n_ctx,
                        threads=settings.local_threads,
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
            index = await asyncio.to_thread(
                TranscriptIndex.on_disk,
                settings.chroma_path,
                embeddings,
                embedding_name or type(embeddings).__name__,
            )
            conn = await aiosqlite.connect(str(settings.checkpoints_path))
            stack.push_async_callback(conn.close)
            saver = AsyncSqliteSaver(
                conn, serde=JsonPlusSerializer(allowed_msgpack_modules=checkpoint_types())
            )
            await saver.setup()
            graphs = {
                name: spec.build().compile(checkpointer=saver) for name, spec in PIPELINES.items()
            }
            yield cls(settings, models, index, graphs)

    async def run(
        self,
        pipeline: str,
        transcript: Transcript,
        call: CallInfo | None = None,
        *,
        run_id: str | None = None,
        on_event: EventSink | None = None,
    ) -> RunOutcome:
        """Run one pipeline to its end; failures come back in the outcome, naming the node."""
        get_pipeline(pipeline)  # a clear KeyError for an unknown name
        run_id = run_id or uuid.uuid4().hex
        outcome = RunOutcome(run_id=run_id, pipeline=pipeline, status="running")

        async def emit(event: BaseModel) -> None:
            outcome.events.append(event)
            if on_event is not None:
                result = on_event(event)
                if asyncio.iscoroutine(result):
                    await result

        graph = self.graphs[pipeline]
        config: RunnableConfig = {"configurable": {"thread_id": run_id}}
        await emit(RunStarted(run_id=run_id, pipeline=pipeline))
        state_in: PipelineInput = {
            "transcript": transcript,
            "call": call or CallInfo(),
            "pipeline": pipeline,
        }
        try:
            async for mode, chunk in graph.astream(
                state_in, config, context=self.context, stream_mode=["tasks"]
            ):
                for event in map_chunk(run_id, mode, chunk):
                    if isinstance(event, RunError):
                        outcome.failed_node = event.node
                        outcome.error = event.message
                    await emit(event)
        except Exception as exc:  # the run failed: record it (node and reason), don't hide it
            outcome.status = "failed"
            outcome.error = outcome.error or f"{type(exc).__name__}: {exc}"
            if outcome.failed_node is None:
                await emit(RunError(run_id=run_id, message=outcome.error))
            await emit(RunFinished(run_id=run_id, status="failed"))
            return outcome
        state = await graph.aget_state(config)
        report: Report = state.values["report"]
        outcome.report = report
        outcome.status = report.status
        await emit(RunFinished(run_id=run_id, status=report.status))
        return outcome
