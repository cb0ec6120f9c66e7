"""The contract every pipeline shares: the `Report` and what it is made of (docs/report.md,
"What you get")."""

from __future__ import annotations

import re
import unicodedata
from datetime import datetime
from enum import StrEnum
from typing import Any, Literal

from pydantic import (
    AliasChoices,
    BaseModel,
    ConfigDict,
    Field,
    field_validator,
    model_validator,
)


def clip(text: str, n: int = 160) -> str:
    """One line of at most `n` characters (progress displays)."""
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def calls_line(recommendations: list[Recommendation]) -> str:
    """`1d LONG 60%, 1w ...` for progress displays."""
    return ", ".join(
        f"{r.horizon.value} {r.position.value} {r.conviction}%" for r in recommendations
    )


class Position(StrEnum):
    LONG = "LONG"
    SHORT = "SHORT"
    NEUTRAL = "NEUTRAL"


class Horizon(StrEnum):
    DAY = "1d"
    WEEK = "1w"
    MONTH = "1m"


HORIZONS: tuple[Horizon, ...] = (Horizon.DAY, Horizon.WEEK, Horizon.MONTH)
HORIZON_LABELS: dict[Horizon, str] = {
    Horizon.DAY: "1 day",
    Horizon.WEEK: "1 week",
    Horizon.MONTH: "1 month",
}


class Recommendation(BaseModel):
    """One horizon's typed call: position, conviction in integer percent, why, and what moves it."""

    model_config = ConfigDict(frozen=True)

    horizon: Horizon
    position: Position
    conviction: int = Field(ge=0, le=100, description="integer percent")
    rationale: str = Field(min_length=1)
    catalysts: list[str] = Field(default_factory=list)


def check_three_horizons(recs: list[Recommendation]) -> list[Recommendation]:
    """Exactly one recommendation per horizon, in 1d, 1w, 1m order; raises ValueError otherwise."""
    horizons = [r.horizon for r in recs]
    if sorted(horizons) != sorted(HORIZONS) or len(horizons) != 3:
        raise ValueError(f"expected exactly the horizons 1d, 1w, 1m once each, got {horizons}")
    order = {h: i for i, h in enumerate(HORIZONS)}
    return sorted(recs, key=lambda r: order[r.horizon])


class Chunk(BaseModel):
    """A transcript passage as indexed: id, where it sits in the call, and its text."""

    model_config = ConfigDict(frozen=True)

    id: str
    section: str
    speaker: str | None = None
    start: int = Field(ge=0, description="character offset into the transcript text")
    end: int = Field(ge=0)
    text: str


class EvidencePassage(BaseModel):
    """A chunk the report relied on, with the retrieval dimensions that surfaced it."""

    chunk_id: str
    section: str
    speaker: str | None
    start: int
    end: int
    text: str
    dimensions: list[str] = Field(default_factory=list)
    score: float | None = None


class NumberCheck(BaseModel):
    """A number stated in the report and whether the transcript (or financials) states it too."""

    text: str
    value: float
    kind: Literal["percent", "money", "plain"]
    grounded: bool
    source_text: str | None = Field(default=None, description="the matching figure in the source")
    origin: Literal["call", "statements", "computed", "market", "consensus", "unsupported"] = Field(
        default="unsupported",
        description="where the figure comes from: stated in the call, stated in the "
        "statements, computed by code from them, market data, the vendor's consensus",
    )
    provenance: str | None = Field(
        default=None,
        description="the detail: the call's span, the statement field and quarter, the formula "
        "and its operands, the series, date and indicator, the consensus field",
    )
    source_index: int | None = Field(
        default=None, description="which source matched: 0 = the transcript, 1 = the financials"
    )
    source_start: int | None = Field(default=None, description="offset of the match in it")
    source_end: int | None = None
    chunk_id: str | None = Field(
        default=None, description="the transcript chunk holding the match (see citations)"
    )
    context: str = ""
    flagged: bool = Field(
        default=False, description="still ungrounded after the fact-check; footnoted"
    )

    @model_validator(mode="before")
    @classmethod
    def _origin_of_older_reports(cls, data: Any) -> Any:
        """Reports stored before provenance: the origin follows from where the figure matched."""
        if isinstance(data, dict) and "origin" not in data and data.get("grounded"):
            return {**data, "origin": "statements" if data.get("source_index") == 1 else "call"}
        return data


class Citation(BaseModel):
    """A place in the report that rests on a transcript passage: the chunk id it cites (written
    `[id]` by the model) or, for a grounded figure, the chunk that states it; resolved to where
    the passage sits in the call so a reader can jump to it."""

    chunk_id: str
    section: str
    speaker: str | None
    start: int = Field(ge=0, description="character offset of the passage in the transcript")
    end: int = Field(ge=0)
    via: Literal["cited", "figure"]
    claim: str = Field(description="the report's words around the citation or the figure")
    figure: str | None = None


class FactCheck(BaseModel):
    """The fact-check step: what was unsupported, whether the one correction was applied, and
    what is still unsupported (footnoted in the Markdown, flagged in `numbers`)."""

    enabled: bool
    checked: int = Field(description="distinct figures checked in the report's prose")
    ungrounded_before: list[str] = Field(default_factory=list)
    correction_attempted: bool = False
    corrected: bool = Field(default=False, description="the model's revision replaced the text")
    still_ungrounded: list[str] = Field(default_factory=list)
    note: str | None = None

    def summary(self) -> str:
        return self.note or f"{self.checked} figure(s) checked, all stated in the call"


class Evidence(BaseModel):
    passages: list[EvidencePassage] = Field(default_factory=list)
    numbers: list[NumberCheck] = Field(default_factory=list)
    citations: list[Citation] = Field(default_factory=list)
    fact_check: FactCheck | None = None


class NodeTrace(BaseModel):
    """What one node did: timing, which model(s), tokens, retries and how it ended."""

    node: str
    started_at: datetime
    ended_at: datetime
    duration_ms: float
    models: list[str] = Field(default_factory=list)
    calls: int = Field(default=0, description="model calls made")
    cached_calls: int = Field(default=0, description="answers served by the LLM cache instead")
    prompt_tokens: int = 0
    completion_tokens: int = 0
    retries: int = 0
    usage: dict[str, tuple[int, int]] = Field(
        default_factory=dict, description="model -> (prompt tokens, completion tokens)"
    )
    outcome: Literal["ok", "degraded", "skipped", "error"] = "ok"
    detail: str | None = None
    summary: str = Field(default="", description="one line on what the node produced")
    cpu_ms: float | None = Field(
        default=None,
        description="CPU time the node spent outside any wait (its steps on the event loop and "
        "the work it handed to threads; a model's latency is a wait, what LangChain does around "
        "the call is not)",
    )


class InjectionHit(BaseModel):
    """A passage of the transcript that reads as an instruction to an AI model."""

    kind: str = Field(
        description="override_instructions | role_change | addressed_to_model | "
        "dictated_recommendation | chat_markup"
    )
    start: int = Field(description="offset in the transcript (Unicode code points)")
    end: int
    excerpt: str


class NodeFailure(BaseModel):
    """A node that could not produce what it must; recorded, never papered over with a default."""

    node: str
    reason: str
    raw_output: str | None = None


class TurnBase(BaseModel):
    """Who spoke, in the one vocabulary of every turn model (a transcript's turn, a debate's,
    a conversation's, an adversarial speech): `speaker`; a model's turn is a `Speech`, and an
    exchange that goes round numbers its turns by `round`. A plain transcript's turn has no
    speaker."""

    model_config = ConfigDict(frozen=True)

    speaker: str | None


class Speech(TurnBase):
    """A turn a model wrote: who spoke, which model wrote it, what it said."""

    speaker: str
    model: str
    text: str

    def summary(self) -> str:
        return f"{self.speaker}: " + clip(self.text, 140)


class DebateTurn(Speech):
    """A turn of findebate's safe debate. `speaker` was `agent` (reports and checkpoints
    written before read as they were)."""

    speaker: Literal["trust", "skeptic", "leader"] = Field(
        validation_alias=AliasChoices("speaker", "agent")
    )
    round: int = 1


class RevertDecision(BaseModel):
    """The safe-debate guard's verdict: was the leader's report kept, and why or why not."""

    reverted: bool
    reasons: list[str] = Field(default_factory=list)
    round: int = 1

    def summary(self) -> str:
        if self.reverted:
            return "revert: " + "; ".join(self.reasons)
        return "accept: recommendations preserved"


class DebateLog(BaseModel):
    turns: list[DebateTurn] = Field(default_factory=list)
    decision: RevertDecision | None = None
    skipped_reason: str | None = None


_BIDI = dict.fromkeys(
    [0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)], None
)


def without_bidi(text: str) -> str:
    """Text with its bidirectional controls (U+202E ...) removed: quoted in a report, a cell or
    a file, it displays in the order it was written."""
    return text.translate(_BIDI)


def plain_line(text: str | None) -> str | None:
    """Metadata as single-line plain text: bidirectional controls (e.g. U+202E) and other
    control or format characters removed, every run of whitespace one space; empty -> None."""
    if text is None:
        return None
    text = text.translate(_BIDI)
    text = "".join(
        " " if ch.isspace() else ch
        for ch in text
        if ch.isspace() or unicodedata.category(ch) not in ("Cc", "Cf")
    )
    return " ".join(text.split()) or None


def markdown_text(text: str) -> str:
    """Plain text as Markdown that renders as itself (no headings, links, emphasis, HTML, nor
    bidirectional controls that display it reversed)."""
    return re.sub(r"([\\`*_\[\]<>#|~])", r"\\\1", without_bidi(text))


class CallInfo(BaseModel):
    """What the caller told us about the call (all optional): single-line plain text."""

    model_config = ConfigDict(frozen=True)

    company: str | None = None
    ticker: str | None = None
    period: str | None = None

    @field_validator("company", "ticker", "period")
    @classmethod
    def _plain(cls, value: str | None) -> str | None:
        return plain_line(value)


RunStatus = Literal["succeeded", "degraded"]


# -- call facts: written by code from the transcript, no model ---------------------------------

Direction = Literal["raised", "lowered", "reaffirmed", "introduced", "withdrawn"]


class ToneScore(BaseModel):
    group: str = Field(description="whole call, prepared remarks, Q&A, management, analysts")
    words: int
    positive: int
    negative: int
    uncertainty: int
    net_tone: float = Field(description="(positive - negative) / (positive + negative), -1..1")
    uncertainty_per_1k: float = Field(description="uncertainty words per 1,000 words")


class TonePassage(BaseModel):
    text: str
    speaker: str | None
    start: int
    end: int
    score: int = Field(description="positive minus negative words")


class ToneReport(BaseModel):
    lexicon: str = "Loughran-McDonald word lists"
    groups: list[ToneScore]
    most_positive: list[TonePassage]
    most_negative: list[TonePassage]


Role = Literal["result", "comparison", "change"]
Basis = Literal["gaap", "adjusted", "organic", "constant_currency"]


class StatedFigure(BaseModel):
    """A figure stated with a key figure: its change ("up 9%") or what it is compared with
    ("from $81 million in the second quarter of 2020"), with its own role and period."""

    role: Role
    text: str = Field(description="as stated, e.g. 9% or $81 million")
    value: float = Field(description="signed, normalised: a decline is negative")
    unit: Literal["money", "percent", "bps", "number"]
    basis: Basis | None = Field(default=None, description="organic, adjusted... as stated")
    period: str | None = Field(default=None, description="for a comparison: its period")
    start: int
    end: int
    rules: dict[str, str] = Field(
        default_factory=dict,
        description="the named rule that decided each field (metric, role, sign, segment, basis, "
        "period, direction): `python -m bench.facts --explain ID` prints them",
    )


class KeyFigure(BaseModel):
    """One headline figure the call states, attributed by the words bound to it."""

    metric: str = Field(description="what it measures, e.g. revenue, eps, net_income")
    label: str = Field(description="for a reader, e.g. Adjusted EPS, Journeys revenue")
    text: str = Field(description="the figure as stated, e.g. $1.73")
    value: float = Field(
        description="signed, normalised: units (money, counts) or percent points; a loss or a "
        "decline is negative"
    )
    kind: Literal["percent", "money", "plain"]
    unit: Literal["money", "percent", "bps", "number"] = "money"
    role: Literal["result", "change"] = Field(
        default="result", description="the period's own level, or a change when only that is stated"
    )
    basis: Basis | None = Field(default=None, description="adjusted, GAAP, organic... as stated")
    segment: str | None = Field(default=None, description="the part of the company; None: all")
    period: str | None = Field(default=None, description="e.g. Q3 2021, FY 2021 (fiscal)")
    change: StatedFigure | None = Field(default=None, description="the change stated with it")
    prior: StatedFigure | None = Field(default=None, description="the figure it is compared with")
    comparison: str | None = Field(
        default=None, description="the change and comparison as the call states them"
    )
    speaker: str | None = None
    section: str
    start: int = Field(description="character span of the figure in the transcript")
    end: int
    sentence: str = Field(description="the quote: the sentence that states it (the quote wins)")
    salience: float = Field(description="rank score: metric weight, position, company-wide")
    filing: str | None = Field(
        default=None,
        description="checked against the filed value of its metric, basis and period (core/"
        "filing.py): 'matches the filing (...)' or 'differs from the filing (filed: X; ...)'; "
        "None when no filed value was comparable. The figure itself is never corrected",
    )
    rules: dict[str, str] = Field(
        default_factory=dict,
        description="the named rule that decided each field (metric, role, sign, segment, basis, "
        "period, direction): `python -m bench.facts --explain ID` prints them",
    )
    weak_rules: list[str] = Field(
        default_factory=list,
        description="the rules that decided this row whose measured precision is below the "
        "threshold (core/facts/rule_precision.json): empty for a verified row; a row with any "
        "is listed under the call facts' `unconfirmed_*` lists, never as a verified figure",
    )


class GuidanceItem(BaseModel):
    """A forward-looking figure, range or worded range ("low teens") the call states."""

    metric: str
    label: str
    text: str = Field(description='as stated, e.g. "$6.15 billion to $6.21 billion"')
    low: float | None
    high: float | None
    kind: Literal["percent", "money", "plain"]
    unit: Literal["money", "percent", "bps", "number"] = "money"
    role: Literal["result", "change"] = Field(
        default="result", description="a level (EPS of $5.10) or a growth rate (revenue +5-7%)"
    )
    basis: Basis | None = None
    segment: str | None = None
    qualitative: bool = Field(default=False, description="stated in words, bounds approximate")
    period: str | None = None
    direction: Direction | None = Field(
        default=None, description="only when the call states it about this item"
    )
    speaker: str | None = None
    section: str
    start: int
    end: int
    sentence: str
    rules: dict[str, str] = Field(
        default_factory=dict,
        description="the named rule that decided each field (metric, role, sign, segment, basis, "
        "period, direction): `python -m bench.facts --explain ID` prints them",
    )
    weak_rules: list[str] = Field(
        default_factory=list,
        description="the rules that decided this row whose measured precision is below the "
        "threshold (core/facts/rule_precision.json): empty for a verified row; a row with any "
        "is listed under the call facts' `unconfirmed_*` lists, never as a verified figure",
    )


# -- a company's track record (issue 40; built by core/memory.py) -------------------------------

Delivered = Literal["beat", "met", "missed", "not reported"]
Revision = Literal["raised", "lowered", "maintained", "narrowed", "widened", "new", "dropped"]


class DeliveredRow(BaseModel):
    metric: str
    basis: str | None
    role: str
    period: str
    guided: str = Field(description="the outlook as the earlier call stated it")
    guided_in: str = Field(description="the earlier call's id")
    guided_period: str = Field(description="the period of the call that gave the outlook")
    guided_quote: str
    actual: str | None
    actual_quote: str | None
    verdict: Delivered
    by: float | None = Field(default=None, description="how far above (+) or below (-) the "
                             "range's nearest end, in the figure's unit")  # fmt: skip


class RevisionRow(BaseModel):
    metric: str
    basis: str | None
    role: str
    period: str
    earlier: str | None
    earlier_in: str | None
    earlier_quote: str | None
    now: str | None
    now_quote: str | None
    verdict: Revision
    call_says: str | None = Field(default=None, description="the direction word the call uses")
    disagrees: bool = Field(default=False, description="the call's word and the numbers differ")


class TrendRow(BaseModel):
    metric: str
    basis: str | None
    values: dict[str, str] = Field(description="period -> the figure as stated")


class TrackRecord(BaseModel):
    """The report's section on the company's earlier calls, built by code."""

    company: str | None
    earlier_calls: int
    periods: list[str]
    delivered: list[DeliveredRow] = Field(default_factory=list)
    revisions: list[RevisionRow] = Field(default_factory=list)
    trend: list[TrendRow] = Field(default_factory=list)


class CallIdentityFacts(BaseModel):
    """Who and what the call is, read from the call (a user's company/ticker/period win)."""

    company: str | None = None
    ticker: str | None = None
    period: str | None = Field(default=None, description="the fiscal period reported, e.g. Q1 2022")
    call_date: str | None = None
    adjusted_by_default: bool = Field(
        default=False, description="the call says its figures are adjusted unless noted"
    )


class QaQuestion(BaseModel):
    asker: str | None
    text: str
    start: int
    end: int
    answered_with_figure: bool = Field(
        description="the management answer that follows states a figure"
    )


class QaTheme(BaseModel):
    topic: str = Field(description="the theme's most telling words")
    questions: list[QaQuestion]


class Highlight(BaseModel):
    """A telegram-style bullet (ECTSum's style) built from a key figure or guidance row."""

    text: str
    source: Literal["key_figure", "guidance"]
    spans: list[tuple[int, int]] = Field(description="where its figures stand in the transcript")


class CallFacts(BaseModel):
    """The call's facts, built by code; every figure traceable to its span."""

    call: CallIdentityFacts = Field(default_factory=CallIdentityFacts)
    key_figures: list[KeyFigure] = Field(
        default_factory=list, description="verified: every rule that decided the row has earned it"
    )
    guidance: list[GuidanceItem] = Field(
        default_factory=list, description="verified: every rule that decided the row has earned it"
    )
    unconfirmed_key_figures: list[KeyFigure] = Field(
        default_factory=list,
        description="read by code, unconfirmed: rows a rule below the precision threshold decided "
        "(each names its `weak_rules`); shown apart, never used as verified data",
    )
    unconfirmed_guidance: list[GuidanceItem] = Field(
        default_factory=list, description="as `unconfirmed_key_figures`, for guidance"
    )
    tone: ToneReport | None = None
    qa_themes: list[QaTheme] = Field(default_factory=list)
    highlights: list[Highlight] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list, description="what was not found, and why")


class Report(BaseModel):
    """One report shape for every pipeline."""

    pipeline: str
    status: RunStatus
    created_at: datetime
    call: CallInfo = Field(default_factory=CallInfo)
    transcript_sha256: str
    markdown: str
    recommendations: list[Recommendation] = Field(
        default_factory=list,
        description="exactly 1d, 1w, 1m when status is succeeded; empty when the parse failed",
    )
    facts: CallFacts | None = Field(
        default=None,
        description="call facts computed from the transcript by code (no model): key figures, "
        "guidance, tone, Q&A themes, highlights",
    )
    track_record: TrackRecord | None = Field(
        default=None,
        description="the company's earlier stored calls read against this one, by code: "
        "guidance against what was delivered, against the previous call's, the key lines",
    )
    appendix: str | None = Field(
        default=None,
        description="sections written by code (call facts, consensus) kept out of `markdown` "
        "where the pipeline's paper fixes the report's format (SI4Fin's five sections, SAS's "
        "memo), so that format can be checked on its own; a separate block of the page and PDF",
    )
    failures: list[NodeFailure] = Field(default_factory=list)
    evidence: Evidence = Field(default_factory=Evidence)
    trace: list[NodeTrace] = Field(default_factory=list)
    debate: DebateLog | None = None
    models: dict[str, str] = Field(
        default_factory=dict, description="node -> model that wrote that part"
    )
    model_note: str | None = Field(
        default=None, description="caveat about the model(s) used, e.g. the bundled 135M model"
    )
    notes: list[str] = Field(default_factory=list)
    injections: list[InjectionHit] = Field(
        default_factory=list,
        description="passages of the call addressed to an AI model (reported, never obeyed)",
    )
    extras: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _recommendations_consistent(self) -> Report:
        if self.recommendations:
            self.recommendations = check_three_horizons(self.recommendations)
        if self.status == "succeeded" and not self.recommendations:
            raise ValueError("a succeeded report must carry the three recommendations")
        if self.status == "degraded" and not self.failures:
            raise ValueError("a degraded report must say which node failed and why")
        return self

    @property
    def tokens(self) -> dict[str, int]:
        prompt = sum(t.prompt_tokens for t in self.trace)
        completion = sum(t.completion_tokens for t in self.trace)
        return {"prompt": prompt, "completion": completion, "total": prompt + completion}
