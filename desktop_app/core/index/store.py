"""SQL for the index. Every function takes an open connection; callers own transactions."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterable, Sequence, Sized
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from desktop_app.core.db.migrations import EMBED_DIM_DEFAULT, VECTORS_PER_CHUNK, create_vector_table, vector_rowid
from desktop_app.core.ingest.chunking import Span
from desktop_app.core.ingest.extract import index_title, title_from_path


@dataclass(frozen=True)
class DocRow:
    """What the sync needs to know about an indexed (or failed) file."""

    id: int
    folder_id: int
    path: str
    size: int
    mtime_ns: int
    content_hash: str
    status: str


@dataclass(frozen=True)
class NewChunk:
    """A chunk about to be written: its span, page and text."""

    span: Span
    page: int | None


def text_hash(text: str) -> str:
    """Content hash of a chunk's text (reuses vectors across edits and moves)."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def content_hash(data: bytes) -> str:
    """Content hash of a file's bytes."""
    return hashlib.blake2b(data, digest_size=20).hexdigest()


def add_folder(conn, path: str) -> int:
    """Insert a folder (or return the id it already has)."""
    row = conn.execute("SELECT id FROM folders WHERE path = ?", (path,)).fetchone()
    if row:
        return row[0]
    return conn.execute("INSERT INTO folders (path, state, added_at) VALUES (?, 'active', ?)", (path, time.time())).lastrowid


def delete_folder(conn, folder_id: int) -> int:
    """Purge a folder: its documents, chunks, FTS rows and vectors (the last two by trigger). Returns documents removed."""
    n = conn.execute("SELECT COUNT(*) FROM documents WHERE folder_id = ?", (folder_id,)).fetchone()[0]
    conn.execute("DELETE FROM chunks WHERE document_id IN (SELECT id FROM documents WHERE folder_id = ?)", (folder_id,))
    conn.execute("DELETE FROM documents WHERE folder_id = ?", (folder_id,))
    conn.execute("DELETE FROM folders WHERE id = ?", (folder_id,))
    return n


def documents_of_folder(conn, folder_id: int) -> dict[str, DocRow]:
    """Every document row of a folder, by path."""
    rows = conn.execute(
        "SELECT id, folder_id, path, size, mtime_ns, content_hash, status FROM documents WHERE folder_id = ?", (folder_id,)
    )
    return {r[2]: DocRow(*r) for r in rows}


def document_by_path(conn, path: str) -> DocRow | None:
    """The document row for one path, if any."""
    r = conn.execute(
        "SELECT id, folder_id, path, size, mtime_ns, content_hash, status FROM documents WHERE path = ?", (path,)
    ).fetchone()
    return DocRow(*r) if r else None


def delete_document(conn, doc_id: int) -> None:
    """Remove one document and everything derived from it."""
    conn.execute("DELETE FROM chunks WHERE document_id = ?", (doc_id,))
    conn.execute("DELETE FROM documents WHERE id = ?", (doc_id,))


def touch_document(conn, doc_id: int, size: int, mtime_ns: int) -> None:
    """Record new stat data for a file whose content did not change."""
    conn.execute("UPDATE documents SET size = ?, mtime_ns = ? WHERE id = ?", (size, mtime_ns, doc_id))


def chunk_vectors(conn, chunk_id: int) -> list[bytes]:
    """The stored window vectors of one chunk, in window order (point lookups: vec0 scans for ranges)."""
    out = []
    for w in range(VECTORS_PER_CHUNK):
        row = conn.execute("SELECT embedding FROM chunks_vec WHERE rowid = ?", (vector_rowid(chunk_id, w),)).fetchone()
        if row is None:
            break
        out.append(row[0])
    return out


def _old_vectors(conn, doc_id: int) -> dict[str, list[bytes]]:
    """Vectors of a document's current chunks, by chunk text hash (to reuse after an edit)."""
    rows = conn.execute("SELECT id, text_hash FROM chunks WHERE document_id = ? AND embedded = 1", (doc_id,)).fetchall()
    return {h: vecs for cid, h in rows if (vecs := chunk_vectors(conn, cid))}


def write_document(conn, *, folder_id: int, path: str, title: str, type_: str, size: int, mtime_ns: int,
                   digest: str, pages: int | None, chunks: Iterable[NewChunk]) -> int:
    """Replace whatever was stored for `path` with this extraction. Vectors of unchanged chunk texts are kept.

    `chunks` may be an iterator (a big text file streams through here); its count is recorded at the end.
    """
    declared = len(chunks) if isinstance(chunks, Sized) else None  # None: counted while inserting
    old = document_by_path(conn, path)
    reuse: dict[str, bytes] = {}
    now = time.time()
    if old:
        reuse = _old_vectors(conn, old.id)
        conn.execute("DELETE FROM chunks WHERE document_id = ?", (old.id,))
        conn.execute(
            "UPDATE documents SET folder_id=?, title=?, type=?, size=?, mtime_ns=?, content_hash=?, pages=?, "
            "status='indexed', error=NULL, chunk_count=?, indexed_at=? WHERE id=?",
            (folder_id, title, type_, size, mtime_ns, digest, pages, declared or 0, now, old.id),
        )
        doc_id = old.id
    else:
        doc_id = conn.execute(
            "INSERT INTO documents (folder_id, path, title, type, size, mtime_ns, content_hash, pages, status, "
            "chunk_count, indexed_at) VALUES (?,?,?,?,?,?,?,?, 'indexed', ?, ?)",
            (folder_id, path, title, type_, size, mtime_ns, digest, pages, declared or 0, now),
        ).lastrowid
    count = insert_chunks(conn, doc_id, index_title(title, Path(path)), chunks, reuse)
    if declared is None:
        conn.execute("UPDATE documents SET chunk_count = ? WHERE id = ?", (count, doc_id))
    return doc_id


def insert_chunks(conn, doc_id: int, fts_title: str, chunks: Iterable[NewChunk], reuse: dict[str, list[bytes]]) -> int:
    """Insert chunks with their FTS rows; a chunk whose text has known vectors gets them back at once.

    Returns how many were inserted."""
    ordinal = -1
    for ordinal, chunk in enumerate(chunks):
        h = text_hash(chunk.span.text)
        blobs = reuse.get(h)
        cid = conn.execute(
            "INSERT INTO chunks (document_id, ordinal, page, start, end, text, text_hash, embedded) VALUES (?,?,?,?,?,?,?,?)",
            (doc_id, ordinal, chunk.page, chunk.span.start, chunk.span.end, chunk.span.text, h, 1 if blobs else 0),
        ).lastrowid
        conn.execute("INSERT INTO chunks_fts (rowid, title, text) VALUES (?, ?, ?)", (cid, fts_title, chunk.span.text))
        _insert_windows(conn, cid, blobs or [])
    return ordinal + 1


def _insert_windows(conn, chunk_id: int, blobs: Sequence[bytes]) -> None:
    for w, blob in enumerate(blobs[:VECTORS_PER_CHUNK]):
        conn.execute("INSERT INTO chunks_vec (rowid, embedding) VALUES (?, ?)", (vector_rowid(chunk_id, w), blob))


def record_failure(conn, *, folder_id: int, path: str, title: str, type_: str, size: int, mtime_ns: int,
                   digest: str, reason: str) -> None:
    """Mark a file as failed with a reason; it is retried only when it changes."""
    old = document_by_path(conn, path)
    now = time.time()
    if old:
        conn.execute("DELETE FROM chunks WHERE document_id = ?", (old.id,))
        conn.execute(
            "UPDATE documents SET folder_id=?, title=?, type=?, size=?, mtime_ns=?, content_hash=?, pages=NULL, "
            "status='failed', error=?, chunk_count=0, indexed_at=? WHERE id=?",
            (folder_id, title, type_, size, mtime_ns, digest, reason, now, old.id),
        )
    else:
        conn.execute(
            "INSERT INTO documents (folder_id, path, title, type, size, mtime_ns, content_hash, status, error, indexed_at) "
            "VALUES (?,?,?,?,?,?,?, 'failed', ?, ?)",
            (folder_id, path, title, type_, size, mtime_ns, digest, reason, now),
        )


def move_document(conn, doc_id: int, *, folder_id: int, new_path: str, size: int, mtime_ns: int) -> None:
    """A file moved or was renamed: keep its chunks and vectors, update the path and the FTS title.

    A title that came from the old file name follows the new name; one from the content (a heading) stays.
    """
    old_path, title = conn.execute("SELECT path, title FROM documents WHERE id = ?", (doc_id,)).fetchone()
    if title == title_from_path(Path(old_path)):
        title = title_from_path(Path(new_path))
    conn.execute(
        "UPDATE documents SET folder_id=?, path=?, title=?, size=?, mtime_ns=? WHERE id=?",
        (folder_id, new_path, title, size, mtime_ns, doc_id),
    )
    fts_title = index_title(title, Path(new_path))
    for cid, text in conn.execute("SELECT id, text FROM chunks WHERE document_id = ?", (doc_id,)).fetchall():
        conn.execute("DELETE FROM chunks_fts WHERE rowid = ?", (cid,))
        conn.execute("INSERT INTO chunks_fts (rowid, title, text) VALUES (?, ?, ?)", (cid, fts_title, text))


def pending_chunks(conn, limit: int, after_id: int = 0) -> list[tuple[int, str, str]]:
    """(chunk id, text hash, text) of chunks that have no vector yet, in id order."""
    return conn.execute(
        "SELECT id, text_hash, text FROM chunks WHERE embedded = 0 AND id > ? ORDER BY id LIMIT ?", (after_id, limit)
    ).fetchall()


def store_vectors(conn, items: Iterable[tuple[int, str, np.ndarray]]) -> int:
    """Write each chunk's window vectors ((windows, dim) arrays) for chunks that still exist with the same text.

    Returns how many chunks got vectors.
    """
    stored = 0
    for cid, h, vecs in items:
        row = conn.execute("SELECT text_hash, embedded FROM chunks WHERE id = ?", (cid,)).fetchone()
        if row is None or row[0] != h:
            continue  # the chunk was replaced while it was being embedded
        if row[1]:
            for w in range(VECTORS_PER_CHUNK):
                conn.execute("DELETE FROM chunks_vec WHERE rowid = ?", (vector_rowid(cid, w),))
        matrix = np.asarray(vecs, dtype=np.float32).reshape(-1, np.shape(vecs)[-1])
        _insert_windows(conn, cid, [v.tobytes() for v in matrix])
        conn.execute("UPDATE chunks SET embedded = 1 WHERE id = ?", (cid,))
        stored += 1
    return stored


def get_meta(conn, key: str, default: str | None = None) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return row[0] if row else default


def set_meta(conn, key: str, value: str) -> None:
    conn.execute("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", (key, value))


def ensure_embedding_model(conn, model_id: str, dim: int) -> bool:
    """Vectors of two models never mix: a different model (or size) drops every vector for re-embedding.

    Returns True when the vectors were reset.
    """
    model, old_dim = get_meta(conn, "embed_model"), get_meta(conn, "embed_dim")
    if model == model_id and old_dim == str(dim):
        return False
    if model is not None or old_dim not in (None, str(dim)) or dim != EMBED_DIM_DEFAULT:
        create_vector_table(conn, dim)
    set_meta(conn, "embed_model", model_id)
    set_meta(conn, "embed_dim", str(dim))
    return True
