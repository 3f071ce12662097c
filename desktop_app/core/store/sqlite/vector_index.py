"""A derived index of the stored vectors, beside the database: an inverted file (IVF) of int8 codes, rescored
exactly from float32.

sqlite-vec's chunks_vec stays where vectors live; this file only makes semantic search sublinear. The vectors are
partitioned by k-means into about 4 sqrt(N) lists; a query compares itself with the list centroids, scans the
int8 codes of the nearest PROBES lists (a few per cent of the library, held in memory), and rescores the best
few hundred windows exactly from the file's own float32 copy (read by pread: page cache, not this process's
memory), so every score is the exact cosine. An HNSW graph (usearch) was measured first and dropped: on a
library of many near-copies (the 1M benchmark replicates each abstract 667 times) its neighbour lists fill with
copies and recall@10 fell to 0.4 (docs/search-scale.md). The file is only used at the vector generation it was
built at, so it never holds a window the database no longer has.

The file is `<database>.vectors`: a header (magic, format version, dimension, the vector generation it was built
at, vector count, list count, the int8 scale, CRC-32 of everything after the header), then from offset 4096 the
float32 matrix (count x dim, chunks_vec's order), the uint64 keys (chunk rowid * MAX_WINDOWS + window) in that
order, the centroids (lists x dim float32), the list offsets (lists + 1, int64), the matrix rows in list order
(int64) and their int8 codes (count x dim) in that order. meta.vec_generation counts vector writes (vectors.py
bumps it); a file whose generation differs is stale. A missing, stale, damaged or other-version file is rebuilt
from chunks_vec in a background thread once vectors have stopped changing for REBUILD_QUIET seconds (a notice in
the log), and a good one is loaded (checksum) in the background too; until either is done search uses
sqlite-vec's exact KNN as before. The rebuild writes a temporary file and renames it, so a kill in the middle
leaves the old file or none, never half a file. Libraries under MIN_VECTORS vectors have no file: the exact scan
is fast there.
"""

from __future__ import annotations

import contextlib
import fcntl
import math
import os
import struct
import threading
import time
import zlib
from collections.abc import Callable
from pathlib import Path

import numpy as np

from desktop_app.core.embed.base import MAX_WINDOWS
from desktop_app.core.log import get_logger
from desktop_app.core.store.sqlite.connect import Connection, connect

log = get_logger("db")

MAGIC = b"TROVEVIX"
FORMAT_VERSION = 2  # 2: IVF over int8 codes with the float32 rows in the file (1 was an HNSW graph)
_HEADER = struct.Struct("<8sIIQQQdI")  # magic, version, dim, generation, count, lists, int8 scale, crc32
_DATA = 4096  # the float32 matrix starts here
MIN_VECTORS = 20_000  # below this sqlite-vec's exact scan is a few milliseconds (docs/search-scale.md)
PROBES = 192  # lists scanned per query (at 1M vectors, 4,000 lists: about 5 % of the codes)
RESCORE = 200  # windows taken from the codes and rescored exactly (at least; more when more are asked)
REBUILD_QUIET = 30.0  # seconds without vector writes before a rebuild starts (none while a library is indexed)
FETCH_ROUNDS = (1, 4, 16)  # filtered search: more lists while too few allowed windows are found, then all lists
MASKS = 4  # filters whose allowed rows a loaded index remembers (a search-as-you-type session keeps its filter)
SAMPLE = 65_536  # vectors k-means learns the centroids from
KMEANS_ROUNDS = 8
_BATCH = 50_000
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


def list_count(count: int) -> int:
    return max(1, min(count, int(4 * math.sqrt(count))))


class Loaded:
    """A side index in memory: centroids, lists and int8 codes; the float32 rows stay in the file (pread)."""

    def __init__(self, path: Path, dim: int, keys: np.ndarray, centroids: np.ndarray, offsets: np.ndarray,
                 members: np.ndarray, codes: np.ndarray) -> None:
        self.dim, self.keys, self.centroids, self.offsets = dim, keys, centroids, offsets
        self.members, self.codes = members, codes  # matrix rows in list order, and their codes
        self._fd = os.open(path, os.O_RDONLY)  # the renamed file stays readable while it is ours
        self._by_key = np.argsort(keys, kind="stable")
        self._sorted = keys[self._by_key]
        self._masks: dict[object, np.ndarray] = {}
        self._masks_lock = threading.Lock()  # searches run on several threads

    def __len__(self) -> int:
        return len(self.keys)

    def __del__(self) -> None:
        with contextlib.suppress(OSError, AttributeError):
            os.close(self._fd)

    def positions(self, keys: np.ndarray) -> np.ndarray:
        """Matrix rows of these keys (-1 where the index lacks one)."""
        if not len(self._sorted) or not len(keys):
            return np.full(len(keys), -1, dtype=np.int64)
        at = np.minimum(np.searchsorted(self._sorted, keys), len(self._sorted) - 1)
        return np.where(self._sorted[at] == keys, self._by_key[at], -1)

    def rows(self, positions: np.ndarray) -> np.ndarray:
        """The exact float32 vectors of these matrix rows, read from the file."""
        size = self.dim * 4
        out = np.empty((len(positions), self.dim), dtype=np.float32)
        for i, pos in enumerate(positions.tolist()):
            out[i] = np.frombuffer(os.pread(self._fd, size, _DATA + pos * size), dtype=np.float32)
        return out

    def nearest(self, query: np.ndarray, count: int, probes: int, allowed: np.ndarray | None = None) -> np.ndarray:
        """Matrix rows of the `count` best int8 scores in the `probes` lists nearest the query (only rows where
        `allowed`, a mask over the matrix rows, is true). Unfiltered, each list's codes are scored where they lie (a
        view, converted a list at a time), which costs half of gathering them first."""
        lists = len(self.centroids)
        probes = min(probes, lists)
        near = np.argpartition(-(self.centroids @ query), probes - 1)[:probes] if probes < lists else np.arange(lists)
        if allowed is not None:  # a few allowed rows in many lists: gathered, then scored in blocks (a block's
            # temporaries are reused; one of all the rows would be fresh memory, page-faulted in on every query)
            slots = np.concatenate([np.arange(self.offsets[i], self.offsets[i + 1]) for i in near])
            slots = slots[allowed[self.members[slots]]]
            found = self.members[slots]
            score = np.concatenate([self.codes[slots[i : i + 8192]].astype(np.float32) @ query
                                    for i in range(0, len(slots), 8192)] or [np.zeros(0, dtype=np.float32)])
        else:
            parts = [(int(self.offsets[i]), int(self.offsets[i + 1])) for i in np.sort(near).tolist()]
            found = np.concatenate([self.members[a:b] for a, b in parts] or [np.zeros(0, dtype=np.int64)])
            score = np.concatenate([self.codes[a:b].astype(np.float32) @ query for a, b in parts]
                                   or [np.zeros(0, dtype=np.float32)])
        return found if count >= len(found) else found[np.argpartition(-score, count - 1)[:count]]

    def mask(self, filters: object, chunk_ids: Callable[[], list[int]]) -> np.ndarray:
        """The matrix rows of the chunks a filter allows, remembered for the last MASKS filters (`filters` None:
        not remembered). The index belongs to one vector generation, and the chunks a folder, type or language
        filter allows change only with their vectors."""
        if filters is not None and (known := self._masks.get(filters)) is not None:
            return known
        rows = np.isin(self.keys // MAX_WINDOWS, np.asarray(chunk_ids(), dtype=np.uint64))
        if filters is None:
            return rows
        with self._masks_lock:
            while len(self._masks) >= MASKS:
                self._masks.pop(next(iter(self._masks)))
            self._masks[filters] = rows
        return rows


# ---- the file --------------------------------------------------------------------------------------------------


def header_problem(path: Path, dim: int, generation: int) -> str:
    """Why the file at `path` cannot serve this generation, from its header alone ("" when it may)."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(_HEADER.size)
    except FileNotFoundError:
        return "missing"
    except OSError as exc:
        return f"unreadable ({exc.strerror or exc})"
    if len(head) < _HEADER.size:
        return "damaged (short header)"
    magic, version, fdim, fgen = _HEADER.unpack(head)[:4]
    if magic != MAGIC:
        return "damaged (not a vector index)"
    if version != FORMAT_VERSION or fdim != dim:
        return f"from another version (format {version}, {fdim} dimensions)"
    if fgen != generation:
        return "stale (vectors changed since it was built)"
    return ""


def _sections(count: int, lists: int, dim: int) -> list[tuple[str, int]]:
    """(name, bytes) of the file's sections after the matrix, in order."""
    return [("keys", count * 8), ("centroids", lists * dim * 4), ("offsets", (lists + 1) * 8),
            ("members", count * 8), ("codes", count * dim)]


def read_index(path: Path, dim: int, generation: int) -> tuple[Loaded | None, str]:
    """The side index in `path` if its header matches (version, dim, generation) and its checksum holds;
    otherwise None and the reason. The float32 matrix is checked block by block, never held."""
    if problem := header_problem(path, dim, generation):
        return None, problem
    try:
        with open(path, "rb") as fh:
            _m, _v, _d, _g, count, lists, _scale, crc = _HEADER.unpack(fh.read(_HEADER.size))
            sections = _sections(count, lists, dim)
            if os.fstat(fh.fileno()).st_size != _DATA + count * dim * 4 + sum(n for _, n in sections):
                return None, "damaged (wrong length)"
            fh.seek(_DATA)
            seen, left = 0, count * dim * 4
            while left > 0 and (block := fh.read(min(_WRITE_BLOCK, left))):
                seen, left = zlib.crc32(block, seen), left - len(block)
            parts = {}
            for name, size in sections:
                parts[name] = fh.read(size)
                seen = zlib.crc32(parts[name], seen)
    except OSError as exc:
        return None, f"unreadable ({exc.strerror or exc})"
    if seen != crc:
        return None, "damaged (checksum)"
    offsets = np.frombuffer(parts["offsets"], dtype=np.int64)
    members = np.frombuffer(parts["members"], dtype=np.int64)
    if offsets[0] != 0 or offsets[-1] != count or np.any(np.diff(offsets) < 0) or \
            (count and (members.min() < 0 or members.max() >= count)):
        return None, "damaged (lists)"
    return Loaded(path, dim, np.frombuffer(parts["keys"], dtype=np.uint64),
                  np.frombuffer(parts["centroids"], dtype=np.float32).reshape(lists, dim), offsets, members,
                  np.frombuffer(parts["codes"], dtype=np.int8).reshape(count, dim)), ""


def write_block(fh, block: bytes) -> None:
    fh.write(block)


def kmeans(sample: np.ndarray, lists: int, seed: int = 0) -> np.ndarray:
    """Spherical k-means (cosine): `lists` unit centroids of the sample."""
    rng = np.random.default_rng(seed)
    centroids = sample[rng.choice(len(sample), size=lists, replace=False)].copy()
    for _ in range(KMEANS_ROUNDS):
        assign = assign_lists(sample, centroids)
        sums = np.zeros_like(centroids)
        np.add.at(sums, assign, sample)
        empty = ~sums.any(axis=1)
        sums[empty] = sample[rng.choice(len(sample), size=int(empty.sum()))]  # a list that lost every member
        centroids = sums / np.maximum(np.linalg.norm(sums, axis=1, keepdims=True), 1e-12)
    return centroids.astype(np.float32)


def assign_lists(mat: np.ndarray, centroids: np.ndarray) -> np.ndarray:
    return np.concatenate([np.argmax(mat[i : i + 4096].astype(np.float32) @ centroids.T, axis=1)
                           for i in range(0, len(mat), 4096)]) if len(mat) else np.zeros(0, dtype=np.int64)


def build_index(db_path: Path, dim: int) -> tuple[Loaded, int]:
    """A new index of every vector in chunks_vec, written beside the database (a temporary file, fsync, rename
    over the old one); returns (the index, made from the arrays just written rather than read back, its generation)."""
    path = index_path(db_path)
    tmp = path.with_name(f"{path.name}.tmp-{os.getpid()}")
    for stale in db_path.parent.glob(path.name + ".tmp-*"):
        with contextlib.suppress(OSError):
            stale.unlink()
    conn = connect(db_path, readonly=True, check_same_thread=False)
    try:
        with open(tmp, "wb") as fh:
            fh.write(bytes(_DATA))
            conn.execute("BEGIN")  # one snapshot: the generation read belongs to the vectors read
            generation, total = vector_generation(conn), vector_count(conn)
            stride = max(1, total // SAMPLE)
            codes = np.zeros((total, dim), dtype=np.int8)
            crc, count, scale, keys, sample = 0, 0, 0.0, list[np.ndarray](), list[np.ndarray]()
            cursor = conn.execute("SELECT rowid, embedding FROM chunks_vec")
            while (rows := cursor.fetchmany(_BATCH)) and count < total:
                rows = rows[: total - count]
                blob = b"".join(r[1] for r in rows)
                mat = np.frombuffer(blob, dtype=np.float32).reshape(len(rows), dim)
                scale = scale or 127.0 / max(float(np.quantile(np.abs(mat), 0.9999)), 1e-6)
                codes[count : count + len(rows)] = np.clip(np.rint(mat * scale), -127, 127)
                keys.append(np.fromiter((r[0] for r in rows), dtype=np.uint64, count=len(rows)))
                sample.append(mat[(-count) % stride :: stride].copy())  # a copy: a view would keep the batch
                write_block(fh, blob)
                crc, count = zlib.crc32(blob, crc), count + len(rows)
            conn.execute("COMMIT")
            codes = codes[:count]
            lists = list_count(count)
            learn = np.concatenate(sample) if sample else np.zeros((0, dim), dtype=np.float32)
            centroids = kmeans(learn, lists) if count else np.zeros((lists, dim), dtype=np.float32)
            assign = assign_lists(codes, centroids)
            members = np.argsort(assign, kind="stable")
            offsets = np.searchsorted(assign[members], np.arange(lists + 1))
            all_keys = np.concatenate(keys) if keys else np.zeros(0, dtype=np.uint64)
            codes = codes[members]  # list order, as the file and the loaded index keep them
            offsets, members = offsets.astype(np.int64), members.astype(np.int64)
            blocks = [all_keys.tobytes(), centroids.tobytes(), offsets.tobytes(), members.tobytes()]
            blocks += [codes[i : i + _BATCH].tobytes() for i in range(0, count, _BATCH)]
            for block in blocks:
                write_block(fh, block)
                crc = zlib.crc32(block, crc)
            fh.seek(0)
            fh.write(_HEADER.pack(MAGIC, FORMAT_VERSION, dim, generation, count, lists, scale, crc))
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    finally:
        conn.close()
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
    return Loaded(path, dim, all_keys, centroids, offsets, members, codes), generation


# ---- searching -------------------------------------------------------------------------------------------------


class VectorIndex:
    """One library's side index: loaded in the background, rebuilt there when it is missing or stale."""

    def __init__(self, db_path: Path) -> None:
        self.db_path = db_path
        self._index: Loaded | None = None
        self._generation = -1
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._checked_generation = -1  # the generation the file on disk was last looked at for
        self._seen = (-1, 0.0)  # the last generation a query saw, and since when

    def usable(self, conn: Connection, dim: int) -> Loaded | None:
        """The loaded index when it matches the stored vectors, else None (and a load or rebuild is under way)."""
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
            now = time.monotonic()
            if self._seen[0] != generation:
                self._seen = (generation, now)
            reason = header_problem(index_path(self.db_path), dim, generation)
            if reason and now - self._seen[1] < REBUILD_QUIET:
                return None  # vectors are still being written (or were a moment ago): no rebuild yet
            self._checked_generation = generation
            if reason and vector_count(conn) < MIN_VECTORS:
                return None
            if reason:
                self._rebuilding(reason)
            self._thread = threading.Thread(target=self._load, args=(dim, generation, not reason),
                                            name="vector-index", daemon=True)
            self._thread.start()
            return None

    def wait(self, timeout: float | None = None) -> None:
        """Until a running load or rebuild ends (tests, benchmarks)."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)

    def _rebuilding(self, reason: str) -> None:
        log.warning("vector index %s is %s: rebuilding it in the background; semantic search scans "
                    "exactly until then", index_path(self.db_path).name, reason)

    def _load(self, dim: int, generation: int, read_first: bool) -> None:
        try:
            if read_first:
                index, reason = read_index(index_path(self.db_path), dim, generation)
                if index is not None:
                    self._adopt(index, generation)
                    return
                self._rebuilding(reason)
            self._rebuild(dim)
        except Exception as exc:  # noqa: BLE001 - a failed rebuild leaves exact search, it must not end the app
            log.warning("vector index %s could not be rebuilt (%s): semantic search scans exactly",
                        index_path(self.db_path).name, exc)

    def _adopt(self, index: Loaded, generation: int) -> None:
        with self._lock:
            self._index, self._generation = index, generation
            self._checked_generation = -1

    def _rebuild(self, dim: int) -> None:
        lock_path = index_path(self.db_path).with_name(index_path(self.db_path).name + ".lock")
        with open(lock_path, "a+b") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return  # another process is building it; a later query reads its file
            index, generation = build_index(self.db_path, dim)
        self._adopt(index, generation)
        log.info("vector index %s rebuilt: %d vectors", index_path(self.db_path).name, len(index))


def ann_candidates(index: Loaded, query: np.ndarray, limit: int) -> list[tuple[int, float]]:
    """Each chunk's best window among the nearest lists' best codes, rescored exactly, best first."""
    count = min(max(RESCORE, limit * MAX_WINDOWS), len(index))
    return rescore(index, query, index.nearest(query, count, PROBES))[:limit]


def ann_filtered(index: Loaded, query: np.ndarray, limit: int, allowed: np.ndarray) -> list[tuple[int, float]]:
    """The same among the rows a filter allows: the probed lists widened by the share it allows (the same number
    of codes compared), and more while they hold too few allowed windows, up to all of them (then every allowed
    window's code was compared), so k results come back whenever k exist."""
    share = max(int(allowed.sum()), 1) / max(len(index), 1)
    count = min(max(RESCORE, limit * MAX_WINDOWS), int(allowed.sum()))
    base = PROBES / share  # as many allowed codes as an unfiltered query compares, in more lists
    for factor in (*FETCH_ROUNDS, len(index.centroids)):
        found = index.nearest(query, count, math.ceil(base * factor), allowed)
        if len(found) >= count:
            break
    return rescore(index, query, found)[:limit]


def rescore(index: Loaded, query: np.ndarray, positions: np.ndarray) -> list[tuple[int, float]]:
    """Exact cosine of these matrix rows from the file's float32 copy; each chunk's best, best first."""
    positions = np.sort(positions)  # file order: the reads go forward
    sims = index.rows(positions) @ query if len(positions) else np.zeros(0, dtype=np.float32)
    best: dict[int, float] = {}
    for cid, sim in zip((index.keys[positions] // MAX_WINDOWS).tolist(), sims.tolist(), strict=True):
        if sim > best.get(cid, -2.0):
            best[cid] = sim
    return sorted(best.items(), key=lambda kv: -kv[1])
