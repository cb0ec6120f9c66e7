"""Assemble the `Report` from the final draft: canonical recommendations section, evidence,
numeric grounding, debate log, trace, and which model wrote each part."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from langgraph.runtime import Runtime

from core.citations import link_evidence
from core.context import RunContext
from core.contract import (
    Evidence,
    EvidencePassage,
    FactCheck,
    InjectionHit,
    NodeTrace,
    NumberCheck,
    Report,
    calls_line,
    markdown_text,
    plain_line,
)
from core.cpu import CpuMeter, cpu_meter, offload
from core.facts import facts_markdown
from core.grounding import check_numbers
from core.injection import find_injections, injection_note
from core.market import scorecard
from core.memory import track_record_markdown
from core.options import Profile
from core.provenance import grounding_sources
from core.recommendations import render_missing_recommendations, render_recommendations
from core.state import Draft, PipelineState
from core.transcript import layout_note
from nodes.tracing import NodeFn

# Pipelines whose paper fixes the report's format (SI4Fin's five sections, SAS's investment
# memo): what code writes (call facts, consensus) goes to `Report.appendix`, not into the text.
FIXED_FORMAT: frozenset[str] = frozenset({"conversation", "adversarial"})
_MODEL_HEADING = re.compile(r"^(#{1,6})\s*recommendations?\s*:?\s*$", re.IGNORECASE | re.MULTILINE)


def _passages(state: PipelineState) -> list[EvidencePassage]:
    merged: dict[str, EvidencePassage] = {}
    for passages in state.get("evidence", {}).values():
        for p in passages:
            if p.chunk_id in merged:
                dims = merged[p.chunk_id].dimensions + [
                    d for d in p.dimensions if d not in merged[p.chunk_id].dimensions
                ]
                merged[p.chunk_id] = merged[p.chunk_id].model_copy(update={"dimensions": dims})
            else:
                merged[p.chunk_id] = p
    return sorted(merged.values(), key=lambda p: p.start)


# What a pipeline adds to its Report (Report fields by name, e.g. findebate's `debate` log),
# declared by the pipeline's graph: the report node itself knows no pipeline.
ReportParts = Callable[[PipelineState], dict[str, Any]]


def make_report(
    parts: ReportParts | None = None, model_note: str | None = None
) -> NodeFn[PipelineState]:
    """The last node of every pipeline: pure assembly, no model call. `model_note` replaces the
    engine's note about its model (a pipeline that uses none says so)."""

    async def report(state: PipelineState, runtime: Runtime[RunContext]) -> dict[str, Any]:
        cpu0 = time.thread_time()
        runtime.context.check("report")
        started, t0 = datetime.now(UTC), time.perf_counter()
        ctx = runtime.context
        meter = CpuMeter()  # this node writes its own trace: its CPU is metered here
        token = cpu_meter.set(meter)
        try:
            # assembly is CPU-bound on call-sized text (grounding, injection scan): off the loop
            meter.add(time.thread_time() - cpu0)
            built = await offload(
                assemble, state, replace(ctx, model_note=model_note) if model_note else ctx
            )
            cpu0 = time.thread_time()
        finally:
            cpu_meter.reset(token)
        if parts is not None:
            built = built.model_copy(update=parts(state))
        own = NodeTrace(
            node="report", started_at=started, ended_at=datetime.now(UTC),
            duration_ms=round((time.perf_counter() - t0) * 1000, 3),
            summary=f"report {built.status}"
            + (f": {calls_line(built.recommendations)}" if built.recommendations else ""),
        )  # fmt: skip
        meter.add(time.thread_time() - cpu0)
        own.cpu_ms = round(meter.seconds * 1000, 3)
        trace = [*built.trace, own]
        models = {t.node: ", ".join(t.models) for t in trace if t.models}
        return {"report": built.model_copy(update={"trace": trace, "models": models}),
                "trace": [own]}  # fmt: skip

    return report


def _final_text(state: PipelineState) -> tuple[Draft, str, str]:
    """The final draft, its body (the model's own recommendations heading renamed) and the
    canonical Recommendations section written from the parsed values."""
    final = state.get("final", state["draft"])
    failures = state.get("failures", [])
    body = _MODEL_HEADING.sub(r"\1 Recommendations (as written)", final.markdown.strip())
    if final.recommendations:
        return final, body, render_recommendations(final.recommendations)
    reason = failures[0].reason if failures else (final.parse_error or "unknown")
    return final, body, render_missing_recommendations(final.author, reason)


def assemble(state: PipelineState, ctx: RunContext) -> Report:
    """The Report from the final draft: canonical recommendations section, evidence, numeric
    grounding (unsupported figures footnoted), citations, notes and the trace so far."""
    final, body, section = _final_text(state)
    failures = list(state.get("failures", []))
    transcript = state["transcript"]
    facts = state.get("facts")
    sources = grounding_sources(
        transcript, state.get("financials"), state.get("prices"), facts.tone if facts else None
    )
    numbers = check_numbers(body, sources)
    numbers = [n if n.grounded else n.model_copy(update={"flagged": True}) for n in numbers]
    body, footnotes = _footnote(body, numbers, state.get("fact_check"))
    passages = _passages(state)
    links = link_evidence(body, transcript, passages, numbers, chunk_words=ctx.options.chunk_words)
    notes = list(state.get("notes", [])) + input_notes(state)
    injections = find_injections(transcript.text)
    if injections:
        notes.append(injection_note(injections))
    if links.unresolved:
        notes.append(
            "report: cites chunk id(s) that are not passages of this call: "
            + ", ".join(links.unresolved)
        )
    header = _header(state, final.model, ctx.model_note, injections, ctx.options.profile)
    facts = state.get("facts")
    code: list[str] = []
    if facts is not None:  # code's section first, then the model's prose
        code.append(facts_markdown(facts))  # a key figure's filing check is in its row
    record = state.get("track_record")
    if record is not None:
        code.append(track_record_markdown(record))
    fin = state.get("financials")
    if fin is not None and fin.consensus is not None:  # the vendor's, marked as such
        code.append(f"**Against consensus (data vendor):** {fin.consensus.text()}")
    appendix = None
    if state["pipeline"] in FIXED_FORMAT:
        appendix = "\n\n".join(code) or None
    elif code:
        header = "\n\n".join([header, *code])
    return Report(
        pipeline=state["pipeline"],
        status="degraded" if failures else "succeeded",
        created_at=datetime.now(UTC),
        call=state["call"],
        transcript_sha256=transcript.sha256,
        markdown=f"{header}\n\n{body}{footnotes}\n\n{section}",  # the report ends in its calls
        recommendations=final.recommendations or [],
        facts=facts,
        track_record=record,
        appendix=appendix,
        failures=failures,
        evidence=Evidence(
            passages=passages,
            numbers=links.numbers,
            citations=links.citations,
            fact_check=state.get("fact_check"),
        ),  # fmt: skip
        trace=list(state.get("trace", [])),
        model_note=ctx.model_note,
        notes=notes,
        injections=injections,
        extras=_extras(state),
    )


def _footnote(
    body: str, numbers: list[NumberCheck], fact_check: FactCheck | None
) -> tuple[str, str]:
    """Mark each unsupported figure's first mention with a footnote saying so."""
    flagged = [n for n in numbers if n.flagged]
    if not flagged:
        return body, ""
    checked = (
        "after the fact-check's correction"
        if fact_check and fact_check.correction_attempted
        else "by the fact-check"
    )
    lines = ["", "", "---", ""]
    for i, n in enumerate(flagged, 1):
        mark = f"[^unverified-{i}]"
        m = re.search(rf"(?<![\w.]){re.escape(n.text)}(?![\d])", body)
        if m:
            body = body[: m.end()] + mark + body[m.end() :]
        lines.append(
            f"{mark}: **Unverified:** {n.text} is not stated in the call, the statements, the "
            f"market data or the consensus, nor computed from them ({checked})."
        )
    return body, "\n".join(lines)


def input_notes(state: PipelineState) -> list[str]:
    """What was cut from the given statements and prices as dated on or after the call, and,
    with no call date, which day the market data is as of."""
    out: list[str] = []
    layout = layout_note(state["transcript"])
    if layout is not None:
        out.append(f"inputs: {layout}")
    financials, prices = state.get("financials"), state.get("prices")
    if financials is not None and financials.cut:
        out.append(f"inputs: {financials.cut}")
    if prices is not None and prices.cut:
        out.append(f"inputs: {prices.cut}")
    if prices is not None and prices.as_of is None and prices.company.bars:
        newest = max(b.date for b in prices.company.bars)
        out.append(f"inputs: no call date was given, so the market data is as of its newest bar, "
                   f"{newest} (give the call date to cut anything from that day on)")  # fmt: skip
    return out


def _extras(state: PipelineState) -> dict[str, Any]:
    """What pipeline nodes put in `extras` (e.g. the conversation log), plus the market
    scorecard when prices were given."""
    extras: dict[str, Any] = dict(state.get("extras", {}))
    prices = state.get("prices")
    if prices is not None:
        extras["market_scorecard"] = scorecard(prices).model_dump(mode="json")
    return extras


def _identity(state: PipelineState) -> tuple[str | None, str | None, str | None]:
    """Company, ticker and period: what the user stated, else what the call facts read from the
    call (single-line plain text either way, escaped as it enters Markdown)."""
    call, facts = state["call"], state.get("facts")
    read = facts.call if facts is not None else None
    return (
        call.company or plain_line(read.company if read else None),
        call.ticker or plain_line(read.ticker if read else None),
        call.period or plain_line(read.period if read else None),
    )


def _header(
    state: PipelineState,
    model: str,
    note: str | None,
    injections: list[InjectionHit],
    profile: Profile = "desk",
) -> str:
    company, ticker, period = (markdown_text(x) if x else None for x in _identity(state))
    name = " ".join(x for x in (company, f"({ticker})" if ticker else None) if x)
    title = f"# {name or 'Earnings call'}{f' {period}' if period else ''}: analyst report"
    how = (" as its papers ran it (the `paper` profile: each role read what its paper gives it, "
           "and the text was not fact-check rewritten)") if profile == "paper" else ""  # fmt: skip
    lines = [title, "", f"_Pipeline `{state['pipeline']}`{how}; final text written by `{model}`._"]
    if note:
        lines += ["", f"> **Model note:** {note}"]
    if injections:
        lines += [
            "",
            f"> **Prompt injection:** the transcript has {len(injections)} passage(s) addressed "
            "to an AI model; they were analysed as call content, not obeyed (see notes).",
        ]
    return "\n".join(lines)
