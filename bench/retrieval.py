"""Retrieval benchmark: for each ECTSum call with gold bullets, the share of the bullets' figures
that appear in the evidence the five FinDebate specialists are given (same queries, budgets and
merging as the pipeline), per chunking scheme and retriever.

Retrievers: dense over each embedding model given (the bundled all-MiniLM-L6-v2 is `default`;
any sentence-transformers name or path works, e.g. FinLang/finance-embeddings-investopedia where
the hub is reachable), BM25 (rank_bm25) and hybrid (reciprocal-rank fusion of dense and BM25).
`ceiling` is the share of gold figures the transcript states at all (ECTSum bullets sometimes
cite figures from elsewhere).

    .venv/bin/python -m bench.retrieval [--embeddings default,OTHER] [--limit N]

Figures as one JSON object on the last line.
"""

from __future__ import annotations

import argparse
import re
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from statistics import mean
from typing import Any

from rank_bm25 import BM25Okapi

from app.models import build_embeddings
from app.settings import Settings
from bench.common import ECTSUM, emit
from core.chunking import fixed_chunks, recursive_chunks
from core.contract import Chunk, EvidencePassage
from core.grounding import extract_figures, same_figure
from core.rag import FINDEBATE_DIMENSIONS, Hit, TranscriptIndex, interleave, take_words, to_passage
from core.transcript import Transcript, parse_transcript
from nodes.specialists import SPECIALISTS

Search = Callable[[Sequence[Chunk], str], dict[str, list[Hit]]]
_TOKEN = re.compile(r"[a-z0-9]+(?:[.,][0-9]+)*")


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


def bm25_ranked(chunks: Sequence[Chunk], query: str, k: int) -> list[tuple[Chunk, float]]:
    bm = BM25Okapi([tokens(c.text) for c in chunks])
    scores = bm.get_scores(tokens(query))
    order = sorted(range(len(chunks)), key=lambda i: -scores[i])[:k]
    return [(chunks[i], float(scores[i])) for i in order]


def merge(
    per_query: Mapping[str, Sequence[Sequence[tuple[Chunk, float]]]], per_dim: int
) -> dict[str, list[Hit]]:
    """Like TranscriptIndex.search: per dimension, best score per chunk, best first."""
    out: dict[str, list[Hit]] = {}
    for dim, lists in per_query.items():
        best: dict[str, Hit] = {}
        for ranked in lists:
            for chunk, score in ranked:
                if chunk.id not in best or score > best[chunk.id].score:
                    best[chunk.id] = Hit(chunk, score, (dim,))
        out[dim] = sorted(best.values(), key=lambda h: h.score, reverse=True)[:per_dim]
    return out


def rrf(
    lists: Sequence[Sequence[tuple[Chunk, float]]], k: int, c: int = 60
) -> list[tuple[Chunk, float]]:
    scores: dict[str, float] = {}
    chunks: dict[str, Chunk] = {}
    for ranked in lists:
        for rank, (chunk, _) in enumerate(ranked):
            scores[chunk.id] = scores.get(chunk.id, 0.0) + 1.0 / (c + rank + 1)
            chunks[chunk.id] = chunk
    order = sorted(scores, key=lambda i: -scores[i])[:k]
    return [(chunks[i], scores[i]) for i in order]


def specialist_evidence(hits: Mapping[str, list[Hit]], budget: int) -> list[EvidencePassage]:
    """The union of what the five specialists read (interleaved dims, word budget each)."""
    passages = {d: [to_passage(h) for h in hs] for d, hs in hits.items()}
    seen: dict[str, EvidencePassage] = {}
    for dims in SPECIALISTS.values():
        for p in take_words(interleave([passages.get(d, []) for d in dims]), budget):
            seen[p.chunk_id] = p
    return list(seen.values())


def share_found(gold: str, text: str) -> float | None:
    figs = extract_figures(gold)
    if not figs:
        return None
    stated = extract_figures(text)
    return sum(any(same_figure(g, s) for s in stated) for g in figs) / len(figs)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--embeddings", default="default", help="comma-separated models")
    ap.add_argument("--limit", type=int)
    ap.add_argument("--prefer", choices=["txt", "full"], default="txt")
    args = ap.parse_args()
    if not ECTSUM.is_dir():
        emit({"skipped": True, "reason": f"{ECTSUM} missing"})
        return
    settings = Settings(provider="local")
    k, per_dim, words = 4, 8, settings.evidence_budget()
    calls: list[tuple[str, Transcript, str]] = []
    for summary in sorted(ECTSUM.glob("*.summary.txt"))[: args.limit]:
        cid = summary.name.removesuffix(".summary.txt")
        path = ECTSUM / (f"{cid}.txt" if args.prefer == "txt" else f"{cid}.full.md")
        if not path.is_file():
            path = ECTSUM / f"{cid}.txt"
        calls.append((cid, parse_transcript(path.read_text(encoding="utf-8")), summary.read_text()))
    chunkers: dict[str, Callable[[Transcript], list[Chunk]]] = {
        "recursive": lambda t: recursive_chunks(t, max_words=150),
        "fixed": lambda t: fixed_chunks(t, words=150),
    }
    results: dict[str, list[float]] = {}
    timings: dict[str, float] = {}
    ceiling = [s for _, t, g in calls if (s := share_found(g, t.text)) is not None]
    for emb_name in [e.strip() for e in args.embeddings.split(",") if e.strip()]:
        emb = build_embeddings(settings.model_copy(update={"embeddings": emb_name}))
        with tempfile.TemporaryDirectory() as tmp:
            index = TranscriptIndex.on_disk(Path(tmp), emb, emb_name)
            for scheme, chunker in chunkers.items():
                for _cid, transcript, gold in calls:
                    chunks = chunker(transcript)
                    t0 = time.perf_counter()
                    ingest = index.ingest(transcript.sha256, chunks, scheme)
                    dense_q: dict[str, list[list[tuple[Chunk, float]]]] = {}
                    for dim, queries in FINDEBATE_DIMENSIONS.items():
                        dense_q[dim] = [
                            [(h.chunk, h.score) for h in index.search(
                                ingest.collection, {dim: (q,)}, k=k, per_dim=k
                            )[dim]]
                            for q in queries
                        ]  # fmt: skip
                    timings[f"{scheme}/dense:{emb_name}"] = timings.get(
                        f"{scheme}/dense:{emb_name}", 0.0
                    ) + (time.perf_counter() - t0)
                    bm_q = {
                        dim: [bm25_ranked(chunks, q, k) for q in qs]
                        for dim, qs in FINDEBATE_DIMENSIONS.items()
                    }
                    hy_q = {
                        dim: [rrf([d, b], k) for d, b in zip(dense_q[dim], bm_q[dim], strict=True)]
                        for dim in FINDEBATE_DIMENSIONS
                    }
                    variants: dict[str, Mapping[str, Sequence[Sequence[tuple[Chunk, float]]]]] = {
                        f"{scheme}/dense:{emb_name}": dense_q,
                        f"{scheme}/hybrid:{emb_name}": hy_q,
                    }
                    if f"{scheme}/bm25" not in results or len(results[f"{scheme}/bm25"]) < len(
                        calls
                    ):
                        variants[f"{scheme}/bm25"] = bm_q
                    for name, per_query in variants.items():
                        evidence = specialist_evidence(merge(per_query, per_dim), words)
                        text = "\n".join(p.text for p in evidence)
                        share = share_found(gold, text)
                        if share is not None:
                            results.setdefault(name, []).append(share)
    figures: dict[str, Any] = {
        "calls": len(calls),
        "evidence_words_per_specialist": words,
        "ceiling_transcript_states": round(mean(ceiling), 4) if ceiling else None,
    }
    for name, shares in sorted(results.items(), key=lambda kv: -mean(kv[1])):
        figures[f"gold_figures_in_evidence[{name}]"] = round(mean(shares), 4)
    best = max(results, key=lambda n: mean(results[n]))
    figures["best"] = best
    figures["dense_seconds_total"] = {k_: round(v, 1) for k_, v in timings.items()}
    emit(figures)


if __name__ == "__main__":
    main()
