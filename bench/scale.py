"""Search at scale: a library of N chunks on SQLite and PostgreSQL, searched through `search_store`.

    python bench/scale.py --chunks 100000 --engines sqlite,postgresql --json bench/results/scale_100k.json
    python bench/scale.py --chunks 1000000 --engines sqlite            # the 1M run (build cached, see below)
    python bench/scale.py --quick                                      # 100k, SQLite, 100 queries
    (a fresh checkout: the default vectors file is made first with the real MiniLM, once)

The library is bench/server_scale.py's (its loader and replicas): SciFact abstracts with their real
all-MiniLM-L6-v2 vectors (~/.cache/trove-bench/scifact_minilm_1500.npz by default), replicated until there are
N chunks, each replica's vectors with N(0, 0.02) noise and its text a replica word; one chunk per document, dealt
round-robin into --folders folders, so one folder holds 1/--folders of the library (the filtered queries).

The library is built once by the bulk path (SQLite: one writer, a few thousand documents per transaction, rows
as write_document makes them with the text pipeline run once per original; PostgreSQL: COPY, then the HNSW
index) in a child process, and cached under --work with the build time (a must-show); later runs reuse it.

Measured per engine, in this process, after opening the cached library (the open is timed):
  - queries.<mode>.p50_ms / p95_ms for keyword / semantic / hybrid (server_scale.json's shape), hybrid's two
    sides at once and one after the other (queries.hybrid_at_once / hybrid_in_sequence, timed in alternating passes
    over the same queries; queries.hybrid is the one the engine uses: SQLite in sequence, PostgreSQL at once), and
    the same with a folder filter (queries_folder.<mode>, with how many queries came back short of k);
  - on SQLite, the same with a date filter and a tag filter (queries_date, queries_tag), each keeping 10% of the
    library (dated_and_tagged writes a date and a tag on every document before the side indexes are built);
  - semantic recall@10 of the store's dense candidates against exact search (numpy over every stored vector),
    with and without the folder filter;
  - RSS of this (searching) process before the floors load their matrix; database and side-index size;
  - the floors, in the same process: numpy dot over the same vectors in RAM; a bare FTS5 MATCH ranked by bm25
    (SQLite); the bare tsquery / vector SQL (PostgreSQL, bench/server_scale.bare_latencies). Ratios to them.
The keyword side's alternatives plug into KEYWORD_CHOICES (name -> function(store, text) -> ranked chunk ids):
each is timed beside the floor with the same queries.
"""

from __future__ import annotations

import argparse
import gc
import json
import multiprocessing as mp
import os
import resource
import shutil
import sys
import time
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

import numpy as np
from _common import ROOT, percentile, save
from server_scale import (
    DIM,
    MODEL,
    SIGMA,
    SavedEmbedder,
    _fields,
    _split_replica,
    bare_latencies,
    fill,
    library_docs,
    load_library,
    minilm_vectors,
    replica_language,
)

K = 10
BATCH = 5000  # documents per bulk transaction
MODES = ("keyword", "semantic", "hybrid")
ACTIVE_MODES = list(MODES)  # --modes narrows it
EF_SWEEP: list[int] = []  # --ef-search: PostgreSQL HNSW breadths to time semantic search and recall at
RECALL_TRAIN: list[np.ndarray] = []  # --recall-queries train: the training claims' vectors (a second held-out set)
DEFAULT_DOCS = 1500  # SciFact abstracts embedded for the library (every judged one first; server_scale.minilm_vectors)
DEFAULT_VECTORS = Path.home() / ".cache" / "trove-bench" / f"scifact_minilm_{DEFAULT_DOCS}.npz"
BUILD_VERSION = 1  # bump when the bulk rows change: cached libraries are rebuilt


def say(text: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {text}", flush=True)


# ---- the bulk build ------------------------------------------------------------------------------------------


class _Folder:
    def __init__(self, fid: int, path: str) -> None:
        self.id, self.path = fid, path


def dealt(docs, vecs, n_chunks: int, folders: list[_Folder]):
    """The replicated corpus (server_scale.library_docs) dealt round-robin into `folders`."""
    from dataclasses import replace

    for n, (doc, chunks) in enumerate(library_docs(docs, vecs, n_chunks, _Folder(0, "/bench/all"))):
        f = folders[n % len(folders)]
        yield replace(doc, folder_id=f.id, path=doc.path.replace("/bench/all", f.path)), chunks


@lru_cache(maxsize=16384)
def _title_fields(fts_title: str) -> str:
    from desktop_app.core import text as tp

    return tp.index_fields(fts_title, "")["title"]


def replica_fields(fts_title: str, text: str) -> dict[str, str]:
    """tp.index_fields of a replica from its original's (run once per original) plus its replica word's."""
    base, word = _split_replica(text)
    fields = dict(_fields(base))
    if word:
        extra = _fields(word)
        fields = {n: " ".join(x for x in (v, extra.get(n, "")) if x) for n, v in fields.items()}
    fields["title"] = _title_fields(fts_title)
    return fields


def bulk_sqlite(path: Path, docs, vecs, n_chunks: int, n_folders: int) -> None:
    """The SQLite library through the store's own schema: BATCH documents per transaction."""
    from desktop_app.core import text as tp
    from desktop_app.core.ingest.extract import index_title
    from desktop_app.core.store.rows import text_hash
    from desktop_app.core.store.sqlite import SQLiteStore
    from desktop_app.core.store.sqlite.vectors import vector_rowid

    store = SQLiteStore(path)
    store.ensure_embedding_model(MODEL, DIM)
    folders = [_Folder(store.add_folder(f"/bench/f{i:02d}").id, f"/bench/f{i:02d}") for i in range(n_folders)]
    fts = (f"INSERT INTO chunks_fts (rowid, {', '.join(tp.FTS5_COLUMNS)}) "
           f"VALUES (?, {', '.join('?' * len(tp.FTS5_COLUMNS))})")
    items = dealt(docs, vecs, n_chunks, folders)
    done = 0
    while True:
        batch = [x for _, x in zip(range(BATCH), items, strict=False)]
        if not batch:
            break
        def work(conn, batch=batch) -> None:  # one transaction per batch
            for doc, chunks in batch:
                body = chunks[0].span.text
                doc_id = int(conn.execute(
                    "INSERT INTO documents (path, folder_id, title, type, size, mtime_ns, content_hash, pages, "
                    "chunk_count, indexed_at, status) VALUES (?,?,?,?,?,?,?,?,1,?, 'indexed')",
                    (doc.path, doc.folder_id, doc.title, doc.type, doc.size, doc.mtime_ns, doc.digest, doc.pages,
                     time.time())).lastrowid)
                cid = int(conn.execute(
                    "INSERT INTO chunks (document_id, ordinal, page, start, end, text, text_hash, embedded, lang, "
                    "label, ocr) VALUES (?,0,NULL,0,?,?,?,1,?,'',0)",
                    (doc_id, len(body), body, text_hash(body), replica_language(body))).lastrowid)
                fields = replica_fields(index_title(doc.title, Path(doc.path)), body)
                conn.execute(fts, (cid, *(fields[c] for c in tp.FTS5_COLUMNS)))
                conn.execute("INSERT INTO chunks_vec (rowid, embedding) VALUES (?, ?)",
                             (vector_rowid(cid, 0), np.asarray(chunks[0].vectors[0], dtype=np.float32).tobytes()))
        store._write(work)
        done += len(batch)
        if done % 100_000 < BATCH:
            say(f"sqlite bulk: {done} chunks")
    store.close()


def bulk_postgres(where: str, docs, vecs, n_chunks: int, n_folders: int) -> None:
    from desktop_app.core.store.postgres import PostgresStore

    store = PostgresStore(where, machine="bench")
    store.ensure_embedding_model(MODEL, DIM)
    folders = [_Folder(store.add_folder(f"/bench/f{i:02d}").id, f"/bench/f{i:02d}") for i in range(n_folders)]
    store.close()
    fill("postgresql", None, where, dealt(docs, vecs, n_chunks, folders))
    import psycopg

    with psycopg.connect(where, autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE")


def _build_child(engine: str, where: str, vectors: str, dataset: str, n_chunks: int, n_folders: int) -> None:
    docs, vecs, _, _ = load_library(Path(vectors), Path(dataset))
    if engine == "sqlite":
        bulk_sqlite(Path(where), docs, vecs, n_chunks, n_folders)
    else:
        bulk_postgres(where, docs, vecs, n_chunks, n_folders)


def cached_library(engine: str, args, where: str, marker: Path) -> dict:
    """Build the library in a child process unless `marker` says this build is already there."""
    want = {"engine": engine, "chunks": args.chunks, "folders": args.folders, "vectors": args.vectors,
            "build_version": BUILD_VERSION}
    if marker.exists():
        info = json.loads(marker.read_text())
        if {k: info.get(k) for k in want} == want:
            say(f"{engine}: cached library ({info['build_seconds']} s to build)")
            return {**info, "cached": True}
    if engine == "sqlite":  # what a killed build left (the marker is written last)
        for left in Path(where).parent.glob(Path(where).name + "*"):
            left.unlink()
    say(f"{engine}: building {args.chunks} chunks by the bulk path")
    started = time.perf_counter()
    child = mp.get_context("spawn").Process(
        target=_build_child, args=(engine, where, args.vectors, args.dataset, args.chunks, args.folders))
    child.start()
    child.join()
    if child.exitcode != 0:
        raise SystemExit(f"{engine}: the bulk build failed (exit {child.exitcode})")
    info = {**want, "build_seconds": round(time.perf_counter() - started, 1), "built_at": time.strftime("%F %T"),
            "load_at_build": os.getloadavg()}
    marker.write_text(json.dumps(info))
    say(f"{engine}: built in {info['build_seconds']} s")
    return {**info, "cached": False}


# ---- measuring -----------------------------------------------------------------------------------------------


def timed(fn: Callable[[int], object], n: int, warm: int = 10) -> dict:
    for i in range(min(warm, n)):
        fn(i)
    times = []
    for i in range(n):
        started = time.perf_counter()
        fn(i)
        times.append((time.perf_counter() - started) * 1000)
    return summary(times)


def summary(times: list[float]) -> dict:
    """p50 / p95 of times in ms, as every timing here reports them."""
    return {"p50_ms": round(percentile(times, 50), 2), "p95_ms": round(percentile(times, 95), 2)}


def timed_pair(first: Callable[[int], object], second: Callable[[int], object], n: int,
               warm: int = 10) -> tuple[dict, dict]:
    """timed() of two ways to answer the same queries, fairly: two passes over the queries, the first way answering
    the even ones and the second the odd ones in one pass, then the other way round, so each answers every query
    once and neither always comes second (timing all of one way and then all of the other favoured the second by
    2-8 ms at p95: docs/benchmarks.md), nor asks a query the other asked a moment before."""
    for i in range(min(warm, n)):
        first(i)
        second(i)
    times: tuple[list[float], list[float]] = ([], [])
    for turn in (0, 1):
        for i in range(n):
            which = (i + turn) % 2
            started = time.perf_counter()
            (first, second)[which](i)
            times[which].append((time.perf_counter() - started) * 1000)
    return summary(times[0]), summary(times[1])


def store_queries(store, texts, qvecs, filters) -> dict:
    from desktop_app.core.search.service import search_store

    embedder = SavedEmbedder(texts, qvecs)
    out = {}
    for mode in ACTIVE_MODES:
        counts: list[int] = []

        def one(i: int, mode=mode, counts=counts, count: bool = True) -> None:
            found = search_store(store, texts[i], embedder=embedder, mode=mode, top_k=K, filters=filters)
            if count:
                counts.append(len(found))

        if mode == "hybrid":  # both arrangements of the two sides, same run; `hybrid` is the one the engine uses
            out["hybrid_at_once"], out["hybrid_in_sequence"] = timed_pair(
                lambda i, one=one: arranged(store, True, lambda: one(i)),
                lambda i, one=one: arranged(store, False, lambda: one(i, count=False)), len(texts))
            out[mode] = dict(out["hybrid_at_once" if getattr(store, "SIDES_AT_ONCE", True) else "hybrid_in_sequence"])
        else:
            out[mode] = timed(one, len(texts))
        out[mode]["queries_short_of_k"] = sum(c < K for c in counts[-len(texts):])
        if mode == "semantic":  # semantic search drops cosines under min_similarity (noise): is that why?
            out[mode]["queries_short_of_k_before_min_similarity"] = sum(
                len(store.dense_candidates(q, K, filters=filters)) < K for q in qvecs)
    return out


def arranged(store, at_once: bool, fn: Callable[[], object]) -> object:
    """fn() with hybrid search's two sides at once (side_pool) or one after the other, whichever the engine uses."""
    store.SIDES_AT_ONCE = at_once  # this instance only: search_store reads it
    try:
        return fn()
    finally:
        del store.SIDES_AT_ONCE


def stored_vectors(store, engine: str) -> tuple[np.ndarray, np.ndarray]:
    """(chunk ids, float32 matrix) of every stored vector, read from the store (the floors' data)."""
    if engine == "sqlite":
        from desktop_app.core.embed.base import MAX_WINDOWS

        rows = store._read(lambda c: c.execute("SELECT rowid, embedding FROM chunks_vec").fetchall())
        ids = np.array([r[0] // MAX_WINDOWS for r in rows], dtype=np.int64)
        mat = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), DIM)
        return ids, mat
    import psycopg
    from pgvector.psycopg import register_vector

    with psycopg.connect(store_url(store), autocommit=True) as conn:
        register_vector(conn)
        rows = conn.execute("SELECT chunk_id, embedding FROM chunk_vectors").fetchall()
    mat = np.stack([np.asarray(r[1].to_numpy(), np.float32) for r in rows])
    return np.array([r[0] for r in rows], dtype=np.int64), mat


def store_url(store) -> str:
    return store._bench_url  # set by open_library


def exact_top(ids: np.ndarray, mat: np.ndarray, q: np.ndarray, k: int, mask: np.ndarray | None = None) -> list[int]:
    sims = mat @ q
    if mask is not None:
        sims = np.where(mask, sims, -2.0)
    top = np.argpartition(-sims, k)[:k]
    return [int(ids[i]) for i in top[np.argsort(-sims[top])]]


TUNED_ON = 100  # the side index's candidate share was chosen on the first 100 test queries (2026-12-03)


def recall(store, ids, mat, qvecs, folder_mask, folder_filter, tuned_on: int = TUNED_ON) -> dict:
    """Recall@10 of dense_candidates against exact cosine over the same vectors (all, and one folder); with
    more than TUNED_ON queries also over the rest alone (<name>_held_out), which no setting was chosen on."""
    out = {}
    for name, mask, filters in (("all", None, None), ("folder", folder_mask, folder_filter)):
        hits = []
        for q in qvecs:
            truth = set(exact_top(ids, mat, q, K, mask))
            hits.append(len(truth & {c for c, _ in store.dense_candidates(q, K, filters=filters)}))
        out[name] = round(sum(hits) / (K * len(qvecs)), 4)
        if tuned_on and len(hits) > tuned_on:
            out[f"{name}_held_out"] = round(sum(hits[tuned_on:]) / (K * (len(hits) - tuned_on)), 4)
    return out


def train_query_vectors(dataset: Path) -> np.ndarray:
    """MiniLM vectors of SciFact's 809 training claims (every BEIR query that is not a test query), cached. No
    setting of the side indexes was chosen on them (bench/sketch_sweep.py reads only the test queries)."""
    out = Path.home() / ".cache" / "trove-bench" / "scifact_train_queries_minilm.npz"
    if out.exists():
        return np.load(out)["query_vecs"]
    from desktop_app.core.embed.minilm import MiniLMEmbedder

    test = {str(json.loads(line)["_id"]) for line in open(dataset / "queries.jsonl", encoding="utf-8")}
    claims = [q for q in map(json.loads, open(dataset / "queries_all_beir.jsonl", encoding="utf-8"))
              if str(q["_id"]) not in test]
    vecs = MiniLMEmbedder().embed([q["text"] for q in claims]).astype(np.float32)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, query_ids=np.array([q["_id"] for q in claims]), query_vecs=vecs)
    return vecs


def floors(store, engine: str, ids, mat, texts, qvecs) -> dict:
    """The same searches with nothing but the core operation, in this process."""
    out = {"numpy_dot": timed(lambda i: exact_top(ids, mat, qvecs[i], K), len(qvecs))}
    if "keyword" not in ACTIVE_MODES:
        pass
    elif engine == "sqlite":
        from desktop_app.core import text as tp

        rank = tp.fts5_rank("chunks_fts", {"title": 2.0})
        sql = f"SELECT rowid, {rank} AS r FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY r LIMIT 30"
        matches = [tp.to_fts5(tp.build_query(t)) for t in texts]
        out["fts5_bm25"] = store._read(lambda c: timed(
            lambda i: c.execute(sql, (matches[i],)).fetchall() if matches[i] else [], len(texts)))
    else:
        out["bare_psycopg"] = bare_latencies(store_url(store), texts, qvecs)
    for name, fn in KEYWORD_CHOICES.items():
        out[f"keyword_{name}"] = timed(lambda i, fn=fn: fn(store, texts[i]), len(texts))
    return out


# The keyword side's candidates (engineer G's choice plugs in here): name -> function(store, text) -> chunk ids.
KEYWORD_CHOICES: dict[str, Callable[[object, str], object]] = {}


def rss_mb() -> dict:
    status = dict(line.split(":", 1) for line in open("/proc/self/status", encoding="ascii") if ":" in line)
    return {"rss_mb": round(int(status["VmRSS"].split()[0]) / 1024, 1),
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}


def side_index_bytes(db: Path) -> int:
    """The side files' bytes: <db>.vectors and everything under <db>.keywords/."""
    return sum(p.stat().st_size for p in db.parent.glob(db.name + ".*") if p.suffix in (".vectors",)) + \
        sum(p.stat().st_size for p in db.parent.glob(db.name + ".keywords/**/*") if p.is_file())


SIDE_ATTRS = {"sqlite": ("_vector_index", "_keyword_index"), "postgresql": ("_side_vectors", "_side_keywords")}
SIDE_DIR: list[Path] = []  # PostgreSQL: where the searching desktop keeps its side indexes (run_engine sets it)


def index_bench_args(doc: str, name: str, chunks: int, queries: int) -> argparse.ArgumentParser:
    """The arguments every side-index bench takes (int8_scoring.py, score_block.py, pca_codes.py): the library
    bench/scale.py built at `chunks`, how many SciFact test queries, the dataset and the results file."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--library", default=str(Path.home() / ".cache" / "trove-bench" / f"scale-{chunks}" / "library.db"))
    ap.add_argument("--queries", type=int, default=queries)
    ap.add_argument("--dataset", default="/work/shared/eval/scifact")
    ap.add_argument("--json", help=f"results file (default bench/results/{name}.json)")
    return ap


def bench_index(args: argparse.Namespace):
    """(SciFact's test query vectors, the store, its loaded vector side index) for index_bench_args' arguments."""
    _, _, _, qvecs = load_library(DEFAULT_VECTORS, Path(args.dataset))
    store, index = loaded_vectors(args.library, qvecs)
    return qvecs, store, index


def loaded_vectors(library: str, qvecs):
    """(store, its loaded vector side index) of a SQLite library bench/scale.py built, waiting for the load."""
    store, _ = open_library("sqlite", library)
    store.dense_candidates(qvecs[0], 10)
    side = store.__dict__["_vector_index"]
    side.wait()
    if side._index is None:
        raise SystemExit(f"{library} has no usable vector index: run bench/scale.py on it first")
    return store, side._index


def open_library(engine: str, where: str):
    from server_scale import open_engine

    started = time.perf_counter()
    store = open_engine(engine, where, side_dir=SIDE_DIR[0] if SIDE_DIR else None)
    store.ensure_embedding_model(MODEL, DIM)
    store._bench_url = where
    return store, round((time.perf_counter() - started) * 1000, 1)


def measure(engine: str, where: str, texts, qvecs, build: dict) -> dict:
    from desktop_app.core.store.rows import Filters

    result: dict = {}
    if engine == "sqlite":  # dates and tags before the side indexes are built: the keyword one holds them
        store, _ = open_library(engine, where)
        dated_and_tagged(store)
        store.close()
    result["side_index"] = side_index(engine, where, texts, qvecs)
    store, open_ms = open_library(engine, where)
    folder = store.folders()[0]
    by_folder = Filters(folder_ids=(folder.id,))
    result.update({"chunks": store.counts().chunks, "build": build, "open_ms": open_ms})
    from desktop_app.core.search.service import search_store

    started = time.perf_counter()
    search_store(store, texts[0], embedder=SavedEmbedder(texts, qvecs), mode="semantic", top_k=K)
    result["first_semantic_query_ms"] = round((time.perf_counter() - started) * 1000, 1)
    vector_attr, keyword_attr = SIDE_ATTRS[engine]
    if (vix := store.__dict__.get(vector_attr)) is not None:  # the side index loads in the background
        started = time.perf_counter()
        vix.wait()
        result["side_index_load_ms"] = round((time.perf_counter() - started) * 1000, 1)
    started = time.perf_counter()
    store.keyword_candidates(texts[0], K)
    if (kix := store.__dict__.get(keyword_attr)) is not None:  # loads in the background too
        kix.wait()
    result["keyword_index_load_ms"] = round((time.perf_counter() - started) * 1000, 1)
    result["window"] = window_counts(store)
    say(f"{engine}: open {open_ms} ms, first semantic query {result['first_semantic_query_ms']} ms; "
        f"counts {result['window']}; queries")
    result["queries"] = store_queries(store, texts, qvecs, None)
    say(f"{engine}: {result['queries']}")
    result["queries_folder"] = store_queries(store, texts, qvecs, by_folder)
    say(f"{engine}: folder filter {result['queries_folder']}")
    if engine == "sqlite":  # the query language's document filters (dates, tags): as the side indexes take them
        for name, filters in (("date", Filters(date_from="2024-03-01", date_to="2024-04-01")),
                              ("tag", Filters(tags=("t3",)))):
            result[f"queries_{name}"] = store_queries(store, texts, qvecs, filters)
            say(f"{engine}: {name} filter {result[f'queries_{name}']}")
    result["memory"] = rss_mb()
    if engine == "sqlite":
        db = Path(where)
        result["database_mb"] = round(sum(p.stat().st_size for p in db.parent.glob(db.name + "*")
                                          if p.name in (db.name, db.name + "-wal")) / 1e6, 1)
        result["side_index_mb"] = round(side_index_bytes(db) / 1e6, 1)
    else:
        result["database_mb"] = round(store.info().size_bytes / 1e6, 1)
        result["side_index_mb"] = round(sum(p.stat().st_size for p in SIDE_DIR[0].glob("**/*") if p.is_file()) / 1e6, 1)
    ids, mat = stored_vectors(store, engine)
    folder_ids = _folder_chunks(store, engine, folder.id)
    result["recall_at_10"] = recall(store, ids, mat, qvecs, np.isin(ids, folder_ids), by_folder)
    if RECALL_TRAIN:
        result["recall_at_10_train_queries"] = recall(store, ids, mat, RECALL_TRAIN[0], np.isin(ids, folder_ids),
                                                      by_folder, tuned_on=0)
    say(f"{engine}: recall@10 {result['recall_at_10']} {result.get('recall_at_10_train_queries', '')}; floors")
    result["floors"] = floors(store, engine, ids, mat, texts, qvecs)
    result["ratios"] = ratios(result)
    store.close()
    if engine == "postgresql" and EF_SWEEP:
        result["ef_search_sweep"] = ef_sweep(where, ids, mat, qvecs, folder_ids, by_folder)
    return result


def ef_sweep(where: str, ids, mat, qvecs, folder_ids, by_folder) -> dict:
    """Semantic latency (dense_candidates, as search calls it) and recall@10 at each HNSW ef_search of EF_SWEEP."""
    from desktop_app.core.store.postgres import base

    out = {}
    kept = base.EF_SEARCH
    try:
        for ef in EF_SWEEP:
            base.EF_SEARCH = ef  # read as each pooled connection is configured
            store, _ = open_library("postgresql", where)
            row = {"all": timed(lambda i, s=store: s.dense_candidates(qvecs[i], K), len(qvecs)),
                   "folder": timed(lambda i, s=store: s.dense_candidates(qvecs[i], K, filters=by_folder), len(qvecs)),
                   "recall_at_10": recall(store, ids, mat, qvecs, np.isin(ids, folder_ids), by_folder)}
            store.close()
            say(f"postgresql: ef_search {ef}: {row}")
            out[str(ef)] = row
    finally:
        base.EF_SEARCH = kept
    return out


def window_counts(store) -> dict:
    """What the window and `trove stats` read besides search: the folder panel (every folder with its counts) and
    the stats (library_stats), first call and the median of the next five, in ms."""
    from desktop_app.core.events import EventBus
    from desktop_app.core.folders import FolderMonitor
    from desktop_app.core.library_derived import library_stats

    monitor = FolderMonitor(store, EventBus())
    out = {}
    for name, fn in (("folder_panel", monitor.all),
                     ("stats", lambda: library_stats(Path("/bench"), store, monitor.all()))):
        times = []
        for _ in range(6):
            started = time.perf_counter()
            fn()
            times.append((time.perf_counter() - started) * 1000)
        out[f"{name}_first_ms"], out[f"{name}_ms"] = round(times[0], 2), round(percentile(times[1:], 50), 2)
    return out


def side_index(engine: str, where: str, texts, qvecs) -> dict:
    """Build the side vector and keyword indexes if they are missing or stale (timed), so the measured queries
    use them (PostgreSQL: this desktop's copies of what its role reads, under SIDE_DIR)."""
    from desktop_app.core.store.side import keyword_index, vector_index

    vector_index.REBUILD_QUIET = keyword_index.REBUILD_QUIET = 0.0  # the app waits for writes to settle; the
    store, _ = open_library(engine, where)  # bench library is settled
    out = {}
    for name, ask, attr in (("vectors", lambda: store.dense_candidates(qvecs[0], K), SIDE_ATTRS[engine][0]),
                            ("keywords", lambda: store.keyword_candidates(texts[0], K), SIDE_ATTRS[engine][1])):
        started = time.perf_counter()
        ask()
        made = store.__dict__.get(attr)
        if made is not None:
            made.wait()
        out[name] = {"ensure_seconds": round(time.perf_counter() - started, 1),
                     "exists": made is not None and made.path().exists(), "load_during_build": os.getloadavg()}
        store.__dict__.pop(attr, None)  # the measured store loads its own: one index in this process's RSS
        say(f"{engine}: side index {name}: {out[name]}")
    store.close()
    gc.collect()
    return out


def _folder_chunks(store, engine: str, folder_id: int) -> np.ndarray:
    sql = "SELECT c.id FROM chunks c JOIN documents d ON d.id = c.document_id WHERE d.folder_id = "
    if engine == "sqlite":
        rows = store._read(lambda c: c.execute(sql + "?", (folder_id,)).fetchall())
        return np.array([r[0] for r in rows], dtype=np.int64)
    import psycopg

    with psycopg.connect(store_url(store), autocommit=True) as conn:
        return np.array([r[0] for r in conn.execute(sql + "%s", (folder_id,))], dtype=np.int64)


def dated_and_tagged(store) -> None:
    """A date and a tag on every document (as index time writes them), one month and one tag of ten each: the
    date filter (March 2024) and the tag filter (t3) keep 10% of the library, as the folder filter does. Written
    once in one transaction (the bulk build writes none)."""
    def work(conn) -> None:
        if conn.execute("SELECT 1 FROM documents WHERE tags IS NOT NULL LIMIT 1").fetchone() is None:
            conn.execute("UPDATE documents SET doc_date = printf('2024-%02d-15', 1 + (id * 7) % 10), "
                         "tags = printf('|t%d|', (id * 3) % 10)")
    store._write(work)


def ratios(r: dict) -> dict:
    f = r["floors"]
    out = {}
    for q in ("p50_ms", "p95_ms"):
        if "semantic" in r["queries"]:
            out[f"semantic_{q[:3]}_vs_numpy"] = round(r["queries"]["semantic"][q] / f["numpy_dot"][q], 2)
    if set(MODES) - set(r["queries"]):
        return out
    keyword_floor = f.get("fts5_bm25") or f["bare_psycopg"]["keyword"]
    for q in ("p50_ms", "p95_ms"):
        out[f"keyword_{q[:3]}_vs_bare"] = round(r["queries"]["keyword"][q] / keyword_floor[q], 2)
        out[f"hybrid_{q[:3]}_vs_numpy_plus_keyword_bare"] = round(
            r["queries"]["hybrid"][q] / (f["numpy_dot"][q] + keyword_floor[q]), 2)
    return out


# ---- main ----------------------------------------------------------------------------------------------------


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--chunks", type=int, default=1_000_000)
    ap.add_argument("--engines", default="sqlite,postgresql")
    ap.add_argument("--quick", action="store_true", help="100k chunks, SQLite, the first 100 queries")
    ap.add_argument("--queries", type=int, default=0, help="only the first N test queries (0: all 300)")
    ap.add_argument("--folders", type=int, default=10, help="folders the library is dealt into (filter keeps 1)")
    ap.add_argument("--vectors", default=str(DEFAULT_VECTORS),
                    help="saved vectors (the default is made with the real MiniLM when missing, a few minutes)")
    ap.add_argument("--dataset", default=str(ROOT.parent.parent / "shared" / "eval" / "scifact"))
    ap.add_argument("--work", default=str(Path.home() / ".cache" / "trove-bench"), help="where the libraries go")
    ap.add_argument("--rebuild", action="store_true", help="build the libraries again even when cached")
    ap.add_argument("--modes", default=",".join(MODES), help="search modes to time (keyword,semantic,hybrid)")
    ap.add_argument("--build-only", action="store_true", help="build (or find) the cached libraries, measure nothing")
    ap.add_argument("--json", help="results file (default bench/results/scale_<N>.json)")
    ap.add_argument("--recall-queries", choices=("test", "train"), default="test",
                    help="train: also recall@10 over SciFact's 809 training claims (held out from every setting)")
    ap.add_argument("--ef-search", default="", help="PostgreSQL: HNSW ef_search values to sweep (e.g. 40,100,400)")
    args = ap.parse_args()
    ACTIVE_MODES[:] = [m for m in args.modes.split(",") if m in MODES]
    EF_SWEEP[:] = [int(v) for v in args.ef_search.split(",") if v.strip()]
    if args.quick:
        args.chunks, args.engines, args.queries = 100_000, "sqlite", args.queries or 100
    if not Path(args.dataset).exists():
        args.dataset = "/work/shared/eval/scifact"
    if not Path(args.vectors).exists() and Path(args.vectors) == DEFAULT_VECTORS:  # a fresh checkout: make them
        say(f"{DEFAULT_VECTORS} is missing: embedding {DEFAULT_DOCS} SciFact abstracts with MiniLM once")
        args.vectors = minilm_vectors(Path(args.dataset), DEFAULT_DOCS)
    _, _, texts, qvecs = load_library(Path(args.vectors), Path(args.dataset))
    if args.recall_queries == "train":
        RECALL_TRAIN[:] = [train_query_vectors(Path(args.dataset))]
    if args.queries:
        texts, qvecs = texts[: args.queries], qvecs[: args.queries]
    work = Path(args.work).expanduser() / f"scale-{args.chunks}"
    if args.rebuild:
        shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True, exist_ok=True)
    results: dict = {"chunks": args.chunks, "queries": len(texts), "k": K, "folders": args.folders,
                     "vector_source": f"{args.vectors}: {MODEL} vectors of SciFact abstracts, replicated with "
                                      f"N(0, {SIGMA}) noise per dimension, renormalised",
                     "load_before": os.getloadavg()}
    for engine in args.engines.split(","):
        results[engine] = run_engine(engine, args, work, texts, qvecs)
    results["load_after"] = os.getloadavg()
    if args.build_only:
        print(json.dumps(results, indent=1))
        return
    print(json.dumps({e: {k: results[e][k] for k in ("queries", "recall_at_10", "memory", "ratios")}
                      for e in args.engines.split(",")}, indent=1))
    save(f"scale_{args.chunks}", results, args.json)


def run_engine(engine: str, args, work: Path, texts, qvecs) -> dict:
    if engine == "sqlite":
        where = str(work / "library.db")
        build = cached_library(engine, args, where, work / "sqlite.json")
        return build if args.build_only else measure(engine, where, texts, qvecs, build)
    from desktop_app.core.server.server import TroveServer

    server = TroveServer(work / "server")
    SIDE_DIR[:] = [work / "desktop-side"]
    marker = work / "postgresql.json"
    try:
        server.start(port=0)
        if not marker.exists() or args.rebuild:
            where = server.create_database("bench")
        else:
            where = server.url("bench")
        build = cached_library(engine, args, where, marker)
        if args.build_only:
            return build
        result = measure(engine, where, texts, qvecs, build)
        result["server_version"] = server.status().version
        return result
    finally:
        server.stop()


if __name__ == "__main__":
    sys.setrecursionlimit(10_000)
    main()
