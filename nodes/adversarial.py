"""adversarial (seed 004): a CIO briefing from three parallel analysts (the market one reads a
scorecard computed in code), a five-act Bull / Bear debate moderated by a Devil's Advocate who
presses only unconvincing rebuttals, then Judge -> Stress analyst -> Lead analyst.

Structured outputs (cross-examination, rebuttal assessment, verdict) are parsed and validated
with retries; when one never parses the run records the failure and goes on without it (no
default winner, no invented challenge), so the report ends `degraded`."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from langgraph.runtime import Runtime
from pydantic import BaseModel, ConfigDict

from core.chunking import iter_sentences
from core.context import RunContext
from core.contract import Speech
from core.judging import Challenges, RebuttalAssessment, Verdict
from core.llm.window import Fit, recent_fit
from core.market import scorecard
from core.roles import Role, roles
from core.state import Analysis, PipelineState
from nodes.calls import ask, say
from nodes.facts import verified
from nodes.parsing import unparseable, write_draft
from nodes.tracing import NodeFn, traced

ROLES = roles(
    Role("factual_analyst", remote=1500, local=250),
    Role("behavioral_analyst", remote=1500, local=250),
    Role("market_analyst", remote=600, local=200),
    Role("bull", remote=1200, local=200),
    Role("bear", remote=1200, local=200),
    Role("devils_advocate", remote=1000, local=300),
    Role("judge", remote=800, local=250),
    Role("stress_analyst", remote=150, local=60),
    Role("lead_analyst", remote=1600, local=1000),
)


class Argument(Speech):
    """One speech in the adversarial debate: `speaker` one of SPEAKER_ORDER, `act` one of
    DEBATE_ORDER (its acts, not rounds, order it)."""

    act: str


DEBATE_ORDER: tuple[str, ...] = (
    "opening", "cross_examination", "rebuttal", "assessment", "press", "closing", "verdict",
    "weakest_link",
)  # fmt: skip
SPEAKER_ORDER: tuple[str, ...] = ("bull", "bear", "devils_advocate", "judge", "stress_analyst")


def in_debate_order(left: list[Argument], right: list[Argument]) -> list[Argument]:
    """Reducer: speeches written in parallel (Bull and Bear) land in one fixed order, acts
    first, then Bull before Bear, so every later prompt reads the same history."""

    def key(a: Argument) -> tuple[int, int]:
        return DEBATE_ORDER.index(a.act), SPEAKER_ORDER.index(a.speaker)

    return sorted([*left, *right], key=key)


class LeadCheck(BaseModel):
    """Do the Lead's positions side with the Judge's verdict? (a code check, like findebate's
    integrity check): a report with no horizon on the winner's side and at least one against
    it contradicts the verdict; it is revised once, and a contradiction that remains is
    reported."""

    model_config = ConfigDict(frozen=True)

    consistent: bool
    reason: str = ""
    revisions: int = 0

    def summary(self) -> str:
        if self.consistent:
            return "positions consistent with the verdict" + (
                " after one revision" if self.revisions else ""
            )
        return self.reason


def verdict_conflict(verdict: Verdict | None, positions: list[str]) -> str:
    """Why the positions contradict the verdict ("" when they do not, or there is none)."""
    if verdict is None or not positions:
        return ""
    side, against = ("LONG", "SHORT") if verdict.winner == "Bull" else ("SHORT", "LONG")
    if side in positions or against not in positions:
        return ""
    return (
        f"the Judge's verdict is {verdict.winner}, but the report's positions are "
        f"{'/'.join(positions)} (1 day/1 week/1 month): none is {side}"
    )


class AdversarialState(PipelineState, total=False):
    """adversarial (seed 004): the CIO briefing, every speech, the parsed cross-examination,
    rebuttal assessment and verdict (None when unparseable), the stress test."""

    briefing: str
    arguments: Annotated[list[Argument], in_debate_order]
    challenges: Challenges | None
    assessment: RebuttalAssessment | None
    verdict: Verdict | None
    stress: str
    lead_check: LeadCheck
    system: str  # the SAS system this run builds: S1-S3 ablations, S4 the full framework


Side = Literal["bull", "bear"]
SIDES: tuple[Side, ...] = ("bull", "bear")
Act = Literal["opening", "rebuttal", "press", "closing"]
BriefingRole = Literal["factual_analyst", "behavioral_analyst", "market_analyst"]
BRIEFING: tuple[BriefingRole, ...] = ("factual_analyst", "behavioral_analyst", "market_analyst")
BRIEFING_TITLES = {
    "factual_analyst": "Facts and figures stated on the call",
    "behavioral_analyst": "Management's communication",
    "market_analyst": "Market setup before the call",
}
LEAD_SECTIONS: tuple[str, ...] = (
    "Introduction & Executive Summary",
    "Quarterly Performance Review",
    "Key Analytical Takeaways",
    "Primary Risk & Mitigation",
    "Forward Outlook & Catalysts",
)
NO_MARKET_DATA = (
    "No market data was supplied for this call (no `prices`), so there is no market scorecard: "
    "momentum, trend, relative strength, volatility and beta are unknown and this briefing "
    "rests on the call alone."
)
_DEBATE_WORDS = re.compile(
    r"\b(debate|bull|bear|devil'?s advocate|judge|rebuttal|cross-examination)\b", re.IGNORECASE
)
Press = Literal["bull_press", "bear_press", "bull_closing", "bear_closing"]


# -- phase 1: the CIO briefing ---------------------------------------------------------------------


@traced("plan")
async def plan(state: AdversarialState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """Record which SAS system runs (option `sas_system`): S4 the full framework; S1-S3 the
    paper's ablations."""
    system = runtime.context.options.sas_system
    update: dict[str, Any] = {"system": system}
    if system != "S4":
        update["notes"] = [f"adversarial: ablation {system} ({SYSTEMS[system]})"]
    return update


SYSTEMS: dict[str, str] = {
    "S1": "single agent: the Lead analyst on the raw call and market data",
    "S2": "cooperative: briefing, then the Lead analyst, no debate",
    "S3": "unstructured adversarial: one-shot Bull/Bear openings, no press-the-weakness",
    "S4": "the full framework",
}


def route_system(state: AdversarialState) -> list[str]:
    """S1 goes straight to the Lead; every other system starts with the briefing."""
    return ["lead_analyst"] if state.get("system") == "S1" else list(BRIEFING)


def route_after_briefing(state: AdversarialState) -> list[str]:
    """S2 hands the briefing to the Lead; S3 and S4 debate it."""
    return ["lead_analyst"] if state.get("system") == "S2" else ["bull_opening", "bear_opening"]


def route_after_openings(state: AdversarialState) -> Literal["devils_advocate", "judge"]:
    """S3 judges the openings alone; S4 cross-examines them."""
    return "judge" if state.get("system") == "S3" else "devils_advocate"


def make_transcript_analyst(role: BriefingRole) -> NodeFn[AdversarialState]:
    """The factual or behavioural analyst: reads the call, writes one briefing section."""

    @traced(role)
    async def analyst(state: AdversarialState, runtime: Runtime[RunContext]) -> dict[str, Any]:
        ctx = runtime.context
        text, model = await say(
            ctx, role, f"adversarial/{role}", **verified(state),
            call=state["call"], transcript=await ctx.call_text(state["transcript"]),
        )  # fmt: skip
        return {"analyses": {role: Analysis(role=role, model=model, text=text)}}

    return analyst


@traced("market_analyst")
async def market_analyst(state: AdversarialState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """Interprets the scorecard computed in code; without prices it says so (no model call)."""
    prices = state.get("prices")
    if prices is None:
        return {
            "analyses": {
                "market_analyst": Analysis(role="market_analyst", model="none", text=NO_MARKET_DATA)
            },
            "notes": ["market_analyst: no prices supplied; the briefing says there is no market "
                      "data"],
        }  # fmt: skip
    card = scorecard(prices)
    text, model = await say(
        runtime.context, "market_analyst", "adversarial/market_analyst", **verified(state),
        scorecard=card.model_dump_json(indent=1, exclude={"unavailable"}),
        unavailable=card.unavailable,
    )  # fmt: skip
    return {"analyses": {"market_analyst": Analysis(role="market_analyst", model=model, text=text)}}


@traced("briefing")
async def briefing(state: AdversarialState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """The three analyses as one CIO briefing: the debaters' only source."""
    analyses = state["analyses"]
    parts = [f"### {BRIEFING_TITLES[r]}\n{analyses[r].text.strip()}" for r in BRIEFING]
    return {"briefing": "\n\n".join(parts)}


# -- phase 2: the five-act debate ---------------------------------------------------------------


def history(arguments: list[Argument]) -> Fit:
    """The debate so far: whole when the model's window holds it, else the newest speeches."""
    blocks = [
        f"### {a.speaker.replace('_', ' ').title()}, {a.act.replace('_', ' ')}\n{a.text.strip()}"
        for a in arguments
    ]
    return recent_fit(blocks, label="debate history")


def make_advocate(side: Side, act: Act) -> NodeFn[AdversarialState]:
    """One speech by the Bull or the Bear: opening, rebuttal, answer to a press, or closing."""
    name = f"{side}_{act}"

    @traced(name)
    async def speak(state: AdversarialState, runtime: Runtime[RunContext]) -> dict[str, Any]:
        ctx = runtime.context
        challenges = state.get("challenges")
        assessment = state.get("assessment")
        # the CIO briefing is their sole source (SAS): no call facts; closings are symmetric,
        # neither side reads the other's closing
        file = case_file(state, facts=False)
        if act == "closing":
            file["history"] = history([a for a in state.get("arguments", []) if a.act != "closing"])
        text, model = await say(
            ctx, side, f"adversarial/{side}", **file,
            act=act,
            own_challenges=getattr(challenges, f"challenges_to_{side}") if challenges else [],
            question=assessment.press(side) if assessment else None,
        )  # fmt: skip
        return {"arguments": [Argument(speaker=side, act=act, model=model, text=text)]}

    return speak


def case_file(state: AdversarialState, *, facts: bool = True) -> dict[str, Any]:
    """What every speaker after the briefing reads first, in one order (prompts/adversarial/
    _case.md.j2): the call's identity and facts (unless `facts=False`), the briefing, the
    arguments so far."""
    return {
        **(verified(state) if facts else {}),
        "call": state["call"],
        "briefing": state["briefing"],
        "history": history(state.get("arguments", [])),
    }


@traced("devils_advocate")
async def devils_advocate(state: AdversarialState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """Act II: one to three challenges to each opening, as validated JSON."""
    ctx = runtime.context
    result, model = await ask(
        ctx, "devils_advocate", Challenges, "adversarial/devils_advocate", **case_file(state),
    )  # fmt: skip
    if result.value is None:
        return {
            "challenges": None,
            "failures": [unparseable("devils_advocate", "cross-examination", result)],
            "notes": ["adversarial: no parseable cross-examination, so rebuttals and press were "
                      "skipped and the debate went to closings"],
        }  # fmt: skip
    c = result.value
    text = "\n".join(
        [*(f"To the Bull: {q}" for q in c.challenges_to_bull),
         *(f"To the Bear: {q}" for q in c.challenges_to_bear)]
    )  # fmt: skip
    speech = Argument(speaker="devils_advocate", act="cross_examination", model=model, text=text)
    return {"challenges": c, "arguments": [speech]}


def route_cross_examination(
    state: AdversarialState,
) -> list[Literal["bull_rebuttal", "bear_rebuttal", "bull_closing", "bear_closing"]]:
    if state.get("challenges") is None:
        return ["bull_closing", "bear_closing"]
    return ["bull_rebuttal", "bear_rebuttal"]


@traced("assess_rebuttals")
async def assess_rebuttals(state: AdversarialState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """Act IV's gate: the Devil's Advocate judges each rebuttal and words a press if needed."""
    ctx = runtime.context
    result, model = await ask(
        ctx, "devils_advocate", RebuttalAssessment, "adversarial/assess_rebuttals",
        **case_file(state), challenges=state["challenges"],
    )  # fmt: skip
    if result.value is None:
        return {
            "assessment": None,
            "failures": [unparseable("assess_rebuttals", "rebuttal assessment", result)],
            "notes": ["adversarial: the rebuttal assessment never parsed, so no press was asked"],
        }
    a = result.value
    pressed = [s for s in SIDES if a.press(s)]
    text = "; ".join(
        f"{s.title()}: " + (f"unconvincing, pressed: {a.press(s)}" if a.press(s) else "convincing")
        for s in SIDES
    )
    return {
        "assessment": a,
        "arguments": [Argument(speaker="devils_advocate", act="assessment", model=model,
                               text=text)],
        "notes": [f"adversarial: press asked of {', '.join(pressed)}" if pressed
                  else "adversarial: both rebuttals convincing; no press"],
    }  # fmt: skip


_AFTER_REBUTTAL: dict[Side, tuple[Press, Press]] = {
    "bull": ("bull_press", "bull_closing"),
    "bear": ("bear_press", "bear_closing"),
}


def route_press(state: AdversarialState) -> list[Press]:
    """A press only for a side whose rebuttal was judged unconvincing; the other closes."""
    assessment = state.get("assessment")
    return [
        _AFTER_REBUTTAL[side][0 if assessment and assessment.press(side) else 1] for side in SIDES
    ]


# -- phase 3: judge, stress test, lead analyst --------------------------------------------------


@traced("judge")
async def judge(state: AdversarialState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """The winner as validated JSON; never a default winner when it does not parse."""
    ctx = runtime.context
    result, model = await ask(
        ctx, "judge", Verdict, "adversarial/judge", **case_file(state),
    )  # fmt: skip
    if result.value is None:
        return {
            "verdict": None,
            "failures": [unparseable("judge", "verdict", result)],
            "notes": ["adversarial: the judge's verdict never parsed; no winner was declared"],
        }
    v = result.value
    speech = Argument(speaker="judge", act="verdict", model=model,
                      text=f"Winner: {v.winner}. {v.justification}")  # fmt: skip
    return {"verdict": v, "arguments": [speech]}


@traced("stress_analyst")
async def stress_analyst(state: AdversarialState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """The weakest link of the winning thesis, in one sentence (the first is kept if more)."""
    ctx = runtime.context
    verdict = state.get("verdict")
    # the paper's Red Team "receives the winning thesis": the winner's own speeches
    side = verdict.winner.lower() if verdict else None
    speeches = [a for a in state.get("arguments", []) if a.speaker in ((side,) if side else SIDES)]
    text, model = await say(
        ctx, "stress_analyst", "adversarial/stress_analyst",
        call=state["call"], thesis=history(speeches),
        winner=verdict.winner if verdict else "(no verdict: the stronger)",
        decision=f"{verdict.winner}: {verdict.justification}" if verdict else "No verdict parsed.",
    )  # fmt: skip
    text = text.strip()
    sentences = [text[a:b] for a, b in iter_sentences(text) if text[a:b].strip()]
    notes = []
    if len(sentences) > 1:
        notes.append(f"stress_analyst: wrote {len(sentences)} sentences; the first is kept")
    sentence = sentences[0].strip() if sentences else text
    speech = Argument(speaker="stress_analyst", act="weakest_link", model=model,
                      text=sentence)  # fmt: skip
    return {"stress": sentence, "arguments": [speech], "notes": notes}


def lead_checks(markdown: str) -> list[str]:
    """Length, the five sections in order, and no trace of the debate: notes when unmet."""
    notes = []
    body = markdown.split("## Multi-Timeframe Investment Strategy")[0]
    words = len(body.split())
    if not 700 <= words <= 800:
        notes.append(f"lead_analyst: the report body has {words} words (asked 700-800)")
    positions = []
    for title in LEAD_SECTIONS:
        m = re.search(rf"^#+\s*\**\s*{re.escape(title)}", markdown, re.MULTILINE | re.IGNORECASE)
        positions.append(m.start() if m else -1)
    if -1 in positions or positions != sorted(positions):
        missing = [t for t, p in zip(LEAD_SECTIONS, positions, strict=True) if p == -1]
        notes.append(
            "lead_analyst: the five sections are not all present in order"
            + (f" (missing: {', '.join(missing)})" if missing else "")
        )
    mentions = sorted({m.group(0).lower() for m in _DEBATE_WORDS.finditer(markdown)})
    if mentions:
        notes.append(f"lead_analyst: the report mentions the debate ({', '.join(mentions)})")
    return notes


@traced("lead_analyst")
async def lead_analyst(state: AdversarialState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """The report in one analyst's voice, adopting the winner, centred on the weakest link;
    then the shared recommendation block is parsed from it. Asked again once (with the reason)
    when its positions contradicted the verdict."""
    ctx = runtime.context
    check = state.get("lead_check")
    arguments = state.get("arguments", [])
    if state.get("system") == "S1":  # one agent: the raw call and the market data
        card = scorecard(p) if (p := state.get("prices")) else None
        market = card.model_dump_json(indent=1, exclude={"unavailable"}) if card else NO_MARKET_DATA
        sources: dict[str, Any] = {
            "transcript": await ctx.call_text(state["transcript"]),
            "briefing": "(none: read the call above)",
        }
    else:
        sources, market = {"briefing": state["briefing"]}, ""
    draft, parsed = await write_draft(
        ctx, "lead_analyst", "lead_analyst", "adversarial/lead_analyst", **verified(state),
        call=state["call"],
        **sources,
        market=market,
        history=history(arguments),
        verdict=state.get("verdict"),
        stress=state.get("stress", ""),
        conflict=check.reason if check is not None and not check.consistent else "",
    )  # fmt: skip
    extras = {
        "adversarial": {
            "system": state.get("system", "S4"),
            "briefing": {
                r: a.model_dump(mode="json") for r, a in state.get("analyses", {}).items()
            },
            "debate": [a.model_dump(mode="json") for a in arguments],
            "challenges": c.model_dump() if (c := state.get("challenges")) else None,
            "assessment": a.model_dump() if (a := state.get("assessment")) else None,
            "press_asked": [s.speaker for s in arguments if s.act == "press"],
            "verdict": v.model_dump() if (v := state.get("verdict")) else None,
            "weakest_link": state.get("stress"),
        }
    }
    update: dict[str, Any] = {
        "draft": draft,
        "extras": extras,
        "notes": lead_checks(draft.markdown),
    }
    if not parsed.ok:
        update["failures"] = [unparseable("lead_analyst", "recommendations", parsed)]
    return update


@traced("verdict_check")
async def verdict_check(state: AdversarialState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """Compare the Lead's positions with the Judge's verdict (no model involved)."""
    before = state.get("lead_check")
    revisions = 0 if before is None else before.revisions + (0 if before.consistent else 1)
    positions = [r.position.value for r in state["draft"].recommendations or []]
    reason = verdict_conflict(state.get("verdict"), positions)
    check = LeadCheck(consistent=not reason, reason=reason, revisions=revisions)
    update: dict[str, Any] = {
        "lead_check": check,
        "extras": {"verdict_check": check.model_dump()},
    }
    if reason and revisions >= 1:
        update["notes"] = [f"verdict_check: still inconsistent after one revision: {reason}"]
    elif not reason and revisions:
        update["notes"] = ["verdict_check: the report was revised once to match the verdict"]
    return update


def route_verdict(state: AdversarialState) -> Literal["revise", "done"]:
    """A contradiction is sent back to the Lead once; after that it is reported."""
    check = state["lead_check"]
    return "revise" if not check.consistent and check.revisions == 0 else "done"
