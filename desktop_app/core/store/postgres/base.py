"""Connections of the PostgreSQL engine: a pool, reads and one-transaction writes that ride out a server restart.

`_read(fn)` and `_write(fn)` run `fn(conn)` on a pooled connection (a write inside one transaction). When the
connection or server goes away they retry with backoff for RETRY_SECONDS and then raise a one-line
ServerGoneError: a write is always all or nothing, so an interrupted one is either retried whole or reported.
The server's other environment failures (disk full, out of memory, a lock not granted, damaged data, a read-only
server) become one-line KnownErrors here, for reads and writes alike, as the SQLite engine's do.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import psycopg
import psycopg_pool
from pgvector.psycopg import register_vector

import desktop_app.core.store.postgres.connect as pgc
from desktop_app.core.errors import (
    CorruptDatabaseError,
    DatabaseLockedError,
    DiskFullError,
    KnownError,
    ReadOnlyDatabaseError,
)
from desktop_app.core.log import get_logger
from desktop_app.core.machine import machine_id as local_machine_id
from desktop_app.core.redact import redact
from desktop_app.core.store.postgres.connect import scalar
from desktop_app.core.store.postgres.leases import LeaseKeeper
from desktop_app.core.store.postgres.migrations import migrate
from desktop_app.core.store.postgres.textcodec import register_text_codec

log = get_logger("db")

T = TypeVar("T")
POOL_SIZE = int(os.environ.get("TROVE_SERVER_POOL", "8"))
# HNSW candidate list per query: recall of the 50-150 nearest windows search needs, at a fraction of a scan.
EF_SEARCH = int(os.environ.get("TROVE_HNSW_EF_SEARCH", "100"))


class PostgresBase:
    """The pool, the machine id, the lease keeper and the retry policy the SQL mixins use."""

    def __init__(self, url: str, *, machine: str | None = None, pool_size: int = POOL_SIZE,
                 side_dir: Path | None = None) -> None:
        self.url = url
        self.side_dir = side_dir  # where this desktop keeps its side indexes of the library (None: none)
        self.location = redact(url)
        self._machine = machine if machine is not None else local_machine_id()
        first = self._connect_once()
        try:
            self.features = migrate(first, url)
            self.server_version = str(scalar(first.execute("SHOW server_version")))
        finally:
            first.close()
        self._pool = psycopg_pool.ConnectionPool(
            url,
            min_size=1,
            max_size=max(pool_size, 2),
            kwargs={"autocommit": True, "connect_timeout": pgc.CONNECT_TIMEOUT},
            configure=_configure,
            open=True,
            timeout=pgc.CONNECT_TIMEOUT,
            name="trove",
        )
        self._closed = False
        self._close_lock = threading.Lock()
        self.leases = LeaseKeeper(self._machine, self._write)

    def _connect_once(self) -> psycopg.Connection:
        try:
            return psycopg.connect(self.url, autocommit=True, connect_timeout=pgc.CONNECT_TIMEOUT)
        except psycopg.Error as exc:
            raise pgc.translate_connect_error(exc, self.url) from None

    def write_batch(self) -> contextlib.AbstractContextManager[None]:
        """Each write inside still commits by itself here (a pooled connection per write, and derived rows do
        not wait for the WAL flush): the batch is SQLite's saving, not needed on a server."""
        return contextlib.nullcontext()

    def _read(self, fn: Callable[[psycopg.Connection], T]) -> T:
        """Run a read on a pooled connection (autocommit: it sees the latest committed state)."""
        return self._run(fn, write=False, idempotent=True)

    def _write(self, fn: Callable[[psycopg.Connection], T], *, idempotent: bool = True, derived: bool = False) -> T:
        """Run `fn` in one transaction. A write that is not idempotent is not retried once it reached COMMIT.

        `derived`: the rows can be rebuilt from the files (documents, chunks, vectors), so the commit does not
        wait for the WAL flush. A server crash can lose the last such commits, never half of one, and the next
        rescan re-indexes what is missing; chats and folders always wait.
        """
        if not derived:  # pooled connections commit asynchronously (see _configure); this one must not
            inner = fn

            def fn(conn: psycopg.Connection) -> T:
                conn.execute("SET LOCAL synchronous_commit = on")
                return inner(conn)
        return self._run(fn, write=True, idempotent=idempotent)

    def _run(self, fn: Callable[[psycopg.Connection], T], *, write: bool, idempotent: bool) -> T:
        if self._closed:
            raise KnownError("The library is closed.")
        deadline = time.monotonic() + pgc.RETRY_SECONDS
        delay = 0.1
        while True:
            reached_commit = False
            try:
                with self._pool.connection() as conn:
                    if not write:
                        return fn(conn)
                    with conn.transaction():
                        result = fn(conn)
                        reached_commit = True
                    return result
            except psycopg_pool.PoolTimeout as exc:
                failure: BaseException = exc
            except (psycopg.errors.DeadlockDetected, psycopg.errors.SerializationFailure) as exc:
                failure = exc  # rolled back whole by the server: always safe to run again
                reached_commit = False
            except (psycopg.Error, OSError) as exc:
                if not pgc.is_connection_failure(exc):
                    known = environment_error(exc, self.location)
                    if known is None:
                        raise
                    raise known from exc
                failure = exc
            if reached_commit and not idempotent:
                raise pgc.gone(self.url, failure) from None  # it may have committed: retrying could double it
            if time.monotonic() >= deadline or self._closed:
                raise pgc.gone(self.url, failure) from None
            log.info("library server unavailable (%s); retrying", type(failure).__name__)  # broken ones leave the pool
            time.sleep(delay)
            delay = min(delay * 2, 2.0)

    @property
    def machine_id(self) -> str:
        """This machine's stable id (folders and leases are recorded under it)."""
        return self._machine

    def close(self) -> None:
        """Give up held leases and close every connection. Safe to call twice."""
        with self._close_lock:
            if self._closed:
                return
            try:
                self.leases.stop()
            except KnownError as exc:  # the server is gone: its leases expire by themselves
                log.info("could not release folder leases: %s", exc)
            self._closed = True
            self._pool.close()


def environment_error(exc: BaseException, where: str) -> KnownError | None:
    """The one-line KnownError for a server failure that is the environment's (by SQLSTATE), else None."""
    state = getattr(exc, "sqlstate", None) or ""
    detail = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    if state == "53100":
        return DiskFullError(f"The library server's disk is full ({where}); free some space there and index again: "
                             "what is indexed is kept, and Trove picks up where it stopped.")
    if state == "53200":
        return KnownError(f"The library server ({where}) is out of memory; try again shortly.")
    if state == "55P03":
        return DatabaseLockedError(f"The library is locked by another session on the server ({where}); "
                                   "try again shortly.")
    if state in ("XX001", "XX002"):
        return CorruptDatabaseError(f"The library server ({where}) reports damaged data: {detail}.")
    if state == "58030":
        return KnownError(f"The library server ({where}) cannot read or write its files: {detail}.")
    if state == "25006":
        return ReadOnlyDatabaseError(f"The library server ({where}) is read-only (a standby?): {detail}.")
    return None


def _configure(conn: psycopg.Connection) -> None:
    """Every pooled connection: the text boundary (textcodec), pgvector's binary adapter, the HNSW search breadth,
    and asynchronous commits for the index's derived rows (writes of chats, folders and meta switch them back on,
    see `_write`)."""
    register_text_codec(conn)
    register_vector(conn)
    conn.execute(f"SET hnsw.ef_search = {int(EF_SEARCH)}")
    conn.execute("SET hnsw.iterative_scan = relaxed_order")
    conn.execute("SET synchronous_commit = off")
