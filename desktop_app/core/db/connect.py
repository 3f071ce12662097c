"""Every connection is made here: sqlite-vec loaded, WAL, foreign keys, a busy timeout.

The standard library's sqlite3 cannot load extensions on every Python (pyenv and macOS system
builds lack enable_load_extension), so Trove uses sqlean-py: the same DB-API, a bundled SQLite with
FTS5, and extension loading that always works.
"""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Iterator
from pathlib import Path

import sqlean as sqlite3
import sqlite_vec

from desktop_app.core.db.textcodec import CodecConnection, decode_text
from desktop_app.core.errors import DatabaseLockedError, DiskFullError, KnownError
from desktop_app.core.log import get_logger

log = get_logger("db")

BUSY_TIMEOUT_MS = int(os.environ.get("TROVE_BUSY_TIMEOUT_MS", "10000"))
Error = sqlite3.Error
OperationalError = sqlite3.OperationalError
IntegrityError = sqlite3.IntegrityError


def connect(path: str | Path, *, readonly: bool = False, check_same_thread: bool = True) -> sqlite3.Connection:
    """Open the library database with Trove's pragmas and sqlite-vec loaded.

    Autocommit mode (isolation_level=None): writers open their own transactions with `transaction()`.
    """
    target = str(path)
    try:
        if readonly and target != ":memory:":
            conn = sqlite3.connect(f"file:{target}?mode=ro", uri=True, isolation_level=None,
                                   check_same_thread=check_same_thread, timeout=BUSY_TIMEOUT_MS / 1000,
                                   factory=CodecConnection)
        else:
            conn = sqlite3.connect(target, isolation_level=None, check_same_thread=check_same_thread,
                                   timeout=BUSY_TIMEOUT_MS / 1000, factory=CodecConnection)
        conn.text_factory = decode_text  # file names with undecodable bytes: see db/textcodec.py
        conn.enable_load_extension(True)
        sqlite_vec.load(conn)
        conn.enable_load_extension(False)
        conn.row_factory = sqlite3.Row
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA foreign_keys = ON")
        if not readonly and target != ":memory:":
            conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
    except sqlite3.DatabaseError as exc:
        raise translate_error(exc, target) from exc
    return conn


@contextlib.contextmanager
def transaction(conn: sqlite3.Connection, *, immediate: bool = True) -> Iterator[sqlite3.Connection]:
    """BEGIN (IMMEDIATE) … COMMIT, or ROLLBACK on any exception. Errors become KnownErrors where they are the environment's."""
    try:
        conn.execute("BEGIN IMMEDIATE" if immediate else "BEGIN")
    except sqlite3.DatabaseError as exc:
        raise translate_error(exc) from exc
    try:
        yield conn
        conn.execute("COMMIT")
    except BaseException as exc:
        with contextlib.suppress(sqlite3.Error):
            conn.execute("ROLLBACK")
        if isinstance(exc, sqlite3.DatabaseError):
            raise translate_error(exc) from exc
        raise


def translate_error(exc: Exception, where: str = "") -> Exception:
    """Map SQLite's environment failures to KnownErrors with a plain message; leave others alone."""
    text = str(exc).lower()
    place = f" ({where})" if where else ""
    if "locked" in text or "busy" in text:
        return DatabaseLockedError(f"The library database is locked by another program{place}; try again shortly.")
    if "disk is full" in text or "database or disk is full" in text or getattr(exc, "errno", None) == errno.ENOSPC:
        return DiskFullError(f"The disk holding the library is full{place}; free some space and try again.")
    if "disk i/o error" in text:
        return KnownError(f"The disk holding the library database reported an error{place} ({exc}).")
    if "not a database" in text or "malformed" in text:
        return KnownError(f"The library database is damaged{place} ({exc}). `trove repair` moves it aside "
                          "and rebuilds the index from your folders.")
    if "readonly" in text or "read-only" in text:
        return KnownError(f"The library database cannot be written{place} ({exc}): check the permissions of "
                          "the library folder and its files.")
    if "unable to open" in text:
        return KnownError(f"Cannot open the library database{place}: {exc}")
    return exc
