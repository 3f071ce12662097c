"""The engine's side of `trove backup`: a consistent copy of the open library, made on one of its read connections."""

from __future__ import annotations

from pathlib import Path

from desktop_app.core.store.sqlite.backup.copies import copy_database
from desktop_app.core.store.sqlite.base import SQLiteBase


class BackupSQL(SQLiteBase):
    """`backup_to(dest)`: the online backup API on this thread's reader (WAL: the writer goes on meanwhile)."""

    def backup_to(self, dest: Path) -> None:
        """Write a consistent copy of this library's database to the new file `dest`."""
        self._read(lambda conn: copy_database(conn, dest))
