"""The library database: one SQLite file with FTS5 and sqlite-vec."""

from desktop_app.core.db.connect import connect, transaction
from desktop_app.core.db.migrations import SCHEMA_VERSION, migrate

__all__ = ["connect", "transaction", "migrate", "SCHEMA_VERSION"]
