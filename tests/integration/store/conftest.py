"""One store fixture, two engines: every protocol test runs on SQLite and on a real PostgreSQL server."""

from __future__ import annotations

import pytest

DIM = 8


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request, tmp_path):
    """An empty Store on each engine, with an 8-dimension test embedding model recorded."""
    if request.param == "sqlite":
        from desktop_app.core.store.sqlite import SQLiteStore

        made = SQLiteStore(tmp_path / "library.db")
    else:
        from desktop_app.core.store.postgres import PostgresStore

        made = PostgresStore(request.getfixturevalue("pg_url"), machine="desk-test")
    made.ensure_embedding_model("test-model", DIM)
    yield made
    made.close()


@pytest.fixture
def folder(store, tmp_path):
    """A library folder (an empty directory) on the test's store."""
    root = tmp_path / "docs"
    root.mkdir()
    return store.add_folder(str(root))
