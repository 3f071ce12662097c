"""Plain retrieval baselines over a library's own chunks, query halves, and bootstrap intervals (bench/retrieval.py).

The baselines see exactly the text Trove indexed (its chunks, with the document title line the corpus files
start with) and none of its query analysis:

* plain BM25:  a bare FTS5 table (default unicode61 tokenizer, one column), the query's raw words OR'ed as quoted
               phrases in order, repeats kept (so a word said twice counts twice, as in BM25's query side), bm25();
               the first PLAIN_MAX_WORDS words (Lucene's default clause limit: a 30,000-word query would take
               minutes in FTS5 and no search engine runs it whole)
* plain dense: the query's vector from the same model (`embed_query`: MiniLM's float weights, cut at its 256-piece
               window) against every stored window vector, exact cosine, a chunk's best window; no similarity floor
* plain RRF:   reciprocal rank fusion (k = 60) of those two document rankings

Chunk rankings become document rankings by first occurrence, as Library.search(group_by_document=True) does.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Callable, Sequence

import _common  # noqa: F401 -- puts this checkout first on sys.path before desktop_app is imported
import numpy as np

from desktop_app.core.embed.base import MAX_WINDOWS
from desktop_app.core.search.fusion import rrf_fuse
from desktop_app.core.store.sqlite.connect import connect

Run = dict[str, list[str]]
PLAIN_MAX_WORDS = 1024
_WORD = re.compile(r"\w+")


def documents_of(chunk_ranking: Sequence[int], chunk_doc: dict[int, str], depth: int = 100) -> list[str]:
    """Document ids in order of their best chunk."""
    seen: dict[str, None] = {}
    for cid in chunk_ranking:
        seen.setdefault(chunk_doc[cid], None)
        if len(seen) >= depth:
            break
    return list(seen)


def plain_bm25(chunks: Sequence[tuple[int, str]], chunk_doc: dict[int, str], queries: dict[str, str],
               depth: int = 1000) -> Run:
    """Plain FTS5 BM25 over the chunks' text (see the module docstring)."""
    conn = connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE plain USING fts5(body)")
    conn.executemany("INSERT INTO plain (rowid, body) VALUES (?, ?)", chunks)
    run = {}
    for qid, text in queries.items():
        words = _WORD.findall(text.lower())[:PLAIN_MAX_WORDS]
        match = " OR ".join(f'"{w}"' for w in words)
        rows = conn.execute("SELECT rowid FROM plain WHERE plain MATCH ? ORDER BY bm25(plain) LIMIT ?",
                            (match, depth)).fetchall() if words else []
        run[qid] = documents_of([r[0] for r in rows], chunk_doc)
    conn.close()
    return run


def stored_vectors(db_path: str) -> tuple[np.ndarray, np.ndarray]:
    """(chunk id per window, (windows, dim) float32 matrix) of every stored vector of a library."""
    conn = connect(db_path, readonly=True)
    try:
        rows = conn.execute("SELECT rowid, embedding FROM chunks_vec").fetchall()
    finally:
        conn.close()
    ids = np.array([int(r[0]) // MAX_WINDOWS for r in rows], dtype=np.int64)
    return ids, np.stack([np.frombuffer(r[1], dtype=np.float32) for r in rows])


def plain_dense(embed: Callable[[str], np.ndarray], window_chunks: np.ndarray, matrix: np.ndarray,
                chunk_doc: dict[int, str], queries: dict[str, str], depth: int = 1000) -> Run:
    """Exact cosine of the plain query vector against every window; a chunk's best window ranks it."""
    run = {}
    for qid, text in queries.items():
        sims = matrix @ embed(text)
        order = np.argsort(-sims)
        best: dict[int, None] = {}
        for i in order:
            best.setdefault(int(window_chunks[i]), None)
            if len(best) >= depth:
                break
        run[qid] = documents_of(list(best), chunk_doc)
    return run


def plain_rrf(a: Run, b: Run, k: int = 60) -> Run:
    """Reciprocal rank fusion of two document runs, best 100."""
    return {q: [d for d, _ in rrf_fuse([a.get(q, []), b.get(q, [])], k=k)][:100] for q in a}


def ndcg_at(ranked: list[str], relevant: dict[str, int], k: int = 10) -> float:
    dcg = sum(relevant.get(d, 0) / math.log2(i + 2) for i, d in enumerate(ranked[:k]))
    ideal = sorted(relevant.values(), reverse=True)[:k]
    idcg = sum(r / math.log2(i + 2) for i, r in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def recall_at(ranked: list[str], relevant: dict[str, int], k: int = 100) -> float:
    return len(set(ranked[:k]) & set(relevant)) / len(relevant) if relevant else 0.0


def per_query(run: Run, qrels: dict[str, dict[str, int]], qids: Sequence[str]) -> dict[str, list[float]]:
    """nDCG@10 and Recall@100 of each query in `qids` (in that order)."""
    return {"ndcg@10": [ndcg_at(run.get(q, []), qrels[q]) for q in qids],
            "recall@100": [recall_at(run.get(q, []), qrels[q]) for q in qids]}


def halves(qids: Sequence[str], seed: int = 0) -> dict[str, list[str]]:
    """A fixed-seed split of the queries: "tune" (choices are made on it) and "report" (figures are quoted)."""
    order = sorted(qids)
    random.Random(seed).shuffle(order)
    cut = len(order) // 2
    return {"tune": sorted(order[:cut]), "report": sorted(order[cut:])}


def bootstrap_diff(a: Sequence[float], b: Sequence[float], resamples: int = 2000, seed: int = 0) -> dict[str, float]:
    """Mean of a - b over queries with a 95% percentile bootstrap interval (queries resampled)."""
    diff = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    if diff.size == 0:
        return {"diff": 0.0, "lo": 0.0, "hi": 0.0}
    rng = np.random.default_rng(seed)
    means = diff[rng.integers(0, diff.size, size=(resamples, diff.size))].mean(axis=1)
    lo, hi = np.percentile(means, [2.5, 97.5])
    return {"diff": float(diff.mean()), "lo": float(lo), "hi": float(hi)}
