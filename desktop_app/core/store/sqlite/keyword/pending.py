"""Keyword rows of a write batch, inserted together just before it commits.

FTS5 moves the terms it holds in memory into a new segment of its index at every SAVEPOINT. A batch of small
files writes each file in a SAVEPOINT of its own (each all-or-nothing), so rows inserted as each file is written
made one tiny segment per file, and the merges of those: most of the keyword phase's SQL time. Queued here
instead, a batch's rows go in with one statement after its last SAVEPOINT, as one segment.

A file whose SAVEPOINT rolls back takes its queued rows with it (`rolled_back`). The last row queued for a chunk
wins, and rows of chunks deleted later in the batch are dropped, so what is inserted is what a row-at-a-time
write would have left. Outside a batch nothing is queued: rows are written at once.
"""

from __future__ import annotations

import json

from desktop_app.core import text as tp
from desktop_app.core.store.sqlite.connect import Connection
from desktop_app.core.store.sqlite.side import bump_keyword_generation

_ATTR = "pending_keyword_rows"
INSERT = tp.fts5_insert("chunks_fts")


def write_row(conn: Connection, chunk_id: int, fts_title: str, text: str, *, fresh: bool = False) -> None:
    """(Re)write one chunk's keyword row (`fresh`: a chunk just inserted, which has none: a deleted chunk's row
    goes with it, by trigger). In a write batch the row is queued until the batch commits. The caller bumps the
    keyword generation (bump_keyword_generation), once for all the rows of its transaction."""
    fields = tp.index_fields(fts_title, text)
    if not fresh:
        conn.execute("DELETE FROM chunks_fts WHERE rowid = ?", (chunk_id,))
    row = (chunk_id, *(fields[c] for c in tp.FTS5_COLUMNS))
    if not queue(conn, row):
        conn.execute(INSERT, row)


def start(conn: Connection) -> None:
    """Queue keyword rows written on `conn` from now until `flush`."""
    setattr(conn, _ATTR, [])


def queue(conn: Connection, row: tuple) -> bool:
    """Queue one row (chunk id first) when a batch is open; False when it must be written now."""
    pending: list[tuple] | None = getattr(conn, _ATTR, None)
    if pending is None:
        return False
    pending.append(row)
    return True


def queueing(conn: Connection) -> bool:
    """Whether keyword rows written on `conn` are queued (a batch is open)."""
    return getattr(conn, _ATTR, None) is not None


def mark(conn: Connection) -> int:
    """Where the queue stands (to roll back to)."""
    pending: list[tuple] | None = getattr(conn, _ATTR, None)
    return len(pending) if pending is not None else 0


def rolled_back(conn: Connection, to: int) -> None:
    """Forget the rows queued since `mark` returned `to` (their SAVEPOINT rolled back)."""
    pending: list[tuple] | None = getattr(conn, _ATTR, None)
    if pending is not None:
        del pending[to:]


def flush(conn: Connection) -> int:
    """Insert the queued rows (of chunks still there, the last row of each), bump the keyword generation, and stop
    queueing. Returns how many went in."""
    pending: list[tuple] | None = getattr(conn, _ATTR, None)
    setattr(conn, _ATTR, None)
    if not pending:
        return 0
    rows = {row[0]: row for row in pending}
    live = {cid for (cid,) in conn.execute("SELECT id FROM chunks WHERE id IN (SELECT value FROM json_each(?))",
                                           (json.dumps(list(rows)),))}
    keep = [row for cid, row in rows.items() if cid in live]
    conn.executemany(INSERT, keep)
    bump_keyword_generation(conn)
    return len(keep)


def stop(conn: Connection) -> None:
    """Stop queueing and forget what was queued (the batch rolled back whole)."""
    setattr(conn, _ATTR, None)
