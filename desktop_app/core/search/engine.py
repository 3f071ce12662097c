"""One search over the library database: keyword, semantic or hybrid, hydrated into RetrievalResults."""

from __future__ import annotations

import json
from dataclasses import dataclass

from desktop_app.core.embed.base import Embedder, embed_query
from desktop_app.core.errors import UnavailableError
from desktop_app.core.log import get_logger
from desktop_app.core.search.candidates import Filters, dense_candidates, keyword_candidates
from desktop_app.core.search.fts_query import build_fts_query, highlight_spans, query_terms
from desktop_app.core.search.fusion import convex_fuse, rrf_fuse
from desktop_app.core.types import RetrievalResult

log = get_logger("search")

MODES = ("hybrid", "keyword", "semantic")
FUSIONS = ("convex", "rrf")
MIN_CANDIDATES = 50


@dataclass(frozen=True)
class SearchParams:
    """How a search runs: fusion weights and k, the title weight in BM25, how far each side over-fetches."""

    keyword_weight: float = 1.0
    semantic_weight: float = 1.0
    rrf_k: int = 60
    fusion: str = "convex"  # "convex" | "rrf"
    title_weight: float = 2.0
    overfetch: int = 3
    min_similarity: float = 0.2  # MiniLM cosines of unrelated texts sit below this: noise, not meaning


def candidate_count(top_k: int, params: SearchParams) -> int:
    """Each side fetches overfetch × top_k candidates, at least MIN_CANDIDATES."""
    return max(params.overfetch * top_k, MIN_CANDIDATES)


def search_chunks(conn, query: str, *, embedder: Embedder | None, mode: str = "hybrid", top_k: int = 10,
                  params: SearchParams = SearchParams(), filters: Filters | None = None,
                  group_by_document: bool = False) -> list[RetrievalResult]:
    """Search the chunks in `conn`. Semantic and hybrid need an embedder; hybrid without one is keyword only."""
    if params.fusion not in FUSIONS:
        raise ValueError(f"unknown fusion {params.fusion!r}; use one of {', '.join(FUSIONS)}")
    if mode not in MODES:
        raise ValueError(f"unknown search mode {mode!r}; use one of {', '.join(MODES)}")
    if top_k <= 0 or not (query or "").strip():
        return []
    n = candidate_count(top_k, params)
    keyword: list[tuple[int, float]] = []
    dense: list[tuple[int, float]] = []
    if mode in ("keyword", "hybrid"):
        match = build_fts_query(query)
        keyword = keyword_candidates(conn, match, n, title_weight=params.title_weight, filters=filters) if match else []
    if mode in ("semantic", "hybrid"):
        if embedder is None:
            if mode == "semantic":
                raise UnavailableError("Semantic search is not available: no embedding model is loaded.")
        else:
            try:
                qvec = embed_query(embedder, query)
            except UnavailableError:
                if mode == "semantic":
                    raise
                log.warning("embedding model unavailable: hybrid search falls back to keywords")
                qvec = None
            dense = [] if qvec is None else [h for h in dense_candidates(conn, qvec, n, filters=filters) if h[1] >= params.min_similarity]
    if mode == "keyword":
        ranked = keyword
    elif mode == "semantic":
        ranked = dense
    else:
        ranked = fuse(keyword, dense, params)
    return hydrate(conn, ranked, top_k, query_terms(query), group_by_document)


def fuse(keyword: list[tuple[int, float]], dense: list[tuple[int, float]], params: SearchParams) -> list[tuple[int, float]]:
    """Hybrid ranking, scores in 0..1 (1.0 = best on both sides), so chat's min_score means the same either way.

    "convex" (default) adds min-max normalised BM25 and cosine scores; "rrf" is weighted reciprocal rank fusion.
    Both were measured on SciFact's train split (bench/tune_fusion.py); convex ranked better there.
    """
    weights = [params.keyword_weight, params.semantic_weight]
    if params.fusion == "convex":
        return convex_fuse([keyword, dense], weights)
    best = sum(weights) / (params.rrf_k + 1) or 1.0
    return [(c, s / best) for c, s in rrf_fuse([[c for c, _ in keyword], [c for c, _ in dense]], weights, k=params.rrf_k)]


def hydrate(conn, ranked: list[tuple[int, float]], top_k: int, terms: list[str], group_by_document: bool) -> list[RetrievalResult]:
    """Turn (chunk id, score) pairs into RetrievalResults, best first, optionally one per document."""
    if not ranked:
        return []
    ids = [cid for cid, _ in ranked]
    rows = {}
    for i in range(0, len(ids), 900):
        part = ids[i:i + 900]
        for r in conn.execute(
            "SELECT c.id, c.text, c.page, c.ordinal, c.start, c.end, c.document_id, d.path, d.title, d.type, "
            f"d.folder_id, d.metadata FROM chunks c JOIN documents d ON d.id = c.document_id WHERE c.id IN ({','.join('?' * len(part))})",
            part,
        ):
            rows[r[0]] = r
    results, seen_docs = [], set()
    for cid, score in ranked:
        r = rows.get(cid)
        if r is None:
            continue  # deleted between the candidate query and now
        if group_by_document:
            if r[6] in seen_docs:
                continue
            seen_docs.add(r[6])
        metadata = {"chunk_id": cid, "chunk_index": r[3], "page": r[2], "document_id": r[6], "title": r[8],
                    "type": r[9], "folder_id": r[10], "start": r[4], "end": r[5],
                    "highlights": highlight_spans(r[1], terms)}
        if r[11]:
            metadata["user"] = json.loads(r[11])
        results.append(RetrievalResult(content=r[1], score=float(score), source=r[7], metadata=metadata))
        if len(results) >= top_k:
            break
    return results
