"""A memory over a real library on each engine (an in-memory SQLite library, and a fresh database on the test
session's PostgreSQL, where memory is in the person's row-level-secured tables), a clock the test moves, and the
hash embedder."""

from __future__ import annotations

import pytest

from desktop_app.core.embed.base import HashEmbedder
from desktop_app.core.memory.service import MemoryService
from desktop_app.core.store.sqlite import SQLiteStore

DAY = 86400.0


class Clock:
    """Time that only moves when the test says so."""

    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, days: float) -> None:
        self.now += days * DAY


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request):
    """The library memory lives in: SQLite's own tables, or the server's per-person tables."""
    if request.param == "postgresql":
        from desktop_app.core.store.postgres import PostgresStore

        s = PostgresStore(request.getfixturevalue("pg_url"), machine="desk-memory-unit")
    else:
        s = SQLiteStore(":memory:")
    yield s
    s.close()


@pytest.fixture
def memory(store, clock):
    return MemoryService(store, HashEmbedder(), clock=clock)
