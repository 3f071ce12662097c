"""What the watcher needs from a Library, as a protocol (so watch/ never imports the facade)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Protocol

from desktop_app.core.events import Event
from desktop_app.core.folders import FolderMonitor
from desktop_app.core.index.indexer import SyncReport
from desktop_app.core.settings import Settings
from desktop_app.core.store.rows import FolderState


class WatchTarget(Protocol):
    """What the watcher needs from a Library: its settings, folder monitor, events and the three sync calls."""

    settings: Settings
    monitor: FolderMonitor

    def publish(self, event: Event) -> None: ...
    def sync(self, wait: bool = True, *, timeout: float | None = None) -> SyncReport: ...
    def sync_paths(self, paths: Iterable[str | os.PathLike[str]], *, wait: bool = False) -> SyncReport: ...
    def move_path(self, src: str | os.PathLike[str], dest: str | os.PathLike[str]) -> SyncReport: ...
    def set_folder_state(self, path: str | os.PathLike[str], state: FolderState | str) -> None: ...
