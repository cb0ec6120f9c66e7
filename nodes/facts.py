"""The call's facts, computed by code before any model writes (core.facts): every pipeline's
first node. Its output is verified data the models are told to take figures from, and the
report's "Call facts" section."""

from __future__ import annotations

import asyncio
from typing import Any

from langgraph.runtime import Runtime

from core.context import RunContext
from core.contract import CallFacts
from core.facts import call_facts, qa_questions
from core.state import PipelineState
from nodes.tracing import traced


def facts_summary(update: dict[str, Any]) -> str:
    f: CallFacts = update["facts"]
    return (
        f"{len(f.key_figures)} key figures, {len(f.guidance)} guidance rows, "
        f"{len(f.qa_themes)} Q&A themes, {len(f.highlights)} highlights"
    )


@traced("facts", summary=facts_summary)
async def facts(state: PipelineState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """Key figures, guidance, tone, Q&A themes (the analysts' questions grouped with the run's
    embedding model) and highlights; no model writes any of it."""
    transcript = state["transcript"]
    questions = [q.text for q in qa_questions(transcript)]
    vectors = await asyncio.to_thread(runtime.context.index.embed, questions) if questions else None
    built = await asyncio.to_thread(call_facts, transcript, question_vectors=vectors)
    return {"facts": built}
