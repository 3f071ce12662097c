"""Where a library's index, folders and chats live: the Store protocol and its engines."""

from __future__ import annotations

from pathlib import Path

from desktop_app.core.store.base import Store

__all__ = ["Store", "open_store", "is_server_url"]


def is_server_url(target: str | Path | None) -> bool:
    """Whether `target` names a database server (postgresql://…) rather than a file."""
    return isinstance(target, str) and target.startswith(("postgresql://", "postgres://"))


def open_store(target: str | Path, *, side_dir: Path | None = None) -> Store:
    """The store for a database file (SQLite) or a server URL (PostgreSQL; `side_dir`: where this desktop keeps
    its side indexes of a large team library, none when None)."""
    if is_server_url(target):
        from desktop_app.core.store.postgres import PostgresStore

        return PostgresStore(str(target), side_dir=side_dir)
    from desktop_app.core.store.sqlite import SQLiteStore

    return SQLiteStore(target)
