"""The seed memory API, kept as the project's first contract: `MemoryBackend` (store, retrieve, delete, clear
texts), `MemoryRegistry` (backends by key) and the built-in backends. `sqlite`, `dense` and default `hybrid` store
texts in the library schema (the same tables, chunker and search as Library); `bm25` is rank-bm25 in memory.

    backend = MemoryRegistry.create("sqlite", db_path="./memory.db")
    backend.store("Hello world", source="test.txt")
    backend.retrieve("hello")  # [RetrievalResult("Hello world", score, "test.txt", {...})]

Conversation memory (facts, raw chat history, recall) is another thing: memory/service.py.
"""

from __future__ import annotations

import inspect
import os
import uuid
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, TypeVar

from desktop_app.core.embed.auto import library_embedder
from desktop_app.core.embed.base import Embedder, embed_passages
from desktop_app.core.index.indexer import content_hash
from desktop_app.core.ingest.chunking import ChunkConfig, chunk_spans
from desktop_app.core.search.fusion import rrf_fuse
from desktop_app.core.search.service import SearchParams, search_store
from desktop_app.core.settings import DEFAULT_EMBEDDER
from desktop_app.core.store.rows import ChunkVectors, NewChunk, NewDocument
from desktop_app.core.store.sqlite import SQLiteStore
from desktop_app.core.text import build_query
from desktop_app.core.text.fields import analyze
from desktop_app.core.types import RetrievalResult

B = TypeVar("B", bound="MemoryBackend")


class MemoryBackend(ABC):
    """Stores texts and retrieves the ones most relevant to a query (higher score is better)."""

    @abstractmethod
    def store(self, content: str, *, source: str = "", metadata: dict[str, Any] | None = None) -> str:
        """Keep `content`; returns its id."""

    @abstractmethod
    def retrieve(self, query: str, *, top_k: int = 5, **kwargs: Any) -> list[RetrievalResult]:
        """The stored texts most relevant to `query`, best first."""

    @abstractmethod
    def delete(self, doc_id: str) -> bool:
        """Forget one stored text. False if there was none with that id."""

    @abstractmethod
    def clear(self) -> None:
        """Forget everything."""


class MemoryRegistry:
    """Backends by key: `MemoryRegistry.create("sqlite", db_path=...)`; add one with `@MemoryRegistry.register(key)`."""

    _backends: dict[str, type[MemoryBackend]] = {}

    @classmethod
    def register(cls, key: str) -> Callable[[type[B]], type[B]]:
        def decorator(backend: type[B]) -> type[B]:
            if not (isinstance(backend, type) and issubclass(backend, MemoryBackend)):
                raise TypeError(f"{backend!r} is not a MemoryBackend")
            cls._backends[key] = backend
            return backend
        return decorator

    @classmethod
    def create(cls, key: str, **kwargs: Any) -> MemoryBackend:
        try:
            backend = cls._backends[key]
        except KeyError:
            raise KeyError(f"no memory backend {key!r}; known: {', '.join(sorted(cls._backends))}") from None
        return backend(**kwargs)

    @classmethod
    def available(cls) -> list[str]:
        return sorted(cls._backends)


MEMORY_FOLDER = "memory:"
PREFIX = "memory://"


class IndexedMemory(MemoryBackend):
    """Texts kept as documents in a library database (a file, or in memory without `db_path`)."""

    mode = "keyword"

    def __init__(self, db_path: str | os.PathLike[str] | None = None, *, embedder: Embedder | None = None,
                 chunk_config: ChunkConfig | None = None, mode: str | None = None) -> None:
        self.mode = mode or self.mode
        self.db = SQLiteStore(os.fspath(db_path) if db_path else ":memory:")
        if embedder is None and self.mode != "keyword":
            embedder = library_embedder(DEFAULT_EMBEDDER, 64, self.db.languages)
        self.embedder = embedder
        self.chunk_config = chunk_config or ChunkConfig()
        self.folder_id = self.db.add_folder(MEMORY_FOLDER).id
        if self.embedder is not None:
            self.db.ensure_embedding_model(self.embedder.model_id, self.embedder.dim)

    def store(self, content: str, *, source: str = "", metadata: dict[str, Any] | None = None,
              doc_id: str | None = None) -> str:
        doc_id = doc_id or uuid.uuid4().hex
        chunks = [NewChunk(span, None) for span in chunk_spans(content, self.chunk_config)]
        row = NewDocument(folder_id=self.folder_id, path=PREFIX + doc_id, title="", type="memory", size=len(content),
                          digest=content_hash(content.encode("utf-8", "surrogatepass")),
                          metadata={"doc_id": doc_id, "source": source, "metadata": metadata or {}})
        new_id = self.db.write_document(row, chunks)
        if self.embedder is not None:
            rows = self.db.pending_chunks(len(chunks) + 1, document_id=new_id)
            vectors = embed_passages(self.embedder, [r.text for r in rows]) if rows else []
            self.db.store_vectors(ChunkVectors(r.id, r.text_hash, v) for r, v in zip(rows, vectors, strict=True))
        return doc_id

    def retrieve(self, query: str, *, top_k: int = 5, **kwargs: Any) -> list[RetrievalResult]:
        hits = search_store(self.db, query, embedder=self.embedder, mode=self.mode, top_k=top_k,
                            params=kwargs.get("params", SearchParams()), group_by_document=True)
        return [_as_memory_result(hit) for hit in hits]

    def delete(self, doc_id: str) -> bool:
        row = self.db.document_by_path(PREFIX + doc_id)
        return row is not None and self.db.delete_document(row.id)

    def clear(self) -> None:
        for doc in self.db.documents_under(self.folder_id).values():
            self.db.delete_document(doc.id)

    def close(self) -> None:
        self.db.close()


def _as_memory_result(hit: RetrievalResult) -> RetrievalResult:
    user = hit.metadata.get("user") or {}
    meta = {**user.get("metadata", {}), "doc_id": user.get("doc_id", ""), "chunk_id": hit.metadata["chunk_id"],
            "chunk_index": hit.metadata["chunk_index"]}
    return RetrievalResult(hit.content, hit.score, user.get("source", ""), meta)


@MemoryRegistry.register("sqlite")
class SQLiteMemory(IndexedMemory):
    """FTS5 BM25 over a persistent SQLite file (or in memory without db_path)."""

    mode = "keyword"


@MemoryRegistry.register("dense")
class DenseMemory(IndexedMemory):
    """sqlite-vec KNN over normalised embeddings; persistent when given db_path, in memory without it."""

    mode = "semantic"


@MemoryRegistry.register("hybrid")
class HybridMemory(MemoryBackend):
    """Weighted RRF of a sparse and a dense backend. Without both given, one database serves both sides."""

    def __init__(self, sparse: MemoryBackend | None = None, dense: MemoryBackend | None = None, *, k: int = 60,
                 sparse_weight: float = 1.0, dense_weight: float = 1.0, db_path: str | os.PathLike[str] | None = None,
                 embedder: Embedder | None = None) -> None:
        self.k, self.weights = k, (sparse_weight, dense_weight)
        self.shared: DenseMemory | None = None
        self.sides: tuple[MemoryBackend, MemoryBackend] | None = None
        if sparse is None and dense is None:
            self.shared = DenseMemory(db_path, embedder=embedder, mode="hybrid")
        else:
            self.sides = (sparse or SQLiteMemory(db_path), dense or DenseMemory(None, embedder=embedder))

    def _parts(self) -> list[MemoryBackend]:
        return [self.shared] if self.shared else list(self.sides or ())

    def store(self, content: str, *, source: str = "", metadata: dict[str, Any] | None = None) -> str:
        doc_id = uuid.uuid4().hex
        for part in self._parts():
            _store_with_id(part, content, source, metadata, doc_id)
        return doc_id

    def retrieve(self, query: str, *, top_k: int = 5, **kwargs: Any) -> list[RetrievalResult]:
        if self.shared:
            params = SearchParams(keyword_weight=self.weights[0], semantic_weight=self.weights[1], rrf_k=self.k,
                                  fusion="rrf")  # the seed's contract: weighted RRF with this k
            return self.shared.retrieve(query, top_k=top_k, params=params)
        fetch = max(3 * top_k, top_k)
        lists = [side.retrieve(query, top_k=fetch) for side in self._parts()]
        by_key: dict[str, RetrievalResult] = {}
        rankings: list[list[str]] = []
        for results in lists:
            keys: list[str] = []
            for r in results:
                key = r.metadata.get("doc_id") or r.content
                by_key.setdefault(key, r)
                keys.append(key)
            rankings.append(keys)
        fused = rrf_fuse(rankings, list(self.weights), k=self.k)[:top_k]
        return [RetrievalResult(by_key[key].content, score, by_key[key].source, by_key[key].metadata)
                for key, score in fused]

    def delete(self, doc_id: str) -> bool:
        return any([part.delete(doc_id) for part in self._parts()])

    def clear(self) -> None:
        for part in self._parts():
            part.clear()


def _store_with_id(part: MemoryBackend, content: str, source: str, metadata: dict[str, Any] | None,
                   doc_id: str) -> None:
    """Store in a part under a shared id when it takes one (built-ins do); otherwise under its own.

    Decided from the signature, not by catching TypeError, which would also swallow errors raised inside store().
    """
    if "doc_id" in inspect.signature(part.store).parameters:
        part.store(content, source=source, metadata=metadata, doc_id=doc_id)  # type: ignore[call-arg]
    else:
        part.store(content, source=source, metadata={**(metadata or {}), "doc_id": doc_id})


@MemoryRegistry.register("bm25")
class BM25Memory(MemoryBackend):
    """rank-bm25 (Okapi) over texts held in memory; the index is rebuilt lazily after changes."""

    def __init__(self, **_: Any) -> None:
        self._docs: dict[str, tuple[str, str, dict[str, Any]]] = {}
        self._index: Any = None  # a rank_bm25.BM25Okapi, built on first retrieve
        self._order: list[str] = []

    def store(self, content: str, *, source: str = "", metadata: dict[str, Any] | None = None,
              doc_id: str | None = None) -> str:
        doc_id = doc_id or uuid.uuid4().hex
        self._docs[doc_id] = (content, source, dict(metadata or {}))
        self._index = None
        return doc_id

    def retrieve(self, query: str, *, top_k: int = 5, **kwargs: Any) -> list[RetrievalResult]:
        terms = list(dict.fromkeys(term.token for term in build_query(query).terms))
        if not terms or not self._docs:
            return []
        if self._index is None:
            from rank_bm25 import BM25Okapi

            self._order = list(self._docs)
            self._index = BM25Okapi([_tokens(self._docs[d][0]) for d in self._order])
        scores = self._index.get_scores(terms)
        wanted = set(terms)
        # rank-bm25's IDF can be zero or negative in tiny corpora: keep every text sharing a word, by score
        matching = [i for i, freqs in enumerate(self._index.doc_freqs) if wanted & freqs.keys()]
        out = []
        for i in sorted(matching, key=lambda i: -scores[i])[:top_k]:
            content, source, meta = self._docs[self._order[i]]
            out.append(RetrievalResult(content, float(scores[i]), source, {**meta, "doc_id": self._order[i]}))
        return out

    def delete(self, doc_id: str) -> bool:
        self._index = None
        return self._docs.pop(doc_id, None) is not None

    def clear(self) -> None:
        self._docs.clear()
        self._index = None


def _tokens(text: str) -> list[str]:
    """The text's index tokens (the keyword pipeline's, so every script and stems match the query's terms)."""
    return [token for tokens in analyze(text).values() for token in tokens]
