"""Measure how chunks longer than MiniLM's window should be embedded, on a BEIR train split.

    python bench/dense_windows.py --dataset ../shared/eval/scifact

MiniLM reads 256 word pieces; the rest of a longer text is invisible to it. Compares, semantic-only
(exact cosine over one vector per document, numpy): (a) truncation (what a bare encode does), (b) the
mean of window vectors, (c) the best window per document (max-sim). Windows are cut by the model's
own tokenizer. Prints nDCG@10 / Recall@100 and saves JSON.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from _common import save
from retrieval import evaluate, load_dataset

from desktop_app.core.embed.minilm import MiniLMEmbedder


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dataset", required=True, type=Path)
    ap.add_argument("--split", default="train")
    args = ap.parse_args()
    corpus, queries, qrels = load_dataset(args.dataset, args.split)
    ids = list(corpus)
    texts = [f"{corpus[d][0]}\n\n{corpus[d][1]}" for d in ids]
    emb = MiniLMEmbedder()
    model = emb.model
    qv = model.encode(list(queries.values()), batch_size=64, normalize_embeddings=True)

    t0 = time.perf_counter()
    trunc = model.encode(texts, batch_size=64, normalize_embeddings=True)
    t_trunc = time.perf_counter() - t0
    windows, owner = [], []
    for i, t in enumerate(texts):
        for w in emb.windows(t):
            windows.append(w)
            owner.append(i)
    t0 = time.perf_counter()
    wv = model.encode(windows, batch_size=64, normalize_embeddings=True)
    t_win = time.perf_counter() - t0
    owner_a = np.array(owner)
    mean = np.zeros_like(trunc)
    np.add.at(mean, owner_a, wv)
    mean /= np.linalg.norm(mean, axis=1, keepdims=True)

    def run_from_scores(scores: np.ndarray) -> dict:
        out = {}
        for qi, qid in enumerate(queries):
            top = np.argsort(-scores[qi])[:100]
            out[qid] = [ids[j] for j in top]
        return out

    results = {"documents": len(texts), "windows": len(windows),
               "long_documents": int(np.sum(np.bincount(owner_a) > 1)),
               "encode_s_truncated": t_trunc, "encode_s_windows": t_win}
    results["truncate"] = evaluate(run_from_scores(qv @ trunc.T), qrels)
    results["mean_of_windows"] = evaluate(run_from_scores(qv @ mean.T), qrels)
    sims = qv @ wv.T
    best = np.full((len(queries), len(texts)), -1.0, dtype=np.float32)
    np.maximum.at(best.T, owner_a, sims.T)
    results["max_window"] = evaluate(run_from_scores(best), qrels)
    for name in ("truncate", "mean_of_windows", "max_window"):
        print(f"{name:<16} nDCG@10 {results[name]['ndcg@10']:.4f}  R@100 {results[name]['recall@100']:.4f}")
    print(f"{results['long_documents']} of {len(texts)} documents exceed the window; {len(windows)} windows")
    save(f"dense_windows_{args.dataset.name}_{args.split}", results)


if __name__ == "__main__":
    main()
