"""The folders panel: the library's folders with state, counts and progress, failed files, and folder actions."""

from __future__ import annotations

import os
import weakref
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from pathlib import Path

from PySide6.QtCore import QPoint, Qt, Signal
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QMessageBox,
    QPushButton,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop_app.core.events import IndexProgress
from desktop_app.core.log import get_logger
from desktop_app.core.pathnames import display_path
from desktop_app.core.store.rows import Share, parse_share
from desktop_app.ui import open_file
from desktop_app.ui.library.folder_row import FolderRow, vectors_text
from desktop_app.ui.safe_document import plain_tooltip
from desktop_app.ui.tasks import TaskRunner
from desktop_app.ui.theme import set_muted
from desktop_app.ui.units import counted
from desktop_app.ui.window.drops import FolderDropTarget

log = get_logger("ui")


def folders_to_add(paths: Iterable[str]) -> list[str]:
    """Folders for dropped paths: a folder as is, a file by the folder that holds it (as `trove index` does)."""
    out: dict[str, None] = {}
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            out[str(path)] = None
        elif path.is_file():
            out[str(path.parent)] = None
    return list(out)


def panel_roots(panel: weakref.ReferenceType) -> list[str]:
    """This machine's library folders, for open_file's check (none once the panel is gone)."""
    alive = panel()
    return alive.folder_roots() if alive is not None else []


def eta_text(seconds: float) -> str:
    """'about 40 s', 'about 12 min', 'about 3 h' left."""
    if seconds < 90:
        return f"about {max(int(seconds), 1)} s left"
    if seconds < 90 * 60:
        return f"about {round(seconds / 60)} min left"
    return f"about {seconds / 3600:.1f} h left"


SHARE_CHOICES = (("Only me", "private"), ("Everyone in the team", "team"))


class FoldersPanel(FolderDropTarget, QWidget):
    """Library folders (drop targets too) and the files that failed, with reasons.

    Signals:
        folders_added(list): folders were added; the window starts a sync (paths).
        sync_requested(): the user asked to resync.
        changed(): a folder was paused, resumed or removed; the window refreshes.
        action_failed(str): a folder action failed (message for the notices).
        ask_about_requested(list): the user wants the chat limited to these folders (paths).
    """

    folders_added = Signal(list)
    sync_requested = Signal()
    changed = Signal()
    action_failed = Signal(str)
    ask_about_requested = Signal(list)

    def __init__(self, library, tasks: TaskRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.library = library
        self.tasks = tasks
        self.confirm: Callable[[str], bool] = self._ask_confirmation  # tests replace this
        self._rows: dict[str, FolderRow] = {}
        self._keyword: IndexProgress | None = None
        self._semantic: IndexProgress | None = None  # the semantic phase's last progress (its rate and file)
        self.keyword_error: str | None = None  # the last sync's one-line failure (a full disk), until one succeeds
        self.setAcceptDrops(True)
        self.is_team = bool(getattr(library, "is_team_library", False))  # sharing applies (a server library)
        self.ask_people: Callable[[str], str | None] = self._ask_people  # tests replace this
        panel = weakref.ref(self)
        open_file.set_folder_roots(lambda: panel_roots(panel))

        title = QLabel("Folders")
        title.setObjectName("panelTitle")
        self.add_button = QPushButton("Add folder…")
        self.add_button.clicked.connect(self.on_add_clicked)
        header = QHBoxLayout()
        header.addWidget(title, 1)
        header.addWidget(self.add_button)
        self.list = QListWidget()
        self.list.setObjectName("folderList")
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.list.customContextMenuRequested.connect(self.on_context_menu_requested)
        self.failures = QTreeWidget()
        self.failures.setObjectName("failedFiles")
        self.failures.setColumnCount(2)
        self.failures.setHeaderLabels(["Failed file", "Reason"])
        self.failures.setRootIsDecorated(False)
        self.failures.itemDoubleClicked.connect(self.on_failure_double_clicked)
        self.hint = QLabel("Drop folders here")
        self.hint.setObjectName("dropHint")
        self.hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        set_muted(self.hint)  # a hint, not content: muted, yet readable (a disabled colour often is not)
        split = QSplitter(Qt.Orientation.Vertical)
        split.setObjectName("foldersSplit")
        split.addWidget(self.list)
        split.addWidget(self.failures)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        self.split = split
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(header)
        layout.addWidget(split, 1)
        layout.addWidget(self.hint)

    # ---- data ----------------------------------------------------------------------------------

    def set_folders(self, folders: Sequence, failures: Sequence[dict]) -> None:
        """Show the folders (FolderInfo list) and failed files ({path, reason}); keeps rows and selection."""
        wanted = {f.path: f for f in folders}
        for path in [p for p in self._rows if p not in wanted]:
            gone = self._rows.pop(path)
            for i in range(self.list.count()):
                if self.list.itemWidget(self.list.item(i)) is gone:
                    self.list.takeItem(i)
                    break
        for info in folders:
            row = self._rows.get(info.path)
            running = self._keyword if self._keyword and self._is_under(self._keyword.current_file, info.path) else None
            if row is None:
                row = FolderRow(info)
                item = QListWidgetItem(self.list)
                item.setData(Qt.ItemDataRole.UserRole, info.path)
                item.setSizeHint(row.sizeHint())
                self.list.setItemWidget(item, row)
                self._rows[info.path] = row
            row.update_info(info, running)
            self._show_stopped(row, info)
        self.failures.clear()
        for failure in failures:
            line = QTreeWidgetItem([display_path(os.path.basename(failure["path"])), failure.get("reason") or ""])
            line.setToolTip(0, plain_tooltip(failure["path"], path=True))  # a name may hold <img src=…>
            line.setToolTip(1, plain_tooltip(failure.get("reason") or ""))
            line.setData(0, Qt.ItemDataRole.UserRole, failure["path"])
            self.failures.addTopLevelItem(line)
        self.failures.setVisible(bool(failures))

    def set_keyword_error(self, message: str | None) -> None:
        """A sync stopped with this one line (the keyword phase, or the keyword rebuild a migration asks for, on a
        full disk, say), or a sync finished (None): shown on the keyword bar of every active folder."""
        self.keyword_error = message
        for row in self._rows.values():
            if message is None:
                row.update_info(row.info)  # the bar's tooltip says the files are searchable, not why it stopped
            self._show_stopped(row, row.info)

    def _show_stopped(self, row: FolderRow, info) -> None:
        """The semantic phase on each folder: stopped (a full disk, say) with the reason, paused, or the file it
        is on and the time left for the folder at the phase's rate; a keyword or OCR phase that stopped, too."""
        if self.keyword_error and info.state == "active":
            row.keyword.setFormat("Keyword stopped")
            row.keyword.setToolTip(plain_tooltip(f"Indexing stopped: {self.keyword_error}"))
        else:
            row.keyword.setFormat("Keyword %p%")
        semantic = getattr(getattr(self.library, "embed_worker", None), "error", None)
        left = info.chunks - info.embedded
        if semantic and left > 0:
            row.semantic.setFormat("Semantic stopped")
            row.semantic.setToolTip(plain_tooltip(f"Semantic indexing stopped: {semantic}"))
        elif left > 0 and self._semantic_paused(info.path):
            row.semantic.setFormat("Semantic paused %p%")
            waiting = f"{counted(left, 'chunk')} {'waits' if left == 1 else 'wait'}"
            row.semantic.setToolTip(f"Semantic indexing of this folder is paused; {waiting} for vectors")
        elif left > 0 and self._semantic is not None and self._semantic.rate > 0:
            row.semantic.setFormat(f"Semantic %p% · {eta_text(left / self._semantic.rate)}")
            now = self._semantic.current_file
            on = f"; now on {display_path(now)}" if self._is_under(now, info.path) else ""
            row.semantic.setToolTip(plain_tooltip(vectors_text(info.embedded, info.chunks) + on))
        else:
            row.semantic.setFormat("Semantic %p%")
        ocr = getattr(getattr(self.library, "ocr_worker", None), "error", None)
        if ocr and info.ocr_pending:
            row.details.setText(f"{row.details.text()} · OCR stopped: {ocr}")

    def on_progress(self, event: IndexProgress) -> None:
        """Keyword-phase progress moves the bar of the folder being indexed."""
        if event.phase in ("keyword", "scan"):
            self._keyword = event if event.phase == "keyword" else None
            if event.phase == "keyword":
                for path, row in self._rows.items():
                    if self._is_under(event.current_file, path):
                        row.update_info(row.info, event)
        elif event.phase == "semantic":
            self._semantic = event
            for row in self._rows.values():
                self._show_stopped(row, row.info)
        elif event.phase == "idle":
            self._keyword = None

    def folder_paths(self) -> list[str]:
        return list(self._rows)

    def folder_roots(self) -> list[str]:
        """This machine's library folders as the library has them now (what a result may be opened from)."""
        try:
            return [f.path for f in self.library.folders()]
        except Exception as exc:  # noqa: BLE001 -- a closed or unreachable library: nothing may be opened
            log.info("no folder roots to open from: %s", exc)
            return []

    @staticmethod
    def _is_under(path: str, folder: str) -> bool:
        return bool(path) and (path == folder or path.startswith(folder.rstrip(os.sep) + os.sep))

    # ---- adding --------------------------------------------------------------------------------

    def add_paths(self, paths: Iterable[str]) -> list[str]:
        """Add dropped or picked paths (off the UI thread); returns the folders that will be added."""
        folders = folders_to_add(paths)
        if not folders:
            return []
        library = self.library

        def add() -> list[str]:
            return [library.add_folder(path).path for path in folders]
        self.tasks.run(add, self.on_folders_added, self.on_action_error)
        return folders

    def on_folders_added(self, paths: list[str]) -> None:
        log.info("added folders %s", paths)
        self.folders_added.emit(paths)

    def on_action_error(self, exc: BaseException) -> None:
        self.action_failed.emit(str(exc))
        self.changed.emit()

    def on_add_clicked(self) -> None:
        path = QFileDialog.getExistingDirectory(self, "Add a folder to Trove")
        if path:
            self.add_paths([path])

    def accept_dropped_paths(self, paths: Sequence[str]) -> bool:
        return bool(self.add_paths(paths))

    # ---- folder actions ------------------------------------------------------------------------

    def on_context_menu_requested(self, pos: QPoint) -> None:
        item = self.list.itemAt(pos)
        if item is None:
            return
        self.list.setCurrentItem(item)
        self.context_menu(item.data(Qt.ItemDataRole.UserRole)).exec(self.list.viewport().mapToGlobal(pos))

    def context_menu(self, path: str) -> QMenu:
        """The actions for one folder (a separate method so tests can trigger them without a popup)."""
        info = self._rows[path].info
        menu = QMenu(self)
        if info.state == "paused":
            menu.addAction("Resume", lambda: self.set_state(path, "active"))
        else:
            menu.addAction("Pause", lambda: self.set_state(path, "paused"))
        if self._semantic_paused(path):
            menu.addAction("Resume semantic indexing", lambda: self.set_semantic_paused(path, False))
        else:
            menu.addAction("Pause semantic indexing", lambda: self.set_semantic_paused(path, True))
        menu.addAction("Resync", self.sync_requested.emit)
        menu.addAction("Ask about this folder", lambda: self.ask_about_requested.emit([path]))
        menu.addAction("Open in file manager", lambda: open_file.open_path(path))
        if self.is_team:
            self.share_menu(menu, path, info.share)
        menu.addSeparator()
        menu.addAction("Remove from library…", lambda: self.remove(path))
        return menu

    def share_menu(self, menu: QMenu, path: str, current: Share) -> QMenu:
        """"Who sees it": only me, the whole team, or certain people (a team library; PostgreSQL enforces it)."""
        sub = menu.addMenu("Who sees it")
        sub.setObjectName("shareMenu")
        for label, visibility in SHARE_CHOICES:
            action = sub.addAction(label, partial(self.set_share, path, Share(visibility)))
            action.setCheckable(True)
            action.setChecked(current.visibility == visibility)
        people = sub.addAction("Certain people…", lambda: self.pick_people(path, current))
        people.setCheckable(True)
        people.setChecked(current.visibility == "people")
        return sub

    def pick_people(self, path: str, current: Share) -> None:
        text = self.ask_people(",".join(current.people))
        if not text:
            return
        try:
            share = parse_share(text)
        except Exception as exc:  # noqa: BLE001 -- a bad name is the person's to fix: say it in the notices
            self.action_failed.emit(str(exc))
            return
        self.set_share(path, share)

    def set_share(self, path: str, share: Share) -> None:
        """Change who sees a folder (off the UI thread); the row shows it once the server has it."""
        library = self.library
        self.tasks.run(lambda: library.share_folder(path, share), lambda _info: self.changed.emit(),
                       self.on_action_error)

    def _ask_people(self, current: str) -> str | None:
        text, ok = QInputDialog.getText(self, "Who sees this folder",
                                        "Names of the people who may see it, separated by commas:", text=current)
        return text if ok else None

    def _semantic_paused(self, path: str) -> bool:
        settings = getattr(self.library, "settings", None)
        return os.path.abspath(path) in getattr(settings, "semantic_paused_folders", ())

    def set_semantic_paused(self, path: str, paused: bool) -> None:
        """Pause or resume one folder's semantic phase (its keyword search is untouched)."""
        library = self.library
        self.tasks.run(lambda: library.set_semantic_paused(path, paused), lambda _r: self.changed.emit(),
                       self.on_action_error)

    def set_state(self, path: str, state: str) -> None:
        library = self.library
        self.tasks.run(lambda: library.set_folder_state(path, state), lambda _r: self._after_state(state),
                       self.on_action_error)

    def _after_state(self, state: str) -> None:
        self.changed.emit()
        if state == "active":
            self.sync_requested.emit()

    def remove(self, path: str) -> None:
        if not self.confirm(f"Remove {path} from the library?\n\nIts files stay on disk; only the index forgets them."):
            return
        library = self.library
        self.tasks.run(lambda: library.remove_folder(path), lambda _n: self.changed.emit(), self.on_action_error)

    def _ask_confirmation(self, text: str) -> bool:
        answer = QMessageBox.question(self, "Trove", text)
        return answer == QMessageBox.StandardButton.Yes

    def on_failure_double_clicked(self, item: QTreeWidgetItem, _column: int) -> None:
        open_file.open_path(item.data(0, Qt.ItemDataRole.UserRole))
