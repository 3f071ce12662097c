"""The embedded engine: one SQLite file per library, FTS5 for keywords, sqlite-vec for vectors."""

from desktop_app.core.store.sqlite.engine import SQLiteStore

__all__ = ["SQLiteStore"]
