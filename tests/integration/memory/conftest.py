"""Memory tests run on both engines: the library's own SQLite file, or a fresh database on the test session's
PostgreSQL server (a team library: the person's memory in its row-level-secured tables)."""

from __future__ import annotations

from typing import NamedTuple

import pytest


class Engine(NamedTuple):
    name: str  # what Store.info().engine says
    db: str | None  # Library(db=...): None keeps the SQLite file in home


@pytest.fixture(params=["sqlite", "postgresql"])
def engine(request, monkeypatch) -> Engine:
    if request.param == "sqlite":
        return Engine("sqlite", None)
    monkeypatch.setenv("TROVE_MACHINE_ID", "desk-memory")
    return Engine("postgresql", request.getfixturevalue("pg_url"))
