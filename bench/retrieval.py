"""Retrieval quality and speed on a BEIR-layout dataset, through the real Library pipeline, beside plain baselines.

    python bench/retrieval.py --dataset ../shared/eval/scifact [--split test|train] [--json OUT] [--tag NAME]
        [--embedder use-multilingual|e5-small|minilm|minilm-torch] [--query-embedder NAME]
    python bench/retrieval.py --dataset ~/.cache/trove-bench/nfcorpus-all      # sets made by bench/fetch_beir.py
    python bench/retrieval.py --dataset bench/data/multilingual-qa [--embedder NAME]

A folder with a manifest.json (bench/data/multilingual-qa) holds several tasks, one per language: each is
indexed as its own library and reported per language and mode (bench/retrieval_languages.py).

Writes each document as a file (title on the first line), indexes the folder with Library (extract →
chunk → FTS5 → MiniLM vectors), runs every query through Library.search in each mode, maps chunk hits
to documents (first occurrence counts) and reports nDCG@10 / Recall@100 next to plain baselines computed in the
same process over the same chunks (bench/_baselines.py): plain FTS5 BM25 (raw query words OR'ed), plain dense
(the embedder's plain query vector, exact cosine) and plain RRF (k=60) of the two. Keyword is compared with plain
BM25, semantic with plain dense, hybrid with plain RRF: the mean per-query difference with a 95% bootstrap
interval, over all queries and over a fixed-seed split into a "tune" half (where choices are made) and a
"report" half (the figures to quote). Also: embedding throughput against a bare encode of the same chunk
texts (bench/_bare.py), and search latency p50/p95 per mode. --query-embedder embeds the queries with another
model than the index (e.g. MiniLM's ONNX twin over vectors made by sentence-transformers).
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import random
import re
import shutil
import tempfile
import time
from pathlib import Path

from _bare import bare_encoder
from _baselines import (
    bootstrap_diff,
    halves,
    ndcg_at,
    per_query,
    plain_bm25,
    plain_dense,
    plain_rrf,
    recall_at,
    stored_vectors,
)
from _common import RESULTS, percentile, save
from _qcache import CachedEmbedder, cache_path

from desktop_app.core.embed.base import EMBEDDERS, embed_query, make_embedder
from desktop_app.core.embed.base import MAX_WINDOWS as VECTORS_PER_CHUNK
from desktop_app.core.library import Library
from desktop_app.core.settings import Settings
from tests.support.helpers import query_db

MODES = ("keyword", "semantic", "hybrid")


def load_dataset(root: Path, split: str) -> tuple[dict, dict, dict]:
    corpus = {}
    with open(root / "corpus.jsonl", encoding="utf-8") as fh:
        for line in fh:
            d = json.loads(line)
            corpus[str(d["_id"])] = (d.get("title", "").strip(), d.get("text", ""))
    qrels_file = root / ("qrels.tsv" if split == "test" else "qrels_train.tsv")
    if not qrels_file.exists():  # BEIR's own layout
        qrels_file = root / "qrels" / f"{split}.tsv"
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


def ignores_identical_ids(root: Path) -> bool:
    """ArguAna's queries are documents of the corpus too: BEIR drops a query's own id from its ranking."""
    return (root / "IGNORE_IDENTICAL_IDS").exists()


def drop_self(run: dict[str, list[str]]) -> dict[str, list[str]]:
    return {q: [d for d in ranked if d != q] for q, ranked in run.items()}


def sample_queries(queries: dict, n: int) -> dict:
    """A fixed-seed sample of `n` queries (all when n is 0 or more than there are); halves() then splits it."""
    if not n or n >= len(queries):
        return queries
    keep = set(random.Random(0).sample(sorted(queries), n))
    return {q: t for q, t in queries.items() if q in keep}


def embed_queries(args: argparse.Namespace, queries: dict) -> None:
    """Fill a query-vector cache beside the main one (each query whole and each of its model windows, as the search
    service embeds them) and stop: no library. --tag names it, so two can fill at once."""
    embedder = make_embedder(args.embedder)
    main_cache = cache_path(embedder.model_id)
    cached = CachedEmbedder(embedder, main_cache.with_name(f"{main_cache.stem}-{args.tag or 'fill'}.npz"))
    halves_of = halves(list(queries))
    chosen = halves_of[args.half_only] if args.half_only else sorted(queries)
    cached.passage_queries = args.int8_queries
    for i, text in enumerate(queries[q] for q in chosen):
        cached.embed_query(text)
        windows = getattr(cached.inner, "windows", None)
        parts = windows(text)[:VECTORS_PER_CHUNK] if windows is not None else []
        for part in parts if len(parts) > 1 else ():
            cached.embed_query(part)
        if i % 20 == 19:
            cached.save()
            print(f"{i + 1} queries embedded", flush=True)
    cached.save()


def smaller_corpus(corpus: dict, qrels: dict, size: int) -> dict:
    """Every judged document and a fixed-seed random sample of the others, `size` in all (or all judged ones)."""
    judged = {d for rel in qrels.values() for d in rel if d in corpus}
    others = sorted(set(corpus) - judged)
    keep = judged | set(random.Random(0).sample(others, max(0, min(len(others), size - len(judged)))))
    return {d: corpus[d] for d in corpus if d in keep}


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
    encode = bare_encoder(getattr(lib.embedder, "current", lib.embedder))  # "auto": the model it chose
    if encode is None:
        return None
    encode(texts[:8])  # a model the bare call loads itself is loaded before the clock starts
    t0, cpu0 = time.perf_counter(), time.process_time()
    encode(texts)
    return len(texts) / (time.perf_counter() - t0), 1000 * (time.process_time() - cpu0) / len(texts)


def model_windows(lib: Library, chunks: list[str]) -> list[str]:
    """The texts the pipeline gave the model: each chunk's windows (long chunks have several)."""
    windows = getattr(getattr(lib.embedder, "current", lib.embedder), "windows", None)  # "auto": its choice
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


def chunk_table(lib: Library) -> tuple[list[tuple[int, str]], dict[int, str]]:
    """(chunk id, text) of every chunk the library made, and each chunk's document id."""
    rows = query_db(lib.db_path, "SELECT c.id, c.text, d.path FROM chunks c JOIN documents d ON d.id = c.document_id")
    return [(int(r[0]), r[1]) for r in rows], {int(r[0]): doc_id_of(r[2]) for r in rows}


def plain_runs(lib: Library, queries: dict, dense: bool = True) -> dict[str, dict[str, list[str]]]:
    """The plain baselines over the library's own chunks and vectors (bench/_baselines.py)."""
    chunks, chunk_doc = chunk_table(lib)
    embedder = lib.searcher.embedder
    runs = {"plain BM25": plain_bm25(chunks, chunk_doc, queries)}
    if dense and lib.stats()["chunks_embedded"]:
        window_chunks, matrix = stored_vectors(str(lib.db_path))
        runs["plain dense"] = plain_dense(lambda t: embed_query(embedder, t), window_chunks, matrix, chunk_doc, queries)
        runs["plain RRF"] = plain_rrf(runs["plain BM25"], runs["plain dense"])
    return runs


def trove_runs(lib: Library, queries: dict, modes: tuple[str, ...] = MODES, skip_rrf: bool = False
               ) -> tuple[dict[str, dict[str, list[str]]], dict[str, dict]]:
    """Library.search in each mode (hybrid with the settings' fusion and with plain RRF), and latencies.

    The search service holds its own SearchParams (made from the settings when the library opened): the RRF run
    changes those, not lib.settings, which the service does not read again."""
    runs, latency = {}, {}
    params = lib.searcher.params
    for mode in modes:
        name = f"hybrid ({params.fusion})" if mode == "hybrid" else mode
        runs[name], lat = run_mode(lib, queries, mode)
        latency[name] = {"p50_ms": percentile(lat, 50) * 1000, "p95_ms": percentile(lat, 95) * 1000}
    if params.fusion != "rrf" and "hybrid" in modes and not skip_rrf:
        lib.searcher.params = dataclasses.replace(params, fusion="rrf")  # the seed's fusion, for comparison
        name = f"hybrid (rrf k={params.rrf_k})"
        runs[name], lat = run_mode(lib, queries, "hybrid")
        latency[name] = {"p50_ms": percentile(lat, 50) * 1000, "p95_ms": percentile(lat, 95) * 1000}
        lib.searcher.params = params
    return runs, latency


SIDE = " [side index]"  # --keyword-side: the same modes again with the keyword side index answering


def side_runs(lib: Library, queries: dict, modes: tuple[str, ...], skip_rrf: bool
              ) -> tuple[dict[str, dict[str, list[str]]], dict[str, dict]]:
    """trove_runs again with the keyword side index (core/store/side/keyword_index.py) built and answering,
    whatever the library's size: the same library, the same process, so the two rankings pair per query."""
    from desktop_app.core.store.side import keyword_index

    keyword_index.MIN_CHUNKS, keyword_index.REBUILD_QUIET = 0, 0.0
    store = lib.store
    store.__dict__.pop("_keyword_index", None)  # the one the FTS5 runs made has decided "too small" already
    store.keyword_candidates("warm", 1)  # starts the build
    store.__dict__["_keyword_index"].wait()
    assert store.__dict__["_keyword_index"]._index is not None, "the keyword side index was not built"
    runs, latency = trove_runs(lib, queries, tuple(m for m in modes if m != "semantic"), skip_rrf)
    return {n + SIDE: r for n, r in runs.items()}, {n + SIDE: v for n, v in latency.items()}


def baseline_of(name: str) -> str:
    """The plain baseline a run is compared with."""
    name = name.removesuffix(SIDE)
    if name == "keyword":
        return "plain BM25"
    return "plain dense" if name == "semantic" else "plain RRF"


def figures(runs: dict, qrels: dict, qids: list[str]) -> dict:
    """Mean nDCG@10 / Recall@100 of every run over `qids`, and each Trove run's difference from its baseline with a
    95% bootstrap interval."""
    scores = {name: per_query(run, qrels, qids) for name, run in runs.items()}
    out: dict = {"queries": len(qids), "modes": {}, "vs_plain": {}}
    for name, s in scores.items():
        out["modes"][name] = {m: sum(v) / len(v) if v else 0.0 for m, v in s.items()}
        base = baseline_of(name)
        if name.startswith("plain") or base not in scores:
            continue
        out["vs_plain"][name] = {"baseline": base, **{m: bootstrap_diff(s[m], scores[base][m]) for m in s}}
        if name.endswith(SIDE) and (fts := name.removesuffix(SIDE)) in scores:
            out.setdefault("vs_fts5", {})[name] = {m: bootstrap_diff(s[m], scores[fts][m]) for m in s}
    return out


def print_figures(label: str, fig: dict) -> None:
    print(f"\n[{label}: {fig['queries']} queries]")
    print(f"{'mode':<22} {'nDCG@10':>8} {'R@100':>8}   vs plain: nDCG@10 diff [95% CI]     R@100 diff [95% CI]")
    for name, m in fig["modes"].items():
        line = f"{name:<22} {m['ndcg@10']:>8.4f} {m['recall@100']:>8.4f}"
        v = fig["vs_plain"].get(name)
        if v:
            line += "   " + "   ".join(f"{v[k]['diff']:+.4f} [{v[k]['lo']:+.4f}, {v[k]['hi']:+.4f}]"
                                      for k in ("ndcg@10", "recall@100")) + f"  ({v['baseline']})"
        print(line)
    for name, v in fig.get("vs_fts5", {}).items():
        print(f"{name:<22} vs FTS5's ranking: nDCG@10 {v['ndcg@10']['diff']:+.4f} "
              f"[{v['ndcg@10']['lo']:+.4f}, {v['ndcg@10']['hi']:+.4f}]")


def index_library(args: argparse.Namespace, corpus: dict, wait_vectors: bool = True) -> tuple[Library, dict, Path]:
    """The Library over the corpus (written as files, synced with vectors) and its indexing figures."""
    work = Path(tempfile.mkdtemp(prefix="trove-bench-"))
    home = args.home or work / "home"
    folder = (args.home / "corpus") if args.home else work / "corpus"
    if not folder.exists():
        write_corpus(corpus, folder)
    lib = Library(home, settings=Settings(embedder=args.embedder))
    lib.add_folder(folder)
    t0 = time.perf_counter()
    report = lib.sync(wait=False)
    keyword_s = time.perf_counter() - t0
    t1, cpu1 = time.perf_counter(), time.process_time()
    if wait_vectors:
        lib.wait_for_embeddings()
    else:
        lib.embed_worker.stop()  # keyword only: no vectors wanted (nor the CPU they take)
    semantic_s, semantic_cpu_s = time.perf_counter() - t1, time.process_time() - cpu1
    stats = lib.stats()
    print(f"keyword phase {keyword_s:.1f}s ({report.indexed} files, {report.chunks} chunks); "
          f"semantic phase {semantic_s:.1f}s ({stats['chunks_embedded']} vectors)")
    info = {"embedder": lib.embedder.model_id, "chunks": stats["chunks"], "keyword_phase_s": keyword_s,
            "semantic_phase_s": semantic_s, "indexed": report.indexed}
    if report.indexed and not args.skip_bare:
        info["embedding"] = embedding_figures(lib, semantic_s, semantic_cpu_s, args.bare_sample)
    if args.query_embedder:
        lib.searcher.embedder = make_embedder(args.query_embedder)  # the index keeps its vectors; queries use it
        info["query_embedder"] = lib.searcher.embedder.model_id
    model = getattr(lib.searcher.embedder, "current", lib.searcher.embedder)  # "auto": the model it chose
    lib.searcher.embedder = CachedEmbedder(lib.searcher.embedder,  # each query embedded once for every mode
                                           cache_path(model.model_id), passage_queries=args.int8_queries)
    return lib, info, work


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", required=True, type=Path)
    ap.add_argument("--split", choices=("test", "train"), default="test")
    ap.add_argument("--home", type=Path, help="keep the library here (reused by later runs)")
    ap.add_argument("--json", help="write results JSON here (default bench/results/retrieval_<dataset>_<split>.json)")
    ap.add_argument("--limit-queries", type=int, default=0)
    ap.add_argument("--sample-queries", type=int, default=0,
                    help="a fixed-seed sample of this many queries (split into tune/report halves as all are)")
    ap.add_argument("--skip-rrf-run", action="store_true", help="no second hybrid run with RRF fusion")
    ap.add_argument("--int8-queries", action="store_true",
                    help="queries through the index's own int8 model (cached), not the float twin the app uses")
    ap.add_argument("--half-only", choices=("tune", "report"), help="with --embed-queries-only: that half's")
    ap.add_argument("--embed-queries-only", action="store_true",
                    help="only fill the query-vector cache (~/.cache/trove-bench/qvec-*.npz) and stop")
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
    ap.add_argument("--rank-bm25", action="store_true", help="also the rank-bm25 Okapi baseline over documents")
    ap.add_argument("--keyword-side", action="store_true",
                    help="also keyword and hybrid with the keyword side index answering (paired with FTS5's)")
    ap.add_argument("--modes", nargs="+", choices=MODES, default=list(MODES),
                    help="only these modes (keyword alone needs no vectors: no dense baselines then)")
    ap.add_argument("--tag", default="", help="a suffix for the results file name (e.g. before/after a change)")
    args = ap.parse_args()
    if (args.dataset / "manifest.json").exists():
        from retrieval_languages import run_tasks

        run_tasks(args)
        return

    corpus, queries, qrels = load_dataset(args.dataset, args.split)
    if args.limit_queries:
        queries = dict(list(queries.items())[: args.limit_queries])
    queries = sample_queries(queries, args.sample_queries)
    if args.embed_queries_only:
        embed_queries(args, queries)
        return
    if args.max_docs:
        corpus = smaller_corpus(corpus, qrels, args.max_docs)
    print(f"{args.dataset.name} ({args.split}): {len(corpus)} documents, {len(queries)} queries")
    lib, info, work = index_library(args, corpus, wait_vectors=args.modes != ["keyword"])
    results: dict = {"dataset": args.dataset.name, "split": args.split, "documents": len(corpus),
                     "queries": len(queries), **{k: v for k, v in info.items() if k != "indexed"}}
    t0 = time.perf_counter()
    runs = plain_runs(lib, queries, dense=args.modes != ["keyword"])
    plain_s = time.perf_counter() - t0
    trove, latency = trove_runs(lib, queries, tuple(args.modes), skip_rrf=args.skip_rrf_run)
    runs.update(trove)
    if args.keyword_side:
        side, side_latency = side_runs(lib, queries, tuple(args.modes), args.skip_rrf_run)
        runs.update(side)
        latency.update(side_latency)
    if args.rank_bm25:
        runs["rank-bm25 (documents)"] = bm25_baseline(corpus, queries)
    lib.searcher.embedder.save()
    lib.close()
    if ignores_identical_ids(args.dataset):
        runs = {name: drop_self(run) for name, run in runs.items()}
        results["ignore_identical_ids"] = True

    split_ids = {"all": sorted(queries), **halves(list(queries))}
    results["halves"] = {label: figures(runs, qrels, qids) for label, qids in split_ids.items()}
    results["modes"] = {name: {**m, **latency.get(name, {"p50_ms": None, "p95_ms": None})}
                        for name, m in results["halves"]["all"]["modes"].items()}
    results["plain_baselines_s"] = plain_s
    results["half_seed"] = 0
    for label, fig in results["halves"].items():
        print_figures(label, fig)
    print("\nlatency (all queries): " + ", ".join(f"{n} p50 {v['p50_ms']:.1f} ms" for n, v in latency.items()))
    if "embedding" in results:
        print_embedding(results["embedding"])
    save(result_name(args), keep_index_figures(results, info, args), args.json)
    if not args.home:
        shutil.rmtree(work, ignore_errors=True)


def result_name(args: argparse.Namespace) -> str:
    name = f"retrieval_{args.dataset.name}_{args.split}_{args.embedder}"
    if args.max_docs:
        name += f"_docs{args.max_docs}"
    if args.query_embedder:
        name += f"_queries-{args.query_embedder}"
    return name + (f"_{args.tag}" if args.tag else "")


def keep_index_figures(results: dict, info: dict, args: argparse.Namespace) -> dict:
    """An index reused from --home has no indexing figures of its own: keep the previous run's."""
    if args.max_docs:
        results["max_docs"] = args.max_docs
    previous = RESULTS / f"{result_name(args)}.json"
    if not info["indexed"] and info["semantic_phase_s"] < 1.0 and previous.exists() and not args.json:
        old = json.loads(previous.read_text(encoding="utf-8"))
        for key in ("keyword_phase_s", "semantic_phase_s", "embedding"):
            if key in old:
                results[key] = old[key]
    return results


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
