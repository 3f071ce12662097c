"""Copies of the library database: SQLite's online backup API, and what a copy holds (schema, model, counts).

A copy is made from a read connection in one backup step: that step reads one snapshot of the database (WAL lets the
writer go on meanwhile), so the copy is consistent however busy the indexer is. core/backup.py puts the copy in a
backup file; upgrade_snapshot.py keeps one before a migration.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path

import sqlean as sqlite3

from desktop_app.core.store.sqlite.connect import Connection, connect, translate_error

# What a backup's manifest counts, table by table (tables a schema does not have yet count 0).
COUNTED = ("folders", "documents", "chunks", "chats", "messages", "memory_facts")


@dataclass(frozen=True)
class CopyFacts:
    """What a database copy holds: its schema version, the embedding model of its vectors, and row counts."""

    schema_version: int
    embedder: str
    counts: dict[str, int]


def copy_database(source: Connection, dest: Path) -> None:
    """Write a consistent copy of `source`'s database to a new file `dest` (one backup step: one snapshot)."""
    target = sqlite3.connect(str(dest))
    try:
        source.backup(target)  # pages=-1: every page in one step, inside one read transaction
        target.execute("PRAGMA journal_mode = DELETE")  # the copy is one self-contained file, no -wal
    except sqlite3.Error as exc:
        raise translate_error(exc, str(dest)) from exc
    finally:
        target.close()


def self_contained(db_path: Path) -> None:
    """Turn a closed library file made for a backup (a team library's copy) into one file with no -wal: the
    rollback journal mode folds the -wal in and removes it and the -shm."""
    conn = sqlite3.connect(str(db_path))
    try:
        conn.execute("PRAGMA journal_mode = DELETE")
    except sqlite3.Error as exc:
        raise translate_error(exc, str(db_path)) from exc
    finally:
        conn.close()


def copy_facts(db_path: Path) -> CopyFacts:
    """Schema version, embedding model and row counts of a database copy (opened read-only)."""
    conn = connect(db_path, readonly=True)
    try:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        version = conn.execute("SELECT MAX(id) FROM migrations").fetchone()[0] if "migrations" in tables else 0
        model = (conn.execute("SELECT value FROM meta WHERE key = 'embed_model'").fetchone()
                 if "meta" in tables else None)
        counts = {name: (conn.execute(f"SELECT COUNT(*) FROM {name}").fetchone()[0] if name in tables else 0)
                  for name in COUNTED}
    except sqlite3.Error as exc:
        raise translate_error(exc, str(db_path)) from exc
    finally:
        conn.close()
    return CopyFacts(int(version or 0), str(model[0]) if model else "", counts)


def integrity(db_path: Path) -> str:
    """'ok', or the first problem SQLite's quick check finds in a database copy (or why it cannot be read)."""
    try:
        conn = connect(db_path, readonly=True)
    except Exception as exc:  # noqa: BLE001 -- any failure to open is the answer
        return str(exc)
    try:
        rows = [r[0] for r in conn.execute("PRAGMA quick_check(1)")]
    except sqlite3.Error as exc:
        return str(exc)
    finally:
        conn.close()
    return "ok" if rows == ["ok"] else "; ".join(rows)


def checkpoint(db_path: Path) -> None:
    """Fold a closed library's -wal into its file (before the file is moved aside, so the file alone is whole).
    Best effort: a library that cannot be opened is moved as it is, with its -wal beside it."""
    if not db_path.exists():
        return
    with contextlib.suppress(Exception):
        conn = sqlite3.connect(str(db_path))
        try:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            conn.close()


def database_bytes(db_path: Path) -> int:
    """The size of a library file with its -wal (what a copy of it needs at most)."""
    total = 0
    for suffix in ("", "-wal"):
        with contextlib.suppress(OSError):
            total += os.stat(str(db_path) + suffix).st_size
    return total
