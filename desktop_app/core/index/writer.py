"""The one write connection. Every write goes through `Writer.tx()`, which serialises writers in-process."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from pathlib import Path

from desktop_app.core.db import connect, migrate, transaction


class Writer:
    """Owns the library's write connection; `tx()` is a locked IMMEDIATE transaction."""

    def __init__(self, db_path: Path) -> None:
        self.db_path = db_path
        self.conn = connect(db_path, check_same_thread=False)
        self._lock = threading.RLock()
        with self._lock:
            migrate(self.conn)

    @contextlib.contextmanager
    def tx(self) -> Iterator:
        with self._lock, transaction(self.conn) as conn:
            yield conn

    @contextlib.contextmanager
    def locked(self) -> Iterator:
        """The connection under the lock, outside any transaction (for reads that must see our own writes)."""
        with self._lock:
            yield self.conn

    def close(self) -> None:
        with self._lock:
            with contextlib.suppress(Exception):
                self.conn.execute("PRAGMA optimize")
            self.conn.close()
