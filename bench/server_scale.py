"""The same library on SQLite and on PostgreSQL: indexing, query latency, and many desktops at once.

    nice -n 5 python bench/server_scale.py [--chunks 100000] [--vectors ~/.cache/trove-bench/scifact_minilm.npz]

The library: SciFact's 5,183 abstracts, replicated until there are --chunks chunks (one chunk per document).
Vectors are the real all-MiniLM-L6-v2 embeddings saved by bench/scifact_vectors.py; each replica's vectors get
a little Gaussian noise (σ = 0.02 per dimension, renormalised) and its text a replica word, so copies are near,
not identical. Nothing is re-embedded here: the benchmark measures the stores.

Measured per engine, in one process, through the Store protocol (the code Trove runs):
  - index: write_document of every document with its chunk and vector, one transaction each (docs/s);
  - queries: SciFact's 300 test queries (saved query vectors), keyword / semantic / hybrid, p50 and p95 ms;
  - together: 3 "desktops" (processes, own machine ids and folders) indexing while 8 processes search hybrid.
Ratios: PostgreSQL against SQLite, and the store's query against a bare psycopg run of the same SQL (the floor).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from _common import ROOT, percentile, save

SIGMA = 0.02
MODEL = "sentence-transformers/all-MiniLM-L6-v2"
DIM = 384


# ---- the library ---------------------------------------------------------------------------------------------


def load_library(vectors_path: Path, dataset: Path) -> tuple[list[tuple[str, str]], np.ndarray, list[str], np.ndarray]:
    """SciFact texts (title, text) with saved doc vectors; test query texts with saved query vectors."""
    saved = np.load(vectors_path)
    texts = {}
    with open(dataset / "corpus.jsonl", encoding="utf-8") as fh:
        for line in fh:
            d = json.loads(line)
            texts[str(d["_id"])] = (d.get("title", ""), d.get("text", ""))
    queries = {}
    with open(dataset / "queries.jsonl", encoding="utf-8") as fh:
        for line in fh:
            q = json.loads(line)
            queries[str(q["_id"])] = q["text"]
    docs = [texts[str(i)] for i in saved["doc_ids"]]
    return docs, saved["doc_vecs"], [queries[str(i)] for i in saved["query_ids"]], saved["query_vecs"]


def replica(docs, vecs, r: int, folder_path: str, folder_id: int):
    """The r-th copy of the corpus as (NewDocument, [NewChunk]) pairs (r = 0 is the original)."""
    from desktop_app.core.ingest.chunking import Span
    from desktop_app.core.store.rows import NewChunk, NewDocument

    rng = np.random.default_rng(r)
    noisy = vecs if r == 0 else vecs + rng.normal(0, SIGMA, vecs.shape).astype(np.float32)
    noisy = noisy / np.linalg.norm(noisy, axis=1, keepdims=True)
    for i, (title, text) in enumerate(docs):
        body = text if r == 0 else f"{text} replica{r}"
        path = f"{folder_path}/r{r:03d}/{i:05d}.txt"
        yield (NewDocument(folder_id, path, title, "txt", len(body), 1, f"{r}-{i}"),
               [NewChunk(Span(0, len(body), body), None, vectors=noisy[i:i + 1])])


def open_engine(engine: str, where: str, machine: str = "bench"):
    if engine == "sqlite":
        from desktop_app.core.store.sqlite import SQLiteStore

        return SQLiteStore(where)
    from desktop_app.core.store.postgres import PostgresStore

    return PostgresStore(where, machine=machine)


def library_docs(docs, vecs, n_chunks: int, folder):
    """The first n_chunks documents of the replicated corpus."""
    written = 0
    for r in range(n_chunks // len(docs) + 1):
        for item in replica(docs, vecs, r, folder.path, folder.id):
            if written >= n_chunks:
                return
            yield item
            written += 1


def index(store, items, measured: int) -> dict:
    """Index throughput through the real path: write_document, one transaction per document."""
    written, started = 0, time.perf_counter()
    for doc, chunks in items:
        store.write_document(doc, chunks)
        written += 1
        if written >= measured:
            break
    seconds = time.perf_counter() - started
    return {"documents": written, "seconds": round(seconds, 1), "docs_per_s": round(written / seconds, 1)}


def fill(engine: str, store, where: str, items) -> float:
    """The rest of the library, quickly: SQLite through write_document; PostgreSQL by COPY with the HNSW index
    rebuilt after (at tens of ms per transaction on this shared machine, 100k single writes take an hour).
    The rows are the ones write_document makes (the text pipeline's terms, languages, hashes and vectors)."""
    started = time.perf_counter()
    if engine == "sqlite":
        for doc, chunks in items:
            store.write_document(doc, chunks)
        return time.perf_counter() - started
    import psycopg

    from desktop_app.core.ingest.extract import index_title
    from desktop_app.core.store.postgres.keywords import chunk_terms
    from desktop_app.core.store.sqlite.chunks import text_hash
    from desktop_app.core.text import detect_language

    items = list(items)
    with psycopg.connect(where, autocommit=True) as conn:
        conn.execute("DROP INDEX IF EXISTS chunk_vectors_hnsw")
        with conn.cursor().copy("COPY documents (folder_id, path, title, type, size, mtime_ns, content_hash, "
                                "status, chunk_count, indexed_at) FROM STDIN") as copy:
            for doc, chunks in items:
                copy.write_row((doc.folder_id, doc.path, doc.title, doc.type, doc.size, doc.mtime_ns, doc.digest,
                                "indexed", len(chunks), time.time()))
        ids = dict(conn.execute("SELECT path, id FROM documents").fetchall())
        with conn.cursor().copy('COPY chunks (document_id, ordinal, start, "end", text, text_hash, embedded, '
                                "terms, lang) FROM STDIN") as copy:
            for doc, chunks in items:
                title = index_title(doc.title, Path(doc.path))
                for i, c in enumerate(chunks):
                    copy.write_row((ids[doc.path], i, c.span.start, c.span.end, c.span.text, text_hash(c.span.text),
                                    True, chunk_terms(title, c.span.text), detect_language(c.span.text)))
        by_doc = {d: cid for cid, d in conn.execute("SELECT id, document_id FROM chunks WHERE ordinal = 0")}
        with conn.cursor().copy('COPY chunk_vectors (chunk_id, "window", embedding) FROM STDIN') as copy:
            for doc, chunks in items:
                vec = chunks[0].vectors[0]
                copy.write_row((by_doc[ids[doc.path]], 0, "[" + ",".join(f"{x:.7g}" for x in vec) + "]"))
        conn.execute("SET maintenance_work_mem = '1GB'")
        conn.execute("CREATE INDEX chunk_vectors_hnsw ON chunk_vectors USING hnsw (embedding vector_cosine_ops)")
    return time.perf_counter() - started


# ---- queries -------------------------------------------------------------------------------------------------


class SavedEmbedder:
    """The embedder search sees: the saved MiniLM vector of each benchmark query (no model in the loop)."""

    model_id, dim = MODEL, DIM

    def __init__(self, texts: list[str], vecs: np.ndarray) -> None:
        self.by_text = dict(zip(texts, vecs, strict=True))

    def embed(self, texts):
        return np.stack([self.by_text[t] for t in texts])


def query_latencies(store, texts: list[str], vecs: np.ndarray) -> dict:
    from desktop_app.core.search.service import search_store

    embedder = SavedEmbedder(texts, vecs)
    out = {}
    for mode in ("keyword", "semantic", "hybrid"):
        for t in texts[:20]:  # warm caches and prepared statements
            search_store(store, t, embedder=embedder, mode=mode, top_k=10)
        times = []
        for t in texts:
            started = time.perf_counter()
            search_store(store, t, embedder=embedder, mode=mode, top_k=10)
            times.append((time.perf_counter() - started) * 1000)
        out[mode] = {"p50_ms": round(percentile(times, 50), 2), "p95_ms": round(percentile(times, 95), 2)}
    return out


def bare_latencies(url: str, texts: list[str], vecs: np.ndarray) -> dict:
    """The floor: the same SQL the PostgreSQL store runs, on one plain psycopg connection (no pool, no retry,
    no fusion or hydration in Python beyond fetching rows). The query text goes through the same pipeline and
    leaves out the same common terms (their shares read once, as the store caches them)."""
    import psycopg
    from pgvector.psycopg import register_vector

    from desktop_app.core import text as tp
    from desktop_app.core.search.service import SearchParams, candidate_count
    from desktop_app.core.store.postgres.base import EF_SEARCH
    from desktop_app.core.store.postgres.keywords import COMMON_SHARE, keyword_sql, rank_weights
    from desktop_app.core.store.postgres.search import CHUNK_ROWS_SQL, dense_sql

    n = candidate_count(10, SearchParams())
    with psycopg.connect(url, autocommit=True) as conn:
        register_vector(conn)
        conn.execute(f"SET hnsw.ef_search = {EF_SEARCH}")
        row = conn.execute("SELECT most_common_elems::text::text[], most_common_elem_freqs FROM pg_stats "
                           "WHERE tablename = 'chunks' AND attname = 'terms'").fetchone()
        shares = dict(zip(row[0], row[1], strict=False)) if row and row[0] else {}

        def keyword(t):
            terms = tp.build_query(t).terms
            kept = tuple(x for x in terms if shares.get(x.token, 0.0) <= COMMON_SHARE) or terms
            q = tp.to_tsquery(tp.Query(kept))
            return conn.execute(keyword_sql(), {"q": q, "w": rank_weights(2.0), "n": n}).fetchall() if q else []

        def dense(v):
            return conn.execute(dense_sql(), {"v": v, "k": 2 * n}).fetchall()

        def hybrid(t, v):
            ids = {r[0] for r in keyword(t)} | {r[0] for r in dense(v)}
            return conn.execute(CHUNK_ROWS_SQL, (list(ids)[:10],)).fetchall()

        runs = {"keyword": lambda t, v: keyword(t), "semantic": lambda t, v: dense(v), "hybrid": hybrid}
        out = {}
        for mode, fn in runs.items():
            for t, v in list(zip(texts, vecs, strict=True))[:20]:
                fn(t, v)
            times = []
            for t, v in zip(texts, vecs, strict=True):
                started = time.perf_counter()
                fn(t, v)
                times.append((time.perf_counter() - started) * 1000)
            out[mode] = {"p50_ms": round(percentile(times, 50), 2), "p95_ms": round(percentile(times, 95), 2)}
    return out


# ---- many desktops at once -----------------------------------------------------------------------------------


def _indexer(engine: str, where: str, k: int, n: int, vectors_path: str, dataset: str, out) -> None:
    docs, vecs, _, _ = load_library(Path(vectors_path), Path(dataset))
    store = open_engine(engine, where, machine=f"desk{k}")
    folder = store.add_folder(f"/bench/desk{k}")
    started, done = time.perf_counter(), 0
    for doc, chunks in replica(docs[:n], vecs[:n], 900 + k, folder.path, folder.id):
        store.write_document(doc, chunks)
        done += 1
    out.put(("index", done, time.perf_counter() - started))
    store.close()


def _searcher(engine: str, where: str, seconds: float, vectors_path: str, dataset: str, seed: int, out) -> None:
    from desktop_app.core.search.service import search_store

    _, _, texts, qvecs = load_library(Path(vectors_path), Path(dataset))
    store = open_engine(engine, where, machine=f"reader{seed}")
    embedder = SavedEmbedder(texts, qvecs)
    rng = np.random.default_rng(seed)
    times = []
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        t = texts[int(rng.integers(len(texts)))]
        started = time.perf_counter()
        search_store(store, t, embedder=embedder, mode="hybrid", top_k=10)
        times.append((time.perf_counter() - started) * 1000)
    out.put(("search", times, seconds))
    store.close()


def together(engine: str, where: str, args) -> dict:
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    procs = [ctx.Process(target=_indexer, args=(engine, where, k, args.desk_docs, args.vectors, args.dataset, out))
             for k in (1, 2, 3)]
    procs += [ctx.Process(target=_searcher, args=(engine, where, args.together_seconds, args.vectors, args.dataset,
                                                  s, out)) for s in range(8)]
    started = time.perf_counter()
    for p in procs:
        p.start()
    results = [out.get(timeout=1800) for _ in procs]
    for p in procs:
        p.join()
    wall = time.perf_counter() - started
    lat = [t for kind, times, _ in results if kind == "search" for t in times]
    indexed = [(n, s) for kind, n, s in results if kind == "index"]
    return {"searches": len(lat), "search_qps": round(len(lat) / args.together_seconds, 1),
            "search_p50_ms": round(percentile(lat, 50), 1), "search_p95_ms": round(percentile(lat, 95), 1),
            "indexed_docs": sum(n for n, _ in indexed),
            "index_docs_per_s": round(sum(n for n, _ in indexed) / max(s for _, s in indexed), 1),
            "wall_seconds": round(wall, 1)}


# ---- main ----------------------------------------------------------------------------------------------------


def say(text: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {text}", flush=True)


def run_engine(engine: str, where: str, docs, vecs, texts, qvecs, args) -> dict:
    store = open_engine(engine, where)
    store.ensure_embedding_model(MODEL, DIM)
    folder = store.add_folder("/bench/desk0")
    items = library_docs(docs, vecs, args.chunks, folder)
    say(f"{engine}: indexing {args.measure_index} documents one by one")
    result = {"index": index(store, items, args.measure_index)}
    say(f"{engine}: {result['index']}; filling up to {args.chunks}")
    result["fill_seconds"] = round(fill(engine, store, where, items), 1)
    result["chunks"] = store.counts().chunks
    say(f"{engine}: {result['chunks']} chunks; queries")
    if engine == "postgresql":
        import psycopg

        with psycopg.connect(where, autocommit=True) as conn:  # what autovacuum does soon after a bulk load
            conn.execute("VACUUM ANALYZE")
    result["queries"] = query_latencies(store, texts, qvecs)
    result["size_mb"] = round(store.info().size_bytes / 1e6, 1)
    store.close()
    say(f"{engine}: {result['queries']}; 3 desktops indexing + 8 searching")
    result["together"] = together(engine, where, args)
    say(f"{engine}: {result['together']}")
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--chunks", type=int, default=100_000)
    ap.add_argument("--vectors", default=str(Path.home() / ".cache" / "trove-bench" / "scifact_minilm.npz"))
    ap.add_argument("--dataset", default=str(ROOT.parent.parent / "shared" / "eval" / "scifact"))
    ap.add_argument("--measure-index", type=int, default=5000, help="documents indexed one by one and timed")
    ap.add_argument("--desk-docs", type=int, default=500, help="documents each desktop indexes in the together phase")
    ap.add_argument("--together-seconds", type=float, default=30.0)
    ap.add_argument("--work", default=str(Path.home() / ".cache" / "trove-bench"), help="where the libraries go")
    ap.add_argument("--json", help="results file (default bench/results/server_scale.json)")
    args = ap.parse_args()
    if not Path(args.dataset).exists():
        args.dataset = "/work/shared/eval/scifact"
    docs, vecs, texts, qvecs = load_library(Path(args.vectors), Path(args.dataset))
    from desktop_app.core.store.postgres.server import TroveServer

    work = Path(args.work).expanduser()
    work.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="server-scale-", dir=work))  # not /tmp: other runs there clean up after them
    server = TroveServer(tmp / "server")
    try:
        server.start(port=0)
        url = server.create_database("bench")
        results = {"chunks": args.chunks, "vector_source": "SciFact (5,183 abstracts) embedded once with "
                   f"{MODEL}, replicated with N(0, {SIGMA}) noise per dimension, renormalised",
                   "sqlite": run_engine("sqlite", str(tmp / "library.db"), docs, vecs, texts, qvecs, args),
                   "postgresql": run_engine("postgresql", url, docs, vecs, texts, qvecs, args)}
        results["postgresql"]["bare_psycopg"] = bare_latencies(url, texts, qvecs)
        results["server_version"] = server.status().version
    finally:
        server.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    results["ratios"] = ratios(results)
    print_table(results)
    save("server_scale", results, args.json)


def ratios(r: dict) -> dict:
    pg, lite, bare = r["postgresql"], r["sqlite"], r["postgresql"]["bare_psycopg"]
    out = {"index_pg_vs_sqlite": round(pg["index"]["docs_per_s"] / lite["index"]["docs_per_s"], 2)}
    for mode in ("keyword", "semantic", "hybrid"):
        for q in ("p50_ms", "p95_ms"):
            out[f"{mode}_{q[:3]}_pg_vs_sqlite"] = round(pg["queries"][mode][q] / lite["queries"][mode][q], 2)
            out[f"{mode}_{q[:3]}_pg_vs_bare"] = round(pg["queries"][mode][q] / bare[mode][q], 2)
    out["together_qps_pg_vs_sqlite"] = round(
        pg["together"]["search_qps"] / max(lite["together"]["search_qps"], 1e-9), 2)
    out["together_p95_pg_vs_sqlite"] = round(pg["together"]["search_p95_ms"] / lite["together"]["search_p95_ms"], 2)
    out["together_index_pg_vs_sqlite"] = round(
        pg["together"]["index_docs_per_s"] / max(lite["together"]["index_docs_per_s"], 1e-9), 2)
    return out


def print_table(r: dict) -> None:
    lite, pg, bare = r["sqlite"], r["postgresql"], r["postgresql"]["bare_psycopg"]
    print(f"\n{r['chunks']} chunks with vectors; PostgreSQL {r.get('server_version', '')}")
    print(f"{'':28}{'SQLite':>12}{'PostgreSQL':>12}{'bare psycopg':>14}")
    print(f"{'index (docs/s)':28}{lite['index']['docs_per_s']:>12}{pg['index']['docs_per_s']:>12}")
    for mode in ("keyword", "semantic", "hybrid"):
        for q in ("p50_ms", "p95_ms"):
            print(f"{mode + ' ' + q:28}{lite['queries'][mode][q]:>12}{pg['queries'][mode][q]:>12}"
                  f"{bare[mode][q]:>14}")
    for key in ("search_qps", "search_p95_ms", "index_docs_per_s"):
        print(f"{'together ' + key:28}{lite['together'][key]:>12}{pg['together'][key]:>12}")
    print(json.dumps(r["ratios"], indent=1))


if __name__ == "__main__":
    os.environ.setdefault("TROVE_SERVER_POOL", "4")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # a stopped run still stops its server (finally)
    main()
