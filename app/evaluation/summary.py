"""The evaluation's tables (CSV + Markdown, per pipeline and per report) and its chart."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from statistics import mean
from typing import Any

from app.evaluation.judge import Pairwise
from app.evaluation.scoring import Record
from app.evaluation.stats import comparison_table, comparisons, wilson
from app.exports import csv_cells

# (column, header, format)
COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("model", "model", "s"),
    ("pipeline", "pipeline", "s"),
    ("reports", "reports", "d"),
    ("succeeded", "ok", "d"),
    ("degraded", "degraded", "d"),
    ("failed", "failed", "d"),
    ("grounding", "grounding", ".3f"),
    ("coverage", "gold coverage", ".3f"),
    ("abstractiveness", "abstractive", ".3f"),
    ("fkgl", "FKGL", ".1f"),
    ("coleman_liau", "CLI", ".1f"),
    ("ari", "ARI", ".1f"),
    ("completeness", "rec. complete", ".2f"),
    ("reverted", "reverted", "s"),
    ("decision", "decision hit/miss/neutral", "s"),
    ("judge_findebate", "judge 8-dim (1-4)", ".2f"),
    ("judge_overall", "judge overall (1-5)", ".2f"),
    ("judge_e2i", "judge E2I (1-7)", ".2f"),
    ("judge_missing", "judge missing", "d"),
    ("tokens", "tokens/report", ".0f"),
    ("model_calls", "model calls", "d"),
    ("wall_s", "wall s/report", ".1f"),
)
CHART_METRICS: tuple[tuple[str, str], ...] = (
    ("grounding", "numeric grounding"),
    ("coverage", "gold-bullet coverage"),
    ("abstractiveness", "abstractiveness (3-gram)"),
    ("completeness", "recommendation completeness"),
    ("fkgl", "FKGL grade"),
    ("judge_overall", "judge overall (1-5)"),
)


def _avg(values: Sequence[float | None]) -> float | None:
    vals = [v for v in values if v is not None]
    return round(mean(vals), 4) if vals else None


def summarize(records: Sequence[Record]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    keys = sorted({(r.model, r.pipeline) for r in records}, key=lambda k: (k[0], k[1]))
    for model, pipeline in keys:
        group = [r for r in records if (r.model, r.pipeline) == (model, pipeline)]
        ms = [r.metrics for r in group if r.metrics is not None]
        debated = [m for m in ms if m.stance in ("preserved", "reverted")]
        decisions = [m.decision for m in ms if m.decision]
        judged = [r.judge for r in group if r.judge is not None]
        row: dict[str, Any] = {
            "model": model,
            "pipeline": pipeline,
            "reports": len(group),
            "succeeded": sum(r.status == "succeeded" for r in group),
            "degraded": sum(r.status == "degraded" for r in group),
            "failed": sum(r.status not in ("succeeded", "degraded") for r in group),
            "grounding": _avg([m.grounding for m in ms]),
            "coverage": _avg([m.coverage for m in ms]),
            "abstractiveness": _avg([m.abstractiveness for m in ms]),
            "fkgl": _avg([m.fkgl for m in ms]),
            "coleman_liau": _avg([m.coleman_liau for m in ms]),
            "ari": _avg([m.ari for m in ms]),
            "completeness": _avg([m.completeness for m in ms]),
            "reverted": f"{sum(m.stance == 'reverted' for m in debated)}/{len(debated)}"
            if debated
            else "n/a",
            "decision": "/".join(
                str(sum(d[k] for d in decisions)) for k in ("hits", "misses", "neutral")
            )
            if decisions
            else "n/a",
            "judge_findebate": _avg([j.findebate_mean for j in judged]),
            "judge_overall": _avg([j.overall for j in judged]),
            "judge_e2i": _avg([j.e2i_mean for j in judged]),
            "judge_missing": sum(
                (j.findebate is None) + (j.overall is None) + (j.e2i is None) for j in judged
            )
            if judged
            else None,
            "tokens": _avg([m.prompt_tokens + m.completion_tokens for m in ms]),
            "model_calls": sum(m.model_calls + m.cached_calls for m in ms),
            "wall_s": _avg([m.wall_s for m in ms]),
        }
        rows.append(row)
    return rows


def _fmt(value: Any, spec: str) -> str:
    if value is None:
        return "n/a"
    if spec == "s":
        return str(value)
    return format(value, spec)


def markdown_table(rows: Sequence[dict[str, Any]]) -> str:
    head = "| " + " | ".join(h for _, h, _ in COLUMNS) + " |"
    sep = "|" + "|".join("---" for _ in COLUMNS) + "|"
    body = ["| " + " | ".join(_fmt(r[k], f) for k, _, f in COLUMNS) + " |" for r in rows]
    return "\n".join([head, sep, *body])


def pairwise_table(results: Sequence[tuple[str, Pairwise]]) -> str:
    """Per model and pair: each verdict counted (two per call, order swapped)."""
    groups: dict[tuple[str, str, str], list[Pairwise]] = {}
    for model, p in results:
        groups.setdefault((model, p.x, p.y), []).append(p)
    lines = [
        "| model | x | y | verdicts | x wins | y wins | ties | missing | consistent calls "
        "| x win rate, a tie half a win (95% Wilson) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for (model, x, y), ps in sorted(groups.items()):
        vs = [v for p in ps for v in p.verdicts]
        consistent = [p.consistent for p in ps if p.consistent is not None]
        xw, yw = sum(v.winner == "x" for v in vs), sum(v.winner == "y" for v in vs)
        ties = sum(v.winner == "tie" for v in vs)
        judged = xw + yw + ties  # a tie is half a win for each side, never out of the count
        low, high = wilson(xw + ties / 2, judged)
        rate = (
            "n/a" if low is None or high is None
            else f"{(xw + ties / 2) / judged:.2f} [{low:.2f}, {high:.2f}]"
            + ("" if low > 0.5 or high < 0.5 else ", not significant")
        )  # fmt: skip
        lines.append(
            f"| {model} | {x} | {y} | {len(vs)} | {xw} | {yw} | "
            f"{ties} | "
            f"{sum(v.winner is None for v in vs)} | {sum(consistent)}/{len(ps)} | {rate} |"
        )
    return "\n".join(lines) if groups else ""


def data_table(data: Sequence[dict[str, Any]]) -> str:
    """Which calls carried statements and prices, what their call date cut, and which
    pipelines that read data ran without it (their reports say so in their notes)."""
    lines = ["| call | financials | prices | cut at the call date | ran without its data |",
             "|---|---|---|---|---|"]  # fmt: skip
    for d in data:
        lines.append(f"| {d['id']} | {'yes' if d['financials'] else 'no'} | "
                     f"{'yes' if d['prices'] else 'no'} | {d['cut'] or '—'} | "
                     f"{d['ran_without'] or '—'} |")  # fmt: skip
    return "\n".join(lines)


def ectsum_table(rows: Sequence[dict[str, Any]]) -> str:
    """Highlights vs LEAD on ECTSum's measures, averaged over the calls with gold bullets."""
    if not rows:
        return ""
    keys = ("rouge1", "rouge2", "rougeL", "precision", "recall")
    head = (
        "| summary | calls | ROUGE-1 | ROUGE-2 | ROUGE-L | numeric precision | gold-figure recall |"
    )
    lines = [head, "|---|---|---|---|---|---|---|"]
    for name in ("highlights", "lead"):
        avg = [round(sum(r[f"{name}_{k}"] for r in rows) / len(rows), 4) for k in keys]
        label = "highlights (call facts, code)" if name == "highlights" else "LEAD baseline"
        lines.append(f"| {label} | {len(rows)} | " + " | ".join(f"{v:.4f}" for v in avg) + " |")
    return "\n".join(lines)


def write_rows(path: Path, rows: Sequence[dict[str, Any]]) -> Path:
    """Dicts as a CSV file, the first row's keys as the header (empty file for no rows)."""
    with path.open("w", newline="", encoding="utf-8") as fh:
        csv_cells.write_dicts(fh, rows)
    return path


def write_tables(
    out: Path,
    records: Sequence[Record],
    pairs: Sequence[tuple[str, Pairwise]],
    ectsum: Sequence[dict[str, Any]] = (),
    data: Sequence[dict[str, Any]] = (),
) -> str:
    rows = summarize(records)
    out.mkdir(parents=True, exist_ok=True)
    with (out / "summary.csv").open("w", newline="", encoding="utf-8") as f:
        w = csv_cells.Writer(f)
        w.writerow([k for k, _, _ in COLUMNS])
        for r in rows:
            w.writerow(["" if r[k] is None else r[k] for k, _, _ in COLUMNS])
    per = [
        "model", "pipeline", "id", "transcript_file", "status", "grounding", "numbers",
        "ungrounded", "coverage", "coverage_missing", "abstractiveness", "fkgl", "completeness",
        "stance", "judge_findebate", "judge_overall", "judge_e2i", "tokens", "model_calls",
        "cached_calls", "wall_s", "error",
    ]  # fmt: skip
    with (out / "per_report.csv").open("w", newline="", encoding="utf-8") as f:
        w = csv_cells.Writer(f)
        w.writerow(per)
        for rec in sorted(records, key=lambda r: (r.model, r.pipeline, r.id)):
            m, j = rec.metrics, rec.judge
            w.writerow(
                [
                    rec.model, rec.pipeline, rec.id, rec.transcript_file, rec.status,
                    m.grounding if m else "", m.numbers if m else "",
                    "; ".join(m.ungrounded) if m else "", "" if not m or m.coverage is None
                    else m.coverage, "; ".join(m.coverage_missing) if m else "",
                    m.abstractiveness if m else "", m.fkgl if m else "",
                    m.completeness if m else "", m.stance if m else "",
                    j.findebate_mean if j and j.findebate_mean is not None else "",
                    j.overall if j and j.overall is not None else "",
                    j.e2i_mean if j and j.e2i_mean is not None else "",
                    m.prompt_tokens + m.completion_tokens if m else "",
                    m.model_calls if m else "", m.cached_calls if m else "", rec.wall_s,
                    rec.error or "",
                ]
            )  # fmt: skip
    table = markdown_table(rows)
    pair_md = pairwise_table(pairs)
    text = "# Evaluation summary\n\n" + table + "\n"
    ect_md = ectsum_table(ectsum)
    if ect_md:
        write_rows(out / "ectsum.csv", ectsum)
        text += "\n## ECTSum measures against the gold bullets\n\n" + ect_md + "\n"
        table += "\n\n" + ect_md
    if any(d["financials"] or d["prices"] or d["ran_without"] for d in data):
        write_rows(out / "data.csv", data)
        text += "\n## The calls' data\n\n" + data_table(data) + "\n"
    if pair_md:
        text += (
            "\n## Pairwise preference (order swapped, both verdicts counted)\n\n" + pair_md + "\n"
        )
    compared = comparisons(records)
    if compared:
        write_rows(out / "comparisons.csv", compared)
        text += (
            "\n## Paired comparisons (same calls; 95% CI; Wilcoxon signed-rank)\n\n"
            + comparison_table(compared)
            + "\n"
        )
    (out / "summary.md").write_text(text, encoding="utf-8")
    return table + ("\n\n" + pair_md if pair_md else "")


def write_chart(out: Path, records: Sequence[Record]) -> Path:
    """One panel per metric, one bar per (model, pipeline); metrics without data are skipped."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = summarize(records)
    metrics = [(k, t) for k, t in CHART_METRICS if any(r[k] is not None for r in rows)]
    cols = 3
    nrows = max(1, -(-len(metrics) // cols))
    fig, axes = plt.subplots(nrows, cols, figsize=(4.2 * cols, 3.4 * nrows), squeeze=False)
    multi = len({r["model"] for r in rows}) > 1
    labels = [f"{r['pipeline']}\n{r['model']}" if multi else r["pipeline"] for r in rows]
    for ax, (key, title) in zip(axes.flat, metrics, strict=False):
        values = [r[key] if r[key] is not None else 0.0 for r in rows]
        bars = ax.bar(range(len(rows)), values, color=[f"C{i}" for i in range(len(rows))])
        ax.set_title(title, fontsize=10)
        ax.set_xticks(range(len(rows)), labels, rotation=30, ha="right", fontsize=8)
        ax.bar_label(bars, fmt="%.2f", fontsize=7)
        ax.margins(y=0.15)
    for ax in list(axes.flat)[len(metrics) :]:
        ax.axis("off")
    fig.suptitle("Earnings Desk evaluation: pipelines per metric (mean over reports)")
    fig.tight_layout()
    path = out / "chart.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
