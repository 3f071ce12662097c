"""Retrieval quality and speed on a BEIR-layout dataset, through the real Library pipeline.

    python bench/retrieval.py --dataset ../shared/eval/scifact [--split test|train] [--json OUT]
        [--embedder use-multilingual|e5-small|minilm|minilm-torch] [--query-embedder NAME]
    python bench/retrieval.py --dataset bench/data/multilingual-qa [--embedder NAME]

A folder with a manifest.json (bench/data/multilingual-qa) holds several tasks, one per language: each is
indexed as its own library and reported per language and mode (bench/retrieval_languages.py).

Writes each document as a file (title on the first line), indexes the folder with Library (extract →
chunk → FTS5 → MiniLM vectors), runs every query through Library.search in each mode, maps chunk hits
to documents (first occurrence counts) and prints nDCG@10 / Recall@100 next to a rank-bm25 baseline
computed in the same process. Also: embedding throughput against a bare SentenceTransformer.encode of
the same chunk texts (the bare call of the embedder's own library: bench/_bare.py), and search latency
p50/p95 per mode. --query-embedder embeds the queries with another model than the index (e.g. MiniLM's
ONNX twin over vectors made by sentence-transformers).
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import random
import re
import shutil
import tempfile
import time
from pathlib import Path

from _bare import bare_encoder
from _common import RESULTS, percentile, save

from desktop_app.core.embed.base import EMBEDDERS, make_embedder
from desktop_app.core.embed.base import MAX_WINDOWS as VECTORS_PER_CHUNK
from desktop_app.core.library import Library
from desktop_app.core.settings import Settings
from tests.helpers import query_db

MODES = ("keyword", "semantic", "hybrid")


def load_dataset(root: Path, split: str) -> tuple[dict, dict, dict]:
    corpus = {}
    with open(root / "corpus.jsonl", encoding="utf-8") as fh:
        for line in fh:
            d = json.loads(line)
            corpus[str(d["_id"])] = (d.get("title", "").strip(), d.get("text", ""))
    qrels_file = root / ("qrels.tsv" if split == "test" else "qrels_train.tsv")
    qrels: dict[str, dict[str, int]] = {}
    with open(qrels_file, encoding="utf-8") as fh:
        reader = csv.reader(fh, delimiter="\t")
        next(reader)
        for qid, did, score in reader:
            if int(score) > 0:
                qrels.setdefault(qid, {})[did] = int(score)
    queries_file = root / "queries.jsonl"
    if split != "test" and (root / "queries_all_beir.jsonl").exists():
        queries_file = root / "queries_all_beir.jsonl"
    queries = {}
    with open(queries_file, encoding="utf-8") as fh:
        for line in fh:
            q = json.loads(line)
            if str(q["_id"]) in qrels:
                queries[str(q["_id"])] = q["text"]
    return corpus, queries, qrels


def smaller_corpus(corpus: dict, qrels: dict, size: int) -> dict:
    """Every judged document and a fixed-seed random sample of the others, `size` in all (or all judged ones)."""
    judged = {d for rel in qrels.values() for d in rel if d in corpus}
    others = sorted(set(corpus) - judged)
    keep = judged | set(random.Random(0).sample(others, max(0, min(len(others), size - len(judged)))))
    return {d: corpus[d] for d in corpus if d in keep}


def ndcg_at(ranked: list[str], relevant: dict[str, int], k: int = 10) -> float:
    dcg = sum(relevant.get(d, 0) / math.log2(i + 2) for i, d in enumerate(ranked[:k]))
    ideal = sorted(relevant.values(), reverse=True)[:k]
    idcg = sum(r / math.log2(i + 2) for i, r in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def recall_at(ranked: list[str], relevant: dict[str, int], k: int = 100) -> float:
    return len(set(ranked[:k]) & set(relevant)) / len(relevant) if relevant else 0.0


def evaluate(run: dict[str, list[str]], qrels: dict) -> dict:
    n = len(run)
    return {
        "ndcg@10": sum(ndcg_at(run[q], qrels[q]) for q in run) / n,
        "recall@100": sum(recall_at(run[q], qrels[q]) for q in run) / n,
    }


def write_corpus(corpus: dict, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for did, (title, text) in corpus.items():
        (folder / f"{did}.txt").write_text(f"{title}\n\n{text}\n", encoding="utf-8")


def doc_id_of(source: str) -> str:
    return Path(source).stem


def bm25_baseline(corpus: dict, queries: dict) -> dict[str, list[str]]:
    """rank-bm25 Okapi over title + text, lower-cased word tokens, in this process."""
    from rank_bm25 import BM25Okapi

    ids = list(corpus)
    tok = lambda s: re.findall(r"\w+", s.lower())  # noqa: E731
    bm25 = BM25Okapi([tok(f"{corpus[d][0]} {corpus[d][1]}") for d in ids])
    run = {}
    for qid, text in queries.items():
        scores = bm25.get_scores(tok(text))
        top = sorted(range(len(ids)), key=lambda i: -scores[i])[:100]
        run[qid] = [ids[i] for i in top]
    return run


def fts5_baseline(corpus: dict, queries: dict) -> dict[str, list[str]]:
    """A plain FTS5 table (default tokenizer, title + text in one column), OR of the query's words, bm25 order."""
    from desktop_app.core.store.sqlite.connect import connect

    conn = connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE plain USING fts5(doc_id UNINDEXED, body)")
    conn.executemany(
        "INSERT INTO plain (doc_id, body) VALUES (?, ?)", ((d, f"{t} {x}") for d, (t, x) in corpus.items())
    )
    run = {}
    for qid, text in queries.items():
        words = sorted(set(re.findall(r"\w+", text.lower())))
        match = " OR ".join(f'"{w}"' for w in words)
        rows = conn.execute("SELECT doc_id FROM plain WHERE plain MATCH ? ORDER BY bm25(plain) LIMIT 100", (match,))
        run[qid] = [r[0] for r in rows]
    conn.close()
    return run


def run_mode(lib: Library, queries: dict, mode: str) -> tuple[dict[str, list[str]], list[float]]:
    run, latencies = {}, []
    for qid, text in queries.items():
        t0 = time.perf_counter()
        hits = lib.search(text, top_k=100, mode=mode, group_by_document=True)
        latencies.append(time.perf_counter() - t0)
        run[qid] = [doc_id_of(h.source) for h in hits]
    return run, latencies


def bare_encode_rate(lib: Library, texts: list[str]) -> tuple[float, float] | None:
    """Texts/s and CPU-ms per text of the embedder's own library encoding the same texts in this process
    (None for the hash embedder). CPU time is the fairer figure on a machine shared with other work."""
    encode = bare_encoder(lib.embedder)
    if encode is None:
        return None
    encode(texts[:8])  # a model the bare call loads itself is loaded before the clock starts
    t0, cpu0 = time.perf_counter(), time.process_time()
    encode(texts)
    return len(texts) / (time.perf_counter() - t0), 1000 * (time.process_time() - cpu0) / len(texts)


def model_windows(lib: Library, chunks: list[str]) -> list[str]:
    """The texts the pipeline gave the model: each chunk's windows (long chunks have several)."""
    windows = getattr(lib.embedder, "windows", None)
    if windows is None:
        return chunks
    return [w for chunk in chunks for w in windows(chunk)[:VECTORS_PER_CHUNK]]


def embedding_figures(lib: Library, semantic_s: float, semantic_cpu_s: float, sample: int = 0) -> dict:
    """Pipeline throughput (wall and CPU) against a bare encode of the same windows (or a random sample)."""
    chunks = [r[0] for r in query_db(lib.db_path, "SELECT text FROM chunks ORDER BY id")]
    texts = model_windows(lib, chunks)
    figures = {
        "chunks": len(chunks),
        "windows": len(texts),
        "pipeline_windows_per_s": len(texts) / semantic_s,
        "pipeline_chunks_per_s": len(chunks) / semantic_s,
        "pipeline_cpu_ms_per_window": 1000 * semantic_cpu_s / len(texts),
    }
    if sample and sample < len(texts):
        texts = random.Random(0).sample(texts, sample)
        figures["bare_sample"] = sample
    bare = bare_encode_rate(lib, texts)
    if bare is not None:
        figures.update(
            {
                "bare_encode_windows_per_s": bare[0],
                "ratio": figures["pipeline_windows_per_s"] / bare[0],
                "bare_cpu_ms_per_window": bare[1],
                "cpu_ratio": figures["pipeline_cpu_ms_per_window"] / bare[1],
            }
        )
    return figures


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", required=True, type=Path)
    ap.add_argument("--split", choices=("test", "train"), default="test")
    ap.add_argument("--home", type=Path, help="keep the library here (reused by later runs)")
    ap.add_argument("--json", help="write results JSON here (default bench/results/retrieval_<dataset>_<split>.json)")
    ap.add_argument("--limit-queries", type=int, default=0)
    ap.add_argument(
        "--max-docs",
        type=int,
        default=0,
        help="a smaller corpus: every judged document plus a fixed-seed sample of the others up to this "
        "many (nDCG is then comparable only between runs with the same --max-docs)",
    )
    ap.add_argument("--skip-bare", action="store_true", help="skip the bare encode comparison")
    ap.add_argument("--bare-sample", type=int, default=0, help="bare encode of this many random windows (0: all)")
    ap.add_argument("--embedder", choices=EMBEDDERS, default=Settings().embedder)
    ap.add_argument("--query-embedder", choices=EMBEDDERS, help="embed queries with this model instead")
    args = ap.parse_args()
    if (args.dataset / "manifest.json").exists():
        from retrieval_languages import run_tasks

        run_tasks(args)
        return

    corpus, queries, qrels = load_dataset(args.dataset, args.split)
    if args.limit_queries:
        queries = dict(list(queries.items())[: args.limit_queries])
    if args.max_docs:
        corpus = smaller_corpus(corpus, qrels, args.max_docs)
    work = Path(tempfile.mkdtemp(prefix="trove-bench-"))
    home = args.home or work / "home"
    folder = (args.home / "corpus") if args.home else work / "corpus"
    if not folder.exists():
        write_corpus(corpus, folder)
    print(f"{args.dataset.name} ({args.split}): {len(corpus)} documents, {len(queries)} queries")

    lib = Library(home, settings=Settings(embedder=args.embedder))
    lib.add_folder(folder)
    t0 = time.perf_counter()
    report = lib.sync(wait=False)
    keyword_s = time.perf_counter() - t0
    t1, cpu1 = time.perf_counter(), time.process_time()
    lib.wait_for_embeddings()
    semantic_s, semantic_cpu_s = time.perf_counter() - t1, time.process_time() - cpu1
    stats = lib.stats()
    print(
        f"keyword phase {keyword_s:.1f}s ({report.indexed} files, {report.chunks} chunks); "
        f"semantic phase {semantic_s:.1f}s ({stats['chunks_embedded']} vectors)"
    )

    results: dict = {
        "dataset": args.dataset.name,
        "split": args.split,
        "embedder": lib.embedder.model_id,
        "documents": len(corpus),
        "queries": len(queries),
        "chunks": stats["chunks"],
        "keyword_phase_s": keyword_s,
        "semantic_phase_s": semantic_s,
        "modes": {},
    }
    if report.indexed and not args.skip_bare:
        results["embedding"] = embedding_figures(lib, semantic_s, semantic_cpu_s, args.bare_sample)
    if args.query_embedder:
        lib.embedder = make_embedder(args.query_embedder)  # the index keeps its vectors; queries use this model
        results["query_embedder"] = lib.embedder.model_id

    t0 = time.perf_counter()
    baseline = evaluate(bm25_baseline(corpus, queries), qrels)
    results["modes"]["rank-bm25 baseline"] = {
        **baseline,
        "p50_ms": None,
        "p95_ms": None,
        "total_s": time.perf_counter() - t0,
    }
    results["modes"]["plain FTS5 baseline"] = {
        **evaluate(fts5_baseline(corpus, queries), qrels),
        "p50_ms": None,
        "p95_ms": None,
    }
    for mode in MODES:
        run, lat = run_mode(lib, queries, mode)
        results["modes"][f"{mode} ({lib.settings.fusion})" if mode == "hybrid" else mode] = {
            **evaluate(run, qrels),
            "p50_ms": percentile(lat, 50) * 1000,
            "p95_ms": percentile(lat, 95) * 1000,
        }
    lib.settings = lib.settings.with_changes(fusion="rrf")  # the seed's fusion, untuned, for comparison
    run, lat = run_mode(lib, queries, "hybrid")
    results["modes"][f"hybrid (rrf k={lib.settings.rrf_k})"] = {
        **evaluate(run, qrels),
        "p50_ms": percentile(lat, 50) * 1000,
        "p95_ms": percentile(lat, 95) * 1000,
    }
    lib.close()

    print(f"\n{'mode':<22} {'nDCG@10':>8} {'R@100':>8} {'p50 ms':>8} {'p95 ms':>8}")
    for mode, m in results["modes"].items():
        p50 = f"{m['p50_ms']:.1f}" if m["p50_ms"] is not None else "-"
        p95 = f"{m['p95_ms']:.1f}" if m["p95_ms"] is not None else "-"
        print(f"{mode:<22} {m['ndcg@10']:>8.4f} {m['recall@100']:>8.4f} {p50:>8} {p95:>8}")
    if "embedding" in results:
        print_embedding(results["embedding"])
    name = f"retrieval_{args.dataset.name}_{args.split}_{args.embedder}"
    if args.max_docs:
        name += f"_docs{args.max_docs}"
        results["max_docs"] = args.max_docs
    if args.query_embedder:
        name += f"_queries-{args.query_embedder}"
    previous = RESULTS / f"{name}.json"
    if not report.indexed and semantic_s < 1.0 and previous.exists() and not args.json:
        old = json.loads(previous.read_text(encoding="utf-8"))  # an index reused: keep the indexing figures
        for key in ("keyword_phase_s", "semantic_phase_s", "embedding"):
            if key in old:
                results[key] = old[key]
    save(name, results, args.json)
    if not args.home:
        shutil.rmtree(work, ignore_errors=True)


def print_embedding(e: dict) -> None:
    """One paragraph: pipeline, embedder alone and bare library rates over the same model windows."""
    line = (
        f"\nembedding: {e['chunks']} chunks as {e['windows']} model windows; pipeline "
        f"{e['pipeline_windows_per_s']:.1f} windows/s ({e['pipeline_chunks_per_s']:.1f} chunks/s, "
        f"{e['pipeline_cpu_ms_per_window']:.0f} CPU-ms per window)"
    )
    if "bare_encode_windows_per_s" in e:
        line += (
            f" vs bare encode of the same windows{' (a sample)' if 'bare_sample' in e else ''} "
            f"{e['bare_encode_windows_per_s']:.1f} windows/s ({e['bare_cpu_ms_per_window']:.0f} CPU-ms) -> "
            f"ratio {e['ratio']:.2f} by wall, pipeline CPU {e['cpu_ratio']:.2f}x bare"
        )
    print(line)


if __name__ == "__main__":
    main()
