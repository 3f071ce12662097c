"""Folders, library meta and counts: the SQL of the SQLite engine's small tables."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from desktop_app.core.errors import KnownError
from desktop_app.core.store.rows import Failure, FolderCounts, FolderRow, FolderState, Share
from desktop_app.core.store.sqlite.base import SQLiteBase
from desktop_app.core.store.sqlite.connect import Connection

_FOLDER = "SELECT id, path, state, added_at, last_scan FROM folders"
# An embedded library is one person's: there is no one to share a folder with or hide it from.
ONE_PERSON = ("Sharing applies to a team library on a server; this library is on this computer only, "
              "so it has no one else to show or hide a folder from.")


def _folder(row: Any) -> FolderRow:
    return FolderRow(int(row[0]), row[1], FolderState(row[2]), row[3] or 0.0, row[4])


class FolderSQL(SQLiteBase):
    """Meta, folders and counts."""

    def get_meta(self, key: str, default: str | None = None) -> str | None:
        """A library-wide value the index depends on."""
        row = self._read(lambda c: c.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone())
        return row[0] if row else default

    def set_meta(self, key: str, value: str | None) -> None:
        """Set (or with None, remove) a meta value."""
        def work(conn: Connection) -> None:
            if value is None:
                conn.execute("DELETE FROM meta WHERE key = ?", (key,))
            else:
                conn.execute("INSERT INTO meta (key, value) VALUES (?, ?) "
                             "ON CONFLICT(key) DO UPDATE SET value = excluded.value", (key, value))
        self._write(work)

    def add_folder(self, path: str, share: Share | None = None) -> FolderRow:
        """Insert a folder as active, or return the row it already has (`share` is refused: one person)."""
        if share is not None:
            raise KnownError(ONE_PERSON)

        def work(conn: Connection) -> FolderRow:
            row = conn.execute(_FOLDER + " WHERE path = ?", (path,)).fetchone()
            if row is None:
                conn.execute("INSERT INTO folders (path, state, added_at) VALUES (?, ?, ?)",
                             (path, FolderState.ACTIVE.value, time.time()))
                row = conn.execute(_FOLDER + " WHERE path = ?", (path,)).fetchone()
            return _folder(row)
        return self._write(work)

    def set_folder_share(self, folder_id: int, share: Share) -> FolderRow:
        """Refused: an embedded library has one person."""
        raise KnownError(ONE_PERSON)

    def default_share(self) -> Share:
        """Private: an embedded library is one person's."""
        return Share("private")

    def set_default_share(self, share: Share) -> None:
        """Refused: an embedded library has one person."""
        raise KnownError(ONE_PERSON)

    def folders(self) -> list[FolderRow]:
        """Every folder, by path."""
        rows = self._read(lambda c: c.execute(_FOLDER + " ORDER BY path").fetchall())
        return [_folder(r) for r in rows]

    def folder(self, folder_id: int) -> FolderRow | None:
        """One folder by id."""
        row = self._read(lambda c: c.execute(_FOLDER + " WHERE id = ?", (folder_id,)).fetchone())
        return _folder(row) if row else None

    def folder_ids(self, paths: Sequence[str]) -> tuple[int, ...]:
        """Ids of the library folders among `paths`."""
        if not paths:
            return ()
        rows = self._read(lambda c: c.execute(f"SELECT id FROM folders WHERE path IN ({','.join('?' * len(paths))})",
                                              list(paths)).fetchall())
        return tuple(int(r[0]) for r in rows)

    def set_folder_state(self, folder_id: int, state: FolderState) -> None:
        """Record a folder's state."""
        self._write(lambda c: c.execute(
            "UPDATE folders SET state = ? WHERE id = ?", (FolderState(state).value, folder_id)))

    def mark_scanned(self, folder_id: int, when: float) -> None:
        """Record the end of a full reconcile."""
        self._write(lambda c: c.execute(
            "UPDATE folders SET last_scan = ? WHERE id = ?", (when, folder_id)))

    def delete_folder(self, folder_id: int) -> int:
        """Purge a folder: documents, chunks, FTS rows and vectors (the last two by trigger)."""
        def work(conn: Connection) -> int:
            n = conn.execute("SELECT COUNT(*) FROM documents WHERE folder_id = ?", (folder_id,)).fetchone()[0]
            conn.execute("DELETE FROM chunks WHERE document_id IN (SELECT id FROM documents WHERE folder_id = ?)",
                         (folder_id,))
            conn.execute("DELETE FROM documents WHERE folder_id = ?", (folder_id,))
            conn.execute("DELETE FROM folders WHERE id = ?", (folder_id,))
            return int(n)
        return self._write(work)

    def counts(self, folder_id: int | None = None) -> FolderCounts:
        """Documents, failures, chunks, embedded chunks and pages waiting for OCR, of one folder (None: all).

        The first three are kept per folder and type by triggers (migration 011); embedded chunks are the chunks
        less those waiting (a partial index holds only those), so nothing here reads every chunk."""
        def work(conn: Connection) -> FolderCounts:
            where, args = ("WHERE folder_id = ?", (folder_id,)) if folder_id is not None else ("", ())
            docs, failed, chunks = conn.execute(
                f"SELECT SUM(documents), SUM(failed), SUM(chunks) FROM doc_counts {where}", args).fetchone()
            if folder_id is None:
                waiting = conn.execute("SELECT COUNT(*) FROM chunks WHERE embedded = 0").fetchone()[0]
                ocr = conn.execute("SELECT COUNT(*) FROM ocr_pages WHERE status = 'pending'").fetchone()[0]
            else:
                # CROSS JOIN: from the waiting rows (partial indexes) to their documents, never the other way
                waiting = conn.execute("SELECT COUNT(*) FROM chunks c CROSS JOIN documents d ON d.id = c.document_id "
                                       "WHERE c.embedded = 0 AND d.folder_id = ?", args).fetchone()[0]
                ocr = conn.execute("SELECT COUNT(*) FROM ocr_pages o CROSS JOIN documents d ON d.id = o.document_id "
                                   "WHERE o.status = 'pending' AND d.folder_id = ?", args).fetchone()[0]
            chunks = int(chunks or 0)
            return FolderCounts(int(docs or 0), int(failed or 0), chunks, chunks - int(waiting), int(ocr or 0))
        return self._read(work)

    def folder_has_documents(self, folder_id: int) -> bool:
        """Whether anything was ever indexed (or failed) from the folder."""
        return self._read(lambda c: c.execute(
            "SELECT 1 FROM documents WHERE folder_id = ? LIMIT 1", (folder_id,)).fetchone() is not None)

    def failures(self) -> list[Failure]:
        """Every failed file with its reason, by path."""
        rows = self._read(lambda c: c.execute(
            "SELECT path, error FROM documents WHERE status = 'failed' ORDER BY path").fetchall())
        return [Failure(r[0], r[1] or "") for r in rows]
