"""A derived index of the stored vectors, beside the database: a sign-bit sketch of every vector, then int8 codes of
its principal components, then the exact float32 rows.

The engine's table (sqlite-vec's chunks_vec, pgvector's chunk_vectors) stays where vectors live; this file only makes
semantic search cheaper per vector. Every vector is projected on the principal axes of a sample (PCA, centred on its
mean) and kept as the signs of the first BITS projections: a query's Hamming distance to all of them is a few XORs and
popcounts per vector (48 bytes at 384 dimensions, held in memory). The CANDIDATES share of the library nearest by that
distance is scored by int8 codes (also held) of every vector's projections on all the principal axes: first by its LEAD
leading ones, which hold most of the variance (90 % of MiniLM's in the first 128 of 384), then the best KEEP of them by
the rest too (at 1M vectors this halves the scoring's time at the same recall, bench/pca_codes.py), and the best few
hundred windows are rescored exactly from the file's own float32 copy (read by pread: page cache, not this process's
memory), so every score is the exact cosine. A rotation keeps dot products, and the mean taken away shifts every
vector's score against one query by the same amount, so the codes' scores rank as the vectors' would; each axis has its
own int8 scale, as the trailing ones are narrower. Two designs were measured first and dropped (docs/search-scale.md):
an HNSW graph (usearch) and an inverted file of k-means lists. On a library of many near-copies (the 1M benchmark
replicates each abstract 667 times) both lose the exact top 10 among the copies (recall@10 0.4 and 0.79), because which
copy is nearest is decided by small differences spread over every dimension; the sketch keeps every copy of the nearest
documents among its candidates. The file is only used at the vector generation it was built at, so it never holds a
window the database no longer has.

The file is `<database>.vectors`: a header (magic, format version, dimension, the vector generation it was built at,
vector count, sketch bits, lead width, CRC-32 of everything after the header), then from offset 4096 the float32 matrix
(count x dim, chunks_vec's order), the uint64 keys (chunk rowid * MAX_WINDOWS + window) in that order, the sample's mean
(dim float32), its principal axes (dim x dim float32, as columns, the widest first), each axis's int8 scale (dim
float32), the sketch words (bits / 64 rows of count uint64: word j of every vector together) and the int8 codes, the
leading axes' (count x lead) then the others' (count x (dim - lead)). The engine counts vector writes (sqlite/side.py:
meta.vec_generation, which sqlite/vectors.py bumps); a file whose generation differs is stale. A missing, stale, damaged
or other-version file is rebuilt from the engine's vectors in a background thread once vectors have stopped changing for
REBUILD_QUIET seconds (a notice in the log), and a good one is loaded (checksum) in the background too; until either is
done search uses the engine's exact KNN as before. The rebuild writes a temporary file and renames it, so a kill in the
middle leaves the old file or none, never half a file. Libraries under MIN_VECTORS vectors have no file: the exact scan
is fast there.
"""

from __future__ import annotations

import contextlib
import math
import os
import struct
import threading
import zlib
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import BinaryIO

import numpy as np

from desktop_app.core.embed.base import MAX_WINDOWS
from desktop_app.core.store.side.base import Connection, SideIndex

MAGIC = b"TROVEVIX"
FORMAT_VERSION = 4  # 4: int8 codes of the principal components; 3: of the vectors; 2: an IVF; 1: an HNSW graph
_HEADER = struct.Struct("<8sIIQQQQI")  # magic, version, dim, generation, count, sketch bits, lead width, crc32
_DATA = 4096  # the float32 matrix starts here
MIN_VECTORS = 20_000  # below this sqlite-vec's exact scan is a few milliseconds (docs/search-scale.md)
BITS = 384  # sketch bits per vector (at most; a multiple of 64, at least 64 and padded for small dimensions)
CANDIDATES = 0.06  # share of the library nearest by the sketch whose int8 codes are scored (bench/sketch_sweep.py) ...
MIN_CANDIDATES = 16_384  # ... but at least this many; as many with a filter (every allowed vector when fewer)
LEAD = 128  # leading principal axes every candidate is scored on first (bench/pca_codes.py) ...
KEEP = 8192  # ... and how many of the best of those are scored on the others too (at least the windows asked for)
SCORE_BLOCK = 4096  # codes scored at a time (this thread's buffers: 4096 x dim int8 and float32, 7.5 MB at 384)
RESCORE = 200  # windows taken from the codes and rescored exactly (at least; more when more are asked)
REBUILD_QUIET = 30.0  # seconds without vector writes before a rebuild starts (none while a library is indexed)
MASKS = 4  # filters whose allowed rows a loaded index remembers (a search-as-you-type session keeps its filter)
SAMPLE = 65_536  # vectors the sketch's axes are learnt from
_BATCH = 50_000
_WRITE_BLOCK = 1 << 22


def index_path(db_path: Path) -> Path:
    return db_path.with_name(db_path.name + ".vectors")


def sketch_bits(dim: int) -> int:
    return max(64, min(BITS, dim) // 64 * 64)


def lead_width(dim: int) -> int:
    return min(LEAD, dim)


def sketch(mat: np.ndarray, mean: np.ndarray, projection: np.ndarray) -> np.ndarray:
    """The sketch words of these vectors: (bits / 64, len(mat)) uint64, word j of every vector together."""
    return sign_words((mat.astype(np.float32) - mean) @ projection > 0)


def sign_words(signs: np.ndarray) -> np.ndarray:
    """Sketch words of (vectors x bits) signs."""
    return np.ascontiguousarray(np.packbits(signs, axis=1).view(np.uint64).T)


def sketch_projection(axes: np.ndarray, bits: int) -> np.ndarray:
    """The sketch's projection: the first `bits` principal axes (dim x bits; zero columns past the dimension, whose
    signs are the same for every vector and so never count)."""
    dim = axes.shape[0]
    out = np.zeros((dim, bits), dtype=np.float32)
    out[:, : min(bits, dim)] = axes[:, :bits]
    return out


class Loaded:
    """A side index in memory: the sketch and the int8 codes; the float32 rows stay in the file (pread)."""

    def __init__(self, path: Path, dim: int, keys: np.ndarray, mean: np.ndarray, axes: np.ndarray,
                 scales: np.ndarray, words: np.ndarray, codes: tuple[np.ndarray, np.ndarray]) -> None:
        self.dim, self.keys, self.mean, self.axes, self.scales = dim, keys, mean, axes, scales
        self.projection = sketch_projection(axes, words.shape[0] * 64)
        self.words, (self.lead, self.tail) = words, codes
        self._fd = os.open(path, os.O_RDONLY)  # the renamed file stays readable while it is ours
        self._by_key = np.argsort(keys, kind="stable")
        self._sorted = keys[self._by_key]
        self._masks: dict[object, np.ndarray] = {}
        self._masks_lock = threading.Lock()  # searches run on several threads
        self._local = threading.local()  # each thread's scoring buffers (code_scores)

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

    def distances(self, query: np.ndarray) -> np.ndarray:
        """The Hamming distance of every vector's sketch to the query's (uint16, matrix order)."""
        mine = sketch(query[None, :], self.mean, self.projection)[:, 0]
        out = np.zeros(len(self.keys), dtype=np.uint16)
        for j, word in enumerate(mine.tolist()):
            out += np.bitwise_count(self.words[j] ^ np.uint64(word))
        return out

    def candidates(self, query: np.ndarray, allowed: np.ndarray | None = None) -> np.ndarray:
        """Matrix rows nearest the query by sketch: the CANDIDATES share of the library, at least MIN_CANDIDATES,
        every row at the cut-off distance included; with a filter (`allowed`, a mask over the matrix) as many of
        the rows it allows. Not fewer: a folder's nearest rows are as hard to tell apart by sketch as the whole
        library's (at 1M vectors a folder of 10 % needed 32k candidates for recall@10 0.98, docs/search-scale.md)."""
        ham = self.distances(query)
        want = max(MIN_CANDIDATES, math.ceil(CANDIDATES * len(ham)))
        rows = None if allowed is None else np.flatnonzero(allowed)
        if rows is not None:
            ham = ham[rows]
        if want >= len(ham):
            near = np.arange(len(ham))
        else:
            cut = int(np.searchsorted(np.cumsum(np.bincount(ham, minlength=65)), want))
            near = np.flatnonzero(ham <= cut)
        return near if rows is None else rows[near]

    def weights(self, query: np.ndarray) -> np.ndarray:
        """The query as the codes are scored against it: on the principal axes, over each axis's int8 scale. A
        code's score is then its vector's projection on the query, less the mean's (the same for every vector)."""
        return (query.astype(np.float32, copy=False) @ self.axes / self.scales).astype(np.float32)

    def nearest(self, query: np.ndarray, count: int, allowed: np.ndarray | None = None) -> np.ndarray:
        """Matrix rows of the `count` best int8 scores among the sketch's candidates: every candidate scored on the
        leading axes, the best KEEP (at least `count`) on the others too (rows in increasing order, so the codes
        are read forward; scored in blocks whose temporaries are reused)."""
        return self.best(self.candidates(query, allowed), query, count)

    def best(self, found: np.ndarray, query: np.ndarray, count: int) -> np.ndarray:
        """The `count` of these matrix rows with the best int8 scores, in the two stages `nearest` describes."""
        if count >= len(found):
            return found
        weights = self.weights(query)
        width = self.lead.shape[1]
        score = self.code_scores(self.lead, found, weights[:width])
        if self.tail.shape[1]:
            if (keep := max(KEEP, count)) < len(found):
                kept = np.sort(np.argpartition(-score, keep - 1)[:keep])
                found, score = found[kept], score[kept]
            score += self.code_scores(self.tail, found, weights[width:])
        return found[np.argpartition(-score, count - 1)[:count]]

    def code_scores(self, codes: np.ndarray, rows: np.ndarray, weights: np.ndarray) -> np.ndarray:
        """These matrix rows of `codes` (the lead or the tail) dotted with their part of the weights, a block at a
        time through this thread's scratch buffers: gathered, widened to float32 in place and scored, with no new
        arrays per block (fresh arrays of a few megabytes are fresh pages each query: about 30 % of the scoring's
        CPU time at 100k vectors, bench/int8_scoring.py)."""
        gathered, widened = self._scratch()
        width = codes.shape[1]
        out = np.empty(len(rows), dtype=np.float32)
        for i in range(0, len(rows), SCORE_BLOCK):
            block = rows[i : i + SCORE_BLOCK]
            n = len(block)
            small, wide = gathered[: n * width].reshape(n, width), widened[: n * width].reshape(n, width)
            np.take(codes, block, axis=0, out=small)
            np.copyto(wide, small, casting="unsafe")
            np.dot(wide, weights, out=out[i : i + n])
        return out

    def _scratch(self) -> tuple[np.ndarray, np.ndarray]:
        """This thread's gather and widening buffers (searches run on several threads at once)."""
        got = getattr(self._local, "scratch", None)
        if got is None:
            got = self._local.scratch = (np.empty(SCORE_BLOCK * self.dim, dtype=np.int8),
                                         np.empty(SCORE_BLOCK * self.dim, dtype=np.float32))
        return got

    def mask(self, filters: object, chunk_ids: Callable[[], list[int] | np.ndarray]) -> np.ndarray:
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


def _sections(count: int, bits: int, dim: int) -> list[tuple[str, int]]:
    """(name, bytes) of the file's sections after the matrix, in order."""
    lead = lead_width(dim)
    return [("keys", count * 8), ("mean", dim * 4), ("axes", dim * dim * 4), ("scales", dim * 4),
            ("words", bits // 8 * count), ("lead", count * lead), ("tail", count * (dim - lead))]


def read_index(path: Path, dim: int, generation: int) -> tuple[Loaded | None, str]:
    """The side index in `path` if its header matches (version, dim, generation) and its checksum holds;
    otherwise None and the reason. The float32 matrix is checked block by block, never held."""
    if problem := header_problem(path, dim, generation):
        return None, problem
    try:
        with open(path, "rb") as fh:
            _m, _v, _d, _g, count, bits, lead, crc = _HEADER.unpack(fh.read(_HEADER.size))
            if bits != sketch_bits(dim) or lead != lead_width(dim):
                return None, "damaged (sketch)"
            sections = _sections(count, bits, dim)
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
    return Loaded(path, dim, np.frombuffer(parts["keys"], dtype=np.uint64),
                  np.frombuffer(parts["mean"], dtype=np.float32),
                  np.frombuffer(parts["axes"], dtype=np.float32).reshape(dim, dim),
                  np.frombuffer(parts["scales"], dtype=np.float32),
                  np.frombuffer(parts["words"], dtype=np.uint64).reshape(bits // 64, count),
                  (np.frombuffer(parts["lead"], dtype=np.int8).reshape(count, lead),
                   np.frombuffer(parts["tail"], dtype=np.int8).reshape(count, dim - lead))), ""


def write_block(fh, block: bytes) -> None:
    fh.write(block)


def principal_axes(sample: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(mean, axes, scales): the sample's mean; all its principal axes as the columns of a rotation (dim x dim
    float32, the widest first; a complete basis even from fewer vectors than dimensions); and each axis's int8
    scale, 127 over the sample's 99.99th percentile of the projections' size on it."""
    dim = sample.shape[1]
    mean = sample.mean(axis=0, dtype=np.float64).astype(np.float32) if len(sample) else np.zeros(dim, np.float32)
    centred = sample.astype(np.float32) - mean
    axes = np.eye(dim, dtype=np.float32)
    if len(sample) > 1:
        axes = np.ascontiguousarray(np.linalg.eigh((centred.T @ centred).astype(np.float64))[1][:, ::-1], np.float32)
    spread = np.quantile(np.abs(centred @ axes), 0.9999, axis=0) if len(sample) else np.ones(dim)
    return mean, axes, (127.0 / np.maximum(spread, 1e-6)).astype(np.float32)


Batch = tuple[np.ndarray, bytes]  # uint64 keys (chunk id * MAX_WINDOWS + window) and their float32 rows
VectorSource = Callable[[], AbstractContextManager[tuple[int, int, Iterator[Batch]]]]


def build_index(path: Path, dim: int, source: VectorSource) -> tuple[Loaded, int]:
    """A new index of every vector `source` gives, written at `path` (a temporary file, fsync, rename over the
    old one); returns (the index, made from the arrays just written rather than read back, its generation). The
    vectors are written as they come, with a sample of them; the principal axes are learnt from the sample; then
    the rows just written are read back (page cache) a batch at a time for their sketch and codes."""
    tmp = path.with_name(f"{path.name}.tmp-{os.getpid()}")
    for stale in path.parent.glob(path.name + ".tmp-*"):
        with contextlib.suppress(OSError):
            stale.unlink()
    bits, lead = sketch_bits(dim), lead_width(dim)
    try:
        with open(tmp, "w+b") as fh, source() as (generation, total, batches):
            fh.write(bytes(_DATA))
            stride = max(1, total // SAMPLE)
            crc, count, keys, sample = 0, 0, list[np.ndarray](), list[np.ndarray]()
            for batch_keys, blob in batches:
                if count >= total:
                    break
                n = min(len(batch_keys), total - count)
                blob = blob[: n * dim * 4]
                mat = np.frombuffer(blob, dtype=np.float32).reshape(n, dim)
                keys.append(np.asarray(batch_keys[:n], dtype=np.uint64))
                sample.append(mat[(-count) % stride :: stride].copy())  # a copy: a view would keep the batch
                write_block(fh, blob)
                crc, count = zlib.crc32(blob, crc), count + n
            learn = np.concatenate(sample) if sample else np.zeros((0, dim), dtype=np.float32)
            mean, axes, scales = principal_axes(learn)
            words, codes = coded(fh, count, dim, mean, axes, scales)
            all_keys = np.concatenate(keys) if keys else np.zeros(0, dtype=np.uint64)
            blocks = [all_keys.tobytes(), mean.tobytes(), axes.tobytes(), scales.tobytes(), words.tobytes()]
            blocks += [part[i : i + _BATCH].tobytes() for part in codes for i in range(0, count, _BATCH)]
            for block in blocks:
                write_block(fh, block)
                crc = zlib.crc32(block, crc)
            fh.seek(0)
            fh.write(_HEADER.pack(MAGIC, FORMAT_VERSION, dim, generation, count, bits, lead, crc))
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
    return Loaded(path, dim, all_keys, mean, axes, scales, words, codes), generation


def coded(fh: BinaryIO, count: int, dim: int, mean: np.ndarray, axes: np.ndarray,
          scales: np.ndarray) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]:
    """(sketch words, (lead codes, tail codes)) of the `count` float32 rows written at _DATA in `fh`, read back a
    batch at a time: each row's projections on the principal axes, their signs on the first sketch bits and their
    int8 codes at each axis's scale."""
    bits, lead = sketch_bits(dim), lead_width(dim)
    words = np.zeros((bits // 64, count), dtype=np.uint64)
    codes = np.empty((count, lead), dtype=np.int8), np.empty((count, dim - lead), dtype=np.int8)
    fh.flush()
    signs = np.zeros((min(_BATCH, count), bits), dtype=bool)  # columns past the dimension stay False
    for i in range(0, count, _BATCH):
        n = min(_BATCH, count - i)
        fh.seek(_DATA + i * dim * 4)
        rows = np.frombuffer(fh.read(n * dim * 4), dtype=np.float32).reshape(n, dim)
        projected = (rows - mean) @ axes
        signs[:n, : min(bits, dim)] = projected[:, :bits] > 0
        words[:, i : i + n] = sign_words(signs[:n])
        scaled = np.clip(np.rint(projected * scales), -127, 127).astype(np.int8)
        codes[0][i : i + n], codes[1][i : i + n] = scaled[:, :lead], scaled[:, lead:]
    fh.seek(0, os.SEEK_END)
    return words, codes


# ---- searching -------------------------------------------------------------------------------------------------


class VectorIndex(SideIndex[Loaded]):
    """One library's side vector index: loaded in the background, rebuilt there when it is missing or stale (the
    engine's subclass reads its generation and vectors: sqlite/side.py, postgres/side.py)."""

    what = "vector index"
    meanwhile = "semantic search scans exactly"

    def __init__(self, db_path: Path) -> None:
        super().__init__(db_path)
        self.dim = 0

    def at(self, conn: Connection, dim: int) -> Loaded | None:
        """The loaded index for vectors of `dim` dimensions when it matches the stored vectors (SideIndex.usable)."""
        self.dim = dim
        return self.usable(conn)

    def path(self) -> Path:
        return index_path(self.db_path)

    def min_count(self) -> int:
        return MIN_VECTORS

    def quiet(self) -> float:
        return REBUILD_QUIET

    def problem(self, generation: int) -> str:
        return header_problem(self.path(), self.dim, generation)

    def read(self, generation: int) -> tuple[Loaded | None, str]:
        return read_index(self.path(), self.dim, generation)

    def size(self, index: Loaded) -> int:
        return len(index)


def ann_candidates(index: Loaded, query: np.ndarray, limit: int,
                   allowed: np.ndarray | None = None) -> list[tuple[int, float]]:
    """Each chunk's best window among the sketch's candidates' best codes, rescored exactly, best first. With a
    filter (`allowed`, a mask over the matrix rows) the candidates are as many of the allowed rows, and all of
    them when they are fewer, so k results come back whenever k exist."""
    total = len(index) if allowed is None else int(allowed.sum())
    count = min(max(RESCORE, limit * MAX_WINDOWS), total)
    return rescore(index, query, index.nearest(query, count, allowed))[:limit]


def rescore(index: Loaded, query: np.ndarray, positions: np.ndarray) -> list[tuple[int, float]]:
    """Exact cosine of these matrix rows from the file's float32 copy; each chunk's best, best first."""
    positions = np.sort(positions)  # file order: the reads go forward
    sims = index.rows(positions) @ query if len(positions) else np.zeros(0, dtype=np.float32)
    best: dict[int, float] = {}
    for cid, sim in zip((index.keys[positions] // MAX_WINDOWS).tolist(), sims.tolist(), strict=True):
        if sim > best.get(cid, -2.0):
            best[cid] = sim
    return sorted(best.items(), key=lambda kv: -kv[1])
