"""Retrieval per language: the tasks of a multilingual dataset folder, each through the real Library pipeline.

Called by `bench/retrieval.py --dataset bench/data/multilingual-qa [--embedder NAME]`. The folder's
manifest.json lists tasks {name, corpus, queries}: `corpus` and `queries` name sub-folders in BEIR layout
(corpus.jsonl; queries.jsonl + qrels.tsv). Each corpus is indexed once as its own library (extract → chunk →
FTS5 → vectors), every task's queries run in keyword, semantic and hybrid mode, and nDCG@10 / Recall@100
are printed as a table per task and mode and saved to bench/results/retrieval_<dataset>_<embedder>.json.

Per task and mode it also gives the share of questions whose paragraph is among the top CHAT_TOP_K chunks (what
chat retrieves: the retrieval ceiling before the prompt budget), with a 95% Wilson interval, over all questions
and over the fixed-seed "tune" and "report" halves (_baselines.halves): choices are made on "tune", "report" is
quoted.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from pathlib import Path

from _baselines import halves
from _common import percentile, save
from _qa_stats import fmt, proportion
from retrieval import MODES, embedding_figures, evaluate, load_dataset, print_embedding, run_mode, write_corpus

from desktop_app.core.embed.base import make_embedder
from desktop_app.core.library import Library
from desktop_app.core.settings import Settings

CHAT_TOP_K = Settings.context_top_k


def index_corpus(root: Path, corpus_name: str, work: Path, settings: Settings, args: argparse.Namespace) -> tuple:
    """A Library over one corpus folder of the dataset, synced with vectors; and its indexing figures."""
    corpus, _, _ = load_dataset(root / corpus_name, "test")
    folder, home = work / corpus_name / "corpus", work / corpus_name / "home"
    if not folder.exists():
        write_corpus(corpus, folder)
    lib = Library(home, settings=settings)
    lib.add_folder(folder)
    t0 = time.perf_counter()
    report = lib.sync(wait=False)
    t1, cpu1 = time.perf_counter(), time.process_time()
    lib.wait_for_embeddings()
    semantic_s, semantic_cpu_s = time.perf_counter() - t1, time.process_time() - cpu1
    figures = {"documents": len(corpus), "chunks": lib.stats()["chunks"], "keyword_phase_s": t1 - t0,
               "semantic_phase_s": semantic_s}
    if report.indexed and not args.skip_bare:
        figures["embedding"] = embedding_figures(lib, semantic_s, semantic_cpu_s, args.bare_sample)
    if args.query_embedder:
        lib.searcher.embedder = make_embedder(args.query_embedder)
    return lib, figures


def run_task(lib: Library, root: Path, task: dict) -> dict:
    """nDCG@10, Recall@100 and latency per mode for one task's queries against its corpus's library."""
    _, queries, qrels = load_dataset(root / task["queries"], "test")
    out = {"queries": len(queries), "corpus": task["corpus"], "modes": {}}
    split = {"all": sorted(queries), **halves(list(queries))}
    for mode in MODES:
        run, latencies = run_mode(lib, queries, mode)
        hits = {q: bool(set(run[q][:CHAT_TOP_K]) & set(qrels[q])) for q in run}
        out["modes"][mode] = {**evaluate(run, qrels), "p50_ms": percentile(latencies, 50) * 1000,
                              f"top{CHAT_TOP_K}": {half: proportion([hits[q] for q in ids if q in hits])
                                                   for half, ids in split.items()}}
    return out


def print_table(tasks: dict) -> None:
    """Rows per task, columns nDCG@10 then Recall@100 per mode."""
    head = " ".join(f"{m[:8]:>9}" for m in MODES)
    print(f"\n{'task':<8} nDCG@10: {head}   R@100: {head}")
    for name, t in tasks.items():
        ndcg = " ".join(f"{t['modes'][m]['ndcg@10']:>9.4f}" for m in MODES)
        recall = " ".join(f"{t['modes'][m]['recall@100']:>9.4f}" for m in MODES)
        print(f"{name:<8}          {ndcg}          {recall}")
    print(f"\nparagraph in the top {CHAT_TOP_K} (the chat's retrieval), report half [95% CI]:")
    for name, t in tasks.items():
        print(f"{name:<8} " + "   ".join(f"{m} {fmt(t['modes'][m][f'top{CHAT_TOP_K}']['report'])}" for m in MODES))


def run_tasks(args: argparse.Namespace) -> None:
    """Index each corpus the manifest uses, run every task, print the table and save the JSON."""
    root: Path = args.dataset
    manifest = json.loads((root / "manifest.json").read_text(encoding="utf-8"))
    work = args.home or Path(tempfile.mkdtemp(prefix="trove-bench-langs-"))
    settings = Settings(embedder=args.embedder)
    libraries: dict[str, Library] = {}
    results: dict = {"dataset": manifest["name"], "embedder": args.embedder,
                     "query_embedder": args.query_embedder, "corpora": {}, "tasks": {}}
    try:
        for task in manifest["tasks"]:
            if task["corpus"] not in libraries:
                lib, figures = index_corpus(root, task["corpus"], work, settings, args)
                libraries[task["corpus"]] = lib
                results["corpora"][task["corpus"]] = figures
                print(f"{task['corpus']}: {figures['documents']} documents, {figures['chunks']} chunks, semantic "
                      f"phase {figures['semantic_phase_s']:.1f}s", flush=True)
                if "embedding" in figures:
                    print_embedding(figures["embedding"])
            results["tasks"][task["name"]] = run_task(libraries[task["corpus"]], root, task)
    finally:
        for lib in libraries.values():
            lib.close()
        if not args.home:
            shutil.rmtree(work, ignore_errors=True)
    print_table(results["tasks"])
    name = f"retrieval_{manifest['name']}_{args.embedder}"
    save(name + (f"_queries-{args.query_embedder}" if args.query_embedder else ""), results, args.json)
