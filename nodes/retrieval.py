"""Ingest (chunk, embed, index) and retrieve evidence along named query dimensions."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from langgraph.runtime import Runtime

from core.chunking import fixed_chunks, recursive_chunks
from core.context import Embedding, RunContext
from core.cpu import offload
from core.options import Retriever
from core.rag import IngestResult, to_passage
from core.state import PipelineState
from nodes.tracing import NodeFn, traced

Chunking = Literal["recursive", "fixed"]


def make_ingest(chunking: Chunking, embedding: Embedding = "general") -> NodeFn[PipelineState]:
    """Index the transcript's chunks with the `embedding` model's index; a transcript already
    indexed there is not embedded again."""

    @traced("ingest")
    async def ingest(state: PipelineState, runtime: Runtime[RunContext]) -> dict[str, Any]:
        transcript = state["transcript"]
        words = runtime.context.options.chunk_words

        def chunk_and_index() -> IngestResult:  # CPU-bound on the call's text: off the loop
            if chunking == "recursive":
                chunks = recursive_chunks(transcript, max_words=words)
            else:
                chunks = fixed_chunks(transcript, words=words)
            return runtime.context.index_for(embedding).ingest(
                transcript.sha256, chunks, f"{chunking[:3]}{words}"
            )

        result = await offload(chunk_and_index)
        note = (
            f"ingest: reused the existing index of {result.n_chunks} chunks"
            if result.reused
            else f"ingest: indexed {result.n_chunks} {chunking} chunks of <= {words} words"
        )
        return {"collection": result.collection, "notes": [note]}

    return ingest


def evidence_summary(update: dict[str, Any]) -> str:
    evidence = update["evidence"]
    n = len({p.chunk_id for passages in evidence.values() for p in passages})
    return f"{n} passages over {len(evidence)} dimensions"


def make_retrieve(
    dimensions: Mapping[str, Sequence[str]],
    retriever: Retriever | None = None,
    embedding: Embedding = "general",
) -> NodeFn[PipelineState]:
    """Run each dimension's queries against this transcript's collection only, with the given
    retriever (a baseline pins its own) or the run's `retriever` option."""

    @traced("retrieve", summary=evidence_summary)
    async def retrieve(state: PipelineState, runtime: Runtime[RunContext]) -> dict[str, Any]:
        opts = runtime.context.options
        hits = await offload(
            runtime.context.index_for(embedding).search,
            state["collection"],
            dimensions,
            k=opts.retrieval_k,
            per_dim=opts.evidence_per_dimension,
            retriever=retriever or opts.retriever,
        )
        return {"evidence": {dim: [to_passage(h) for h in hs] for dim, hs in hits.items()}}

    return retrieve
