"""What the SQLite engine feeds its side indexes (store/side/): the generation counters in meta that writes bump,
and every vector and chunk row read from one snapshot of the library database.

The indexes themselves (their files, their search, when one is rebuilt) are the shared side/ package; what they
are made from is this engine's SQL, so it lives here (postgres/side.py is the team engine's counterpart).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from desktop_app.core.store.side import keyword_index as ki
from desktop_app.core.store.side import vector_index as vi
from desktop_app.core.store.sqlite.connect import Connection, connect

_VECTOR_BATCH = 50_000
# A document's date: its own, else its file's modified day (UTC); the path below its library folder, where a tag is
# also a folder name (lower() folds ASCII only). The query language's filters (keyword/fts5.py) and the keyword side
# index's rows read them alike.
DOC_DATE = "COALESCE(d.doc_date, date(d.mtime_ns / 1000000000, 'unixepoch'))"
BELOW_FOLDER = "lower(substr(d.path, length((SELECT f.path FROM folders f WHERE f.id = d.folder_id)) + 1))"
_ROW_BATCH = 5_000


def counter(conn: Connection, key: str) -> int:
    """A generation counter in meta (0 before the first bump)."""
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return int(row[0]) if row else 0


def bump(conn: Connection, key: str) -> None:
    """Add one to a generation counter in meta, inside the writing transaction: side indexes built before are stale."""
    conn.execute("INSERT INTO meta (key, value) VALUES (?, '1') "
                 "ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1", (key,))


# ---- vectors ---------------------------------------------------------------------------------------------------


def vector_generation(conn: Connection) -> int:
    return counter(conn, "vec_generation")


def bump_generation(conn: Connection) -> None:
    """Record that stored vectors changed (inside the writing transaction): side indexes built before are stale."""
    bump(conn, "vec_generation")


def vector_count(conn: Connection) -> int:
    return int(conn.execute("SELECT COUNT(*) FROM chunks_vec_rowids").fetchone()[0])


@contextmanager
def database_vectors(db_path: Path, dim: int) -> Iterator[tuple[int, int, Iterator[vi.Batch]]]:
    """(the vector generation, the vector count, batches of every stored vector) from one read snapshot."""
    conn = connect(db_path, readonly=True, check_same_thread=False)
    try:
        conn.execute("BEGIN")  # one snapshot: the generation read belongs to the vectors read
        generation, total = vector_generation(conn), vector_count(conn)
        cursor = conn.execute("SELECT rowid, embedding FROM chunks_vec")

        def batches() -> Iterator[vi.Batch]:
            while rows := cursor.fetchmany(_VECTOR_BATCH):
                yield (np.fromiter((r[0] for r in rows), dtype=np.uint64, count=len(rows)),
                       b"".join(r[1] for r in rows))
        yield generation, total, batches()
        conn.execute("COMMIT")
    finally:
        conn.close()


class DatabaseVectors(vi.VectorIndex):
    """The vector side index of a library database, beside it (`db_path`)."""

    def generation(self, conn: Connection) -> int:
        return vector_generation(conn)

    def count(self, conn: Connection) -> int:
        return vector_count(conn)

    def build(self) -> tuple[vi.Loaded, int]:
        return vi.build_index(self.path(), self.dim, lambda: database_vectors(self.db_path, self.dim))


# ---- keywords --------------------------------------------------------------------------------------------------


def keyword_generation(conn: Connection) -> int:
    return counter(conn, "kw_generation")


def bump_keyword_generation(conn: Connection) -> None:
    """Record that keyword rows changed (inside the writing transaction): a keyword side index is stale."""
    bump(conn, "kw_generation")


@contextmanager
def database_rows(db_path: Path) -> Iterator[tuple[int, Iterator[Sequence[ki.Row]]]]:
    """The keyword generation and every chunk's row, from one read snapshot of the library database."""
    conn = connect(db_path, readonly=True, check_same_thread=False)
    try:
        conn.execute("BEGIN")  # one snapshot: the generation read belongs to the rows read
        generation = keyword_generation(conn)
        cursor = conn.execute(f"SELECT c.id, c.text, d.title, d.path, d.folder_id, d.type, c.lang, {DOC_DATE}, d.tags, "
                              f"{BELOW_FOLDER} FROM chunks c JOIN documents d ON d.id = c.document_id")
        yield generation, iter(lambda: cursor.fetchmany(_ROW_BATCH), [])
        conn.execute("COMMIT")
    finally:
        conn.close()


class DatabaseKeywords(ki.KeywordIndex):
    """The keyword side index of a library database, beside it (`db_path`)."""

    def generation(self, conn: Connection) -> int:
        return keyword_generation(conn)

    def count(self, conn: Connection) -> int:
        return int(conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0])

    def build(self) -> tuple[ki.Keywords, int]:
        return ki.build_index(self.path(), lambda: database_rows(self.db_path), terms=True,  # bm25() rescoring's
                              documents=True)  # migration 016 counts date, tag and path changes
