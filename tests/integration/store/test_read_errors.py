"""A read that meets a locked, damaged or unreadable database fails with the same one-line KnownError a write
gets, in both engines: the caller (the CLI, the window) handles KnownError only. (A locked SQLite library never
blocks a WAL read once its connection is open: tests/reliability/test_database_faults.py shows searches go on.)"""

from __future__ import annotations

import threading

import psycopg
import pytest
import sqlean

from desktop_app.core.errors import CorruptDatabaseError, DatabaseLockedError, DiskFullError, KnownError
from desktop_app.core.store.postgres import PostgresStore
from desktop_app.core.store.postgres.base import environment_error
from desktop_app.core.store.sqlite import SQLiteStore
from tests.support import faults


def one_line(exc: BaseException) -> str:
    text = str(exc)
    assert text and "\n" not in text
    return text


def on_a_new_thread(fn):
    """fn() on a thread of its own (so the store opens a fresh read connection); its result or exception."""
    out: dict[str, object] = {}

    def run() -> None:
        try:
            out["result"] = fn()
        except BaseException as exc:  # noqa: BLE001 - handed back to the test
            out["error"] = exc

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    if "error" in out:
        raise out["error"]  # type: ignore[misc]
    return out["result"]


def test_a_damaged_sqlite_database_on_a_read_is_one_line(tmp_path):
    db = tmp_path / "library.db"
    store = SQLiteStore(db)
    for n in range(300):
        store.add_folder(str(tmp_path / f"a-folder-with-a-long-name-to-fill-pages-{n:04d}"))
    store.close()
    faults.corrupt_pages(db, faults.pages_of(db, ("folders",)))
    store = SQLiteStore(db)
    try:
        with pytest.raises(CorruptDatabaseError) as caught:
            on_a_new_thread(store.folders)
        assert "trove repair" in one_line(caught.value)
        assert isinstance(caught.value.__cause__, sqlean.DatabaseError)  # the original kept for the log
    finally:
        store.close()


def test_a_sqlite_error_that_is_not_the_environments_is_not_disguised(tmp_path):
    store = SQLiteStore(tmp_path / "library.db")
    try:
        with pytest.raises(sqlean.OperationalError, match="no such table"):
            store._read(lambda conn: conn.execute("SELECT * FROM no_such_table"))
    finally:
        store.close()


def test_a_lock_not_granted_on_a_server_read_is_one_line(pg_url):
    store = PostgresStore(pg_url, machine="desk-test")
    holder = psycopg.connect(pg_url)
    try:
        store.add_folder("/data/docs")
        holder.execute("SELECT id FROM folders FOR UPDATE")  # an open transaction holds the row
        with pytest.raises(DatabaseLockedError) as caught:
            store._read(lambda conn: conn.execute("SELECT id FROM folders FOR UPDATE NOWAIT").fetchall())
        assert "locked by another session" in one_line(caught.value)
        assert "password" not in str(caught.value).lower()
        assert store.folders()  # the library goes on once the lock is gone
    finally:
        holder.rollback()
        holder.close()
        store.close()


def test_server_failures_that_are_the_environments_become_known_errors():
    assert isinstance(environment_error(psycopg.errors.DiskFull("could not extend file"), "srv"), DiskFullError)
    assert isinstance(environment_error(psycopg.errors.DataCorrupted("invalid page"), "srv"), CorruptDatabaseError)
    assert isinstance(environment_error(psycopg.errors.OutOfMemory("out of memory"), "srv"), KnownError)
    assert environment_error(psycopg.errors.InsufficientPrivilege("permission denied"), "srv") is None
    assert environment_error(psycopg.errors.UndefinedTable("no such table"), "srv") is None
