"""The server engine: a library on PostgreSQL with pgvector, shared by many desktops."""

from desktop_app.core.store.postgres.engine import PostgresStore

__all__ = ["PostgresStore"]
