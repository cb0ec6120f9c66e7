"""One evaluated report: its deterministic metrics (core/metrics.py applied to a Report and its
call) and the record saved per (model, pipeline, call)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from app.evaluation.dataset import EvalItem
from app.evaluation.judge import JudgeScores
from core.contract import Report
from core.metrics import (
    abstractiveness,
    completeness,
    coverage,
    decision_accuracy,
    readability,
    report_prose,
)
from core.metrics import stance as stance_of
from core.transcript import Transcript


class Metrics(BaseModel):
    """Every deterministic figure of one report."""

    grounding: float | None = Field(description="share of the report's figures found in sources")
    numbers: int
    ungrounded: list[str]
    coverage: float | None = Field(description="share of the gold bullets' figures stated")
    coverage_missing: list[str] = Field(default_factory=list)
    abstractiveness: float | None
    fkgl: float | None
    coleman_liau: float | None
    ari: float | None
    completeness: float
    stance: str
    decision: dict[str, Any] | None = None
    prompt_tokens: int
    completion_tokens: int
    model_calls: int = Field(description="answers a model gave for this report")
    cached_calls: int = Field(description="answers the LLM cache gave instead")
    wall_s: float


class Record(BaseModel):
    id: str
    pipeline: str
    model: str
    transcript_file: str
    status: str
    error: str | None = None
    failed_node: str | None = None
    wall_s: float
    metrics: Metrics | None = None
    judge: JudgeScores | None = None
    report: Report | None = None


def score(report: Report, transcript: Transcript, item: EvalItem, wall_s: float) -> Metrics:
    numbers = report.evidence.numbers
    grounded = sum(n.grounded for n in numbers)
    prose = report_prose(report)
    cov = coverage(prose, item.summary) if item.summary else None
    read = readability(prose)
    dec = decision_accuracy(report, item.labels) if item.labels else None
    return Metrics(
        grounding=round(grounded / len(numbers), 4) if numbers else None,
        numbers=len(numbers),
        ungrounded=[n.text for n in numbers if not n.grounded],
        coverage=cov.share if cov else None,
        coverage_missing=cov.missing if cov else [],
        abstractiveness=abstractiveness(prose, transcript.text),
        fkgl=read.fkgl if read else None,
        coleman_liau=read.coleman_liau if read else None,
        ari=read.ari if read else None,
        completeness=completeness(report),
        stance=stance_of(report),
        decision=dec.model_dump() if dec else None,
        prompt_tokens=report.tokens["prompt"],
        completion_tokens=report.tokens["completion"],
        model_calls=sum(t.calls for t in report.trace),
        cached_calls=sum(t.cached_calls for t in report.trace),
        wall_s=round(wall_s, 2),
    )
