"""The `paper` profile: each role reads exactly what its paper gives it, laid out and sampled as
its paper does. The `desk` profile (the default) is the project's method: every role also reads
the call facts, the consensus, the computed changes, and the report gets the fact-check rewrite.

One table, `PAPER_INPUTS`: for each prompt, the variables its paper's role reads (the rest are
given empty under `paper`), with where the paper says so. `PAPER_SAMPLING`: each paper's stated
generation settings (none stated: the project's default, and the table says so). The docs'
per-pipeline tables (`python -m bench.role_inputs`) are recorded from runs under both profiles,
so what a role reads is checked, not just listed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from core.options import Profile


@dataclass(frozen=True)
class PaperRole:
    """What a paper's role reads (our variable names) and where the paper says so."""

    reads: frozenset[str]
    source: str


def _r(reads: str, source: str) -> PaperRole:
    return PaperRole(frozenset(reads.split()), source)


# Every prompt a pipeline renders under `paper`. A prompt missing here cannot run under `paper`
# (a KeyError names it): a new role states what its paper gives it before it runs. The call's
# identity line (`call`: company, ticker, period) is given only where the paper gives it (the
# Jetsons advanced writer's data carries it); the transcript itself names the company.
PAPER_INPUTS: Mapping[str, PaperRole] = {
    # FinDebate (seeds/000): each specialist reads the passages retrieved for it (§2.2.1: the
    # user prompt's retrieved information), with its figure's word target (Figs. 5-9)
    "findebate/earnings_analyst": _r("evidence length", "FinDebate §2.2.1, Fig. 5"),
    "findebate/sentiment_analyst": _r("evidence length", "FinDebate §2.2.1, Fig. 7"),
    "findebate/valuation_analyst": _r("evidence length", "FinDebate §2.2.1, Fig. 8"),
    "findebate/risk_analyst": _r("evidence length", "FinDebate §2.2.1, Fig. 9"),
    "findebate/market_predictor": _r("evidence length", "FinDebate §2.2.1, Fig. 6"),
    "findebate/synthesizer": _r("analyses", "FinDebate §2.2.3 and Alg. 1: the analyses A"),
    "findebate/trust": _r("analyses report", "FinDebate Alg. 1: optimize(R0, A)"),
    "findebate/skeptic": _r("analyses report", "FinDebate Alg. 1: review(R1, A)"),
    "findebate/leader": _r(
        "analyses skeptic trust",
        "FinDebate Alg. 1: synthesize(R2, A), §2.3.1: Trust's evidence and the Skeptic's risks "
        "(the original report feeds only the integrity check, which code runs)",
    ),
    # FinDebate's baselines (§3.1)
    "baselines/zero_shot": _r("transcript", "FinDebate §3.1: the transcript, nothing else"),
    "baselines/standard_rag": _r("evidence", "FinDebate §3.1: RAG with a general embedding model"),
    # Jetsons (seeds/001)
    "writer_feedback/simple_writer": _r(
        "transcript financials draft review",
        "Jetsons §1: the single-agent baseline reads the transcript only; §4.4: every "
        "multi-agent flow gets the financial data (the nodes give it there only); §4.5.1: the "
        "draft and its review on revision",
    ),
    "writer_feedback/advanced_writer": _r(
        "call transcript financials",
        "Jetsons §4.4, App. A.1: the transcript and three quarters of raw statement fields, "
        "headed by the company, ticker and quarter",
    ),
    "writer_feedback/panel": _r(
        "report transcript", "Jetsons Table 2: the report and the transcript"
    ),
    "writer_feedback/financial_expert": _r("report", "Jetsons Table 3: the report only"),
    "writer_feedback/risk_reviewer": _r("report", "Jetsons Table 4: the report only"),
    "writer_feedback/persuasiveness": _r("report", "Jetsons Table 5: the report only"),
    "writer_feedback/rewriter": _r(
        "report reviews", "Jetsons Table 6: the report and the feedback"
    ),
    "writer_feedback/grader": _r("report transcript", "Jetsons App. C: the transcript as baseline"),
    # the SI4Fin collaboration (seeds/002)
    "conversation/client_brief": _r("sections", "SI4Fin §2.2: the Client states its requirements"),
    "conversation/writer": _r(
        "transcript feedback history manuscript requirements sections",
        "SI4Fin §2.2, §2.4: drafts from the call, revises on feedback, five fixed sections; the "
        "statements go to the Analyst, not the Writer",
    ),
    "conversation/analyst": _r(
        "financials manuscript transcript",
        "SI4Fin §2.3, Table 5: four quarters of statements (no consensus) and the call",
    ),
    "conversation/psychologist": _r(
        "answers manuscript", "SI4Fin §2.1, Table 5: management's Q&A answers"
    ),
    "conversation/editor": _r(
        "manuscript previous sections",
        "SI4Fin Table 5, §2.4: the earlier version, against loss of information",
    ),
    "conversation/client": _r("manuscript", "SI4Fin Table 5: the Client reads the manuscript"),
    # SAS (seeds/004)
    "adversarial/factual_analyst": _r("transcript", "SAS §2.2, A.3.1"),
    "adversarial/behavioral_analyst": _r("transcript", "SAS §2.2, A.3.2"),
    "adversarial/market_analyst": _r("scorecard", "SAS A.3.3: the market health scorecard"),
    "adversarial/bull": _r(
        "act briefing history own_challenges question",
        "SAS §2.3: the briefing is the sole source; later acts add the debate so far",
    ),
    "adversarial/bear": _r("act briefing history own_challenges question", "SAS §2.3"),
    "adversarial/devils_advocate": _r("history", "SAS §2.3 Act II: the opening theses"),
    "adversarial/assess_rebuttals": _r("challenges history", "SAS §2.3 Act IV: the rebuttals"),
    "adversarial/judge": _r("history", "SAS A.5.1: the debate history only"),
    "adversarial/stress_analyst": _r("thesis winner", "SAS §2.4, A.5.2: the winning thesis"),
    "adversarial/lead_analyst": _r(
        "briefing history market stress transcript verdict",
        "SAS §2.4, A.5.3 (S2-S4: briefing, debate, verdict, stress test); §3 S1: the call and "
        "the market data",
    ),
    # ours in both profiles: reads a report's recommendation table for the typed contract
    "shared/extract_recommendations": _r("report", "ours: the typed recommendation contract"),
}


@dataclass(frozen=True)
class Sampling:
    temperature: float | None = None
    top_p: float | None = None
    frequency_penalty: float | None = None
    source: str = "not stated: the project's default (EDESK_TEMPERATURE, EDESK_TOP_P)"


_FINDEBATE = Sampling(0.6, 0.85, 0.1, "FinDebate §3.1, every agent")
_JETSONS = Sampling(0.7, 1.0, 0.0, "Jetsons §4.5, every agent but the advanced writer")

# By prompt, else by pipeline (the prompt's folder). A paper that states none runs with the
# project's default, and the docs' table says so.
PAPER_SAMPLING: Mapping[str, Sampling] = {
    "findebate": _FINDEBATE,
    "baselines": _FINDEBATE,
    "writer_feedback": _JETSONS,
    "writer_feedback/advanced_writer": Sampling(
        0.7, 0.95, 0.0, "Jetsons §4.5, the advanced writer"
    ),
    "writer_feedback/grader": Sampling(0.5, 0.95, None, "Jetsons §5.1, the grader"),
    "conversation": Sampling(source="not stated by SI4Fin: the project's default"),
    "adversarial": Sampling(source="not stated by SAS: the project's default"),
    "shared": Sampling(),
}


def paper_role(template: str) -> PaperRole:
    try:
        return PAPER_INPUTS[template]
    except KeyError:
        raise KeyError(f"{template}: no paper inputs stated (core/profiles.py)") from None


def for_profile(profile: Profile, template: str, variables: Mapping[str, Any]) -> dict[str, Any]:
    """`variables` as `template`'s role reads them under `profile`: all of them under `desk`;
    under `paper`, those its paper's role reads, the rest given empty (so the prompt renders
    without them, never with a stale value)."""
    if profile == "desk":
        return dict(variables)
    reads = paper_role(template).reads
    return {k: (v if k in reads else "") for k, v in variables.items()}


def sampling(profile: Profile, template: str) -> Sampling | None:
    """The generation settings `template`'s paper states, under `paper` (None: the run's)."""
    if profile == "desk":
        return None
    return PAPER_SAMPLING.get(template, PAPER_SAMPLING.get(template.split("/", 1)[0]))
