"""One search over a Store: keyword, semantic or hybrid, fused and hydrated into RetrievalResults.

Engine-neutral: the store gives candidate lists (chunk id, score) and rows; fusion, highlights and result
shapes are the same whichever engine holds the library.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from desktop_app.core.embed.base import Embedder, embed_query
from desktop_app.core.errors import UnavailableError
from desktop_app.core.folders import normalise
from desktop_app.core.log import get_logger
from desktop_app.core.search.fusion import convex_fuse, rrf_fuse
from desktop_app.core.search.links import FollowedLink, follow
from desktop_app.core.search.query_language import ParsedQuery, parse_query
from desktop_app.core.search.query_search import checked_search, query_filters
from desktop_app.core.search.rerank import SEARCH_MIX, Reranker, load_reranker
from desktop_app.core.search.rerank import rerank as rerank_results
from desktop_app.core.search.side_pool import run_both
from desktop_app.core.store.base import Store
from desktop_app.core.store.rows import ChunkRow, Filters
from desktop_app.core.text import Query, build_query, highlight_spans
from desktop_app.core.types import Fusion, RetrievalResult, SearchMode

log = get_logger("search")

MODES = tuple(SearchMode)
FUSIONS = tuple(Fusion)
MIN_CANDIDATES = 50
ROWS_AHEAD = 5  # rows hydrate reads past the top k in its first batch (_ranked_rows)
RERANK_DEPTH = 20  # search results the reranker reads when asked for fewer (bench/rerank.py, SciFact train)


@dataclass(frozen=True)
class SearchParams:
    """How a search runs: fusion weights and k, the title weight in BM25, how far each side over-fetches."""

    keyword_weight: float = 1.0
    semantic_weight: float = 1.0
    rrf_k: int = 60
    fusion: Fusion | str = Fusion.CONVEX  # a value is taken as its member (ValueError for any other)
    title_weight: float = 2.0
    overfetch: int = 3
    min_similarity: float = 0.2  # MiniLM cosines of unrelated texts sit below this: noise, not meaning

    def __post_init__(self) -> None:
        if self.fusion not in FUSIONS:
            raise ValueError(f"unknown fusion {self.fusion!r}; use one of {', '.join(FUSIONS)}")
        object.__setattr__(self, "fusion", Fusion(self.fusion))


def candidate_count(top_k: int, params: SearchParams) -> int:
    """Each side fetches overfetch × top_k candidates, at least MIN_CANDIDATES."""
    return max(params.overfetch * top_k, MIN_CANDIDATES)


def search_store(
    store: Store,
    query: str,
    *,
    embedder: Embedder | None,
    mode: SearchMode | str = SearchMode.HYBRID,
    top_k: int = 10,
    params: SearchParams = SearchParams(),
    filters: Filters | None = None,
    group_by_document: bool = False,
) -> list[RetrievalResult]:
    """Search a store. Semantic and hybrid need an embedder; hybrid without one is keyword only."""
    if mode not in MODES:
        raise ValueError(f"unknown search mode {mode!r}; use one of {', '.join(MODES)}")
    mode = SearchMode(mode)
    if top_k <= 0 or not (query or "").strip():
        return []
    n = candidate_count(top_k, params)

    def keyword_side() -> list[tuple[int, float]]:
        if mode == SearchMode.SEMANTIC:
            return []
        return store.keyword_candidates(query, n, title_weight=params.title_weight, filters=filters)

    def dense_side() -> list[tuple[int, float]]:
        if mode == SearchMode.KEYWORD:
            return []
        qvec = query_vector(embedder, query, mode)
        if qvec is None:
            return []
        return [h for h in store.dense_candidates(qvec, n, filters=filters) if h[1] >= params.min_similarity]

    if mode == SearchMode.HYBRID and embedder is not None and getattr(store, "SIDES_AT_ONCE", True):
        keyword, dense = run_both(keyword_side, dense_side)  # at once: each side waits on the server
    else:
        keyword, dense = keyword_side(), dense_side()
    if mode == SearchMode.KEYWORD:
        ranked = keyword
    elif mode == SearchMode.SEMANTIC:
        ranked = dense
    else:
        ranked = fuse(keyword, dense, params)
    return hydrate(store, ranked, top_k, build_query(query), group_by_document)


def query_vector(embedder: Embedder | None, query: str, mode: SearchMode) -> np.ndarray | None:
    """The query's vector; None for hybrid search without a usable model (it is keyword only then)."""
    if embedder is None:
        if mode == SearchMode.SEMANTIC:
            raise UnavailableError("Semantic search is not available: no embedding model is loaded.")
        return None
    try:
        return embed_query(embedder, query)
    except UnavailableError:
        if mode == SearchMode.SEMANTIC:
            raise
        log.warning("embedding model unavailable: hybrid search falls back to keywords")
        return None


def fuse(
    keyword: list[tuple[int, float]], dense: list[tuple[int, float]], params: SearchParams
) -> list[tuple[int, float]]:
    """Hybrid ranking, scores in 0..1 (1.0 = best on both sides), so chat's min_score means the same either way.

    CONVEX (default) adds min-max normalised BM25 and cosine scores; RRF is weighted reciprocal rank fusion.
    Both were measured on SciFact's train split (bench/tune_fusion.py); convex ranked better there.
    """
    weights = [params.keyword_weight, params.semantic_weight]
    if params.fusion == Fusion.CONVEX:
        return convex_fuse([keyword, dense], weights)
    best = sum(weights) / (params.rrf_k + 1) or 1.0
    return [
        (c, s / best) for c, s in rrf_fuse([[c for c, _ in keyword], [c for c, _ in dense]], weights, k=params.rrf_k)
    ]


def hydrate(store: Store, ranked: list[tuple[int, float]], top_k: int, query: Query,
            group_by_document: bool) -> list[RetrievalResult]:
    """Turn (chunk id, score) pairs into RetrievalResults, best first, optionally one per document."""
    if not ranked:
        return []
    results: list[RetrievalResult] = []
    seen_docs: set[int] = set()
    for cid, score, r in _ranked_rows(store, ranked, top_k):
        if r is None:
            continue  # deleted between the candidate query and now
        if group_by_document:
            if r.document_id in seen_docs:
                continue
            seen_docs.add(r.document_id)
        metadata: dict[str, Any] = {
            "chunk_id": cid, "chunk_index": r.ordinal, "page": r.page, "document_id": r.document_id, "title": r.title,
            "type": r.type, "folder_id": r.folder_id, "start": r.start, "end": r.end, "lang": r.lang,
            "label": place_label(r), "ocr": r.ocr, "highlights": highlight_spans(r.text, query)}
        if r.container:  # a document inside a file: the file is what opens; the label says where inside it
            metadata["part_path"] = r.path
        if r.metadata:
            metadata["user"] = r.metadata
        if r.doc_date:
            metadata["date"] = r.doc_date  # the document's own (what date filters read before its modified day)
        if r.tags:
            metadata["tags"] = list(r.tags)
        if r.type == "markdown" and (links := store.document_links(r.document_id)):
            metadata["links"] = [FollowedLink(x).to_dict() for x in links]  # followed by SearchService.links
        if r.machine_id and r.machine_id != store.machine_id:
            metadata["machine"] = r.machine_id  # the file is on another desktop's disk
        results.append(RetrievalResult(content=r.text, score=float(score), source=r.container or r.path,
                                       metadata=metadata))
        if len(results) >= top_k:
            break
    return results


def _ranked_rows(store: Store, ranked: list[tuple[int, float]],
                 top_k: int) -> Iterator[tuple[int, float, ChunkRow | None]]:
    """(chunk id, score, stored row or None when deleted) down the ranking, the rows read a batch at a time: the
    first batch is the top k and a few more (a chunk deleted since the candidates were found, or a document's second
    chunk when results are one per document, needs the next), then twice as many each time, so a search reads about
    k rows, not all of both sides' candidates (up to 2 x 50) with their text."""
    batch, at = top_k + ROWS_AHEAD, 0
    while at < len(ranked):
        part = ranked[at : at + batch]
        rows = store.chunk_rows([cid for cid, _ in part])
        for cid, score in part:
            yield cid, score, rows.get(cid)
        at += len(part)
        batch *= 2


def place_label(row: ChunkRow) -> str:
    """How a citation names where a chunk is: "slide 3", "message 3 · report.pdf · p. 2", or "" (plain "p. N")."""
    if not row.part_label:
        return row.label
    inside = row.label or (f"p. {row.page}" if row.page is not None else "")
    return " · ".join(x for x in (row.part_label, inside) if x)


class SearchService:
    """Searches one library: the store, the embedder (when semantic search is usable) and the settings' weights."""

    def __init__(self, store: Store, embedder: Embedder, params: SearchParams,
                 reranker: Callable[[], Reranker | None] = load_reranker) -> None:
        self.store = store
        self.embedder = embedder
        self.params = params
        self.reranker = reranker  # loads the reranking model on first use (a search without rerank never does)
        self.embedder_broken = False  # set while the semantic phase reports an error: hybrid falls back to keywords
        self.today: Callable[[], dt.date] = dt.date.today  # what `last month` is relative to (tests set a day)

    def search(self, query: str, top_k: int = 10, mode: str = SearchMode.HYBRID, *, group_by_document: bool = False,
               folders: Iterable[str] | None = None, types: Iterable[str] | None = None,
               langs: Iterable[str] | None = None, paths: Iterable[str] | None = None,
               rerank: bool = False, literal: bool = False) -> list[RetrievalResult]:
        """Search what is indexed now (never waits for the writer). Results are chunks, best first. `query` is in
        the query language (core/search/query_language.py): its filters narrow the menu's. `literal`: the query is
        plain words, as a chat question is (its "quoted" words, -words and "last month" are words, not filters).

        `rerank`: the best max(top_k, RERANK_DEPTH) results reordered by the reranker, the first top_k kept
        (UnavailableError when no reranking model loads here)."""
        if mode not in MODES:
            raise ValueError(f"unknown search mode {mode!r}; use one of {', '.join(MODES)}")
        parsed = ParsedQuery(query, free_text=query) if literal else parse_query(query, today=self.today())
        filters = query_filters(parsed, self.filters(folders, types, langs, paths))
        embedder: Embedder | None = None if self.embedder_broken else self.embedder
        if mode == SearchMode.HYBRID and not self.store.has_vectors():
            embedder = None  # nothing embedded yet: don't load the model for an empty dense side
        reranker = self._reranker() if rerank else None
        depth = max(top_k, RERANK_DEPTH) if reranker else top_k

        def plain(text: str, k: int, group: bool, narrowed: Filters | None) -> list[RetrievalResult]:
            if not text.strip() and narrowed:  # filters only: their documents, newest first
                return hydrate(self.store, self.store.listed_documents(narrowed, k), k, build_query(""), group)
            return search_store(self.store, text, embedder=embedder, mode=mode, top_k=k, params=self.params,
                                filters=narrowed, group_by_document=group)
        results = checked_search(parsed, depth, group_by_document, filters, plain)
        return rerank_results(reranker, parsed.free_text, results, top_k, mix=SEARCH_MIX) if reranker else results

    def links(self, doc: str) -> list[FollowedLink]:
        """The [[wikilinks]] of the Markdown note at path `doc` (a result's source) in the order written, each
        followed to the document it names (core/search/links.py); empty when it is not indexed or has none."""
        row = self.store.document_by_path(doc)
        return follow(self.store, row.path, self.store.document_links(row.id)) if row else []

    def _reranker(self) -> Reranker:
        reranker = self.reranker()
        if reranker is None:
            raise UnavailableError("Rerank is not available: no reranking model loads here (see the log).")
        return reranker

    def filters(self, folders: Iterable[str] | None, types: Iterable[str] | None, langs: Iterable[str] | None = None,
                paths: Iterable[str] | None = None) -> Filters | None:
        """Filters for folder paths, document types, chunk languages and file/folder paths (an unknown folder
        matches nothing)."""
        if not folders and not types and not langs and not paths:
            return None
        folder_ids: tuple[int, ...] = ()
        if folders:
            folder_ids = self.store.folder_ids([normalise(f) for f in folders]) or (-1,)
        return Filters(folder_ids=folder_ids, types=tuple(types or ()), langs=tuple(langs or ()),
                       paths=tuple(normalise(p) for p in paths or ()))
