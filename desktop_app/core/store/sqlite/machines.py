"""The many-desktops part of the Store protocol, for a library only one machine writes: every folder is ours."""

from __future__ import annotations

from desktop_app.core.store.rows import FolderRow
from desktop_app.core.store.sqlite.base import SQLiteBase


class MachineSQL(SQLiteBase):
    """Leases are trivial on one machine: a folder is always ours to index."""

    @property
    def machine_id(self) -> str:
        """An embedded library has no machine id: its folders are on the disk of whoever opens it."""
        return ""

    def claim_folder(self, folder_id: int) -> bool:
        """Always granted: SQLite's one writer already keeps a second indexer out."""
        return True

    def release_folder(self, folder_id: int) -> None:
        """Nothing to give up."""

    def folder_holder(self, folder_id: int) -> str | None:
        """Nobody holds a lease on one machine."""
        return None

    def all_folders(self) -> list[FolderRow]:
        """Every folder (they are all this machine's)."""
        return self.folders()  # type: ignore[attr-defined]
