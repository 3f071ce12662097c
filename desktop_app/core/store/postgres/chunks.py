"""Inserting chunks on the server: rows in batches (each with its terms and language), the vectors a chunk brings
along, and the vectors an unchanged text already had (copied on the server, never re-embedded)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np
import psycopg

from desktop_app.core.embed.base import MAX_WINDOWS
from desktop_app.core.errors import KnownError
from desktop_app.core.store.postgres.keywords import chunk_terms
from desktop_app.core.store.rows import NewChunk, text_hash
from desktop_app.core.text import detect_language

BATCH = 256  # chunks per INSERT: a streamed big file is written in batches inside its one transaction
KEEP_CHARS = 64_000_000  # text of a streamed document kept to replay it if the connection drops mid-write


class Replay:
    """Chunks that a retried transaction can read again from the start: kept as they are read, up to KEEP_CHARS
    of text. A bigger document (a streamed text file) is read once; if the connection is lost while it is being
    written, `again()` raises and the next sync writes it anew."""

    def __init__(self, chunks: Iterable[NewChunk], lost: KnownError) -> None:
        self._source = iter(chunks)
        self._kept: list[NewChunk] = []
        self._chars = 0
        self._whole = True
        self._runs = 0
        self._lost = lost

    def again(self) -> Iterator[NewChunk]:
        """Every chunk from the first one (raises `lost` when they were not all kept)."""
        self._runs += 1
        if self._runs > 1 and not self._whole:
            raise self._lost
        return self._read(list(self._kept))

    def _read(self, kept: list[NewChunk]) -> Iterator[NewChunk]:
        yield from kept
        for chunk in self._source:
            if self._whole:
                self._chars += len(chunk.span.text)
                self._whole = self._chars <= KEEP_CHARS
                if self._whole:
                    self._kept.append(chunk)
                else:
                    self._kept.clear()
            yield chunk


def insert_chunks(conn: psycopg.Connection, doc_id: int, fts_title: str, chunks: Iterable[NewChunk],
                  reuse_from: Sequence[int] = (), first_ordinal: int = 0) -> int:
    """Insert chunks with their terms, in batches; a chunk whose text one of the `reuse_from` chunks had gets
    that chunk's vectors, one that brings its own (NewChunk.vectors) gets those. Returns how many were inserted."""
    count = 0
    batch: list[NewChunk] = []
    for chunk in chunks:
        batch.append(chunk)
        if len(batch) >= BATCH:
            _insert_batch(conn, doc_id, fts_title, batch, first_ordinal + count, reuse_from)
            count += len(batch)
            batch = []
    if batch:
        _insert_batch(conn, doc_id, fts_title, batch, first_ordinal + count, reuse_from)
        count += len(batch)
    return count


def _insert_batch(conn: psycopg.Connection, doc_id: int, fts_title: str, batch: list[NewChunk], first: int,
                  reuse_from: Sequence[int]) -> None:
    texts = [c.span.text for c in batch]
    columns = (list(range(first, first + len(batch))), [c.page for c in batch], [c.span.start for c in batch],
               [c.span.end for c in batch], texts, [text_hash(t) for t in texts],
               [chunk_terms(fts_title, t) for t in texts], [c.vectors is not None for c in batch],
               [detect_language(t) for t in texts], [c.label for c in batch], [bool(c.ocr) for c in batch])
    got = conn.execute(
        'INSERT INTO chunks (document_id, ordinal, page, start, "end", text, text_hash, terms, embedded, lang, label, '
        "ocr) SELECT %s, o, p, s, e, t, h, v::tsvector, b, l, a, r FROM unnest(%s::int[], %s::int[], %s::int[], "
        "%s::int[], %s::text[], %s::text[], %s::text[], %s::bool[], %s::text[], %s::text[], %s::bool[]) "
        "AS u(o, p, s, e, t, h, v, b, l, a, r) RETURNING id, ordinal", (doc_id, *columns)).fetchall()
    ids = [cid for cid, _ in sorted(got, key=lambda r: r[1])]
    given = [(cid, c.vectors) for cid, c in zip(ids, batch, strict=True) if c.vectors is not None]
    if given:
        insert_vectors(conn, given, fresh=True)
    if reuse_from:
        reuse_vectors(conn, reuse_from, ids)


def chunk_ids(conn: psycopg.Connection, doc_ids: Sequence[int]) -> list[int]:
    """The ids of these documents' chunks."""
    if not doc_ids:
        return []
    return [int(r[0]) for r in conn.execute("SELECT id FROM chunks WHERE document_id = ANY(%s)", (list(doc_ids),))]


def reuse_vectors(conn: psycopg.Connection, old_ids: Sequence[int], new_ids: Sequence[int]) -> None:
    """New chunks whose text an old chunk had take its vectors (copied on the server, never re-embedded)."""
    conn.execute(
        'INSERT INTO chunk_vectors (chunk_id, "window", embedding) '
        'SELECT DISTINCT ON (n.id, v."window") n.id, v."window", v.embedding FROM chunks n '
        "JOIN chunks o ON o.text_hash = n.text_hash AND o.id = ANY(%(old)s) AND o.embedded "
        "JOIN chunk_vectors v ON v.chunk_id = o.id WHERE n.id = ANY(%(new)s) AND NOT n.embedded "
        'ORDER BY n.id, v."window", o.id', {"old": list(old_ids), "new": list(new_ids)})
    conn.execute("UPDATE chunks SET embedded = true WHERE id = ANY(%s) AND NOT embedded AND EXISTS "
                 "(SELECT 1 FROM chunk_vectors v WHERE v.chunk_id = chunks.id)", (list(new_ids),))


def insert_vectors(conn: psycopg.Connection, items: Sequence[tuple[int, Any]], *, fresh: bool = False) -> None:
    """Store (chunk id, (windows, dim) matrix) vectors, replacing any a chunk had, and mark the chunks embedded
    (`fresh`: chunks inserted in this transaction as embedded, with no vectors yet)."""
    params = []
    for cid, vectors in items:
        matrix = np.asarray(vectors, dtype=np.float32)
        for window, vec in enumerate(matrix.reshape(-1, matrix.shape[-1])[:MAX_WINDOWS]):
            params.append((cid, window, vec))
    ids = [cid for cid, _ in items]
    if not fresh:
        conn.execute("DELETE FROM chunk_vectors WHERE chunk_id = ANY(%s)", (ids,))
    with conn.cursor() as cur:
        cur.executemany('INSERT INTO chunk_vectors (chunk_id, "window", embedding) VALUES (%s, %s, %s)', params)
    if not fresh:
        conn.execute("UPDATE chunks SET embedded = true WHERE id = ANY(%s)", (ids,))
