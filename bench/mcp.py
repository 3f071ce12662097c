"""`trove mcp` against the same search in-process: what the protocol costs an assistant per call.

    python bench/mcp.py                          # 1500 passages, 60 queries
    python bench/mcp.py --docs 5000 --json bench/results/mcp_5000.json
    python bench/mcp.py --chunks 100000          # 100k chunks written through the store: bench/results/mcp_100000.json

The library is built once through the real path (files on disk, Library.sync, MiniLM vectors) from generated
documents (a fixed vocabulary, seeded: two short paragraphs each, one passage per document) and cached under
--work; later runs reuse it (an interrupted build resumes). The vector phase is the slow part of the build: about
1.5 passages a second with MiniLM on the loaded 2-core machine of the recorded run, so the default is 1500.

--chunks N (the issue's figure is 100000) builds a library of N chunks without embedding each one, the way
bench/scale.py does: --pool distinct passages (the same generator) are embedded once with MiniLM, batched, and
their vectors cached (~/.cache/trove-bench/mcp-pool-<P>.npz); every chunk is a copy of one of them with its
sentences shuffled (real text, distinct FTS5 rows) and the original's vector plus N(0, SIGMA) noise, renormalised
(bench/scale.py's replicas). The chunks go CHUNKS_PER_FILE to a file written to disk, through the store's own
write path (`write_document` in write batches, so FTS5 and sqlite-vec rows are as the indexer leaves them), with
the chunker version set so a sync keeps them; then both side indexes (vector IVF, keyword) are built and waited
for, as tests/gui/test_search_at_scale.py does. The library is cached under ~/.cache/trove-bench/mcp-<N>/ (a
second run reuses it; an interrupted build starts again) and the figures go to bench/results/mcp_<N>.json.

Measured query by query, each query in-process and over stdio (one after the other, never at once, so both meet
the same load; which goes first alternates, as the second finds the query's pages cached; the two must return the
same passages in the same order):
  - in-process: `Library.search(query, top_k=10)` (hybrid), after a warm-up: p50 / p95 ms;
  - over stdio: `trove mcp` started by the MCP SDK's client (a new process, as a desktop app starts it), then
    the `search` tool with k=10: round-trip p50 / p95 ms, and the ratio to in-process;
  - start to first answer: from launching the process to the first `search` result (Python start, imports, the
    library open, the embedder load, the first query), and to the tool list.
The machine's load average is recorded with the figures: on a shared machine they are indicative.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import time
from pathlib import Path

import numpy as np
from _common import ROOT, percentile, save

# This file is bench/mcp.py and its folder is first on sys.path: without it there, `import mcp` is the SDK.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

K = 10
WORDS = ("harbour lantern copper meadow glacier orchard ledger quarry beacon thistle falcon cedar marble ember "
         "tundra saffron pylon granary compass lagoon velvet bramble cobalt harvest turbine archive mosaic prairie "
         "anchor cavern dune estuary fjord grove heron isthmus juniper kiln lichen mangrove nebula obsidian "
         "pelican quartz reef sierra tannery umber valley willow yarrow zephyr budget contract invoice warranty "
         "schedule protocol sample reagent enzyme protein ledger audit policy tenant lease turbine sensor circuit "
         "voltage bridge tunnel railway freight cargo vessel pilot crew engine piston gasket valve boiler furnace "
         "recipe flour yeast oven dough crust pastry butter sugar honey vinegar pepper garlic onion tomato basil"
         ).split()


def sentence(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(8, 16))]
    return " ".join(words).capitalize() + "."


def build(work: Path, n_docs: int) -> Path:
    """The cached library home (documents written and indexed with MiniLM vectors on the first run)."""
    from desktop_app.core.library import Library

    home, docs, marker = work / "home", work / "docs", work / "built.json"
    if marker.is_file() and json.loads(marker.read_text())["docs"] == n_docs:
        return home
    rng = random.Random(46)
    docs.mkdir(parents=True, exist_ok=True)
    home.mkdir(parents=True, exist_ok=True)
    (home / "settings.json").write_text(json.dumps({"embedder": "minilm"}), encoding="utf-8")
    for i in range(n_docs):
        paragraphs = [" ".join(sentence(rng) for _ in range(rng.randint(5, 9))) for _ in range(2)]
        (docs / f"doc{i:05d}.txt").write_text("\n\n".join(paragraphs), encoding="utf-8")
    started = time.perf_counter()
    with Library(home=home) as library:
        library.add_folder(docs)
        library.sync()
        library.wait_for_embeddings(timeout=3600)
        stats = library.stats()
    marker.write_text(json.dumps({"docs": n_docs, "chunks": stats["chunks"], "embedded": stats["chunks_embedded"],
                                  "build_s": round(time.perf_counter() - started, 1)}), encoding="utf-8")
    return home


SIGMA = 0.02  # bench/scale.py's (server_scale.SIGMA) noise on a copy's vector
CHUNKS_PER_FILE = 10
WRITE_BATCH = 200  # files per store write batch (one transaction)
CHUNKS_BUILD_VERSION = 1  # bump when the generated chunks change: cached libraries are rebuilt


def pool_vectors(texts: list[str], embedder) -> np.ndarray:
    """MiniLM vectors of the distinct passages, embedded once (batched) and cached by pool size."""
    cache = Path.home() / ".cache" / "trove-bench" / f"mcp-pool-{len(texts)}.npz"
    if cache.is_file():
        saved = np.load(cache)
        if saved["model"].item() == embedder.model_id:
            return saved["vectors"]
    started, parts = time.perf_counter(), []
    for i in range(0, len(texts), 64):
        parts.append(np.asarray(embedder.embed(texts[i : i + 64]), dtype=np.float32))
    vectors = np.concatenate(parts)
    print(f"pool: {len(texts)} passages embedded in {time.perf_counter() - started:.1f} s", flush=True)
    cache.parent.mkdir(parents=True, exist_ok=True)
    np.savez(cache, vectors=vectors, model=np.array(embedder.model_id))
    return vectors


def write_chunks(library, folder: Path, n_chunks: int, pool: list[str], vectors: np.ndarray) -> None:
    """n_chunks copies of the pool's passages (shuffled sentences, noisy vectors) written CHUNKS_PER_FILE to a file
    through the store's write path."""
    from desktop_app.core.index.indexer import content_hash
    from desktop_app.core.ingest.chunking import Span
    from desktop_app.core.store.rows import NewChunk, NewDocument

    store, rng, noise = library.store, random.Random(4600), np.random.default_rng(4600)
    fid = store.add_folder(str(folder)).id
    n_files = -(-n_chunks // CHUNKS_PER_FILE)
    for first in range(0, n_files, WRITE_BATCH):
        with store.write_batch():
            for f in range(first, min(first + WRITE_BATCH, n_files)):
                picks = [rng.randrange(len(pool)) for _ in range(min(CHUNKS_PER_FILE, n_chunks - f * CHUNKS_PER_FILE))]
                texts = []
                for p in picks:
                    sentences = pool[p].split(". ")
                    rng.shuffle(sentences)
                    texts.append(". ".join(s.rstrip(".") for s in sentences) + ".")
                vecs = vectors[picks] + noise.normal(0, SIGMA, (len(picks), vectors.shape[1])).astype(np.float32)
                vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
                body = "\n\n".join(texts)
                path = folder / f"file{f:06d}.txt"
                path.write_text(body, encoding="utf-8")
                stat, spans, start = path.stat(), [], 0
                for t in texts:
                    spans.append(Span(start, start + len(t), t))
                    start += len(t) + 2
                store.write_document(
                    NewDocument(folder_id=fid, path=str(path), title=path.stem, type="txt", size=stat.st_size,
                                mtime_ns=stat.st_mtime_ns, digest=content_hash(body.encode("utf-8"))),
                    [NewChunk(span, None, vectors=vecs[i : i + 1]) for i, span in enumerate(spans)])
        done = min((first + WRITE_BATCH) * CHUNKS_PER_FILE, n_chunks)
        if done % 10_000 < WRITE_BATCH * CHUNKS_PER_FILE:
            print(f"  {done} chunks written", flush=True)


def side_indexes(library) -> dict[str, bool]:
    """Start (a hybrid search) and wait for both side indexes to be built or loaded; which are in use. Libraries
    under their thresholds (20,000 chunks) have none: FTS5 and sqlite-vec answer alone."""
    library.search("harbour lantern", mode="hybrid", top_k=K)
    used = {}
    for name in ("_vector_index", "_keyword_index"):
        index = library.store.__dict__.get(name)
        if index is not None:
            index.wait(1800)
        used[name[1:]] = index is not None and index._index is not None
    return used


def build_chunks(work: Path, n_chunks: int, n_pool: int) -> Path:
    """The cached library home of n_chunks chunks written through the store (see the module's docstring)."""
    from desktop_app.core.index.upgrades import CHUNKER_VERSION
    from desktop_app.core.library import Library
    from desktop_app.core.store.side import keyword_index, vector_index

    home, docs, marker = work / "home", work / "docs", work / "built.json"
    want = {"chunks": n_chunks, "pool": n_pool, "build_version": CHUNKS_BUILD_VERSION}
    if marker.is_file() and {k: json.loads(marker.read_text()).get(k) for k in want} == want:
        return home
    for left in (home, docs):  # what an interrupted build left (the marker is written last)
        shutil.rmtree(left, ignore_errors=True)
    docs.mkdir(parents=True)
    home.mkdir(parents=True)
    (home / "settings.json").write_text(json.dumps({"embedder": "minilm"}), encoding="utf-8")
    rng = random.Random(46)
    pool = [" ".join(sentence(rng) for _ in range(rng.randint(4, 7))) for _ in range(n_pool)]
    vector_index.REBUILD_QUIET = keyword_index.REBUILD_QUIET = 0.0  # build them now, not after 30 quiet seconds
    with Library(home=home) as library:
        started = time.perf_counter()
        vectors = pool_vectors(pool, library.embedder)
        pooled = time.perf_counter() - started
        library.store.set_meta("chunker", str(CHUNKER_VERSION))  # as the indexer leaves it: a sync keeps the chunks
        write_chunks(library, docs, n_chunks, pool, vectors)
        written = time.perf_counter() - started - pooled
        print(f"  written in {written:.1f} s; building the side indexes", flush=True)
        used = side_indexes(library)
        stats = library.stats()
    marker.write_text(json.dumps({**want, "docs": stats["documents"], "embedded": stats["chunks_embedded"],
                                  "pool_embed_s": round(pooled, 1), "write_s": round(written, 1),
                                  "build_s": round(time.perf_counter() - started, 1),
                                  "side_indexes": used}), encoding="utf-8")
    return home


def queries(n: int) -> list[str]:
    rng = random.Random(4646)
    return [" ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 5))) for _ in range(n)]


def ms_stats(seconds: list[float]) -> dict:
    ms = [s * 1000 for s in seconds]
    return {"n": len(ms), "p50_ms": round(percentile(ms, 50), 2), "p95_ms": round(percentile(ms, 95), 2)}


def measure(home: Path, texts: list[str], warm: int) -> tuple[dict, dict]:
    """In-process and over-stdio search, query by query: the same query in-process, then through the server, so
    both meet the same machine load (never at the same time). Returns (in-process, stdio) figures."""
    import anyio
    from mcp import Client, StdioServerParameters

    from desktop_app.core.library import Library

    params = StdioServerParameters(command=sys.executable, args=["-m", "desktop_app", "--home", str(home), "mcp"],
                                   env={"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "PYTHONPATH": str(ROOT)},
                                   cwd=str(ROOT))

    async def run(library: Library) -> tuple[dict, dict]:
        launched = time.perf_counter()
        async with Client(params, read_timeout_seconds=600) as client:
            await client.list_tools()
            to_tools = time.perf_counter() - launched
            first = await client.call_tool("search", {"query": texts[0], "k": K})
            to_answer = time.perf_counter() - launched
            assert not first.is_error and first.structured_content["results"], first.content
            settled = time.perf_counter() + 900
            while True:  # the server loads its side indexes in the background; until then it may rank otherwise
                same = 0
                for text in texts[:warm]:
                    expected = [h.metadata["chunk_id"] for h in library.search(text, top_k=K)]
                    served = await client.call_tool("search", {"query": text, "k": K})
                    same += [r["passage_id"] for r in served.structured_content["results"]] == expected
                if same == len(texts[:warm]) or time.perf_counter() > settled:
                    break
                await anyio.sleep(2)
            local, remote = [], []
            for i, text in enumerate(texts):
                # whichever runs second finds the query's pages in the OS cache: alternate which goes first
                for side in ("local", "remote") if i % 2 == 0 else ("remote", "local"):
                    t = time.perf_counter()
                    if side == "local":
                        hits = library.search(text, top_k=K)
                        local.append(time.perf_counter() - t)
                    else:
                        result = await client.call_tool("search", {"query": text, "k": K})
                        remote.append(time.perf_counter() - t)
                assert not result.is_error, result.content
                served = [r["passage_id"] for r in result.structured_content["results"]]
                assert served == [h.metadata["chunk_id"] for h in hits], "the server ranked differently"
        return ms_stats(local), {**ms_stats(remote), "start_to_tool_list_s": round(to_tools, 2),
                                 "start_to_first_answer_s": round(to_answer, 2)}

    with Library(home=home) as library:
        used = side_indexes(library)  # loaded before timing (the server loads its own while it warms up)
        local, remote = anyio.run(run, library)
        return {**local, "side_indexes": used}, remote


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=int, default=1500, help="generated documents (one passage each)")
    parser.add_argument("--chunks", type=int, help="N chunks written through the store instead (the issue's: 100000)")
    parser.add_argument("--pool", type=int, default=2000, help="with --chunks: distinct passages embedded by MiniLM")
    parser.add_argument("--queries", type=int, default=60)
    parser.add_argument("--warm", type=int, default=10)
    parser.add_argument("--work", default=str(Path.home() / ".cache" / "trove-bench" / "mcp"))
    parser.add_argument("--json", help="where to save (default bench/results/mcp.json; mcp_<N>.json with --chunks)")
    args = parser.parse_args()
    if args.chunks:
        work = Path(args.work).with_name(f"mcp-{args.chunks}")
        home = build_chunks(work, args.chunks, args.pool)
    else:
        work = Path(args.work) / f"docs{args.docs}"
        home = build(work, args.docs)
    built = json.loads((work / "built.json").read_text())
    print(f"library: {built['chunks']} passages ({built['embedded']} with vectors), built in {built['build_s']} s")
    texts = queries(args.queries)
    load_before = os.getloadavg()
    local, remote = measure(home, texts, args.warm)
    print(f"in-process Library.search: p50 {local['p50_ms']} ms, p95 {local['p95_ms']} ms")
    print(f"trove mcp over stdio: p50 {remote['p50_ms']} ms, p95 {remote['p95_ms']} ms; "
          f"start to tool list {remote['start_to_tool_list_s']} s, "
          f"to first answer {remote['start_to_first_answer_s']} s")
    ratio = {"p50": round(remote["p50_ms"] / local["p50_ms"], 2), "p95": round(remote["p95_ms"] / local["p95_ms"], 2)}
    print(f"ratio stdio / in-process: p50 {ratio['p50']}x, p95 {ratio['p95']}x")
    name = f"mcp_{args.chunks}" if args.chunks else "mcp"
    save(name, {"command": "python " + " ".join(sys.argv), "library": built, "k": K, "mode": "hybrid",
                "in_process": local, "stdio": remote, "ratio_stdio_to_in_process": ratio,
                "load_average_before": [round(x, 2) for x in load_before],
                "load_average_after": [round(x, 2) for x in os.getloadavg()],
                "note": "a shared 2-core machine under other engineers' load: figures are indicative"}, args.json)


if __name__ == "__main__":
    main()
