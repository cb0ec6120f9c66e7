"""Retrieval benchmark: for each ECTSum call with gold bullets, the share of the bullets' figures
that appear in the evidence the five FinDebate specialists are given (same queries, budgets and
merging as the pipeline), per chunking scheme and retriever.

Retrievers (`TranscriptIndex.search`, the production code): dense over each embedding model
given (the bundled all-MiniLM-L6-v2 is `default`; any sentence-transformers name or path works,
e.g. FinLang/finance-embeddings-investopedia where the hub is reachable), BM25 and hybrid
(reciprocal-rank fusion of the two).
`ceiling` is the share of gold figures the transcript states at all (ECTSum bullets sometimes
cite figures from elsewhere).

    .venv/bin/python -m bench.retrieval [--embeddings default,OTHER] [--limit N]

Figures as one JSON object on the last line.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from statistics import mean
from typing import Any, get_args

from app.llm.factory import build_embeddings
from app.settings import Settings
from bench.common import ECTSUM, emit
from core.chunking import fixed_chunks, recursive_chunks
from core.contract import Chunk, EvidencePassage
from core.grounding import extract_figures, same_figure
from core.options import Retriever
from core.rag import Hit, TranscriptIndex, interleave, take_words, to_passage
from core.transcript import Transcript, parse_transcript
from nodes.specialists import FINDEBATE_DIMENSIONS, SPECIALISTS


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
    ap.add_argument(
        "--words", type=int, default=700,
        help="words of evidence per specialist (prompts are sized to the model's window at run "
        "time; a fixed budget here compares the retrievers on equal terms)",
    )  # fmt: skip
    args = ap.parse_args()
    if not ECTSUM.is_dir():
        emit({"skipped": True, "reason": f"{ECTSUM} missing"})
        return
    settings = Settings(provider="local")
    k, per_dim, words = 4, 8, args.words
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
    modes: tuple[Retriever, ...] = get_args(Retriever)
    for emb_name in [e.strip() for e in args.embeddings.split(",") if e.strip()]:
        emb = build_embeddings(settings.model_copy(update={"embeddings": emb_name}))
        with tempfile.TemporaryDirectory() as tmp:
            index = TranscriptIndex.on_disk(Path(tmp), emb, emb_name)
            for scheme, chunker in chunkers.items():
                for _cid, transcript, gold in calls:
                    ingest = index.ingest(transcript.sha256, chunker(transcript), scheme)
                    for mode in modes:
                        name = f"{scheme}/{mode}" + ("" if mode == "bm25" else f":{emb_name}")
                        if mode == "bm25" and len(results.get(name, [])) == len(calls):
                            continue  # BM25 does not depend on the embedding model
                        t0 = time.perf_counter()
                        hits = index.search(
                            ingest.collection, FINDEBATE_DIMENSIONS, k=k, per_dim=per_dim,
                            retriever=mode,
                        )  # fmt: skip
                        timings[name] = timings.get(name, 0.0) + time.perf_counter() - t0
                        evidence = specialist_evidence(hits, words)
                        share = share_found(gold, "\n".join(p.text for p in evidence))
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
    figures["search_seconds_total"] = {k_: round(v, 2) for k_, v in timings.items()}
    emit(figures)


if __name__ == "__main__":
    main()
