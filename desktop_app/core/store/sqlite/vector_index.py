"""A derived ANN index of the stored vectors, beside the database: HNSW (usearch) over int8-quantised vectors.

sqlite-vec's chunks_vec stays where vectors live; this file only makes semantic search sublinear. A query asks
the graph for a few hundred nearest windows, then rescores them exactly from chunks_vec (float32 point
lookups): the scores are the exact cosines, and a window deleted since the build is simply not found there.

The file is `<database>.vectors`: a header (magic, format version, dimension, the vector generation it was built
at, vector count, payload length, CRC-32 of the payload) and usearch's serialised index. meta.vec_generation
counts vector writes (vectors.py bumps it); a file whose generation differs is stale. A missing, stale,
damaged or other-version file is rebuilt from chunks_vec in a background thread (a notice in the log), while
search uses sqlite-vec's exact KNN as before. The rebuild writes a temporary file and renames it, so a kill in
the middle leaves the old file or none, never half a file. Libraries under MIN_VECTORS vectors have no file:
the exact scan is fast there (off by default for now: see MIN_VECTORS).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import struct
import threading
import zlib
from collections.abc import Callable
from pathlib import Path

import numpy as np

from desktop_app.core.embed.base import MAX_WINDOWS
from desktop_app.core.log import get_logger
from desktop_app.core.store.sqlite.connect import Connection, connect

log = get_logger("db")

MAGIC = b"TROVEVIX"
FORMAT_VERSION = 1
_HEADER = struct.Struct("<8sIIQQQI")  # magic, version, dim, generation, count, payload length, crc32
# Off by default (no library is this big): measured at 1M chunks, the exact rescoring by point lookups into
# sqlite-vec's 1.5 MB chunk blobs cost seconds per query (docs/search-scale.md); 20_000 once rescoring is cheap.
MIN_VECTORS = 1 << 62
RESCORE = 200  # windows taken from the graph and rescored exactly (at least; more when more are asked)
EXPANSION = 256  # HNSW ef at search time (at least twice the count asked)
FETCH_ROUNDS = (4, 16, 64)  # filtered search: over-fetch factors tried before the exact fallback
_WRITE_BLOCK = 1 << 22


def index_path(db_path: Path) -> Path:
    return db_path.with_name(db_path.name + ".vectors")


def vector_generation(conn: Connection) -> int:
    row = conn.execute("SELECT value FROM meta WHERE key = 'vec_generation'").fetchone()
    return int(row[0]) if row else 0


def bump_generation(conn: Connection) -> None:
    """Record that stored vectors changed (inside the writing transaction): side indexes built before are stale."""
    conn.execute("INSERT INTO meta (key, value) VALUES ('vec_generation', '1') "
                 "ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1")


def vector_count(conn: Connection) -> int:
    return int(conn.execute("SELECT COUNT(*) FROM chunks_vec_rowids").fetchone()[0])


# ---- the file --------------------------------------------------------------------------------------------------


def read_index(path: Path, dim: int, generation: int):
    """The usearch index in `path` if its header matches (version, dim, generation) and its payload checks out;
    otherwise None and the reason."""
    from usearch.index import Index

    try:
        with open(path, "rb") as fh:
            head = fh.read(_HEADER.size)
            if len(head) < _HEADER.size:
                return None, "damaged (short header)"
            magic, version, fdim, fgen, _count, length, crc = _HEADER.unpack(head)
            if magic != MAGIC:
                return None, "damaged (not a vector index)"
            if version != FORMAT_VERSION or fdim != dim:
                return None, f"from another version (format {version}, {fdim} dimensions)"
            if fgen != generation:
                return None, "stale (vectors changed since it was built)"
            payload = fh.read(length)
    except FileNotFoundError:
        return None, "missing"
    except OSError as exc:
        return None, f"unreadable ({exc.strerror or exc})"
    if len(payload) != length or zlib.crc32(payload) != crc:
        return None, "damaged (checksum)"
    try:
        return Index.restore(payload), ""
    except Exception as exc:  # noqa: BLE001 - usearch raises plain RuntimeErrors for a bad buffer
        return None, f"damaged ({exc})"


def write_index(path: Path, index, dim: int, generation: int, count: int) -> None:
    """Header + payload to a temporary file, fsync, rename over `path` (a kill leaves the old file or none)."""
    payload = bytes(index.save())
    head = _HEADER.pack(MAGIC, FORMAT_VERSION, dim, generation, count, len(payload), zlib.crc32(payload))
    tmp = path.with_name(f"{path.name}.tmp-{os.getpid()}")
    try:
        with open(tmp, "wb") as fh:
            fh.write(head)
            for i in range(0, len(payload), _WRITE_BLOCK):
                write_block(fh, payload[i : i + _WRITE_BLOCK])
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()


def write_block(fh, block: bytes) -> None:
    fh.write(block)


def build_index(db_path: Path, dim: int):
    """A new index of every vector in chunks_vec, written beside the database; returns (index, generation)."""
    from usearch.index import Index

    conn = connect(db_path, readonly=True, check_same_thread=False)
    try:
        conn.execute("BEGIN")  # one snapshot: the generation read belongs to the vectors read
        generation = vector_generation(conn)
        index = Index(ndim=dim, metric="cos", dtype="i8", connectivity=16, expansion_add=128)
        cursor = conn.execute("SELECT rowid, embedding FROM chunks_vec")
        count = 0
        while rows := cursor.fetchmany(50_000):
            keys = np.fromiter((r[0] for r in rows), dtype=np.uint64, count=len(rows))
            mat = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), dim)
            index.add(keys, mat, threads=2)
            count += len(rows)
        conn.execute("COMMIT")
    finally:
        conn.close()
    for stale in db_path.parent.glob(index_path(db_path).name + ".tmp-*"):
        with contextlib.suppress(OSError):
            stale.unlink()
    write_index(index_path(db_path), index, dim, generation, count)
    return index, generation


# ---- searching -------------------------------------------------------------------------------------------------


class VectorIndex:
    """One library's side index: loaded lazily, rebuilt in the background when it is missing or stale."""

    def __init__(self, db_path: Path) -> None:
        self.db_path = db_path
        self._index = None
        self._generation = -1
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._checked_generation = -1  # the generation the file on disk was last found wanting for

    def usable(self, conn: Connection, dim: int):
        """The loaded index when it matches the stored vectors, else None (and a rebuild is under way)."""
        generation = vector_generation(conn)
        if self._index is not None and self._generation == generation:
            return self._index
        with self._lock:
            if self._index is not None and self._generation == generation:
                return self._index
            if self._thread is not None and self._thread.is_alive():
                return None
            if self._checked_generation == generation:
                return None  # already found wanting at this generation (the rebuild failed): exact search
            self._checked_generation = generation
            if vector_count(conn) < MIN_VECTORS:
                return None
            index, reason = read_index(index_path(self.db_path), dim, generation)
            if index is not None:
                self._index, self._generation = index, generation
                return index
            log.warning("vector index %s is %s: rebuilding it in the background; semantic search scans "
                        "exactly until then", index_path(self.db_path).name, reason)
            self._thread = threading.Thread(target=self._rebuild, args=(dim,), name="vector-index", daemon=True)
            self._thread.start()
            return None

    def wait(self, timeout: float | None = None) -> None:
        """Until a running rebuild ends (tests, benchmarks)."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)

    def _rebuild(self, dim: int) -> None:
        lock_path = index_path(self.db_path).with_name(index_path(self.db_path).name + ".lock")
        try:
            with open(lock_path, "a+b") as lock:
                try:
                    fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    return  # another process is building it; a later query reads its file
                index, generation = build_index(self.db_path, dim)
            with self._lock:
                self._index, self._generation = index, generation
                self._checked_generation = -1
            log.info("vector index %s rebuilt: %d vectors", index_path(self.db_path).name, len(index))
        except Exception as exc:  # noqa: BLE001 - a failed rebuild leaves exact search, it must not end the app
            log.warning("vector index %s could not be rebuilt (%s): semantic search scans exactly",
                        index_path(self.db_path).name, exc)


def ann_candidates(conn: Connection, index, query: np.ndarray, limit: int,
                   keep: Callable[[list[tuple[int, float]]], list[tuple[int, float]]] | None = None
                   ) -> list[tuple[int, float]] | None:
    """Each chunk's best window among the graph's nearest, rescored exactly, best first; with `keep` (a filter),
    over-fetched until `limit` chunks pass, or None when even the widest round falls short."""
    total = len(index)
    for factor in (1,) if keep is None else FETCH_ROUNDS:
        count = min(max(RESCORE, limit * MAX_WINDOWS * factor), total)
        index.expansion_search = max(EXPANSION, 2 * count)
        matches = index.search(query, count, threads=1, exact=count >= total)  # all of it: a plain scan
        hits = rescore(conn, query, [int(k) for k in matches.keys])
        if keep is None:
            return hits[:limit]
        kept = keep(hits)
        if len(kept) >= limit or count >= total:
            return kept[:limit]
    return None


def exact_among(conn: Connection, index, query: np.ndarray, chunk_ids: list[int], limit: int
                ) -> list[tuple[int, float]]:
    """The best `limit` of these chunks: int8 cosines from the index's own vectors for all, exact for the best."""
    keys = np.array([c * MAX_WINDOWS + w for c in chunk_ids for w in range(MAX_WINDOWS)], dtype=np.uint64)
    keys = keys[index.contains(keys)] if len(keys) else keys
    if not len(keys):
        return []
    mat = np.stack(index.get(keys, dtype=np.float32))
    sims = mat @ query / np.maximum(np.linalg.norm(mat, axis=1), 1e-12)
    take = min(len(keys), max(RESCORE, limit * MAX_WINDOWS))
    best = np.argpartition(-sims, take - 1)[:take]
    return rescore(conn, query, [int(k) for k in keys[best]])[:limit]


def rescore(conn: Connection, query: np.ndarray, rowids: list[int]) -> list[tuple[int, float]]:
    """Exact cosine of these windows from chunks_vec (gone ones skipped); each chunk's best, best first."""
    best: dict[int, float] = {}
    for rowid in rowids:
        row = conn.execute("SELECT embedding FROM chunks_vec WHERE rowid = ?", (rowid,)).fetchone()
        if row is None:
            continue
        sim = float(np.dot(np.frombuffer(row[0], dtype=np.float32), query))
        cid = rowid // MAX_WINDOWS
        if sim > best.get(cid, -2.0):
            best[cid] = sim
    return sorted(best.items(), key=lambda kv: -kv[1])
