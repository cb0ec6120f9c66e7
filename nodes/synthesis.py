"""Report writers: the FinDebate synthesizer and the baselines' single-prompt writers. Each writes
the draft report R0, then parses its recommendation block."""

from __future__ import annotations

from typing import Any, Literal

from langgraph.runtime import Runtime

from core.context import RunContext
from core.rag import format_passages, interleave, take_words
from core.roles import Role, roles
from core.state import PipelineState
from nodes.facts import verified
from nodes.parsing import unparseable, write_draft
from nodes.specialists import SPECIALISTS
from nodes.tracing import NodeFn, traced
from prompts import Prompt, render

ROLES = roles(
    Role("synthesizer", remote=3000, local=600),
)


Source = Literal["analyses", "evidence", "transcript"]
WRITER_ROLE = "synthesizer"


def _prompt(source: Source, state: PipelineState, ctx: RunContext) -> tuple[Prompt, list[str]]:
    call = state["call"]
    if source == "analyses":
        analyses = state.get("analyses", {})
        ordered = [analyses[r] for r in SPECIALISTS if r in analyses]
        return render("findebate/synthesizer", **verified(state), call=call, analyses=ordered), []
    if source == "evidence":
        ranked = interleave(list(state.get("evidence", {}).values()))
        passages = take_words(ranked, ctx.words.evidence)
        return render(
            "baselines/standard_rag",
            **verified(state),
            call=call,
            evidence=format_passages(passages),
        ), []
    words = state["transcript"].text.split()
    budget = ctx.words.transcript
    notes = []
    if len(words) > budget:
        notes.append(
            f"zero_shot: the transcript has {len(words):,} words; the model saw the first "
            f"{budget:,} words (EDESK_TRANSCRIPT_WORDS, sized to the model's context window)"
        )
    text = " ".join(words[:budget]) if notes else state["transcript"].text
    return render("baselines/zero_shot", **verified(state), call=call, transcript=text), notes


def make_writer(source: Source) -> NodeFn[PipelineState]:
    """Write R0 from specialist analyses, retrieved evidence, or the transcript itself."""

    @traced("synthesize")
    async def synthesize(state: PipelineState, runtime: Runtime[RunContext]) -> dict[str, Any]:
        ctx = runtime.context
        prompt, notes = _prompt(source, state, ctx)
        draft, parsed = await write_draft(ctx, WRITER_ROLE, "synthesize", prompt)
        update: dict[str, Any] = {"draft": draft, "notes": notes}
        if not parsed.ok:
            update["failures"] = [unparseable("synthesize", "recommendations", parsed)]
        return update

    return synthesize
