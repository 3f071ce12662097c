"""FolderMonitor: the one owner of folder states (active, paused, offline) and of the rule for "available".

`Library.sync()` and the live watcher both ask `check()`; it is the only code that turns a folder offline or
back online, and it says so once with a Notice. A missing root, or an empty mount point where documents
were indexed, reads as offline — never as "every file was deleted".
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from desktop_app.core.errors import FolderNotFoundError
from desktop_app.core.events import EventBus, Notice, NoticeLevel
from desktop_app.core.log import get_logger
from desktop_app.core.store.base import Store
from desktop_app.core.store.rows import FolderRow, FolderState, Share

log = get_logger("watch")


@dataclass(frozen=True)
class FolderInfo:
    """A library folder as the UI and `trove folders` show it."""

    id: int
    path: str
    state: FolderState
    documents: int
    failed: int
    chunks: int
    embedded: int
    ocr_pending: int = 0
    owner: str = ""  # who added it (a team library)
    visibility: str = "team"  # private | team | people (a team library; an embedded one is one person's)
    people: tuple[str, ...] = ()  # visibility "people": who sees it besides its owner

    @property
    def share(self) -> Share:
        """Who may see the folder."""
        return Share(self.visibility, self.people)


def root_available(root: Path) -> bool:
    """The folder root exists and is a folder."""
    try:
        return root.is_dir()
    except OSError:
        return False


def has_entries(root: Path) -> bool:
    """The folder lists at least one entry."""
    try:
        with os.scandir(root) as entries:
            return any(True for _ in entries)
    except OSError:
        return False


def may_be_unmounted(root: Path, library_folders: Iterable[str]) -> bool:
    """Whether an empty `root` may be a drive that went away rather than a folder whose files were deleted: a
    library folder itself, or a mount point inside one. An ordinary sub-folder emptied by `rm` (often seconds after
    it was made, its files moved in) is just empty: its documents go."""
    folders = {f.rstrip(os.sep) for f in library_folders}
    return str(root).rstrip(os.sep) in folders or os.path.ismount(root)


def normalise(path: str | os.PathLike[str]) -> str:
    """A folder path as the library stores it: absolute, user expanded, symlinks resolved."""
    return str(Path(path).expanduser().resolve())


def deepest_folder(folders: list[FolderRow], path: str) -> FolderRow | None:
    """The library folder that contains `path` (the deepest when folders nest)."""
    best = None
    for row in folders:
        if path == row.path or path.startswith(row.path.rstrip(os.sep) + os.sep):
            if best is None or len(row.path) > len(best.path):
                best = row
    return best


class FolderMonitor:
    """Adds, removes and changes the state of folders; decides whether a root is available."""

    def __init__(self, store: Store, bus: EventBus) -> None:
        self.store = store
        self.bus = bus
        self._was_mount: dict[int, bool] = {}
        self._lock = threading.Lock()

    def add(self, path: str | os.PathLike[str], share: Share | None = None) -> FolderInfo:
        """Add a folder (or return the one already there). Does not index it. `share`: who may see it on a team
        library (None: the library's default for a new folder; an existing one keeps its own)."""
        root = Path(normalise(path))
        if not root.is_dir():
            raise FolderNotFoundError(f"Not a folder: {root}")
        return self.info(self.store.add_folder(str(root), share))

    def share(self, path: str | os.PathLike[str], share: Share) -> FolderInfo:
        """Change who may see one of this machine's folders."""
        row = self.by_path(path)
        if row is None:
            raise FolderNotFoundError(f"Not a library folder: {normalise(path)}")
        return self.info(self.store.set_folder_share(row.id, share))

    def remove(self, path: str | os.PathLike[str]) -> int:
        """Remove a folder and everything indexed from it. Returns the documents purged."""
        row = self.by_path(path)
        if row is None:
            raise FolderNotFoundError(f"Not a library folder: {normalise(path)}")
        self._was_mount.pop(row.id, None)
        return self.store.delete_folder(row.id)

    def set_state(self, path: str | os.PathLike[str], state: FolderState | str) -> None:
        """Pause or resume a folder (or mark it offline by hand)."""
        row = self.by_path(path)
        if row is None:
            raise FolderNotFoundError(f"Not a library folder: {normalise(path)}")
        self.store.set_folder_state(row.id, FolderState(state))

    def rows(self) -> list[FolderRow]:
        """This machine's folders with their states as recorded now, by path (the watcher reads them here)."""
        return self.store.folders()

    def by_path(self, path: str | os.PathLike[str]) -> FolderRow | None:
        """The folder row whose path is exactly `path` (normalised)."""
        target = normalise(path)
        return next((f for f in self.rows() if f.path == target), None)

    def containing(self, path: str | os.PathLike[str]) -> FolderRow | None:
        """The folder that contains `path`, the deepest one when folders nest."""
        return deepest_folder(self.rows(), str(Path(path).expanduser().absolute()))

    def info(self, row: FolderRow) -> FolderInfo:
        """A folder with its counts."""
        c = self.store.counts(row.id)
        return FolderInfo(row.id, row.path, row.state, c.documents, c.failed, c.chunks, c.embedded, c.ocr_pending,
                          row.owner, row.visibility, row.people)

    def all(self) -> list[FolderInfo]:
        """Every folder with its counts, by path."""
        return [self.info(row) for row in self.rows()]

    def available(self, row: FolderRow) -> bool:
        """Whether the root can be used. An active (or paused) folder is lost when its root is missing or stopped
        being a mount point; an offline one is back when its root has entries, or when nothing was indexed from it
        (an unmounted share leaves an empty folder behind, which must not read as "every file deleted")."""
        root = Path(row.path)
        if not root_available(root):
            return False
        mounted = os.path.ismount(root)
        if row.state == FolderState.OFFLINE:
            if has_entries(root):
                with self._lock:
                    self._was_mount[row.id] = mounted
                return True
            return not self.store.folder_has_documents(row.id)
        with self._lock:
            was = self._was_mount.setdefault(row.id, mounted)
        return not (was and not mounted)

    def check(self, row: FolderRow) -> FolderState:
        """Bring a folder's state in line with its root: active ↔ offline, with one Notice per change."""
        if row.state == FolderState.PAUSED:
            return row.state
        available = self.available(row)
        if row.state == FolderState.ACTIVE and not available:
            return self.went_offline(row)
        if row.state == FolderState.OFFLINE and available:
            self.store.set_folder_state(row.id, FolderState.ACTIVE)
            log.info("folder %s is back online", row.path)
            self.bus.publish(Notice(NoticeLevel.INFO, f"Folder is back online: {row.path}", row.path))
            return FolderState.ACTIVE
        return row.state

    def went_offline(self, row: FolderRow) -> FolderState:
        """Mark a folder offline (its root vanished, or a sync found it empty where documents were)."""
        self.store.set_folder_state(row.id, FolderState.OFFLINE)
        log.info("folder %s is offline", row.path)
        self.bus.publish(
            Notice(
                NoticeLevel.WARNING,
                f"Folder is offline (missing or unmounted): {row.path}. Its documents stay searchable.",
                row.path,
            )
        )
        return FolderState.OFFLINE
