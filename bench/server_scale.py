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

    nice -n 5 python bench/server_scale.py --permissions [--chunks 100000] [--hash-vectors | --minilm-docs 1500]

The permissions run (bench/results/server_permissions.json): the same library on the server in 20 folders of 10
people (19 private, one shared with the team; one shared by name), searched as a person who sees 10 % of it
(through row-level security) and by the administrator (the table owner: no RLS) with the same queries. Ratios:
the person's p50/p95 over the administrator's; every query must return k results, all from folders the person
may see. Queries are split: the first half warms up (and is where any choice would be tuned), the second half
is reported. Semantic search keeps only chunks at cosine >= its similarity floor (0.2), so the run also counts,
by exact cosine over the library's own vectors, the queries whose view holds fewer than k chunks above it.
--minilm-docs N embeds N SciFact abstracts with the real MiniLM once (cached under ~/.cache/trove-bench;
bench/results/server_permissions_minilm.json used 1500).
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
from dataclasses import replace
from functools import lru_cache
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
        yield (NewDocument(folder_id=folder_id, path=path, title=title, type="txt", size=len(body), mtime_ns=1,
                           digest=f"{r}-{i}"),
               [NewChunk(Span(0, len(body), body), None, vectors=noisy[i:i + 1])])


def open_engine(engine: str, where: str, machine: str = "bench", side_dir: Path | None = None):
    if engine == "sqlite":
        from desktop_app.core.store.sqlite import SQLiteStore

        return SQLiteStore(where)
    from desktop_app.core.store.postgres import PostgresStore

    return PostgresStore(where, machine=machine, side_dir=side_dir)


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
    The rows are the ones write_document makes (the text pipeline's terms, languages, hashes and vectors; a
    replica's terms are its original's plus its replica word's, see replica_terms)."""
    started = time.perf_counter()
    if engine == "sqlite":
        for doc, chunks in items:
            store.write_document(doc, chunks)
        return time.perf_counter() - started
    import psycopg

    from desktop_app.core.ingest.extract import index_title
    from desktop_app.core.store.rows import text_hash

    items = list(items)
    with psycopg.connect(where, autocommit=True) as conn:
        conn.execute("DROP INDEX IF EXISTS chunk_vectors_hnsw")
        # The per-document count trigger (migration 008) would update one doc_counts row a million times in one
        # statement (each update walking the row's growing version chain): counted once after the COPY instead.
        counted = conn.execute("SELECT 1 FROM pg_trigger WHERE tgname = 'documents_counted'").fetchone()
        if counted:
            conn.execute("ALTER TABLE documents DISABLE TRIGGER documents_counted")
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
                                    True, replica_terms(title, c.span.text), replica_language(c.span.text)))
        by_doc = {d: cid for cid, d in conn.execute("SELECT id, document_id FROM chunks WHERE ordinal = 0")}
        with conn.cursor().copy('COPY chunk_vectors (chunk_id, "window", embedding) FROM STDIN') as copy:
            for doc, chunks in items:
                vec = chunks[0].vectors[0]
                copy.write_row((by_doc[ids[doc.path]], 0, "[" + ",".join(f"{x:.7g}" for x in vec) + "]"))
        if counted:
            conn.execute("ALTER TABLE documents ENABLE TRIGGER documents_counted")
            conn.execute("DELETE FROM doc_counts")
            conn.execute("INSERT INTO doc_counts SELECT folder_id, type, count(*) FILTER (WHERE status = 'indexed'), "
                         "count(*) FILTER (WHERE status = 'failed'), COALESCE(sum(chunk_count), 0) FROM documents "
                         "GROUP BY 1, 2")
        conn.execute("SET maintenance_work_mem = '4GB'")
        conn.execute("SET max_parallel_maintenance_workers = 1")  # pgvector builds HNSW in parallel: both cores
        conn.execute("CREATE INDEX chunk_vectors_hnsw ON chunk_vectors USING hnsw (embedding vector_cosine_ops)")
    return time.perf_counter() - started


@lru_cache(maxsize=16384)
def _fields(text: str) -> dict:
    from desktop_app.core import text as tp

    return tp.index_fields("", text)


def _split_replica(text: str) -> tuple[str, str]:
    base, _, word = text.rpartition(" replica")
    return (base, "replica" + word) if base and word.isdigit() else (text, "")


def replica_terms(title: str, text: str) -> str:
    """chunk_terms of a replica's text from its original's fields (run once per original) plus its replica word's:
    the text pipeline is word-local for these Latin abstracts, and running it 100k times would take the fill an hour
    on a loaded machine."""
    from desktop_app.core import text as tp
    from desktop_app.core.store.postgres.keywords import _title_tokens, tsvector_literal

    base, word = _split_replica(text)
    fields = dict(_fields(base))
    if word:
        extra = _fields(word)
        fields = {n: " ".join(x for x in (v, extra.get(n, "")) if x) for n, v in fields.items()}
    fields["title"] = _title_tokens(title)
    return tsvector_literal([(tp.PG_LABELS[name], fields[name]) for name in tp.FTS5_COLUMNS])


@lru_cache(maxsize=16384)
def replica_language(text: str) -> str:
    from desktop_app.core.text import detect_language

    return detect_language(_split_replica(text)[0])


def hash_vectors(dataset: Path, out: Path) -> str:
    """SciFact's abstracts and its 300 queries embedded with HashEmbedder, saved as bench/scifact_vectors.py saves
    MiniLM's (the permissions run measured 2026-12-01 used these: MiniLM needed over an hour on the loaded machine)."""
    from desktop_app.core.embed.base import HashEmbedder

    docs = [json.loads(line) for line in open(dataset / "corpus.jsonl", encoding="utf-8")]
    queries = [json.loads(line) for line in open(dataset / "queries.jsonl", encoding="utf-8")]
    model = HashEmbedder(DIM)
    np.savez_compressed(out, doc_ids=np.array([d["_id"] for d in docs]),
                        doc_vecs=model.embed([f"{d.get('title', '')}\n\n{d.get('text', '')}" for d in docs]),
                        query_ids=np.array([q["_id"] for q in queries]),
                        query_vecs=model.embed([q["text"] for q in queries]))
    return str(out)


def minilm_vectors(dataset: Path, n_docs: int) -> str:
    """The real all-MiniLM-L6-v2 vectors of SciFact's 300 test queries and of n_docs abstracts (every abstract a
    test query is judged against, then the corpus in order), cached under ~/.cache/trove-bench: the whole corpus
    takes over an hour on the loaded machine, and the library is replicas of these anyway."""
    out = Path.home() / ".cache" / "trove-bench" / f"scifact_minilm_{n_docs}.npz"
    if out.exists():
        return str(out)
    from desktop_app.core.embed.minilm import MiniLMEmbedder

    docs = [json.loads(line) for line in open(dataset / "corpus.jsonl", encoding="utf-8")]
    queries = [json.loads(line) for line in open(dataset / "queries.jsonl", encoding="utf-8")]
    judged = {line.split("\t")[1] for line in open(dataset / "qrels.tsv", encoding="utf-8").read().splitlines()[1:]}
    picked = [d for d in docs if str(d["_id"]) in judged]
    picked += [d for d in docs if str(d["_id"]) not in judged][: max(0, n_docs - len(picked))]
    model = MiniLMEmbedder()
    texts = [f"{d.get('title', '')}\n\n{d.get('text', '')}" for d in picked]
    started = time.monotonic()
    doc_vecs = np.concatenate([model.embed(texts[i:i + 64]) for i in range(0, len(texts), 64)])
    query_vecs = model.embed([q["text"] for q in queries])
    say(f"MiniLM: {len(texts)} abstracts and {len(queries)} queries in {time.monotonic() - started:.0f} s")
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, doc_ids=np.array([d["_id"] for d in picked]), doc_vecs=doc_vecs.astype(np.float32),
                        query_ids=np.array([q["_id"] for q in queries]), query_vecs=query_vecs.astype(np.float32),
                        model=np.array(model.model_id))
    return str(out)


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


# ---- permissions: a person who sees 10 % of the library -------------------------------------------------------

PEOPLE = 10
FOLDERS = 20  # 2 per person; person 0 has one private folder and the team folder
K = 10


def make_people(server, names: list[str]) -> str:
    """A login role per person (what `trove server invite` makes); returns their password."""
    from psycopg import sql

    password = "bench-only"
    with server.admin() as conn:
        if not conn.execute("SELECT 1 FROM pg_roles WHERE rolname = 'trove_people'").fetchone():
            conn.execute("CREATE ROLE trove_people NOLOGIN")
        for name in names:
            role = f"trove_p_{name}"
            known = conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)).fetchone()
            verb = "ALTER" if known else "CREATE"
            conn.execute(sql.SQL(verb + " ROLE {} LOGIN PASSWORD {}").format(sql.Identifier(role),
                                                                               sql.Literal(password)))
    return password


def admit_people(server, names: list[str], database: str) -> None:
    """Make each person a member of the library's group, as `trove join` does (only its members may connect)."""
    from desktop_app.core.store.postgres.access import roles

    with server.admin() as conn:
        for name in names:
            roles.admit(conn, f"trove_p_{name}", database)


def permission_folders(url: str) -> list[tuple[int, str, str]]:
    """The folders as (id, owner role, visibility): person p owns folders 2p and 2p+1; folder 1 (person 0's
    second) is the team's, folder 3 is shared by name with person 2, the rest are private."""
    import psycopg

    rows = []
    with psycopg.connect(url, autocommit=True) as conn:
        for i in range(FOLDERS):
            person = f"p{i // 2}"
            conn.execute("INSERT INTO machines (machine_id, role) VALUES (%s, %s) ON CONFLICT DO NOTHING",
                         (f"desk-{person}", f"trove_p_{person}"))
            visibility, people = ("team", []) if i == 1 else ("people", ["trove_p_p2"]) if i == 3 else ("private", [])
            fid = conn.execute("INSERT INTO folders (machine_id, path, added_at, owner, visibility, people) "
                               "VALUES (%s, %s, 0, %s, %s, %s) RETURNING id",
                               (f"desk-{person}", f"/bench/f{i:02d}", f"trove_p_{person}", visibility,
                                people)).fetchone()[0]
            rows.append((int(fid), f"trove_p_{person}", visibility))
    return rows


def spread(docs, vecs, n_chunks: int, folders) -> list:
    """The replicated corpus dealt round-robin into the folders (each folder a mix of every topic)."""
    class Folder:
        def __init__(self, fid: int, path: str) -> None:
            self.id, self.path = fid, path
    targets = [Folder(fid, f"/bench/f{i:02d}") for i, (fid, _, _) in enumerate(folders)]
    items = []
    for n, (doc, chunks) in enumerate(library_docs(docs, vecs, n_chunks, Folder(0, "/bench/all"))):
        folder = targets[n % len(targets)]
        items.append((replace(doc, folder_id=folder.id, path=doc.path.replace("/bench/all", folder.path)), chunks))
    return items


def timed_queries(store, texts, qvecs, visible: set[int] | None) -> dict:
    """p50/p95 per mode over `texts`, each query's result count, and any result outside `visible`."""
    from desktop_app.core.search.service import search_store

    embedder = SavedEmbedder(texts, qvecs)
    out = {}
    for mode in ("keyword", "semantic", "hybrid"):
        times, short, foreign = [], 0, 0
        for t in texts:
            started = time.perf_counter()
            results = search_store(store, t, embedder=embedder, mode=mode, top_k=K)
            times.append((time.perf_counter() - started) * 1000)
            short += len(results) < K
            if visible is not None:
                foreign += sum(r.metadata.get("folder_id") not in visible for r in results)
        out[mode] = {"p50_ms": round(percentile(times, 50), 2), "p95_ms": round(percentile(times, 95), 2),
                     "queries_short_of_k": short, "results_outside_view": foreign}
    return out


def short_by_floor(items, qvecs, folders: set[int] | None) -> int:
    """Queries for which fewer than K chunks of `folders` (None: all) reach search's similarity floor, by exact
    cosine over the library's own vectors: what semantic search can return, whatever the engine does."""
    from desktop_app.core.search.service import SearchParams

    mat = np.concatenate([c.vectors for doc, chunks in items for c in chunks
                          if folders is None or doc.folder_id in folders])
    above = (np.asarray(qvecs, dtype=np.float32) @ mat.T >= SearchParams().min_similarity).sum(axis=1)
    return int((above < K).sum())


def permissions_run(args, docs, vecs, texts, qvecs) -> dict:
    """Person p0 (10 % of the library through RLS) against the administrator (everything, no RLS)."""
    from desktop_app.core.server.server import TroveServer
    from desktop_app.core.store.postgres import PostgresStore

    work = Path(args.work).expanduser()
    work.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="server-perm-", dir=work))
    server = TroveServer(tmp / "server")
    try:
        server.start(port=0)
        password = make_people(server, [f"p{i}" for i in range(PEOPLE)])
        url = server.create_database("perm")
        admit_people(server, [f"p{i}" for i in range(PEOPLE)], "perm")
        admin = PostgresStore(url, machine="bench-admin")
        admin.ensure_embedding_model(MODEL, DIM)
        admin.close()
        folders = permission_folders(url)
        say(f"permissions: filling {args.chunks} chunks into {FOLDERS} folders of {PEOPLE} people")
        items = spread(docs, vecs, args.chunks, folders)
        fill_seconds = fill("postgresql", None, url, items)
        import psycopg

        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("VACUUM ANALYZE")
        person_url = url.replace(f"//{url.split('//')[1].split('@')[0]}@", f"//trove_p_p0:{password}@")
        person = PostgresStore(person_url, machine="desk-p0")
        admin = PostgresStore(url, machine="bench-admin")
        visible = {fid for fid, owner, vis in folders if owner == "trove_p_p0" or vis == "team"}
        seen = person.counts().chunks
        say(f"permissions: p0 sees {seen} of {admin.counts().chunks} chunks; warming up")
        half = len(texts) // 2
        warm, held = (texts[:half], qvecs[:half]), (texts[half:], qvecs[half:])
        timed_queries(person, *warm, visible)
        timed_queries(admin, *warm, None)
        result = {"chunks": admin.counts().chunks, "person_sees_chunks": seen, "people": PEOPLE,
                  "folders": {"private": sum(v == "private" for _, _, v in folders),
                              "team": sum(v == "team" for _, _, v in folders),
                              "named_people": sum(v == "people" for _, _, v in folders)},
                  "fill_seconds": round(fill_seconds, 1), "k": K, "queries_reported": len(held[0]),
                  "vectors": args.vectors, "vector_note": args.vector_note,
                  "queries_fewer_than_k_above_floor": {"person": short_by_floor(items, held[1], visible),
                                                       "admin": short_by_floor(items, held[1], None)}}
        del items
        for round_ in range(2):  # interleaved, twice: the shared machine's load falls on both sides alike
            result[f"person_rls_{round_}"] = timed_queries(person, *held, visible)
            result[f"admin_no_rls_{round_}"] = timed_queries(admin, *held, None)
        person.close()
        admin.close()
        result["explain_person"] = explain_as(person_url, texts[half], qvecs[half])
        result["server_version"] = server.status().version
    finally:
        server.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    result["ratios"] = permission_ratios(result)
    return result


def explain_as(url: str, text: str, vec) -> dict:
    """EXPLAIN ANALYZE of a person's keyword and semantic SQL: the policies run as InitPlans (once per query)."""
    import psycopg
    from pgvector.psycopg import register_vector

    from desktop_app.core import text as tp
    from desktop_app.core.store.postgres.keywords import keyword_sql, rank_weights
    from desktop_app.core.store.postgres.search import dense_sql

    with psycopg.connect(url, autocommit=True) as conn:
        register_vector(conn)
        conn.execute("SET hnsw.ef_search = 100")
        conn.execute("SET hnsw.iterative_scan = relaxed_order")
        plans = {}
        for name, query, args in (
                ("keyword", keyword_sql(), {"q": tp.to_tsquery(tp.build_query(text)), "w": rank_weights(2.0),
                                            "n": 30}),
                ("semantic", dense_sql(), {"v": np.asarray(vec, dtype=np.float32), "k": 60})):
            rows = conn.execute("EXPLAIN (ANALYZE, BUFFERS) " + query, args).fetchall()
            plans[name] = [r[0] for r in rows]
    return plans


def permission_ratios(r: dict) -> dict:
    """The person's p50/p95 over the administrator's, per mode (best of the two interleaved rounds)."""
    out = {}
    for mode in ("keyword", "semantic", "hybrid"):
        for q in ("p50_ms", "p95_ms"):
            person = min(r[f"person_rls_{i}"][mode][q] for i in range(2))
            admin = min(r[f"admin_no_rls_{i}"][mode][q] for i in range(2))
            out[f"{mode}_{q[:3]}_person_vs_admin"] = round(person / admin, 2)
    out["every_query_k_results"] = all(r[f"person_rls_{i}"][m]["queries_short_of_k"] == 0
                                       for i in range(2) for m in ("keyword", "semantic", "hybrid"))
    out["no_result_outside_view"] = all(r[f"person_rls_{i}"][m]["results_outside_view"] == 0
                                        for i in range(2) for m in ("keyword", "semantic", "hybrid"))
    return out


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
    ap.add_argument("--vector-note", default=f"SciFact embedded with {MODEL}",
                    help="what the saved vectors are (recorded with the permissions run)")
    ap.add_argument("--permissions", action="store_true",
                    help="only the permissions run (bench/results/server_permissions.json)")
    ap.add_argument("--hash-vectors", action="store_true",
                    help="embed SciFact here with Trove's HashEmbedder (seconds) instead of reading --vectors")
    ap.add_argument("--minilm-docs", type=int, default=0,
                    help="real MiniLM vectors of this many SciFact abstracts (the judged ones first), embedded once "
                         "and cached under ~/.cache/trove-bench, instead of reading --vectors")
    args = ap.parse_args()
    if not Path(args.dataset).exists():
        args.dataset = "/work/shared/eval/scifact"
    if args.minilm_docs:
        args.vectors = minilm_vectors(Path(args.dataset), args.minilm_docs)
        args.vector_note = (f"{MODEL} vectors of {args.minilm_docs} SciFact abstracts (the 339 the test queries are "
                            f"judged against, then the corpus in order) and the 300 test queries, replicated "
                            f"with N(0, {SIGMA}) noise")
    if args.hash_vectors:
        args.vectors = hash_vectors(Path(args.dataset), Path(tempfile.mkdtemp()) / "scifact_hash384.npz")
        args.vector_note = "SciFact embedded with Trove's HashEmbedder (384-d bag of hashed words)"
    docs, vecs, texts, qvecs = load_library(Path(args.vectors), Path(args.dataset))
    if args.permissions:
        result = permissions_run(args, docs, vecs, texts, qvecs)
        print(json.dumps(result, indent=1))
        save("server_permissions", result, args.json)
        return
    from desktop_app.core.server.server import TroveServer

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
