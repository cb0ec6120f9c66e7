"""Structured outputs of the judging and cross-examining agents: the five weighted report metrics
(writer_feedback's ensemble judge, seed 001), the Devil's Advocate's challenges and press, and the
debate Judge's verdict (adversarial, seed 004). Bounds are enums / lengths so grammar-constrained
decoding enforces them on small models; values are validated again here."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, Field

# Seed 001's overall grade: 0.25 accuracy + 0.20 depth + 0.20 recommendation + 0.15 structure
# + 0.20 coverage, each metric scored 1-5.
GRADE_WEIGHTS: dict[str, float] = {
    "content_accuracy": 0.25,
    "analytical_depth": 0.20,
    "investment_recommendation": 0.20,
    "structure_clarity": 0.15,
    "comprehensive_coverage": 0.20,
}


class Rubric(BaseModel):
    """A judge's grade: integer scores on named criteria and one summary figure."""

    CRITERIA: ClassVar[tuple[str, ...]] = ()

    def scores(self) -> dict[str, int]:
        return {name: getattr(self, name) for name in self.CRITERIA}

    def summary_score(self) -> float:
        """The criteria's mean (a rubric with weights overrides it)."""
        return round(sum(self.scores().values()) / len(self.CRITERIA), 3)


_SCORE: dict[str, Any] = {"enum": [1, 2, 3, 4, 5]}
Score = Annotated[int, Field(ge=1, le=5, json_schema_extra=_SCORE)]


class ReportGrade(Rubric):
    """Grade one analyst report on the five weighted metrics, each 1 (poor) to 5 (excellent)."""

    CRITERIA: ClassVar[tuple[str, ...]] = tuple(GRADE_WEIGHTS)

    content_accuracy: Score = Field(description="figures and statements faithful to the call")
    analytical_depth: Score = Field(description="interpretation beyond restating the call")
    investment_recommendation: Score = Field(description="clear, supported, with catalysts")
    structure_clarity: Score = Field(description="organisation, tone, readability")
    comprehensive_coverage: Score = Field(description="material topics, Q&A, guidance, risks")
    comment: str = Field(max_length=400, description="one or two sentences on the main weakness")

    def overall(self) -> float:
        """Weighted grade on the 1-5 scale."""
        return round(sum(GRADE_WEIGHTS[k] * v for k, v in self.scores().items()), 3)

    def summary_score(self) -> float:
        return self.overall()

    def flags(self) -> list[str]:
        """The Jetsons judge's quality-assurance flags, by its rules (code, not the model):
        Critical: content accuracy below 2; Warning: any metric below 2; Review: metrics more
        than 2 points apart."""
        scores = self.scores()
        out = []
        if scores["content_accuracy"] < 2:
            out.append("Critical: content accuracy below 2")
        low = [k for k, v in scores.items() if v < 2]
        if low:
            out.append(f"Warning: {', '.join(low)} below 2")
        if max(scores.values()) - min(scores.values()) > 2:
            out.append("Review: metric scores more than 2 points apart")
        return out

    def band(self) -> str:
        """The Jetsons' overall rating band."""
        o = self.overall()
        for floor, name in ((4.5, "Exceptional"), (3.5, "Strong"), (2.5, "Adequate"),
                            (1.5, "Needs significant improvement")):  # fmt: skip
            if o >= floor:
                return name
        return "Poor"


class Challenges(BaseModel):
    """The Devil's Advocate's cross-examination: the weakest assumptions of each opening."""

    challenges_to_bull: list[Annotated[str, Field(min_length=10, max_length=400)]] = Field(
        min_length=1, max_length=3, description="1-3 pointed questions to the Bull"
    )
    challenges_to_bear: list[Annotated[str, Field(min_length=10, max_length=400)]] = Field(
        min_length=1, max_length=3, description="1-3 pointed questions to the Bear"
    )


_QUESTION = Field(
    min_length=10,
    max_length=400,
    description="the one pointed question you press if the rebuttal is unconvincing",
)


class RebuttalAssessment(BaseModel):
    """The Devil's Advocate's view of each rebuttal. A follow-up is always worded (so a grammar
    can enforce it) but only asked where the rebuttal is judged unconvincing."""

    bull_convincing: bool = Field(description="did the Bull's rebuttal answer the challenges?")
    bull_follow_up: str = _QUESTION
    bear_convincing: bool = Field(description="did the Bear's rebuttal answer the challenges?")
    bear_follow_up: str = _QUESTION

    def press(self, side: Literal["bull", "bear"]) -> str | None:
        """The follow-up question for `side`, or None when its rebuttal convinced."""
        if getattr(self, f"{side}_convincing"):
            return None
        question: str = getattr(self, f"{side}_follow_up").strip()
        return question


class Verdict(BaseModel):
    """The debate Judge's decision, grounded in the debate only."""

    winner: Literal["Bull", "Bear"] = Field(description="the side that argued better")
    justification: str = Field(
        min_length=20, max_length=800, description="two to four sentences citing the debate"
    )


# FinDebate's LLM-judge rubric (seed 000, Appendix E): textual quality and financial analysis
# professionalism, eight dimensions, each 1 (poor) to 4 (excellent).
FINDEBATE_DIMENSIONS: tuple[str, ...] = (
    "readability",
    "linguistic_abstractness",
    "coherence",
    "key_point_coverage",
    "background_context",
    "management_sentiment",
    "future_outlook",
    "factual_accuracy",
)
_FOUR: dict[str, Any] = {"enum": [1, 2, 3, 4]}
Four = Annotated[int, Field(ge=1, le=4, json_schema_extra=_FOUR)]


class FinDebateGrade(Rubric):
    """Grade one analyst report on FinDebate's eight dimensions, each 1 (poor) to 4 (excellent)."""

    CRITERIA: ClassVar[tuple[str, ...]] = FINDEBATE_DIMENSIONS

    readability: Four = Field(description="easy to read for an investor")
    linguistic_abstractness: Four = Field(description="synthesises in its own words, not copied")
    coherence: Four = Field(description="logical flow from facts to conclusions")
    key_point_coverage: Four = Field(description="the call's key financial points are covered")
    background_context: Four = Field(description="enough context to understand the figures")
    management_sentiment: Four = Field(description="conveys management's tone and confidence")
    future_outlook: Four = Field(description="analyses guidance and what comes next")
    factual_accuracy: Four = Field(description="every fact agrees with the call")


# Earnings2Insights' human rubric (seed 004 reports it): five criteria, each 1 (poor) to 7.
E2I_CRITERIA: tuple[str, ...] = (
    "clarity", "logic", "persuasiveness", "readability", "usefulness",
)  # fmt: skip
_SEVEN: dict[str, Any] = {"enum": [1, 2, 3, 4, 5, 6, 7]}
Seven = Annotated[int, Field(ge=1, le=7, json_schema_extra=_SEVEN)]


class E2IGrade(Rubric):
    """Grade one analyst report as Earnings2Insights' human raters did, each 1 (poor) to 7."""

    CRITERIA: ClassVar[tuple[str, ...]] = E2I_CRITERIA

    clarity: Seven = Field(description="the thesis and each point are unambiguous")
    logic: Seven = Field(description="conclusions follow from the evidence given")
    persuasiveness: Seven = Field(description="an investor would be moved to act on it")
    readability: Seven = Field(description="easy and quick to read")
    usefulness: Seven = Field(description="helps decide whether to buy or sell")


class Preference(BaseModel):
    """Which of two reports on the same call better serves an investor."""

    winner: Literal["A", "B", "tie"]
    reason: str = Field(max_length=400, description="one or two sentences")
