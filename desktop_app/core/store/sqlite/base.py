"""Connections of the SQLite engine: one write connection behind a lock, one read-only connection per thread."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from pathlib import Path

from desktop_app.core.store.sqlite.connect import Connection, connect, transaction
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
        with self._lock:
            migrate(self._conn)

    @contextlib.contextmanager
    def _tx(self) -> Iterator[Connection]:
        with self._lock, transaction(self._conn) as conn:
            yield conn

    @contextlib.contextmanager
    def _read(self) -> Iterator[Connection]:
        if self.path is None:
            with self._lock:
                yield self._conn
            return
        key = threading.get_ident()
        with self._readers_lock:
            conn = self._readers.get(key)
            if conn is None:
                conn = connect(self.path, readonly=True, check_same_thread=False)
                self._readers[key] = conn
        yield conn

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
