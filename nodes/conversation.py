"""The conversation pipeline (seed 002): a Writer edits one manuscript in a fixed turn order
Writer -> Analyst -> Writer -> Psychologist -> Writer -> Editor -> Writer -> Client, for at most
N rounds, ending early when the Client answers exactly "TERMINATE". Feedback agents only speak;
only the Writer changes the manuscript."""

from __future__ import annotations

import operator
import re
from typing import Annotated, Any, Literal

from langgraph.runtime import Runtime

from core.context import RunContext
from core.contract import Speech, clip
from core.cpu import offload
from core.facts.sentences import is_analyst, is_management, is_qa
from core.grounding import extract_figures, same_figure
from core.inputs import Financials
from core.llm.window import Fit, recent_fit
from core.roles import Role, roles
from core.state import Draft, PipelineState
from core.transcript import Transcript
from nodes.calls import say
from nodes.facts import verified
from nodes.parsing import parse_recommendations, unparseable
from nodes.tracing import NodeFn, traced

ROLES = roles(
    Role("writer", remote=3000, local=600),
    Role("analyst", remote=1200, local=250),
    Role("psychologist", remote=1200, local=250),
    Role("editor", remote=1200, local=250),
    Role("client", remote=400, local=80),
)


class ConversationTurn(Speech):
    """One speaker's turn in the conversation pipeline (round 0: the Client's brief)."""

    round: int


class ConversationState(PipelineState, total=False):
    """The conversation pipeline (seed 002): the writer's manuscript, every turn, the round."""

    manuscript: str
    turns: Annotated[list[ConversationTurn], operator.add]
    round: int
    round_limit: int


SECTIONS: tuple[str, ...] = (
    "Key Financial and Strategic Highlights",
    "Summary of Prepared Remarks",
    "Key Takeaways from the Q&A Section",
    "Stock Outlook: Positives and Negatives",
    "Stock Trend Predictions (1 day, 1 week, 1 month)",
)
Reviewer = Literal["analyst", "psychologist", "editor", "client"]
REVIEWERS: tuple[Reviewer, ...] = ("analyst", "psychologist", "editor", "client")
TERMINATE = "TERMINATE"
# the paper's four-quarter statement table (SI4Fin), in Alpha Vantage's line names
_FINANCIAL_LINES = (
    ("totalRevenue", "Revenue"), ("grossProfit", "Gross profit"),
    ("operatingExpenses", "Operating expenses"), ("ebitda", "EBITDA"),
    ("netIncome", "Net income"), ("totalAssets", "Total assets"),
    ("totalLiabilities", "Total liabilities"), ("totalShareholderEquity", "Equity"),
    ("cashAndShortTermInvestments", "Cash and short-term investments"),
    ("commonStockSharesOutstanding", "Shares outstanding"),
    ("operatingCashflow", "Operating cash flow"),
    ("cashflowFromInvestment", "Investing cash flow"),
    ("cashflowFromFinancing", "Financing cash flow"),
    ("changeInCashAndCashEquivalents", "Change in cash"),
)  # fmt: skip


def financials_table(
    financials: Financials | None, quarters: int = 4, *, consensus: bool = True
) -> str:
    """Up to four quarters of the lines the Analyst uses, as a markdown table, with the
    vendor's consensus (`consensus`: the `desk` profile; the paper gives none)."""
    if financials is None:
        return "No financial statements were supplied; check figures against the call only."
    recent = financials.ordered()[:quarters]
    head = "| Line | " + " | ".join(str(q.fiscalDateEnding) for q in recent) + " |"
    rows = [head, "|---" * (len(recent) + 1) + "|"]
    for field, label in _FINANCIAL_LINES:
        values = [q.line(field) for q in recent]
        if any(v is not None for v in values):
            cells = " | ".join("n/a" if v is None else f"{v:,.0f}" for v in values)
            rows.append(f"| {label} | {cells} |")
    if consensus and financials.consensus is not None:
        rows += ["", financials.consensus.text()]
    return "\n".join(rows)


def last_feedback(state: ConversationState) -> ConversationTurn | None:
    for turn in reversed(state.get("turns", [])):
        if turn.speaker != "writer":
            return turn
    return None


@traced("writer")
async def writer(state: ConversationState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """First draft from the call, then targeted edits answering the last feedback."""
    ctx = runtime.context
    feedback = last_feedback(state)
    manuscript = state.get("manuscript")
    new_round = manuscript is None or (feedback is not None and feedback.speaker == "client")
    round_no = state.get("round", 0) + (1 if new_round else 0)
    text, model = await say(
        ctx, "writer", "conversation/writer", **verified(state),
        call=state["call"],
        sections=SECTIONS,
        transcript=await ctx.call_text(state["transcript"]),
        financials=financials_table(  # the statements it must use
            state.get("financials"), consensus=ctx.options.profile == "desk"),
        manuscript=manuscript,
        feedback=feedback,
        **conversation_so_far(state, feedback),
    )  # fmt: skip
    turn = ConversationTurn(speaker="writer", round=round_no, model=model, text=text)
    return {
        "manuscript": text,
        "turns": [turn],
        "round": round_no,
        "round_limit": ctx.options.conversation_rounds,
    }


def conversation_so_far(
    state: ConversationState, latest: ConversationTurn | None
) -> dict[str, Any]:
    """The Writer's memory of the conversation (SI4Fin's shared history): the Client's opening
    requirements, kept for every draft, and the feedback before the latest (newest kept when
    cut)."""
    turns = [t for t in state.get("turns", []) if t.speaker != "writer"]
    brief = next((t for t in turns if t.speaker == "client" and t.round == 0), None)
    earlier = [t for t in turns if t is not brief and t is not latest]
    blocks = [f"### {t.speaker.title()}, round {t.round}\n{t.text.strip()}" for t in earlier]
    return {
        "requirements": brief.text if brief is not None and brief is not latest else None,
        "history": recent_fit(blocks, label="conversation history") if blocks else None,
    }


def management_answers(transcript: Transcript) -> Fit:
    """Management's turns in the Q&A (how they answered: hedging, confidence, evasion), with the
    question each answers, for the Psychologist; the most recent first kept when cut."""
    blocks: list[str] = []
    question = ""
    for turn in transcript.turns:
        if not is_qa(turn.section):
            continue
        text = transcript.turn_text(turn).strip()
        if is_analyst(turn.speaker):
            question = f"Q ({turn.speaker}): {clip(text, 300)}"
        elif is_management(turn.speaker):
            blocks.append(f"{question}\nA ({turn.speaker}): {text}" if question else
                          f"A ({turn.speaker}): {text}")  # fmt: skip
            question = ""
    if not blocks:
        blocks = ["(no Q&A turns by management were found in this call)"]
    return Fit.of("management's Q&A answers", blocks)


def previous_version(state: ConversationState) -> str | None:
    """The manuscript before the Writer's latest edit (None in the first draft's round)."""
    drafts = [t.text for t in state.get("turns", []) if t.speaker == "writer"]
    return drafts[-2] if len(drafts) >= 2 else None


def lost_figures(previous: str, current: str) -> list[str]:
    """Figures the previous version stated that the current one no longer does (code)."""
    now = extract_figures(current, skip_apparatus=True)
    lost: list[str] = []
    for f in extract_figures(previous, skip_apparatus=True):
        if not any(same_figure(f, g) for g in now) and f.text not in lost:
            lost.append(f.text)
    return lost


async def _material(role: Reviewer, state: ConversationState, ctx: RunContext) -> dict[str, Any]:
    """What each reviewer reads besides the manuscript: the Analyst checks figures against the
    call and the statements, the Psychologist reads management's answers, the Editor the
    previous version; the Client judges the report as its reader."""
    if role == "analyst":
        return {
            "transcript": await ctx.call_text(state["transcript"]),
            "financials": financials_table(
                state.get("financials"), consensus=ctx.options.profile == "desk"
            ),
        }
    # reading the call's turns or a manuscript's figures is CPU-bound: off the event loop
    return await offload(_read_material, role, state)


def _read_material(role: Reviewer, state: ConversationState) -> dict[str, Any]:
    if role == "psychologist":
        return {"answers": management_answers(state["transcript"])}
    if role == "editor":
        previous = previous_version(state)
        lost = lost_figures(previous, state["manuscript"]) if previous else []
        missing = [s for s in SECTIONS if s not in sections_in_order(state["manuscript"])]
        return {"previous": previous, "lost_figures": lost, "lost_sections": missing}
    return {}


@traced("client_brief")
async def client_brief(state: ConversationState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """The Client opens the conversation by stating what it needs from the report (SI4Fin);
    its end-of-round feedback opens each later cycle."""
    ctx = runtime.context
    text, model = await say(
        ctx, "client", "conversation/client_brief", **verified(state),
        call=state["call"], sections=SECTIONS,
    )  # fmt: skip
    return {"turns": [ConversationTurn(speaker="client", round=0, model=model, text=text)]}


def make_reviewer(role: Reviewer) -> NodeFn[ConversationState]:
    """A feedback agent: reads the manuscript, answers with feedback only."""

    @traced(role)
    async def reviewer(state: ConversationState, runtime: Runtime[RunContext]) -> dict[str, Any]:
        ctx = runtime.context
        material = await _material(role, state, ctx)
        text, model = await say(
            ctx, role, f"conversation/{role}", **verified(state),
            call=state["call"],
            sections=SECTIONS,
            manuscript=state["manuscript"],
            **material,
        )  # fmt: skip
        turn = ConversationTurn(speaker=role, round=state["round"], model=model, text=text)
        return {"turns": [turn]}

    return reviewer


def next_speaker(state: ConversationState) -> Reviewer:
    """After the Writer: Analyst, Psychologist, Editor, Client in turn (Analyst opens a round)."""
    feedback = last_feedback(state)
    if feedback is None or feedback.speaker == "client":
        return "analyst"
    return REVIEWERS[REVIEWERS.index(feedback.speaker) + 1]


def terminated(state: ConversationState) -> bool:
    feedback = last_feedback(state)
    return (
        feedback is not None
        and feedback.speaker == "client"
        and (feedback.text.strip() == TERMINATE)
    )


def client_verdict(state: ConversationState) -> Literal["finish", "revise"]:
    """Exactly "TERMINATE" ends the conversation; so does the last allowed round."""
    if terminated(state) or state["round"] >= state["round_limit"]:
        return "finish"
    return "revise"


def sections_in_order(manuscript: str) -> list[str]:
    """The five required section titles found as headings, in the order they appear."""
    found: list[tuple[int, str]] = []
    for title in SECTIONS:
        m = re.search(rf"^#+\s*\**\s*{re.escape(title)}", manuscript, re.MULTILINE | re.IGNORECASE)
        if m:
            found.append((m.start(), title))
    return [t for _, t in sorted(found)]


@traced("finalize")
async def finalize(state: ConversationState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """The last manuscript becomes the report draft; its predictions are parsed."""
    manuscript = state["manuscript"]
    parsed = await parse_recommendations(runtime.context, manuscript)
    writer_model = next(t.model for t in reversed(state["turns"]) if t.speaker == "writer")
    draft = Draft(author="writer", model=writer_model, markdown=manuscript,
                  recommendations=parsed.value, parse_error=parsed.error)  # fmt: skip
    found = sections_in_order(manuscript)
    notes = [
        f"conversation: {state['round']} round(s); client "
        f"{'answered TERMINATE' if terminated(state) else 'did not terminate'}"
    ]
    if found != list(SECTIONS):
        missing = [s for s in SECTIONS if s not in found]
        notes.append(
            "conversation: the manuscript does not have the five required sections in "
            f"order (missing or misplaced: {', '.join(missing) or 'order'})"
        )
    log = [t.model_dump(mode="json") for t in state["turns"]]
    update: dict[str, Any] = {
        "draft": draft,
        "notes": notes,
        "extras": {"conversation": log, "sections_in_order": found == list(SECTIONS)},
    }
    if not parsed.ok:
        update["failures"] = [unparseable("finalize", "recommendations", parsed)]
    return update
