"""The OCR phase's work list in the SQLite engine: pages with no text layer, read one by one in the background.

A page's row keeps what OCR read, with the hash of the file it was read from. When an unchanged file is written
again (a reindex after a chunking change), its pages come back pending WITH their text, so the OCR worker only
re-chunks them; a page that could not be read stays failed until the file changes. A read page keeps OCR's words
with their boxes (`words`, core/ocr/words.py), for the viewer to highlight a passage on the scan.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from desktop_app.core.ingest.extract import index_title
from desktop_app.core.store.rows import Failure, NewChunk, OcrCounts, OcrPageRef, OcrTask
from desktop_app.core.store.sqlite.base import SQLiteBase
from desktop_app.core.store.sqlite.chunks import insert_chunks
from desktop_app.core.store.sqlite.connect import Connection


def list_ocr_pages(conn: Connection, doc_id: int, file_hash: str, pages: Sequence[OcrPageRef]) -> None:
    """Replace a document's OCR work list (inside the caller's transaction), keeping what OCR read of this file."""
    known = {r[0]: (r[1], r[2], r[3], r[4], r[5]) for r in conn.execute(
        "SELECT page, status, text, confidence, reason, words FROM ocr_pages WHERE document_id = ? AND file_hash = ?",
        (doc_id, file_hash))}
    conn.execute("DELETE FROM ocr_pages WHERE document_id = ?", (doc_id,))
    for ref in pages:
        status, text, confidence, reason, words = known.get(
            ref.page, (ref.status, ref.text, ref.confidence, ref.reason, ref.words))
        if status == "done" and ref.status != "done":
            status = "pending"  # its text is known: the worker re-chunks it without OCR (a copy brings its chunks)
        conn.execute("INSERT INTO ocr_pages (document_id, page, label, file_hash, status, text, confidence, reason, "
                     "words) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                     (doc_id, ref.page, ref.label, file_hash, status, text, confidence, reason, words))


class OcrSQL(SQLiteBase):
    """Pages waiting for OCR, and writing what OCR read."""

    def pending_ocr(self, limit: int, after: tuple[int, int] = (0, 0)) -> list[OcrTask]:
        """Pages waiting for OCR after (document id, page), of the oldest documents first."""
        rows = self._read(lambda c: c.execute(
            "SELECT o.document_id, d.path, d.type, o.file_hash, o.page, o.label, o.text FROM ocr_pages o "
            "JOIN documents d ON d.id = o.document_id WHERE o.status = 'pending' "
            "AND (o.document_id, o.page) > (?, ?) ORDER BY o.document_id, o.page LIMIT ?",
            (after[0], after[1], int(limit))).fetchall())
        return [OcrTask(int(r[0]), r[1], r[2], r[3], int(r[4]), r[5], r[6]) for r in rows]

    def store_ocr_page(self, task: OcrTask, chunks: Sequence[NewChunk], *, text: str, confidence: float,
                       reason: str, words: str | None = None) -> bool:
        """Write one page's OCR outcome and its chunks in one transaction (`words`: OCR's words with their boxes; None
        keeps what the row holds: a re-chunked page's). False (nothing written) when the document changed or went
        away meanwhile."""
        def work(conn: Connection) -> bool:
            row = conn.execute("SELECT d.content_hash, d.title, d.path, o.status FROM documents d JOIN ocr_pages o "
                               "ON o.document_id = d.id WHERE d.id = ? AND o.page = ?",
                               (task.document_id, task.page)).fetchone()
            if row is None or row[0] != task.file_hash or row[3] != "pending":
                return False
            if chunks:
                first = conn.execute("SELECT COALESCE(MAX(ordinal), -1) + 1 FROM chunks WHERE document_id = ?",
                                     (task.document_id,)).fetchone()[0]
                insert_chunks(conn, task.document_id, index_title(row[1], Path(row[2])), chunks, {}, int(first))
                conn.execute("UPDATE documents SET chunk_count = chunk_count + ? WHERE id = ?",
                             (len(chunks), task.document_id))
            conn.execute("UPDATE ocr_pages SET status = ?, text = ?, confidence = ?, reason = ?, "
                         "words = COALESCE(?, words) WHERE document_id = ? AND page = ?",
                         ("done" if chunks else "failed", text or None, confidence, reason or None, words,
                          task.document_id, task.page))
            return True
        return bool(self._write(work, derived=True))

    def ocr_words(self, path: str, page: int) -> str | None:
        """The words OCR read on page `page` of the file at `path`, with their boxes (None: the page was not read by
        OCR, or before words were kept)."""
        row = self._read(lambda c: c.execute(
            "SELECT o.words FROM ocr_pages o JOIN documents d ON d.id = o.document_id "
            "WHERE d.path = ? AND o.page = ? AND o.status = 'done'", (path, int(page))).fetchone())
        return row[0] if row else None

    def ocr_counts(self) -> OcrCounts:
        """Pages waiting for OCR, read, and unreadable."""
        rows = self._read(lambda c: c.execute("SELECT status, COUNT(*) FROM ocr_pages GROUP BY status").fetchall())
        counts = dict(rows)
        return OcrCounts(int(counts.get("pending", 0)), int(counts.get("done", 0)), int(counts.get("failed", 0)))

    def ocr_failures(self) -> list[Failure]:
        """Pages OCR could not read, named "path (page)" with the reason."""
        rows = self._read(lambda c: c.execute(
            "SELECT d.path, o.label, o.page, o.reason FROM ocr_pages o JOIN documents d ON d.id = o.document_id "
            "WHERE o.status = 'failed' ORDER BY d.path, o.page").fetchall())
        return [Failure(f"{r[0]} ({r[1] or f'p. {r[2]}'})", r[3] or "") for r in rows]
