"""Inserting chunks: the row, its keyword row, and the vectors an unchanged text already had."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from desktop_app.core.store.rows import NewChunk, text_hash
from desktop_app.core.store.sqlite.connect import Connection
from desktop_app.core.store.sqlite.keyword import pending as pending_keywords
from desktop_app.core.store.sqlite.side import bump_keyword_generation
from desktop_app.core.store.sqlite.vectors import insert_windows
from desktop_app.core.text import detect_language


def insert_chunks(conn: Connection, doc_id: int, fts_title: str, chunks: Iterable[NewChunk],
                  reuse: dict[str, list[bytes]], first_ordinal: int = 0) -> int:
    """Insert chunks with their FTS rows; a chunk whose text has known vectors (or that brings its own) gets them
    at once. Returns how many were inserted."""
    count = 0
    for ordinal, chunk in enumerate(chunks, start=first_ordinal):
        count += 1
        h = text_hash(chunk.span.text)
        blobs = reuse.get(h) or given_vectors(chunk)
        cid = int(conn.execute(
            "INSERT INTO chunks (document_id, ordinal, page, start, end, text, text_hash, embedded, lang, label, ocr) "
            "VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            (doc_id, ordinal, chunk.page, chunk.span.start, chunk.span.end, chunk.span.text, h, 1 if blobs else 0,
             detect_language(chunk.span.text), chunk.label, int(chunk.ocr))).lastrowid)
        pending_keywords.write_row(conn, cid, fts_title, chunk.span.text, fresh=True)
        insert_windows(conn, cid, blobs or [])
    if count and not pending_keywords.queueing(conn):  # queued rows bump it when they go in
        bump_keyword_generation(conn)
    return count


def given_vectors(chunk: NewChunk) -> list[bytes]:
    """Vectors a chunk brings along (copied from another library), as float32 blobs."""
    if chunk.vectors is None:
        return []
    matrix = np.asarray(chunk.vectors, dtype=np.float32)
    return [v.tobytes() for v in matrix.reshape(-1, matrix.shape[-1])]
