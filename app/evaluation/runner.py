"""Run every (call, pipeline) pair of an evaluation on an engine, score each report, keep one
JSON per report (which is also how an interrupted evaluation resumes), then judge and summarise.

Layout of the output folder:
  reports/<model>/<pipeline>/<id>.json   the report, its metrics, timing, status, judge grades
  pairwise/<model>/<x>__vs__<y>/<id>.json
(a pipeline may be a variant, `adversarial@S1`: its folder is its slug, `adversarial_S1`)
  summary.csv, summary.md, per_report.csv, chart.png
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from app.evaluation.dataset import EvalItem
from app.evaluation.ectsum import gold_figure_recall, lead_baseline, numeric_precision, rouge
from app.evaluation.judge import Pairwise, grade, pairwise
from app.evaluation.scoring import Record, score
from app.service.engine import Engine
from app.settings import Settings
from core.contract import Report
from core.facts import call_facts
from core.llm.chat import CallStats, ChatHandle, current_stats
from core.llm.window import CALL_QUERY, transcript_fit
from core.metrics import (
    decision_accuracy,
    judged_text,
)
from core.options import RunOptions, parse_variant
from core.transcript import Transcript, TranscriptError, parse_transcript

JUDGE_ROLE = "grader"


def model_label(settings: Settings) -> str:
    """How the tables name the model a settings object runs: local, fake or openai:NAME."""
    return f"openai:{settings.model}" if settings.provider == "openai" else settings.provider


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_") or "model"


EventKind = Literal["eval_started", "report_started", "report_finished", "judged", "pair_judged"]


class EvalEvent(BaseModel):
    type: EventKind
    model: str
    total: int = 0
    done: int = 0
    id: str | None = None
    pipeline: str | None = None
    status: str | None = None
    reused: bool = False
    detail: str | None = None


Sink = Callable[[EvalEvent], Awaitable[None] | None]


def reads_data(pipeline: str) -> tuple[str, ...]:
    """What a pipeline (or variant) gives its roles from a call's data: SAS's market analyst
    reads prices (not S1, the Lead alone), the Jetsons writers and SI4Fin's Analyst the
    statements."""
    variant = parse_variant(pipeline)
    if variant.pipeline == "adversarial":
        system = variant.apply(RunOptions()).sas_system
        return () if system == "S1" else ("prices",)
    if variant.pipeline in ("writer_feedback", "conversation"):
        return ("financials",)
    return ()


@dataclass
class Outcome:
    """How one report run ended: in this process (the CLI) or as a run of the service."""

    status: str
    report: Report | None = None
    error: str | None = None
    failed_node: str | None = None


# Runs `pipeline` (a pipeline or a variant, `adversarial@S1`) on one call; how it ended.
ReportRunner = Callable[[EvalItem, str, Transcript], Awaitable[Outcome]]


def engine_runner(engine: Engine) -> ReportRunner:
    """Report runs on `engine`, in this process (the `earnings-desk eval` command); a variant
    runs its pipeline with its options over the engine's defaults."""

    async def run(item: EvalItem, pipeline: str, transcript: Transcript) -> Outcome:
        variant = parse_variant(pipeline)
        options = variant.apply(engine.context.options)
        out = await engine.run(
            engine.request(
                variant.pipeline, transcript, item.call, options,
                financials=item.financials, prices=item.prices,
            )
        )  # fmt: skip
        return Outcome(out.status, out.report, out.error, out.failed_node)

    return run


@dataclass
class Tally:
    """What this invocation did (as opposed to what the saved reports record)."""

    ran: int = 0
    reused: int = 0
    failed: int = 0
    model_calls: int = 0
    cached_calls: int = 0
    judged: int = 0
    pairs: int = 0
    errors: list[str] = field(default_factory=list)


class Evaluation:
    def __init__(
        self,
        items: list[EvalItem],
        pipelines: list[str],
        out: Path,
        *,
        on_event: Sink | None,
        bounds: dict[str, int] | None = None,
    ) -> None:
        """`bounds`: the transcript bounds (`Settings.transcript_bounds`), the runs' own."""
        self.items = items
        self.pipelines = pipelines
        self.out = out
        self.on_event = on_event
        self.bounds = bounds or {}
        self.tally = Tally()
        self._transcripts: dict[str, Transcript] = {}

    async def _emit(self, event: EvalEvent) -> None:
        if self.on_event is not None:
            res = self.on_event(event)
            if asyncio.iscoroutine(res):
                await res

    def transcript(self, item: EvalItem) -> Transcript:
        if item.id not in self._transcripts:
            text = item.path.read_text(encoding="utf-8")
            self._transcripts[item.id] = parse_transcript(text, **self.bounds)
        return self._transcripts[item.id]

    def record_path(self, model: str, pipeline: str, cid: str) -> Path:
        return self.out / "reports" / slug(model) / slug(pipeline) / f"{cid}.json"

    def load(self, path: Path) -> Record | None:
        if not path.is_file():
            return None
        try:
            return Record.model_validate_json(path.read_text(encoding="utf-8"))
        except ValueError:
            return None  # a half-written file from an interrupted run: run that pair again

    def save(self, path: Path, record: BaseModel) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(record.model_dump_json(indent=2), encoding="utf-8")
        tmp.replace(path)  # atomic: a kill mid-write never leaves a truncated record

    async def run_reports(self, runner: ReportRunner, model: str, concurrency: int) -> None:
        pairs = [(item, p) for item in self.items for p in self.pipelines]
        total, done = len(pairs), 0
        await self._emit(EvalEvent(type="eval_started", model=model, total=total))
        gate = asyncio.Semaphore(concurrency)

        async def one(item: EvalItem, pipeline: str) -> None:
            nonlocal done
            path = self.record_path(model, pipeline, item.id)
            saved = self.load(path)
            if saved is not None and saved.status != "failed":
                self.tally.reused += 1
                done += 1
                await self._emit(
                    EvalEvent(
                        type="report_finished", model=model, total=total, done=done, id=item.id,
                        pipeline=pipeline, status=saved.status, reused=True,
                    )
                )  # fmt: skip
                return
            async with gate:
                await self._emit(
                    EvalEvent(
                        type="report_started", model=model, total=total, done=done, id=item.id,
                        pipeline=pipeline,
                    )
                )  # fmt: skip
                record = await self._run_one(runner, model, item, pipeline)
            self.save(path, record)
            done += 1
            await self._emit(
                EvalEvent(
                    type="report_finished", model=model, total=total, done=done, id=item.id,
                    pipeline=pipeline, status=record.status, detail=record.error,
                )
            )  # fmt: skip

        await asyncio.gather(*(one(i, p) for i, p in pairs))

    async def _run_one(
        self, runner: ReportRunner, model: str, item: EvalItem, pipeline: str
    ) -> Record:
        base: dict[str, Any] = {
            "id": item.id,
            "pipeline": pipeline,
            "model": model,
            "transcript_file": item.path.name,
        }
        try:
            transcript = self.transcript(item)
        except (TranscriptError, UnicodeDecodeError, OSError) as exc:
            self.tally.failed += 1
            return Record(**base, status="failed", error=f"transcript: {exc}", wall_s=0.0)
        t0 = time.perf_counter()
        outcome = await runner(item, pipeline, transcript)
        wall = time.perf_counter() - t0
        self.tally.ran += 1
        if outcome.report is None:
            self.tally.failed += 1
            self.tally.errors.append(f"{pipeline} on {item.id}: {outcome.error}")
            return Record(
                **base,
                status=outcome.status,
                error=outcome.error,
                failed_node=outcome.failed_node,
                wall_s=round(wall, 2),
            )
        metrics = score(outcome.report, transcript, item, wall)
        self.tally.model_calls += metrics.model_calls
        self.tally.cached_calls += metrics.cached_calls
        return Record(
            **base,
            status=outcome.report.status,
            wall_s=round(wall, 2),
            metrics=metrics,
            report=outcome.report,
        )

    def records(self) -> list[Record]:
        """The saved records of this evaluation's calls and pipelines; each decision scored
        against this invocation's labels (hand labels, or the prices' with `--prices`), so a
        report saved by an earlier run is never scored against other labels."""
        items = {i.id: i for i in self.items}
        out: list[Record] = []
        for path in sorted((self.out / "reports").glob("*/*/*.json")):
            rec = self.load(path)
            if rec is not None and rec.pipeline in self.pipelines and rec.id in items:
                if rec.metrics is not None and rec.report is not None:
                    labels = items[rec.id].labels
                    score = decision_accuracy(rec.report, labels) if labels else None
                    rec.metrics.decision = score.model_dump() if score else None
                out.append(rec)
        return out

    async def judge(
        self,
        handle: ChatHandle,
        *,
        retries: int,
        excerpt_words: int | None,
        pairs: Sequence[tuple[str, str]] = (),
    ) -> None:
        """Grade every saved report not yet graded by this judge; then each pairwise duel. The
        judge reads the report without our header, so it never sees which pipeline wrote it."""
        recs = [r for r in self.records() if r.report is not None]
        todo = [r for r in recs if r.judge is None or r.judge.judge != handle.name]
        for n, rec in enumerate(todo, 1):
            assert rec.report is not None
            item = next(i for i in self.items if i.id == rec.id)
            excerpt = transcript_fit(self.transcript(item), CALL_QUERY, cap_words=excerpt_words)
            with self._counted():
                scores = await grade(handle, judged_text(rec.report), excerpt, retries=retries)
            self.tally.judged += 1
            rec.judge = scores
            self.save(self.record_path(rec.model, rec.pipeline, rec.id), rec)
            missing = [k for k in ("findebate", "weighted") if getattr(scores, k) is None]
            detail = f"missing: {', '.join(missing)}" if missing else None
            await self._emit(
                EvalEvent(
                    type="judged", model=rec.model, total=len(todo), done=n, id=rec.id,
                    pipeline=rec.pipeline, detail=detail,
                )
            )  # fmt: skip
        by = {(r.model, r.pipeline, r.id): r for r in recs}
        models = sorted({r.model for r in recs})
        for (x, y), model in ((p, m) for p in pairs for m in models):
            for item in self.items:
                rx, ry = by.get((model, x, item.id)), by.get((model, y, item.id))
                if rx is None or ry is None or rx.report is None or ry.report is None:
                    continue
                duel = f"{slug(x)}__vs__{slug(y)}"
                path = self.out / "pairwise" / slug(model) / duel / f"{item.id}.json"
                if path.is_file():
                    saved = Pairwise.model_validate_json(path.read_text(encoding="utf-8"))
                    if saved.judge == handle.name:
                        continue
                excerpt = transcript_fit(self.transcript(item), CALL_QUERY, cap_words=excerpt_words)
                with self._counted():
                    res = await pairwise(
                        handle, (x, judged_text(rx.report)), (y, judged_text(ry.report)), excerpt,
                        retries=retries,
                    )  # fmt: skip
                self.save(path, res)
                self.tally.pairs += 1
                await self._emit(
                    EvalEvent(type="pair_judged", model=model, id=item.id, detail=f"{x} vs {y}")
                )

    @contextmanager
    def _counted(self) -> Iterator[None]:
        """Count the judge's model calls (and cache hits) into this invocation's tally."""
        stats = CallStats()
        token = current_stats.set(stats)
        try:
            yield
        finally:
            current_stats.reset(token)
            self.tally.model_calls += stats.calls
            self.tally.cached_calls += stats.cached_calls

    async def judge_with(self, engine: Engine, pairs: Sequence[tuple[str, str]]) -> None:
        """`judge` with the engine's grader model and parse retries; the judge reads the whole
        call when its window holds it (else cut by relevance; EDESK_TRANSCRIPT_WORDS caps it)."""
        defaults = engine.context.options  # the EDESK_ values, resolved once
        await self.judge(
            engine.models.chat(JUDGE_ROLE),
            retries=defaults.parse_retries,
            excerpt_words=defaults.transcript_words,
            pairs=pairs,
        )

    def data_rows(self) -> list[dict[str, Any]]:
        """Per call: whether it carried statements and prices, what its call date cut, and
        which of this evaluation's pipelines read data it did not carry (they ran, and their
        reports say what was missing)."""
        rows: list[dict[str, Any]] = []
        for item in self.items:
            without = [f"{p} ({kind})" for p in self.pipelines for kind in reads_data(p)
                       if getattr(item, kind) is None]  # fmt: skip
            rows.append({"id": item.id, "financials": item.financials is not None,
                         "prices": item.prices is not None, "cut": "; ".join(item.cut),
                         "ran_without": "; ".join(without)})  # fmt: skip
        return rows

    def ectsum_rows(self) -> list[dict[str, Any]]:
        """Per call with gold bullets: the code's highlights and the LEAD baseline on ECTSum's
        measures (ROUGE-1/2/L, numeric precision, gold-figure recall)."""
        rows: list[dict[str, Any]] = []
        for item in self.items:
            if not item.summary:
                continue
            try:
                transcript = self.transcript(item)
            except (TranscriptError, UnicodeDecodeError, OSError):
                continue
            facts = call_facts(transcript)
            bullets = [h.text for h in facts.highlights]
            lead = lead_baseline(transcript, max(1, len(bullets)))
            row: dict[str, Any] = {"id": item.id}
            for name, texts in (("highlights", bullets), ("lead", lead)):
                scores = rouge(texts, item.summary)
                row.update({f"{name}_{k}": v for k, v in scores.items()})
                row[f"{name}_precision"] = numeric_precision(texts, transcript.text, item.summary)
                row[f"{name}_recall"] = gold_figure_recall(texts, item.summary)
            rows.append(row)
        return rows

    def pairwise_results(self) -> list[tuple[str, Pairwise]]:
        out: list[tuple[str, Pairwise]] = []
        for path in sorted((self.out / "pairwise").glob("*/*/*.json")):
            out.append((path.parent.parent.name, Pairwise.model_validate_json(path.read_text())))
        return out
