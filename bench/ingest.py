"""Ingest: chunk + embed + index a long real transcript with the default (bundled) embeddings,
then re-ingest the same text (should embed nothing). Targets: < 5 s, re-ingest ~0.

    .venv/bin/python -m bench.ingest [--file BBY_q4_2021.txt]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from app.llm.factory import LazyEmbeddings
from app.settings import Settings
from bench.common import ectsum_file, emit
from core.chunking import recursive_chunks
from core.rag import TranscriptIndex
from core.transcript import parse_transcript


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--file", default="BBY_q4_2021.txt")
    args = parser.parse_args()
    transcript = parse_transcript(ectsum_file(args.file).read_text(encoding="utf-8"))
    settings = Settings()
    embeddings = LazyEmbeddings(settings)
    t0 = time.perf_counter()
    embeddings.embed_query("warm up")  # model load, reported separately
    load = time.perf_counter() - t0
    with tempfile.TemporaryDirectory() as tmp:
        index = TranscriptIndex.on_disk(Path(tmp) / "chroma", embeddings, embeddings.name)
        t0 = time.perf_counter()
        chunks = recursive_chunks(transcript, max_words=settings.chunk_words)
        chunk_s = time.perf_counter() - t0
        first = index.ingest(transcript.sha256, chunks, "rec150")
        ingest = time.perf_counter() - t0
        t0 = time.perf_counter()
        again = index.ingest(transcript.sha256, chunks, "rec150")
        reingest = time.perf_counter() - t0
    assert not first.reused and again.reused
    emit(
        {
            "file": args.file,
            "words": transcript.n_words,
            "chunks": len(chunks),
            "model_load_s": round(load, 2),
            "chunk_s": round(chunk_s, 4),
            "ingest_s": round(ingest, 2),
            "reingest_s": round(reingest, 4),
        }
    )


if __name__ == "__main__":
    main()
