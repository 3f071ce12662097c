"""Which engine keeps a library's memory: the SQLite file's own tables, or a team server's per-person tables."""

from __future__ import annotations

from typing import TYPE_CHECKING

from desktop_app.core.store.sqlite.base import SQLiteBase
from desktop_app.core.store.sqlite.memory import MemoryFactSQL
from desktop_app.core.store.sqlite.memory_chunks import MemoryChunkSQL

if TYPE_CHECKING:
    from typing import TypeAlias

    from desktop_app.core.store.postgres.memory import PgMemoryFactSQL
    from desktop_app.core.store.postgres.memory_chunks import PgMemoryChunkSQL

    FactSQL: TypeAlias = MemoryFactSQL | PgMemoryFactSQL
    ChunkSQL: TypeAlias = MemoryChunkSQL | PgMemoryChunkSQL


def memory_sql(store: object) -> tuple[FactSQL, ChunkSQL]:
    """The fact and chunk SQL of a store: SQLite's, or (a PostgresStore) the server's, private to the person."""
    if isinstance(store, SQLiteBase):
        return MemoryFactSQL(store), MemoryChunkSQL(store)
    from desktop_app.core.store.postgres.base import PostgresBase
    from desktop_app.core.store.postgres.memory import PgMemoryFactSQL
    from desktop_app.core.store.postgres.memory_chunks import PgMemoryChunkSQL

    if not isinstance(store, PostgresBase):
        raise TypeError(f"no memory for a {type(store).__name__}")
    return PgMemoryFactSQL(store), PgMemoryChunkSQL(store)
