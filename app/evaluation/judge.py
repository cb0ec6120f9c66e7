"""LLM-as-judge: FinDebate's eight dimensions (1-4), the five weighted metrics (1-5) with the
overall grade, and pairwise preference asked twice with the order swapped. A verdict that never
validates is returned as missing with its error, never filled with a middle score."""

from __future__ import annotations

import json
from typing import Literal

from pydantic import BaseModel

from core.judging import E2IGrade, FinDebateGrade, Preference, ReportGrade, Rubric
from core.llm.chat import ChatHandle, Structured, complete_structured
from core.llm.window import Fit
from nodes.calls import fitted


class JudgeScores(BaseModel):
    """One report's judge grades; a rubric that never parsed has scores None and its error."""

    judge: str
    findebate: dict[str, int] | None = None
    findebate_mean: float | None = None
    findebate_error: str | None = None
    weighted: dict[str, int] | None = None
    overall: float | None = None
    weighted_error: str | None = None
    e2i: dict[str, int] | None = None  # Earnings2Insights' rubric, 1-7
    e2i_mean: float | None = None
    e2i_error: str | None = None


async def _ask(
    handle: ChatHandle, schema: type[BaseModel], prompt: str, retries: int, **kw: str | Fit
) -> Structured[BaseModel]:
    """The judge's verdict; the call (a `Fit`) is sized to the judge's window like a node's."""
    messages = fitted(handle, prompt, kw, tools=json.dumps(schema.model_json_schema())).messages()
    return await complete_structured(
        handle, schema, messages, validate=lambda v: v, retries=retries
    )


# rubric -> (schema, prompt, the JudgeScores fields for its scores, summary and error)
RUBRICS: tuple[tuple[type[Rubric], str, str, str, str], ...] = (
    (FinDebateGrade, "eval/findebate_grade", "findebate", "findebate_mean", "findebate_error"),
    (ReportGrade, "eval/weighted_grade", "weighted", "overall", "weighted_error"),
    (E2IGrade, "eval/e2i_grade", "e2i", "e2i_mean", "e2i_error"),
)


async def grade(
    handle: ChatHandle, report: str, transcript: str | Fit, *, retries: int
) -> JudgeScores:
    """Every rubric in turn; one that never validates is missing with its error."""
    out = JudgeScores(judge=handle.name)
    for schema, prompt, scores, summary, error in RUBRICS:
        res = await _ask(handle, schema, prompt, retries, report=report, transcript=transcript)
        if isinstance(res.value, schema):
            setattr(out, scores, res.value.scores())
            setattr(out, summary, res.value.summary_score())
        else:
            setattr(out, error, res.error)
    return out


Side = Literal["x", "y", "tie"]


class PairVerdict(BaseModel):
    order: Literal["x_first", "y_first"]
    winner: Side | None = None  # in terms of the two pipelines, not of A/B
    reason: str | None = None
    error: str | None = None


class Pairwise(BaseModel):
    """Pipeline x against pipeline y on one call: both orders' verdicts, each counted."""

    x: str
    y: str
    judge: str
    verdicts: list[PairVerdict]

    @property
    def consistent(self) -> bool | None:
        winners = [v.winner for v in self.verdicts]
        return None if None in winners else len(set(winners)) == 1


async def pairwise(
    handle: ChatHandle,
    x: tuple[str, str],
    y: tuple[str, str],
    transcript: str | Fit,
    *,
    retries: int,
) -> Pairwise:
    """`x` and `y` are (pipeline, report). Asked as (x, y) then as (y, x)."""
    verdicts: list[PairVerdict] = []
    for order, first, second in (("x_first", x, y), ("y_first", y, x)):
        res = await _ask(
            handle,
            Preference,
            "eval/pairwise",
            retries,
            first=first[1],
            second=second[1],
            transcript=transcript,
        )
        if isinstance(res.value, Preference):
            pick = res.value.winner
            side: Side = (
                "tie" if pick == "tie" else ("x" if (pick == "A") == (order == "x_first") else "y")
            )
            verdicts.append(PairVerdict(order=order, winner=side, reason=res.value.reason))  # type: ignore[arg-type]
        else:
            verdicts.append(PairVerdict(order=order, error=res.error))  # type: ignore[arg-type]
    return Pairwise(x=x[0], y=y[0], judge=handle.name, verdicts=verdicts)
