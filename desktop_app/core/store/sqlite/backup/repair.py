"""`trove repair`: check the library database; a damaged one is moved aside (never deleted) and rebuilt.

Nothing here runs unless the person asks: a damaged database only ever produces a one-line message that
names this command. The rebuild keeps the list of folders (read from the damaged file when its pages
allow, which is usual: the folders table is small and written early) and re-indexes them from disk.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from desktop_app.core.errors import KnownError
from desktop_app.core.log import get_logger
from desktop_app.core.paths import resolve_home
from desktop_app.core.store.rows import FolderState
from desktop_app.core.store.sqlite.connect import connect

log = get_logger("db")

DB_NAME = "library.db"
SIDE_FILES = ("", "-wal", "-shm")


@dataclass(frozen=True)
class FolderEntry:
    """A folder remembered from the old database."""

    path: str
    state: str


@dataclass
class RepairReport:
    """What `repair_library` found and did."""

    home: Path
    check: str  # "ok", the first problems integrity_check listed, or why the file could not be read at all
    moved_to: Path | None = None
    folders: list[FolderEntry] = field(default_factory=list)

    @property
    def damaged(self) -> bool:
        return self.check != "ok"


def check_database(db_path: Path, *, limit: int = 5) -> str:
    """'ok', or the first `limit` problems SQLite's integrity check reports (or why it could not run)."""
    if not db_path.exists():
        return "ok"
    try:
        conn = connect(db_path, readonly=True)
    except KnownError as exc:
        return str(exc)
    try:
        rows = [r[0] for r in conn.execute(f"PRAGMA integrity_check({int(limit)})")]
    except Exception as exc:  # a file that is not a database at all fails here, not at connect
        return f"{type(exc).__name__}: {exc}"
    finally:
        conn.close()
    return "ok" if rows == ["ok"] else "; ".join(rows)


def remembered_folders(db_path: Path) -> list[FolderEntry]:
    """The folders the database lists, as far as its pages can be read (best effort: [] if not at all)."""
    try:
        conn = connect(db_path, readonly=True)
    except KnownError:
        return []
    try:
        return [FolderEntry(p, s) for p, s in conn.execute("SELECT path, state FROM folders ORDER BY path")]
    except Exception as exc:
        log.warning("cannot read the folder list of %s: %s", db_path, exc)
        return []
    finally:
        conn.close()


def move_aside(db_path: Path) -> Path:
    """Rename the database and its WAL/SHM files together to `<name>.damaged-<time>`; returns the new name."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = db_path.with_name(f"{db_path.name}.damaged-{stamp}")
    for suffix in SIDE_FILES:
        src = Path(str(db_path) + suffix)
        if src.exists():
            os.replace(src, Path(str(target) + suffix))
    return target


def repair_library(home: str | os.PathLike[str] | None, *, force: bool = False) -> RepairReport:
    """Check the library in `home`; if damaged (or `force`), move it aside and re-create it with its folders.

    The caller re-indexes (Library.sync) afterwards; this only prepares an empty library with the folders.
    """
    home_path = resolve_home(home)
    db_path = home_path / DB_NAME
    report = RepairReport(home_path, check_database(db_path))
    if not db_path.exists() or (not report.damaged and not force):
        return report
    report.folders = remembered_folders(db_path)
    report.moved_to = move_aside(db_path)
    log.warning("moved the library database aside to %s (%s)", report.moved_to, report.check)
    return report


def restore_folders(library, folders: list[FolderEntry]) -> list[str]:
    """Add the remembered folders to a fresh library; a missing one comes back offline. Returns those missing."""
    missing = []
    for entry in folders:
        if Path(entry.path).is_dir():
            library.add_folder(entry.path)
            if entry.state == FolderState.PAUSED:
                library.set_folder_state(entry.path, FolderState.PAUSED)
            continue
        missing.append(entry.path)
        row = library.store.add_folder(entry.path)
        library.store.set_folder_state(row.id, FolderState.OFFLINE)
    return missing
