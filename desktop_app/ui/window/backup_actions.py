"""File → Back up… and File → Restore…: the window's side of `library.backups`, run on the task runner.

A backup is written while the library stays in use (the io lane; the indexer and the watcher go on). A restore is
verified first on a worker (a damaged or newer backup is refused with its one line and nothing changes); once the
person confirms, the window closes and `run_gui` puts the backup in place and opens the window again (ui/app.py):
the library cannot be swapped under the panels that are using it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from desktop_app.core.events import Notice, NoticeLevel
from desktop_app.core.pathnames import display_path
from desktop_app.ui.tasks import TaskRunner


class BackupActions(QObject):
    """The two menu actions; results and failures become notices.

    Signals:
        backed_up(object): a backup was written (BackupReport).
        restore_confirmed(str): the person confirmed restoring this verified backup; the window should close.
    """

    backed_up = Signal(object)
    restore_confirmed = Signal(str)

    def __init__(self, library, tasks: TaskRunner, window: QWidget, notify: Callable[[Notice], None]) -> None:
        super().__init__(window)
        self.library, self.tasks, self.window, self.notify = library, tasks, window, notify
        self.ask_path = QFileDialog.getSaveFileName  # tests answer the dialogs instead of a person
        self.ask_open = QFileDialog.getOpenFileName
        self.confirm = lambda text: QMessageBox.question(self.window, "Restore a backup", text) \
            == QMessageBox.StandardButton.Yes

    def on_backup_triggered(self) -> None:
        start = str(Path.home() / self.library.backups.default_name())
        path, _ = self.ask_path(self.window, "Back up the library", start, "Trove backups (*.tar.gz)")
        if path:
            self.backup_to(path)

    def backup_to(self, path: str) -> None:
        """Write the backup on a worker; a notice says where, or why not."""
        self.notify(Notice(NoticeLevel.INFO, f"Backing up the library to {display_path(path)}…"))
        library = self.library
        self.tasks.run(lambda: library.backups.backup(path), self.on_backed_up,
                       lambda exc: self.notify(Notice(NoticeLevel.ERROR, f"The backup failed: {exc}")))

    def on_backed_up(self, report) -> None:
        counts = report.manifest.counts
        self.notify(Notice(NoticeLevel.INFO, f"Backed up {counts['documents']} documents and {counts['chats']} "
                                             f"chats to {display_path(report.path)} ({report.bytes / 1e6:.1f} MB)"))
        self.backed_up.emit(report)

    def on_restore_triggered(self) -> None:
        path, _ = self.ask_open(self.window, "Restore a backup", str(Path.home()), "Trove backups (*.tar.gz)")
        if path:
            self.restore_from(path)

    def restore_from(self, path: str) -> None:
        """Verify the backup on a worker, then ask before anything is replaced."""
        library = self.library
        self.tasks.run(lambda: library.backups.check(path), lambda manifest: self.on_checked(path, manifest),
                       lambda exc: self.notify(Notice(NoticeLevel.ERROR, str(exc))))

    def on_checked(self, path: str, manifest) -> None:
        counts = manifest.counts
        text = (f"Restore the backup of {manifest.created_at} ({counts['documents']} documents, {counts['chats']} "
                f"chats)?\n\nTrove closes this library, keeps its files in a before-restore folder of the library "
                "home (nothing is deleted) and opens again with the backup.")
        if self.confirm(text):
            self.restore_confirmed.emit(path)
