"""The five FinDebate specialists: one node each, differing only by prompt and evidence."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from core.context import RunContext
from core.llm.window import Fit, Window
from core.rag import interleave
from core.roles import Role, roles
from core.state import Analysis, PipelineState
from nodes.calls import say
from nodes.facts import verified
from nodes.tracing import NodeFn, traced

ROLES = roles(
    Role("earnings_analyst", remote=2000, local=300),
    Role("market_predictor", remote=2000, local=300),
    Role("sentiment_analyst", remote=2000, local=300),
    Role("valuation_analyst", remote=2000, local=300),
    Role("risk_analyst", remote=2000, local=300),
)


# Our own query sets, one list per dimension of the paper's Table 2 (grouped the same way).
FINDEBATE_DIMENSIONS: dict[str, tuple[str, ...]] = {
    "general_performance": (
        "quarterly financial results revenue earnings per share beat or miss versus expectations",
        "forward guidance outlook forecast for the full year and next quarter",
        "growth trends margin expansion profitability cash flow and competitive position",
        "catalysts opportunities product launches market expansion strategic initiatives",
    ),
    "specialized_metrics": (
        "net interest margin loans deposits credit quality and asset quality",
        "non-performing assets charge-offs provision for loan losses problem loans",
        "return on assets return on equity efficiency ratio capital adequacy",
        "regulatory capital tier 1 capital stress testing compliance",
        "deposit growth loan growth credit demand funding costs interest rates",
        "segment revenue operating margin gross margin free cash flow and leverage",
    ),
    "sentiment_risk": (
        "management confidence tone optimistic or cautious about the business",
        "risks challenges concerns headwinds uncertainties and market conditions",
        "analyst questions investor concerns and how management answered",
        "risk management credit risk operational risk market risk liquidity risk",
    ),
    "multi_query": (
        "near-term timeline events this week this month next quarter",
        "comparison with last year and last quarter performance trends",
        "overall assessment of the quarter across the business",
        "sequential improvement or deterioration over recent quarters",
    ),
}

# Specialist -> the retrieval dimensions (paper Table 2) its evidence is drawn from.
SPECIALISTS: dict[str, tuple[str, ...]] = {
    "earnings_analyst": ("general_performance", "specialized_metrics"),
    "market_predictor": ("general_performance", "multi_query"),
    "sentiment_analyst": ("sentiment_risk", "multi_query"),
    "valuation_analyst": ("general_performance", "specialized_metrics"),
    "risk_analyst": ("sentiment_risk", "specialized_metrics"),
}


PAPER_WORDS = (1000, 1500)  # FinDebate's specialists write 1,000-1,500 words each
# each specialist's own target where the paper's prompt states one (Figs. 5-7; the valuation and
# risk prompts state none): the `paper` profile's lengths
ROLE_WORDS: dict[str, tuple[int, int]] = {
    "earnings_analyst": (1200, 1500),
    "market_predictor": (1100, 1400),
    "sentiment_analyst": (1000, 1300),
}


def target_length(window: Window | None, span: tuple[int, int] = PAPER_WORDS) -> str:
    """The paper's length when the role's answer budget holds it, else what the budget holds
    (about 0.7 words a token, rounded down to 50)."""
    low, high = span
    if window is None or window.answer * 0.75 >= high:
        return f"{low:,}-{high:,} words, as the FinDebate paper's specialists write"
    words = max(50, int(window.answer * 0.7) // 50 * 50)
    return f"about {words:,} words (what this model's {window.answer:,}-token answer budget holds)"


def make_specialist(role: str) -> NodeFn[PipelineState]:
    """A node that writes `role`'s analysis from its dimensions' evidence; one LLM call."""
    if role not in SPECIALISTS:
        raise KeyError(f"unknown specialist {role!r}")
    dimensions = SPECIALISTS[role]

    @traced(role)
    async def specialist(state: PipelineState, runtime: Runtime[RunContext]) -> dict[str, Any]:
        ctx = runtime.context
        evidence = state.get("evidence", {})
        ranked = interleave([evidence.get(d, []) for d in dimensions])
        paper = ctx.options.profile == "paper"
        words = ROLE_WORDS.get(role, PAPER_WORDS) if paper else PAPER_WORDS
        text, model = await say(
            ctx, role, f"findebate/{role}", **verified(state),
            call=state["call"],
            evidence=ctx.passages(ranked),
            length=target_length(ctx.models.chat(role).window, words),
        )  # fmt: skip
        return {"analyses": {role: Analysis(role=role, model=model, text=text)}}

    return specialist


def analyses_fit(analyses: dict[str, Analysis]) -> Fit:
    """The specialists' analyses (in SPECIALISTS order) for a prompt: whole when the window
    holds them, else each analyst's opening paragraphs first, round robin, so every voice is
    kept before any is kept at length."""
    pieces: list[str] = []
    rank: list[tuple[int, int]] = []  # (paragraph number, piece index)
    for role in SPECIALISTS:
        if role not in analyses:
            continue
        paragraphs = [p for p in analyses[role].text.strip().split("\n\n") if p.strip()] or [""]
        title = role.replace("_", " ").title()
        for n, para in enumerate(paragraphs):
            rank.append((n, len(pieces)))
            pieces.append(f"### {title}\n{para}" if n == 0 else para)
    return Fit.of("specialist analyses", pieces, [i for _, i in sorted(rank)])
