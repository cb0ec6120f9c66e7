from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding

from core.chunking import recursive_chunks
from core.rag import TranscriptIndex, interleave, take_words, to_passage
from core.transcript import parse_transcript
from nodes.specialists import FINDEBATE_DIMENSIONS


class CountingEmbeddings(DeterministicFakeEmbedding):
    documents: int = 0

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.documents += len(texts)
        return super().embed_documents(texts)


def _index(tmp_path: Path) -> tuple[TranscriptIndex, CountingEmbeddings]:
    emb = CountingEmbeddings(size=16)
    return TranscriptIndex.on_disk(tmp_path / "chroma", emb, "counting"), emb


def test_reingest_embeds_nothing(tmp_path: Path, sample_text: str) -> None:
    index, emb = _index(tmp_path)
    t = parse_transcript(sample_text)
    chunks = recursive_chunks(t, max_words=60)
    first = index.ingest(t.sha256, chunks, "rec60")
    assert not first.reused and first.n_chunks == len(chunks) and emb.documents == len(chunks)
    second = index.ingest(t.sha256, chunks, "rec60")
    assert second.reused and second.collection == first.collection
    assert emb.documents == len(chunks)  # nothing embedded again
    # a fresh process (new client on the same directory) reuses it too
    index2, emb2 = _index(tmp_path)
    assert index2.ingest(t.sha256, chunks, "rec60").reused and emb2.documents == 0


def test_partial_index_is_rebuilt(tmp_path: Path, sample_text: str) -> None:
    index, _ = _index(tmp_path)
    t = parse_transcript(sample_text)
    chunks = recursive_chunks(t, max_words=60)
    index.ingest(t.sha256, chunks[:2], "rec60")  # as if a crash cut the ingest short
    again = index.ingest(t.sha256, chunks, "rec60")
    assert not again.reused and again.n_chunks == len(chunks)


def test_retrieval_never_crosses_transcripts(tmp_path: Path, sample_text: str) -> None:
    index, _ = _index(tmp_path)
    a = parse_transcript(sample_text)
    b = parse_transcript("Other company. Revenue fell 40%. " * 30)
    ra = index.ingest(a.sha256, recursive_chunks(a, max_words=40), "rec40")
    rb = index.ingest(b.sha256, recursive_chunks(b, max_words=40), "rec40")
    assert ra.collection != rb.collection
    hits = index.search(ra.collection, FINDEBATE_DIMENSIONS, k=10, per_dim=50)
    ids = {h.chunk.id for hs in hits.values() for h in hs}
    assert ids and all(i.startswith(a.sha256[:12]) for i in ids)
    for hs in hits.values():  # de-duplicated within a dimension, best first
        assert len({h.chunk.id for h in hs}) == len(hs)
        assert [h.score for h in hs] == sorted((h.score for h in hs), reverse=True)
        for h in hs:
            assert a.text[h.chunk.start : h.chunk.end] == h.chunk.text


def test_collection_depends_on_embedding_model(tmp_path: Path) -> None:
    emb = DeterministicFakeEmbedding(size=8)
    a = TranscriptIndex.on_disk(tmp_path / "c", emb, "model-a")
    b = TranscriptIndex.on_disk(tmp_path / "c", emb, "model-b")
    assert a.collection_name("ab" * 32, "rec150") != b.collection_name("ab" * 32, "rec150")


def test_take_words_and_interleave(tmp_path: Path, sample_text: str) -> None:
    index, _ = _index(tmp_path)
    t = parse_transcript(sample_text)
    r = index.ingest(t.sha256, recursive_chunks(t, max_words=40), "rec40")
    hits = index.search(r.collection, FINDEBATE_DIMENSIONS, k=4, per_dim=4)
    groups = [[to_passage(h) for h in hs] for hs in hits.values()]
    merged = interleave(groups)
    assert len({p.chunk_id for p in merged}) == len(merged)
    assert merged[0].chunk_id == groups[0][0].chunk_id
    picked = take_words(merged, 60)
    assert sum(len(p.text.split()) for p in picked) <= 60 or len(picked) == 1
    assert [p.start for p in picked] == sorted(p.start for p in picked)


def test_bm25_finds_the_passage_stating_a_figure(tmp_path: Path, sample_text: str) -> None:
    """Random (fake) embeddings cannot find "$14 million"; BM25 does, and hybrid keeps it."""
    transcript = parse_transcript(sample_text)
    chunks = recursive_chunks(transcript, max_words=40)
    index = TranscriptIndex.on_disk(tmp_path, DeterministicFakeEmbedding(size=16), "fake")
    name = index.ingest(transcript.sha256, chunks, "rec40").collection
    dims = {"savings": ("save about $14 million a year from 2027",)}
    target = next(c.id for c in chunks if "$14 million" in c.text)
    bm25 = index.search(name, dims, k=3, per_dim=3, retriever="bm25")["savings"]
    assert bm25[0].chunk.id == target and bm25[0].score > 0
    hybrid = index.search(name, dims, k=3, per_dim=3, retriever="hybrid")["savings"]
    assert target in [h.chunk.id for h in hybrid]
    assert all(0 < h.score <= 2 / 61 for h in hybrid)  # fused reciprocal ranks
    dense = index.search(name, dims, k=3, per_dim=3, retriever="dense")["savings"]
    assert len(dense) == 3 and all(-1 <= h.score <= 1 for h in dense)


def test_rrf_rewards_agreement() -> None:
    from core.contract import Chunk
    from core.rag import rrf

    a, b, c = (Chunk(id=i, section="s", start=0, end=1, text=i) for i in "abc")
    fused = rrf([[a, b], [b, c]], k=3)
    assert [ch.id for ch, _ in fused] == ["b", "a", "c"]
    assert fused[0][1] == 1 / 62 + 1 / 61


def test_dense_search_asks_the_store_once_and_matches_per_query_search(
    tmp_path: Path, sample_text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """All of a run's dense queries go to the vector store in one request (a Chroma server is a
    round trip per request), with each query's hits exactly as a search of its own gives them."""
    index, _ = _index(tmp_path)
    t = parse_transcript(sample_text)
    name = index.ingest(t.sha256, recursive_chunks(t, max_words=40), "rec40").collection
    store = index._store(name)
    calls: list[int] = []
    collection_type = type(store._collection)
    query = collection_type.query

    def counted(self: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(len(kwargs.get("query_embeddings", [])))
        return query(self, *args, **kwargs)

    monkeypatch.setattr(collection_type, "query", counted)
    hits = index.search(name, FINDEBATE_DIMENSIONS, k=4, per_dim=50, retriever="dense")
    monkeypatch.undo()
    n_queries = sum(len(q) for q in FINDEBATE_DIMENSIONS.values())
    assert calls == [n_queries]
    for dim, queries in FINDEBATE_DIMENSIONS.items():
        alone: dict[str, float] = {}
        for q in queries:
            vector = index._embeddings.embed_query(q)
            for doc, distance in store.similarity_search_by_vector_with_relevance_scores(
                vector, k=4
            ):
                alone[str(doc.id)] = max(alone.get(str(doc.id), -1.0), 1.0 - distance)
        assert {h.chunk.id: h.score for h in hits[dim]} == pytest.approx(alone)


def test_bm25_indexes_kept_are_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A server reading many calls keeps only the most recently used calls' BM25 indexes; an
    evicted one is rebuilt the same when asked again (issue 38 #6)."""
    import core.rag as rag

    monkeypatch.setattr(rag, "LEXICAL_KEPT", 3)
    index, _ = _index(tmp_path)
    names = []
    for n in range(6):
        t = parse_transcript(f"Call {n}. Revenue rose {n + 1}% to ${n + 10} million. " * 20)
        names.append(index.ingest(t.sha256, recursive_chunks(t, max_words=40), "rec40").collection)
    first = index.lexical(names[0])
    built_second = [c.id for c in index.lexical(names[1]).chunks]
    for name in names[1:]:
        index.lexical(name)
        index.lexical(names[0])  # used again: stays among the kept
    assert len(index._lexical) == 3
    assert index.lexical(names[0]) is first
    assert names[1] not in index._lexical
    assert [c.id for c in index.lexical(names[1]).chunks] == built_second  # rebuilt the same
