"""The main window: folders | search | chat, a status bar, menus, drops, and remembered layout."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QMainWindow,
    QSplitter,
    QStackedWidget,
    QWidget,
)

from desktop_app.core.events import Notice, NoticeLevel
from desktop_app.core.log import get_logger
from desktop_app.ui.chat.actions import ResultChatActions
from desktop_app.ui.chat.pane import ChatPane
from desktop_app.ui.library.folders_panel import FoldersPanel
from desktop_app.ui.sample import install_sample_docs
from desktop_app.ui.search.panel import SearchPanel
from desktop_app.ui.tasks import TaskRunner
from desktop_app.ui.viewer.dock import attach_viewer
from desktop_app.ui.warm_up import WarmUp
from desktop_app.ui.window.backup_actions import BackupActions
from desktop_app.ui.window.changes import ChangeKind, Coalesced, LibraryChanged
from desktop_app.ui.window.drops import FolderDropTarget
from desktop_app.ui.window.empty_state import EmptyState
from desktop_app.ui.window.layout import LayoutMemory
from desktop_app.ui.window.library_events import LibraryEvents
from desktop_app.ui.window.menus import WindowMenus
from desktop_app.ui.window.notices_view import NoticesView
from desktop_app.ui.window.status_bar import StatusBar

log = get_logger("ui")

REFRESH_MS = 300  # folder counts and stats follow indexing at most ~3 times a second
SUGGEST_MS = 1000  # the welcome questions are drawn again once the document count has stopped changing for 1 s


class MainWindow(FolderDropTarget, QMainWindow):
    """The Trove window. Every library call runs on the task runner; widgets only get results via signals.

    Signals:
        refreshed(list, dict): folder list and stats were reloaded (folders, stats).
        sync_finished(object): a sync's keyword phase finished (SyncReport).
        sample_ready(str): the sample documents were added and keyword-indexed (folder path).
    """

    refreshed = Signal(list, dict)
    sync_finished = Signal(object)
    sample_ready = Signal(str)

    def __init__(self, library, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.library = library
        self.setWindowTitle("Trove")
        self.setObjectName("troveMainWindow")
        self.setAcceptDrops(True)
        self.resize(1360, 820)
        self.tasks = TaskRunner(self)
        self.events = LibraryEvents(library, self)
        # folders and stats are reloaded, and folders synced, by one coalescing task each: never two at once,
        # and a request while one runs makes it run once more after it
        self._refresh = Coalesced(self.tasks, lambda: (library.folders(), library.stats()), self.on_refreshed,
                                  self.on_refresh_failed)
        self._sync = Coalesced(self.tasks, lambda: library.sync(wait=False), self.on_sync_done, self.on_sync_failed,
                               lane="index")
        self._pending_sample: str | None = None
        self.folder_count = -1  # unknown until the first refresh
        self._shut = False
        self._suggested_for = -1  # the document count the welcome questions were drawn for

        self._build_panes(library)
        self.menus = WindowMenus(self)
        self._connect()

        self.layout_memory = LayoutMemory(self, self._splitters)
        self.layout_memory.restore()
        self.refresh_now()
        if notice := getattr(library.store, "journal_notice", ""):  # on a network drive (sqlite/network_drive.py)
            self.status.set_network_drive(notice)
        if library.read_only:  # searched and asked, never indexed nor watched
            self.status.set_read_only(library.read_only)
        else:  # Live sync; its first step is the startup rescan that catches what changed while Trove was closed.
            unwatched = "Folders are not watched for changes: {}"
            self.tasks.run(library.start_watching, None,
                           lambda exc: self.on_notice(Notice(NoticeLevel.WARNING, unwatched.format(exc))))
        self.warm_up = WarmUp(library, self.tasks, self.chat_pane.answer_finished, self)  # freezes the heap built

    # ---- building ------------------------------------------------------------------------------

    def _build_panes(self, library) -> None:
        """Folders | search | chat in a splitter, behind the empty state; the status bar and the notices."""
        self.folders_panel = FoldersPanel(library, self.tasks)
        self.search_panel = SearchPanel(library.search, self.tasks, top_k=library.settings.top_k,
                                        rerank=library.settings.search_rerank)
        self.chat_pane = ChatPane(library, self.tasks)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setObjectName("mainSplit")
        for widget in (self.folders_panel, self.search_panel, self.chat_pane):
            self.splitter.addWidget(widget)
        self.splitter.setSizes([270, 500, 590])
        self.folders_panel.setMinimumWidth(180)
        self.splitter.setChildrenCollapsible(False)
        self.empty_state = EmptyState()
        self.stack = QStackedWidget()
        self.stack.addWidget(self.empty_state)
        self.stack.addWidget(self.splitter)
        self.stack.setCurrentWidget(self.splitter)
        self.setCentralWidget(self.stack)
        self.status = StatusBar()
        self.setStatusBar(self.status)
        self.notices = NoticesView(self)
        self.backups = BackupActions(library, self.tasks, self, self.on_notice)
        self.restore_after_close: str | None = None  # a verified backup run_gui puts in place once the window closed

    def _connect(self) -> None:
        """Library events, panel requests and the refresh timers to the window's slots; what changed to the panes
        that show it."""
        self.events.progress.connect(self.on_progress)
        self.events.notice.connect(self.on_notice)
        self.events.changed.connect(self.on_library_changed)
        self.events.changed.connect(self.chat_pane.on_library_changed)
        self.events.changed.connect(self.search_panel.on_library_changed)  # a saved search's results stay current
        self.tasks.task_failed.connect(self.on_task_failed)
        self.folders_panel.folders_added.connect(self.on_folders_added)
        self.folders_panel.sync_requested.connect(self.request_sync)
        self.folders_panel.changed.connect(lambda: self.events.announce(ChangeKind.FOLDERS))
        self.folders_panel.action_failed.connect(self.on_action_failed)
        self.folders_panel.ask_about_requested.connect(self.chat_pane.set_scope)
        self.result_chat_actions = ResultChatActions(self.search_panel, self.chat_pane)
        attach_viewer(self)  # results and citations open at their passage in the viewer pane
        self.empty_state.add_folder_clicked.connect(self.folders_panel.on_add_clicked)
        self.empty_state.sample_clicked.connect(self.open_sample)
        self.status.notices_clicked.connect(self.on_notices_clicked)
        self.notices.cleared.connect(lambda: self.status.set_unread(0))
        self.backups.restore_confirmed.connect(self.on_restore_confirmed)
        self._refresh_timer = QTimer(self, singleShot=True, interval=REFRESH_MS)
        self._refresh_timer.timeout.connect(self.refresh_now)
        self._suggest_timer = QTimer(self, singleShot=True, interval=SUGGEST_MS)
        self._suggest_timer.timeout.connect(self.chat_pane.refresh_suggestions)
        self.chat_pane.models_requested.connect(self.menus.open_models)
        self.chat_pane.welcome.team_requested.connect(self.menus.open_settings)  # the team library is there
        self.chat_pane.suggestions_shown.connect(self.on_suggestions_shown)
        self.chat_pane.answer_finished.connect(lambda _answer: self.events.announce(ChangeKind.MEMORY))  # facts left

    # ---- refresh and sync ----------------------------------------------------------------------

    @property
    def syncing(self) -> bool:
        """Whether a sync of the folders is queued or running."""
        return self._sync.running

    def on_library_changed(self, change: LibraryChanged) -> None:
        """Reload folders and stats: at once for what a person did, within REFRESH_MS for indexing's stream."""
        if change.kind is ChangeKind.DOCUMENTS:
            self.schedule_refresh()
        elif change.kind is not ChangeKind.SETTINGS:  # settings are the chat pane's and the search pane's
            self.refresh_now()

    def schedule_refresh(self) -> None:
        if not self._refresh_timer.isActive():
            self._refresh_timer.start()

    def refresh_now(self) -> None:
        """Reload folders and stats off the UI thread (at most one load in flight; see Coalesced)."""
        self._refresh.request()

    def on_refreshed(self, result) -> None:
        folders, stats = result
        self.folder_count = len(folders)
        self.folders_panel.set_folders(folders, stats.get("failures", []))
        self.search_panel.set_folders(stats.get("search_folders") or [f.path for f in folders])
        self.search_panel.set_languages(stats.get("languages", []))
        self.search_panel.set_tags(stats.get("tags", []))
        self.search_panel.set_memory_present(bool(stats.get("memory_items")))
        self.chat_pane.welcome.set_library(stats)
        self.status.on_stats(stats)
        self.stack.setCurrentWidget(self.splitter if folders else self.empty_state)
        if stats.get("documents", 0) != self._suggested_for:  # what is indexed changed: new questions, once it settles
            self._suggested_for = stats.get("documents", 0)
            self._suggest_timer.start()
        self.warm_up.on_folders(folders)
        self.refreshed.emit(folders, stats)

    def on_refresh_failed(self, exc: BaseException) -> None:
        self.on_notice(Notice(NoticeLevel.ERROR, f"Could not read the library: {exc}"))

    def request_sync(self) -> None:
        """Sync every active folder on the index lane; a request during a sync runs once more after it."""
        self._sync.request()

    def on_sync_done(self, report) -> None:
        self.folders_panel.set_keyword_error(None)
        self.refresh_now()
        if report.errors:
            log.info("%d files failed in this sync", len(report.errors))
        self.sync_finished.emit(report)
        if self._pending_sample and not self._sync.again:  # the sample is indexed once no other sync follows
            path, self._pending_sample = self._pending_sample, None
            self.sample_ready.emit(path)

    def on_sync_failed(self, exc: BaseException) -> None:
        self.on_notice(Notice(NoticeLevel.ERROR, f"Indexing failed: {exc}"))
        self.folders_panel.set_keyword_error(str(exc))  # and on the folders, until a sync succeeds
        self.refresh_now()

    # ---- slots ---------------------------------------------------------------------------------

    def on_progress(self, event) -> None:
        self.status.on_progress(event)
        self.folders_panel.on_progress(event)

    def on_notice(self, notice: Notice) -> None:
        self.notices.add(notice)
        self.status.on_notice(notice)

    def on_task_failed(self, message: str, _exc) -> None:
        self.on_notice(Notice(NoticeLevel.ERROR, message))

    def on_action_failed(self, message: str) -> None:
        self.on_notice(Notice(NoticeLevel.ERROR, message))

    def on_folders_added(self, paths: list) -> None:
        self.stack.setCurrentWidget(self.splitter)
        self.refresh_now()
        self.request_sync()

    def on_restore_confirmed(self, path: str) -> None:
        self.restore_after_close = path
        self.close()

    def on_notices_clicked(self) -> None:
        self.status.set_unread(0)
        if self.notices.isVisible():
            self.notices.raise_()  # already open behind the window: bring it forward
        else:
            self.notices.show()  # a newly shown dialog is on top already

    def open_sample(self) -> None:
        """Copy the bundled sample documents into the library home and add them (emits sample_ready when indexed)."""
        home = self.library.home
        library = self.library

        def install() -> str:
            return library.add_folder(install_sample_docs(home)).path

        def added(path: str) -> None:
            self._pending_sample = path
            self.on_folders_added([path])
        self.tasks.run(install, added, lambda exc: self.on_action_failed(f"Could not open the samples: {exc}"))

    def on_suggestions_shown(self, suggestions) -> None:
        """The search box's example follows the library: the first suggested question's key term."""
        terms = [s.term for s in suggestions if s.term]
        if terms:
            self.search_panel.set_example(terms[0])

    def apply_settings(self, changes: dict, *, reindex: bool = False) -> None:
        """Save changed settings (off the UI thread) and, if asked, re-index with them."""
        if not changes:
            return
        library = self.library

        def saved(settings) -> None:
            self.search_panel.top_k = settings.top_k
            self.events.announce(ChangeKind.SETTINGS)
            if reindex:
                self.tasks.run(lambda: library.reindex(wait=False), self.on_sync_done, self.on_sync_failed,
                               lane="index")
        self.tasks.run(lambda: library.update_settings(**changes), saved, self.on_action_failed)

    # ---- drops ---------------------------------------------------------------------------------

    def accept_dropped_paths(self, paths) -> bool:
        return bool(self.folders_panel.add_paths(paths))

    # ---- layout memory -------------------------------------------------------------------------

    def _splitters(self) -> dict[str, QSplitter]:
        right, body = self.chat_pane.splitters
        return {"main": self.splitter, "chat": right, "chatBody": body, "folders": self.folders_panel.split}

    def save_layout(self) -> None:
        """Remember the geometry and the splitters for the next start (app.py also calls it on a session end)."""
        self.layout_memory.save()

    def shutdown(self) -> None:
        """Stop background work; results still in flight are dropped. The caller closes the library."""
        if self._shut:
            return
        self._shut = True
        self._refresh_timer.stop()
        self._suggest_timer.stop()
        self.chat_pane.stop()
        self.library.stop_watching()
        self.events.detach()
        self.tasks.shutdown()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.save_layout()
        self.shutdown()
        event.accept()
