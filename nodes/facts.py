"""The call's facts, computed by code before any model writes (core.facts): every pipeline's
first node. Its output is the data block the models are told to take figures from (rows
extracted by code, each with its quote), and the report's "Call facts" section."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from langgraph.runtime import Runtime

from core import rules
from core.context import RunContext
from core.contract import CallFacts, TrackRecord
from core.cpu import offload
from core.facts import call_facts, facts_block, qa_questions
from core.filing import check, filed_values, filing_lines
from core.llm.window import Fit
from core.memory import company_key, current_calls, record_of, track_record, track_record_markdown
from core.state import Draft, PipelineState
from nodes.tracing import traced


def facts_summary(update: dict[str, Any]) -> str:
    f: CallFacts = update["facts"]
    return (
        f"{len(f.key_figures)} key figures, {len(f.guidance)} guidance rows, "
        f"{len(f.qa_themes)} Q&A themes, {len(f.highlights)} highlights"
    )


NO_MODEL_NOTE = (
    "No language model wrote this report: the call facts and the stance come from code "
    "(transparent rules over the facts), the baseline every model pipeline must beat."
)


def stance_summary(update: dict[str, Any]) -> str:
    return str(update["draft"].summary())


def verified(state: PipelineState, *, filing: bool = True) -> dict[str, Fit]:
    """The call's facts as a data block for a prompt (`facts`), when the run has them; every
    model that writes about the call gets it and is told to take figures from it or the call.
    Sent whole when the model's window allows, else its first lines (the rule, the call as read,
    then the rows by weight) that fit, like the call itself. `filing=False` leaves out the filing
    check's lines: they quote the filed statements, data from outside the call."""
    found = state.get("facts")
    if found is None:
        return {}
    record = state.get("track_record")
    key = (id(found), id(record), filing)
    kept = _BLOCKS.get(key)
    if kept is not None and kept[0] is found and kept[1] is record:
        _BLOCKS.move_to_end(key)
        return {"facts": kept[2]}
    checked = filing_lines(found) if filing else []
    memory = [track_record_markdown(record)] if record is not None else []
    lines = "\n".join([facts_block(found), *checked, *memory]).split("\n")
    fit = Fit.of("call facts", lines, joiner="\n", gap="- (…)")
    _BLOCKS[key] = (found, record, fit)
    if len(_BLOCKS) > _BLOCKS_KEPT:
        _BLOCKS.popitem(last=False)
    return {"facts": fit}


# Every model node of a run renders the same block from the same state objects (a node returns
# new values, never changes the state it was given): built once per run and kept for the runs in
# flight, by identity (the objects themselves are held, so an id is never reused meanwhile).
_BLOCKS: OrderedDict[tuple[int, int, bool], tuple[CallFacts, TrackRecord | None, Fit]] = (
    OrderedDict()
)
_BLOCKS_KEPT = 64


@traced("facts", summary=facts_summary)
async def facts(state: PipelineState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """The call's identity (what the user stated wins), key figures, guidance, tone, Q&A themes
    (the analysts' questions grouped with the run's embedding model) and highlights, and each
    key figure checked against the run's filed statements when they name its quarter; no model
    writes any of it."""
    transcript = state["transcript"]
    # the facts are CPU-bound on call-sized text: computed in worker threads, off the loop
    questions = [q.text for q in await offload(qa_questions, transcript)]
    vectors = await offload(runtime.context.index.embed, questions) if questions else None
    built = await offload(call_facts, transcript, question_vectors=vectors, call=state["call"])
    filed = filed_values(state.get("financials"), "the statements given with the run")
    checked = check(built, filed)  # each comparable figure's filing check, not a fix
    return {"facts": checked, "track_record": await _track_record(runtime.context, checked, state)}


async def _track_record(
    ctx: RunContext, found: CallFacts, state: PipelineState
) -> TrackRecord | None:
    """This call against its company's stored calls (the run's key's), when it can be placed
    (a period) and linked (a ticker or company name) and the company has earlier calls."""
    if ctx.memory is None:
        return None
    call = state["call"]
    record = record_of("this call", found, company=call.company, ticker=call.ticker,
                       period=call.period)  # fmt: skip
    if record is None:
        return None
    key = company_key(record.ticker, record.company)
    if key is None:
        return None
    return track_record(record, current_calls(await ctx.memory.calls(key)))


@traced("stance", summary=stance_summary)
async def stance(state: PipelineState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """The facts pipeline's report: a stance per horizon from rules over the facts, each rule
    that fired quoted from the call. No model call."""
    recs, fired = rules.stance(state["facts"], state.get("track_record"))
    draft = Draft(
        author="rules", model="none (rules over the call facts)",
        markdown=rules.stance_markdown(recs, fired), recommendations=recs,
    )  # fmt: skip
    return {"draft": draft}
