"""Every SQLite connection is made here: sqlite-vec loaded, WAL (a rollback journal on a network drive), foreign
keys, a busy timeout.

The standard library's sqlite3 cannot load extensions on every Python (pyenv and macOS system
builds lack enable_load_extension), so Trove uses sqlean-py: the same DB-API, a bundled SQLite with
FTS5, and extension loading that always works.
"""

from __future__ import annotations

import contextlib
import os
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import sqlean as sqlite3
import sqlite_vec

from desktop_app.core.errors import (
    CorruptDatabaseError,
    DatabaseLockedError,
    DiskFullError,
    KnownError,
    ReadOnlyDatabaseError,
)
from desktop_app.core.log import get_logger
from desktop_app.core.paths import create_private
from desktop_app.core.store.sqlite.network_drive import journal_mode
from desktop_app.core.store.sqlite.textcodec import CodecConnection, text_from_db

log = get_logger("db")

BUSY_TIMEOUT_MS = int(os.environ.get("TROVE_BUSY_TIMEOUT_MS", "10000"))
Connection = sqlite3.Connection
Error = sqlite3.Error
OperationalError = sqlite3.OperationalError
IntegrityError = sqlite3.IntegrityError

# Primary result codes (https://sqlite.org/rescode.html); extended codes keep these in their low byte.
SQLITE_PERM, SQLITE_BUSY, SQLITE_LOCKED, SQLITE_READONLY, SQLITE_IOERR = 3, 5, 6, 8, 10
SQLITE_CORRUPT, SQLITE_FULL, SQLITE_CANTOPEN, SQLITE_NOTADB = 11, 13, 14, 26


def connect(path: str | Path, *, readonly: bool = False, check_same_thread: bool = True) -> sqlite3.Connection:
    """Open the library database with Trove's pragmas and sqlite-vec loaded.

    Autocommit mode (isolation_level=None): writers open their own transactions with `transaction()`.
    """
    target = str(path)
    try:
        if readonly and target != ":memory:":
            conn = _connect_read_only(target, check_same_thread)
        else:
            if target != ":memory:":
                create_private(Path(target))  # 0600; SQLite gives the -wal and -shm files the same mode
            conn = sqlite3.connect(target, isolation_level=None, check_same_thread=check_same_thread,
                                   timeout=BUSY_TIMEOUT_MS / 1000, factory=CodecConnection)
        conn.text_factory = text_from_db  # file names with undecodable bytes: see textcodec.py
        conn.enable_load_extension(True)
        sqlite_vec.load(conn)
        conn.enable_load_extension(False)
        conn.row_factory = sqlite3.Row
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA foreign_keys = ON")
        wanted = journal_mode(target) if not readonly and target != ":memory:" else ""
        if wanted:  # WAL, or a rollback journal on a network drive (network_drive.py)
            got = conn.execute(f"PRAGMA journal_mode = {wanted}").fetchone()[0]
            if got.upper() != wanted:  # leaving WAL needs the only connection: another program has it open
                log.warning("%s kept journal mode %s (wanted %s): another program has it open", target, got, wanted)
        # NORMAL is safe with WAL; a rollback journal needs FULL to survive a power cut (sqlite.org/pragma.html)
        conn.execute(f"PRAGMA synchronous = {'FULL' if wanted == 'DELETE' else 'NORMAL'}")
    except sqlite3.Error as exc:
        raise translate_error(exc, target) from exc
    return conn


def _connect_read_only(target: str, check_same_thread: bool) -> sqlite3.Connection:
    """A read-only connection (mode=ro). When that cannot open the file because its folder cannot be written either
    (a WAL library on a read-only mount: no -shm can be made; measured, docs/reliability.md), the file is opened as
    immutable: SQLite then takes no locks and reads no -wal, which is safe only because nobody can write there."""
    uri = "file:" + urllib.parse.quote(target, errors="surrogateescape") + "?mode=ro"  # %-escaped: ?, # in names
    conn = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=check_same_thread,
                           timeout=BUSY_TIMEOUT_MS / 1000, factory=CodecConnection)
    try:
        conn.execute("SELECT 1 FROM sqlite_master LIMIT 1")
        return conn
    except sqlite3.Error as exc:
        if (getattr(exc, "sqlite_errorcode", 0) & 0xFF) != SQLITE_CANTOPEN or folder_writable(target):
            return conn  # the caller's first read reports it
    conn.close()
    log.info("opening %s as immutable: its folder cannot be written", target)
    return sqlite3.connect(uri + "&immutable=1", uri=True, isolation_level=None,
                           check_same_thread=check_same_thread, timeout=BUSY_TIMEOUT_MS / 1000,
                           factory=CodecConnection)


def folder_writable(path: str | Path) -> bool:
    """Whether files can be created beside `path` (a read-only mount says no even to root)."""
    return os.access(os.path.dirname(os.path.abspath(path)) or ".", os.W_OK)


def writable(path: str | Path) -> bool:
    """Whether a library file can be written: its folder, and the file itself when it exists."""
    return folder_writable(path) and (not os.path.exists(path) or os.access(path, os.W_OK))


@contextlib.contextmanager
def transaction(conn: sqlite3.Connection, *, immediate: bool = True) -> Iterator[sqlite3.Connection]:
    """BEGIN (IMMEDIATE) … COMMIT, or ROLLBACK on any exception. The environment's failures become KnownErrors."""
    try:
        conn.execute("BEGIN IMMEDIATE" if immediate else "BEGIN")
    except sqlite3.Error as exc:
        raise translate_error(exc) from exc
    try:
        yield conn
        conn.execute("COMMIT")
    except BaseException as exc:
        with contextlib.suppress(sqlite3.Error):
            conn.execute("ROLLBACK")
        if isinstance(exc, sqlite3.Error):
            raise translate_error(exc) from exc
        raise


@contextlib.contextmanager
def savepoint(conn: sqlite3.Connection, name: str = "trove_write") -> Iterator[sqlite3.Connection]:
    """SAVEPOINT … RELEASE inside an open transaction, or ROLLBACK TO it on any exception (the rest of the
    transaction stays). The environment's failures become KnownErrors."""
    try:
        conn.execute(f"SAVEPOINT {name}")
    except sqlite3.Error as exc:
        raise translate_error(exc) from exc
    try:
        yield conn
        conn.execute(f"RELEASE {name}")
    except BaseException as exc:
        with contextlib.suppress(sqlite3.Error):
            conn.execute(f"ROLLBACK TO {name}")
            conn.execute(f"RELEASE {name}")
        if isinstance(exc, sqlite3.Error):
            raise translate_error(exc) from exc
        raise


def translate_error(exc: BaseException, where: str = "") -> BaseException:
    """Map SQLite's environment failures (by result code) to KnownErrors with a plain message; leave others alone."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is None:
        return exc
    primary = code & 0xFF
    place = f" ({where})" if where else ""
    if primary in (SQLITE_BUSY, SQLITE_LOCKED):
        return DatabaseLockedError(f"The library database is locked by another program{place}; try again shortly.")
    if primary == SQLITE_FULL:
        return DiskFullError(f"The disk holding the library is full{place}; free some space and try again.")
    if primary in (SQLITE_CORRUPT, SQLITE_NOTADB):
        return CorruptDatabaseError(
            f"The library database is damaged{place}: {exc}. Run `trove repair` to move it aside and rebuild the index."
        )
    if primary == SQLITE_READONLY:
        return ReadOnlyDatabaseError(f"The library database cannot be written{place}: {exc}.")
    if primary in (SQLITE_CANTOPEN, SQLITE_IOERR) and where and no_space_left(where):
        return DiskFullError("The disk holding the library is full; free some space and try again.")
    if primary in (SQLITE_CANTOPEN, SQLITE_PERM, SQLITE_IOERR):
        return KnownError(f"Cannot open or read the library database{place}: {exc}")
    return exc


def no_space_left(path: str) -> bool:
    """Whether the disk holding `path` has (next to) no free space: SQLite reports a -wal or -shm file it could not
    create or grow there as an I/O error, not as SQLITE_FULL."""
    try:
        disk = os.statvfs(os.path.dirname(os.path.abspath(path)))
    except (OSError, AttributeError):  # no statvfs on Windows: the plain I/O error stands
        return False
    return disk.f_bavail * disk.f_frsize < 1 << 20


def run_script(conn: sqlite3.Connection, sql: str) -> None:
    """Run several statements inside the caller's transaction (executescript would COMMIT it)."""
    buf = ""
    for line in sql.splitlines(keepends=True):
        buf += line
        if sqlite3.complete_statement(buf):
            if buf.strip():
                conn.execute(buf)
            buf = ""
    if buf.strip():
        conn.execute(buf)
