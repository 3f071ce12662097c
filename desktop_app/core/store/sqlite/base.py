"""Connections of the SQLite engine: one write connection behind a lock, one read-only connection per thread.

Reads translate errors where they happen, as writes do (`transaction`): a locked, damaged or unreadable
database becomes a one-line KnownError here, so no caller (CLI, UI) needs to know this engine's exceptions.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from pathlib import Path

from desktop_app.core.store.sqlite.connect import (
    Connection,
    Error,
    connect,
    savepoint,
    transaction,
    translate_error,
)
from desktop_app.core.store.sqlite.migrations import migrate


class SQLiteBase:
    """The writer (`_tx`, a locked IMMEDIATE transaction) and per-thread readers (`_read`) the SQL mixins use.

    WAL readers never wait for the writer. An in-memory database has a single connection, so there reads
    share the writer under its lock.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path) if str(path) != ":memory:" else None
        self._lock = threading.RLock()
        self._conn = connect(self.path or ":memory:", check_same_thread=False)
        self._readers: dict[int, Connection] = {}
        self._readers_lock = threading.Lock()
        self._closed = False
        self._batch = False  # in a write_batch (only the thread holding _lock sees True)
        with self._lock, _translated():
            migrate(self._conn)

    @contextlib.contextmanager
    def _tx(self) -> Iterator[Connection]:
        """One write: its own transaction, or inside a `write_batch` its own SAVEPOINT (all-or-nothing alone)."""
        with self._lock:
            if not self._batch:
                with transaction(self._conn) as conn:
                    yield conn
                return
            with savepoint(self._conn) as conn:
                yield conn

    @contextlib.contextmanager
    def write_batch(self) -> Iterator[None]:
        """The writes inside share one transaction, each all-or-nothing (a SAVEPOINT): one that fails rolls back
        alone and the others commit at the end, also when an exception leaves the batch (it is raised after the
        commit); a kill before then loses the batch whole, never half a write. Other threads' writes wait for the
        batch (keep it short)."""
        with self._lock:
            if self._batch:  # already in one: the outer batch commits
                yield
                return
            failure: BaseException | None = None
            with transaction(self._conn):
                self._batch = True
                try:
                    yield
                except BaseException as exc:  # the writes done are whole: keep them, then raise
                    if not self._conn.in_transaction:
                        raise  # SQLite rolled the batch back itself (a full disk, an I/O error): nothing to keep
                    failure = exc
                finally:
                    self._batch = False
            if failure is not None:
                raise failure

    @contextlib.contextmanager
    def _read(self) -> Iterator[Connection]:
        """This thread's read connection (the writer's, under its lock, for an in-memory database)."""
        with _translated():
            if self.path is None:
                with self._lock:
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
