"""Tune hybrid search on a BEIR *train* split, against a library built by bench/retrieval.py --home DIR.

    python bench/tune_fusion.py --dataset ../shared/eval/scifact --home /tmp/scifact-lib

Candidate lists come from the same functions Library.search uses (FTS5 BM25 with a title weight,
vec0 KNN, weighted RRF), computed once per setting, so the grid is cheap. Prints nDCG@10 for each
(title weight, keyword weight, semantic weight, k); tune on train only, then report test once.
"""

from __future__ import annotations

import argparse
import itertools
from pathlib import Path

from _common import save
from retrieval import doc_id_of, evaluate, load_dataset

from desktop_app.core.library import Library
from desktop_app.core.search.fusion import rrf_fuse
from desktop_app.core.search.service import SearchParams
from desktop_app.core.settings import Settings
from tests.support.helpers import query_db


def doc_ranking(chunk_ranking: list[int], chunk_doc: dict[int, str]) -> list[str]:
    seen, out = set(), []
    for cid in chunk_ranking:
        d = chunk_doc.get(cid)
        if d and d not in seen:
            seen.add(d)
            out.append(d)
    return out


def convex(keyword: list[tuple[int, float]], dense: list[tuple[int, float]], alpha: float) -> list[int]:
    """alpha * minmax(bm25) + (1 - alpha) * minmax(cosine); a missing side counts as its list's minimum."""
    def norm(hits):
        if not hits:
            return {}
        lo, hi = min(s for _, s in hits), max(s for _, s in hits)
        return {c: (s - lo) / (hi - lo) if hi > lo else 1.0 for c, s in hits}
    k, d = norm(keyword), norm(dense)
    scores = {c: alpha * k.get(c, 0.0) + (1 - alpha) * d.get(c, 0.0) for c in set(k) | set(d)}
    return sorted(scores, key=lambda c: -scores[c])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dataset", required=True, type=Path)
    ap.add_argument("--home", required=True, type=Path)
    ap.add_argument("--reindex", action="store_true", help="re-extract first (after an indexing change)")
    args = ap.parse_args()
    _, queries, qrels = load_dataset(args.dataset, "train")
    lib = Library(args.home, settings=Settings())
    if args.reindex:
        lib.reindex(wait=True)
    chunk_doc = {cid: doc_id_of(path) for cid, path in query_db(
        lib.db_path, "SELECT c.id, d.path FROM chunks c JOIN documents d ON d.id = c.document_id")}
    store = lib.store
    qvecs = lib.embedder.embed(list(queries.values()))
    dense_scored = {qid: [(c, s) for c, s in store.dense_candidates(v, 300) if s >= SearchParams().min_similarity]
                    for qid, v in zip(queries, qvecs, strict=True)}
    dense = {qid: [c for c, _ in hits] for qid, hits in dense_scored.items()}
    rows = []
    semantic = evaluate({q: doc_ranking(dense[q], chunk_doc) for q in queries}, qrels)["ndcg@10"]
    print(f"semantic alone: {semantic:.4f}")
    for tw in (1.0, 2.0, 3.0, 5.0):
        kw_scored = {qid: store.keyword_candidates(t, 300, title_weight=tw) for qid, t in queries.items()}
        kw = {qid: [c for c, _ in hits] for qid, hits in kw_scored.items()}
        for alpha in (0.3, 0.4, 0.5, 0.6, 0.7):
            run = {q: doc_ranking(convex(kw_scored[q], dense_scored[q], alpha), chunk_doc) for q in queries}
            m = evaluate(run, qrels)
            rows.append({"title_weight": tw, "fusion": "convex", "alpha": alpha, **m})
        keyword = evaluate({q: doc_ranking(kw[q], chunk_doc) for q in queries}, qrels)["ndcg@10"]
        print(f"keyword title_weight={tw}: {keyword:.4f}")
        for kwt, dw, k in itertools.product((1.0,), (0.6, 0.8, 1.0, 1.2, 1.5, 2.0), (20, 40, 60, 100)):
            run = {q: doc_ranking([c for c, _ in rrf_fuse([kw[q], dense[q]], [kwt, dw], k=k)], chunk_doc)
                   for q in queries}
            m = evaluate(run, qrels)
            rows.append({"title_weight": tw, "fusion": "rrf", "keyword_weight": kwt, "semantic_weight": dw, "k": k,
                         **m})
    rows.sort(key=lambda r: -r["ndcg@10"])
    for r in rows[:16]:
        knobs = " ".join(f"{k}={v}" for k, v in r.items() if k not in ("ndcg@10", "recall@100"))
        print(f"{knobs:<70} nDCG@10={r['ndcg@10']:.4f} R@100={r['recall@100']:.4f}")
    lib.close()
    save("tune_fusion_train", {"grid": rows})


if __name__ == "__main__":
    main()
