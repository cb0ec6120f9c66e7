"""Transcript RAG: index chunks in Chroma (one collection per transcript content) and retrieve
along named query dimensions (each pipeline brings its own), merged and de-duplicated."""

from __future__ import annotations

import hashlib
import re
import shutil
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langchain_core.embeddings import Embeddings
from rank_bm25 import BM25Okapi

from core.contract import Chunk, EvidencePassage
from core.options import Retriever


@dataclass(frozen=True)
class IngestResult:
    collection: str
    n_chunks: int
    reused: bool


@dataclass(frozen=True)
class Hit:
    chunk: Chunk
    score: float
    dimensions: tuple[str, ...]


RRF_C = 60  # the usual reciprocal-rank-fusion constant
LEXICAL_KEPT = 8  # BM25 indexes kept in memory (a 1 MB call's is tens of MB); older are rebuilt
_TOKEN = re.compile(r"[a-z0-9]+(?:[.,][0-9]+)*")


def lexical_tokens(text: str) -> list[str]:
    """Lower-case words and numbers ("1,543.1" stays one token) for BM25."""
    return _TOKEN.findall(text.lower())


def rrf(rankings: Sequence[Sequence[Chunk]], k: int) -> list[tuple[Chunk, float]]:
    """Reciprocal-rank fusion of ranked lists: sum of 1 / (60 + rank), best first, top k."""
    scores: dict[str, float] = {}
    chunks: dict[str, Chunk] = {}
    for ranked in rankings:
        for rank, chunk in enumerate(ranked):
            scores[chunk.id] = scores.get(chunk.id, 0.0) + 1.0 / (RRF_C + rank + 1)
            chunks[chunk.id] = chunk
    best = sorted(scores, key=lambda cid: (-scores[cid], cid))[:k]
    return [(chunks[cid], scores[cid]) for cid in best]


class LexicalIndex:
    """BM25 over one transcript's chunks."""

    def __init__(self, chunks: Sequence[Chunk]) -> None:
        self.chunks = list(chunks)
        self._bm25 = BM25Okapi([lexical_tokens(c.text) or ["-"] for c in self.chunks])

    def search(self, query: str, k: int) -> list[tuple[Chunk, float]]:
        scores = self._bm25.get_scores(lexical_tokens(query))
        order = sorted(range(len(self.chunks)), key=lambda i: (-scores[i], i))[:k]
        return [(self.chunks[i], float(scores[i])) for i in order if scores[i] > 0]


def embedding_fingerprint(name: str) -> str:
    return hashlib.sha256(name.encode()).hexdigest()[:8]


class TranscriptIndex:
    """Chroma on local disk (or a given client) with our embedding function; thread-safe ingest.

    All methods are blocking (embedding is CPU work): call them off the event loop.
    """

    def __init__(
        self,
        client: Any,
        embeddings: Embeddings,
        embedding_name: str,
        sqlite_file: Path | None = None,
    ) -> None:
        self._client = client
        self._client_settings = client.get_settings()
        self._sqlite_file = sqlite_file  # on disk: Chroma's own SQLite file, to shrink
        self._busy = 0  # operations in flight; the file is only rewritten when none are
        self._idle = threading.Condition()
        self._vacuuming = False
        self._embeddings = embeddings
        self._fingerprint = embedding_fingerprint(embedding_name)
        self._locks: dict[str, threading.Lock] = {}
        self._locks_guard = threading.Lock()
        self._lexical: OrderedDict[str, LexicalIndex] = OrderedDict()  # newest used last

    @classmethod
    def on_disk(cls, path: Path, embeddings: Embeddings, embedding_name: str) -> TranscriptIndex:
        import chromadb
        from chromadb.config import Settings

        path.mkdir(parents=True, exist_ok=True)
        client = chromadb.PersistentClient(
            path=str(path), settings=Settings(anonymized_telemetry=False, allow_reset=False)
        )
        return cls(client, embeddings, embedding_name, path / "chroma.sqlite3")

    @classmethod
    def remote(cls, url: str, embeddings: Embeddings, embedding_name: str) -> TranscriptIndex:
        """A Chroma server (`chroma run`), shared by every worker."""
        from urllib.parse import urlsplit

        import chromadb
        from chromadb.config import Settings

        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"EDESK_CHROMA_URL must be http(s)://host:port, not {url!r}")
        client = chromadb.HttpClient(
            host=parts.hostname,
            port=parts.port or (443 if parts.scheme == "https" else 8000),
            ssl=parts.scheme == "https",
            settings=Settings(anonymized_telemetry=False),
        )
        return cls(client, embeddings, embedding_name)

    def heartbeat(self) -> None:
        """Raises if the vector store does not answer."""
        self._client.heartbeat()

    def collection_name(self, transcript_sha: str, scheme: str) -> str:
        return f"tx-{transcript_sha[:24]}-{scheme}-{self._fingerprint}"

    @contextmanager
    def _using(self) -> Iterator[None]:
        """An operation on the index: waits while the file is being rewritten."""
        with self._idle:
            while self._vacuuming:
                self._idle.wait()
            self._busy += 1
        try:
            yield
        finally:
            with self._idle:
                self._busy -= 1
                self._idle.notify_all()

    def drop(self, transcript_sha: str, *, shrink: bool = True) -> list[str]:
        """Delete every index of this transcript (each chunking scheme, each embedding model),
        then give the space back (`shrink`, unless the caller does it once for many); returns
        the names deleted."""
        prefix = f"tx-{transcript_sha[:24]}-"
        dropped = []
        with self._using():
            for collection in self._client.list_collections():
                name = str(getattr(collection, "name", collection))
                if name.startswith(prefix):
                    with self._lock(name):
                        self._client.delete_collection(name)
                        with self._locks_guard:
                            self._lexical.pop(name, None)
                    dropped.append(name)
        if dropped and shrink:
            self.shrink()
        return dropped

    def shrink(self, min_free: float = 0.25) -> bool:
        """Give a dropped index's disk back: Chroma (1.5) leaves a deleted collection's vector
        folder on disk and its documents in the full-text index's segments, and its SQLite
        file keeps its size. So: remove the folders of segments Chroma no longer lists, merge
        the full-text index (FTS5 'optimize', SQLite's own maintenance command) and VACUUM
        when over `min_free` of the file is free pages. Only while no ingest or search is in
        flight (new ones wait); False when nothing was rewritten (a Chroma server, nothing
        to gain, or the index busy: the next drop or retention sweep tries again)."""
        if self._sqlite_file is None or not self._sqlite_file.exists():
            return False
        with self._idle:
            if self._busy or self._vacuuming:
                return False
            self._vacuuming = True
        try:
            return _shrink_chroma(self._sqlite_file, min_free)
        finally:
            with self._idle:
                self._vacuuming = False
                self._idle.notify_all()

    def _store(self, name: str) -> Any:
        from langchain_chroma import Chroma

        return Chroma(
            client=self._client,
            # the client's own settings: without them the wrapper builds a fresh Settings from
            # the environment on every call (a third of a search's CPU on a Chroma server)
            client_settings=self._client_settings,
            collection_name=name,
            embedding_function=self._embeddings,
            collection_metadata={"hnsw:space": "cosine"},
        )

    def _lock(self, name: str) -> threading.Lock:
        with self._locks_guard:
            return self._locks.setdefault(name, threading.Lock())

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Embeddings of `texts` with the index's model (blocking)."""
        return self._embeddings.embed_documents(list(texts)) if texts else []

    def ingest(self, transcript_sha: str, chunks: Sequence[Chunk], scheme: str) -> IngestResult:
        """Embed and index the chunks unless this exact transcript+scheme+model is indexed."""
        if not chunks:
            raise ValueError("nothing to index: the transcript produced no chunks")
        name = self.collection_name(transcript_sha, scheme)
        with self._using(), self._lock(name):
            store = self._store(name)
            existing = store._collection.count()
            if existing == len(chunks):
                return IngestResult(name, len(chunks), reused=True)
            # chunk ids are fixed by the transcript, so a partial index (an interrupted ingest)
            # or another worker ingesting the same call at once just upserts the same entries
            store.add_texts(
                texts=[c.text for c in chunks],
                metadatas=[_metadata(c) for c in chunks],
                ids=[c.id for c in chunks],
            )
            return IngestResult(name, len(chunks), reused=False)

    def lexical(self, collection: str) -> LexicalIndex:
        """The BM25 index of a collection's chunks: built on first use, kept for the
        `LEXICAL_KEPT` most recently used collections (a run's nodes share one), so a server
        that reads many calls does not hold every call's index for ever."""
        with self._using(), self._lock(collection):
            with self._locks_guard:
                kept = self._lexical.get(collection)
                if kept is not None:
                    self._lexical.move_to_end(collection)
                    return kept
            got = self._store(collection).get(include=["documents", "metadatas"])
            chunks = [
                _chunk_from(i, d, m)
                for i, d, m in zip(got["ids"], got["documents"], got["metadatas"], strict=True)
            ]
            built = LexicalIndex(sorted(chunks, key=lambda c: c.start))
            with self._locks_guard:
                self._lexical[collection] = built
                while len(self._lexical) > LEXICAL_KEPT:
                    self._lexical.popitem(last=False)
            return built

    def _dense(self, store: Any, queries: Sequence[str], k: int) -> list[list[tuple[Chunk, float]]]:
        """Each query's top k by cosine similarity, in one request to the vector store (a
        Chroma server is a round trip per request: a findebate run has 18 queries)."""
        if not queries:
            return []
        vectors = [self._embeddings.embed_query(q) for q in queries]
        got = store._collection.query(
            query_embeddings=vectors, n_results=k, include=["documents", "metadatas", "distances"]
        )
        return [
            [
                (_chunk_from(i, d, m or {}), 1.0 - float(dist))
                for i, d, m, dist in zip(ids, docs, metas, dists, strict=True)
            ]
            for ids, docs, metas, dists in zip(
                got["ids"], got["documents"], got["metadatas"], got["distances"], strict=True
            )
        ]

    def search(
        self,
        collection: str,
        dimensions: Mapping[str, Sequence[str]],
        *,
        k: int,
        per_dim: int,
        retriever: Retriever = "hybrid",
    ) -> dict[str, list[Hit]]:
        """For each dimension run its queries (top k each), merge, de-duplicate by chunk id,
        best first. Scores: cosine similarity (dense), BM25 (bm25), fused rank (hybrid)."""
        with self._using():
            return self._search(collection, dimensions, k=k, per_dim=per_dim, retriever=retriever)

    def _search(
        self,
        collection: str,
        dimensions: Mapping[str, Sequence[str]],
        *,
        k: int,
        per_dim: int,
        retriever: Retriever,
    ) -> dict[str, list[Hit]]:
        store = self._store(collection)
        lexical = self.lexical(collection) if retriever != "dense" else None
        asked = [q for queries in dimensions.values() for q in queries]
        dense_hits = iter(self._dense(store, asked, k) if retriever != "bm25" else [])
        out: dict[str, list[Hit]] = {}
        for dim, queries in dimensions.items():
            best: dict[str, Hit] = {}
            for query in queries:
                dense = next(dense_hits) if retriever != "bm25" else []
                words = lexical.search(query, k) if lexical is not None else []
                if retriever == "hybrid":
                    ranked = rrf([[c for c, _ in dense], [c for c, _ in words]], k)
                else:
                    ranked = dense or words
                for chunk, score in ranked:
                    prev = best.get(chunk.id)
                    if prev is None or score > prev.score:
                        best[chunk.id] = Hit(chunk, score, (dim,))
            out[dim] = sorted(best.values(), key=lambda h: h.score, reverse=True)[:per_dim]
        return out


def _shrink_chroma(sqlite_file: Path, min_free: float) -> bool:
    conn = sqlite3.connect(sqlite_file, timeout=5, isolation_level=None)
    try:
        live = {row[0] for row in conn.execute("SELECT id FROM segments")}
        for folder in sqlite_file.parent.iterdir():
            if folder.is_dir() and _UUID.fullmatch(folder.name) and folder.name not in live:
                shutil.rmtree(folder, ignore_errors=True)
        fts = "embedding_fulltext_search"
        if conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (fts,)).fetchone():
            conn.execute(f"INSERT INTO {fts}({fts}) VALUES('optimize')")
        free = conn.execute("PRAGMA freelist_count").fetchone()[0]
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        if not pages or free / pages < min_free:
            return False
        conn.execute("VACUUM")
        return True
    except sqlite3.OperationalError:  # Chroma holds a lock after all: next time
        return False
    finally:
        conn.close()


_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def _metadata(chunk: Chunk) -> dict[str, Any]:
    return {
        "section": chunk.section,
        "speaker": chunk.speaker or "",
        "start": chunk.start,
        "end": chunk.end,
    }


def _chunk_from(doc_id: str | None, text: str, meta: Mapping[str, Any]) -> Chunk:
    if doc_id is None:
        raise RuntimeError("Chroma returned a document without an id")
    return Chunk(
        id=doc_id,
        section=str(meta.get("section", "")),
        speaker=str(meta["speaker"]) if meta.get("speaker") else None,
        start=int(meta.get("start", 0)),
        end=int(meta.get("end", 0)),
        text=text,
    )


def take_words(passages: Sequence[EvidencePassage], budget_words: int) -> list[EvidencePassage]:
    """The best passages (given best first) that fit a word budget (at least one), returned in
    transcript order for reading."""
    chosen: list[EvidencePassage] = []
    used = 0
    for p in passages:
        n = len(p.text.split())
        if chosen and used + n > budget_words:
            continue
        chosen.append(p)
        used += n
    return sorted(chosen, key=lambda p: p.start)


def to_passage(hit: Hit) -> EvidencePassage:
    c = hit.chunk
    return EvidencePassage(
        chunk_id=c.id,
        section=c.section,
        speaker=c.speaker,
        start=c.start,
        end=c.end,
        text=c.text,
        dimensions=list(hit.dimensions),
        score=round(hit.score, 4),
    )


def format_passages(passages: Sequence[EvidencePassage]) -> str:
    """Passages as the prompts show them: an id to cite, where it was said, and the text."""
    blocks = []
    for p in passages:
        who = f", {p.speaker}" if p.speaker else ""
        blocks.append(f"[{p.chunk_id}] ({p.section}{who})\n{p.text}")
    return "\n\n".join(blocks)


def interleave(groups: Sequence[Sequence[EvidencePassage]]) -> list[EvidencePassage]:
    """Round-robin over ranked groups so every dimension is represented, de-duplicated by id."""
    out: list[EvidencePassage] = []
    seen: set[str] = set()
    for rank in range(max((len(g) for g in groups), default=0)):
        for group in groups:
            if rank < len(group) and group[rank].chunk_id not in seen:
                seen.add(group[rank].chunk_id)
                out.append(group[rank])
    return out
