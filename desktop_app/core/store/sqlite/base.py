"""Connections of the SQLite engine: one write connection behind a lock, one read-only connection per thread.

`_read(fn)` and `_write(fn)` run `fn(conn)` on this thread's reader, or on the writer inside one transaction (in
a `write_batch`, one SAVEPOINT), the calling style of the PostgreSQL engine's base.py. Reads translate errors
where they happen, as writes do (`transaction`): a locked, damaged or unreadable database becomes a one-line
KnownError here, so no caller (CLI, UI) needs to know this engine's exceptions.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

from desktop_app.core.errors import ReadOnlyDatabaseError, SchemaTooNewError
from desktop_app.core.log import get_logger
from desktop_app.core.store.sqlite import pending_documents
from desktop_app.core.store.sqlite.connect import (
    Connection,
    Error,
    connect,
    savepoint,
    transaction,
    translate_error,
    writable,
)
from desktop_app.core.store.sqlite.keyword import pending as pending_keywords
from desktop_app.core.store.sqlite.migrations import SCHEMA_VERSION, check_readable, migrate
from desktop_app.core.store.sqlite.network_drive import network_notice

T = TypeVar("T")
log = get_logger("db")


class SQLiteBase:
    """The writer (`_write`, a locked IMMEDIATE transaction) and per-thread readers (`_read`) the SQL mixins use.

    WAL readers never wait for the writer. An in-memory database has a single connection, so there reads
    share the writer under its lock.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path) if str(path) != ":memory:" else None
        # a library on a read-only mount or in a folder this user cannot write: searched, never written
        self.read_only = self.path is not None and not writable(self.path)
        self._lock = threading.RLock()
        self._conn = connect(self.path or ":memory:", readonly=self.read_only, check_same_thread=False)
        self._readers: dict[int, Connection] = {}
        self._readers_lock = threading.Lock()
        self._closed = False
        self._batch = False  # in a write_batch (only the thread holding _lock sees True)
        self.journal_notice = ""  # on a network drive: the line saying it uses a rollback journal (the CLI prints it)
        self.read_only_reason = ""  # why a writable file is read-only here: a newer Trove's schema (read_only.py)
        try:
            if self.path is not None and not self.read_only:
                self.journal_notice = network_notice(self.path)  # or refuses a drive that cannot lock files
            self._open_schema()
        except BaseException:
            self._conn.close()  # a refused or failed open leaves no connection (nor -wal/-shm) behind
            raise

    def _open_schema(self) -> None:
        """Migrate (or, read-only, check) the schema. A library a newer Trove wrote, and may be holding open, is
        never migrated nor written: it is read through a read-only connection (its own SQL still reads what this
        version knows: migrations only add), and `read_only_reason` says why."""
        try:
            with self._lock, _translated():
                if self.read_only:
                    check_readable(self._conn)  # an older schema's upgrade could not be written
                else:
                    migrate(self._conn, self.path)
        except SchemaTooNewError as exc:
            if self.path is None:
                raise
            self._conn.close()
            self._conn = connect(self.path, readonly=True, check_same_thread=False)
            with _translated():
                newer = self._conn.execute("SELECT MAX(id) FROM migrations").fetchone()[0]
            self.read_only = True
            self.read_only_reason = (f"This library was written by a newer Trove (schema {newer}; this one knows up "
                                     f"to {SCHEMA_VERSION}): it is read-only here: search and ask work, nothing is "
                                     "indexed and chats are not saved. Update Trove to change it.")
            log.info("%s: %s (%s)", self.path, self.read_only_reason, exc)

    def _write(self, fn: Callable[[Connection], T], *, idempotent: bool = True, derived: bool = False) -> T:
        """Run `fn` in one write: its own transaction, or inside a `write_batch` its own SAVEPOINT (all-or-nothing
        alone)."""
        del idempotent, derived  # the server's retry and flush choices: a local write is never retried, all flush alike
        if self.read_only:
            refuse_write(self.read_only_reason)
        with self._lock:
            if not self._batch:
                with transaction(self._conn) as conn:
                    return fn(conn)
            pending_documents.flush(self._conn)  # queued new files first: ids and reads stay in order
            queued = pending_keywords.mark(self._conn)
            try:
                with savepoint(self._conn) as conn:
                    return fn(conn)
            except BaseException:
                pending_keywords.rolled_back(self._conn, queued)  # its keyword rows go with its SAVEPOINT
                raise

    @contextlib.contextmanager
    def write_batch(self) -> Iterator[None]:
        """The writes inside share one transaction, each all-or-nothing (a SAVEPOINT): one that fails rolls back
        alone and the others commit at the end, also when an exception leaves the batch (it is raised after the
        commit); a kill before then loses the batch whole, never half a write. Other threads' writes wait for the
        batch (keep it short)."""
        if self.read_only:
            refuse_write(self.read_only_reason)
        with self._lock:
            if self._batch:  # already in one: the outer batch commits
                yield
                return
            failure: BaseException | None = None
            try:
                with transaction(self._conn):
                    self._batch = True
                    pending_keywords.start(self._conn)
                    pending_documents.start(self._conn)
                    try:
                        yield
                    except BaseException as exc:  # the writes done are whole: keep them, then raise
                        if not self._conn.in_transaction:
                            raise  # SQLite rolled the batch back itself (a full disk, an I/O error): nothing to keep
                        failure = exc
                    finally:
                        self._batch = False
                    pending_documents.flush(self._conn)  # the batch's queued new files,
                    pending_keywords.flush(self._conn)  # then its keyword rows, before it commits
            finally:
                pending_documents.stop(self._conn)
                pending_keywords.stop(self._conn)
            if failure is not None:
                raise failure

    def _read(self, fn=None):
        """Run a read on this thread's read connection (the writer's, under its lock, for an in-memory database)."""
        if fn is None:  # the context-manager form, while the SQL mixins move to the callable one
            return self._read_cm()
        with _translated():
            if self.path is None:
                with self._lock:
                    pending_documents.flush(self._conn)  # the writer's own batch reads what it queued
                    return fn(self._conn)
            return fn(self._reader())

    @contextlib.contextmanager
    def _read_cm(self) -> Iterator[Connection]:
        with _translated():
            if self.path is None:
                with self._lock:
                    pending_documents.flush(self._conn)
                    yield self._conn
                return
            yield self._reader()

    def _reader(self) -> Connection:
        assert self.path is not None
        key = threading.get_ident()
        with self._readers_lock:
            conn = self._readers.get(key)
            if conn is None:
                conn = connect(self.path, readonly=True, check_same_thread=False)
                self._readers[key] = conn
        return conn

    def close(self) -> None:
        """Close every connection. Safe to call twice."""
        with self._readers_lock:
            for conn in self._readers.values():
                with contextlib.suppress(Exception):
                    conn.close()
            self._readers.clear()
        with self._lock:
            if self._closed:
                return
            self._closed = True
            with contextlib.suppress(Exception):
                self._conn.execute("PRAGMA optimize")
            self._conn.close()


def refuse_write(reason: str = "") -> None:
    """Every write to a read-only library ends here, in one line: `reason` (a newer Trove's schema), else the
    folder or file that cannot be written."""
    raise ReadOnlyDatabaseError(reason or "This library's database is read-only here (its folder or file cannot be "
                                "written): it can be searched and asked, not indexed or changed.")


@contextlib.contextmanager
def _translated() -> Iterator[None]:
    """SQLite's environment failures raised inside become the KnownError `translate_error` names; others pass."""
    try:
        yield
    except Error as exc:
        known = translate_error(exc)
        if known is exc:
            raise
        raise known from exc
