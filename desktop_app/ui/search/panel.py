"""The search pane: a query box answering as you type, a scope (documents, memory, both), a mode switch, filters,
a rerank toggle, and the results (a memory result names its provenance: fact key and age, or chat and turns).

The filters are the query's syntax: a picker or the Filters menu writes `type:pdf`, `folder:Notes`, `last month`
into the box, and the pickers show what the box holds (pickers.py, filters.py), so what
is shown is what runs.

Rerank is a second pass: the plain results are shown first (a keystroke's search never waits for a model), then,
when the toggle is on, the same search runs again with `rerank=True` on its own lane and the list is replaced by
the reranked one, unless a newer search started meanwhile.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from desktop_app.core.log import get_logger
from desktop_app.core.search.query_edit import set_group
from desktop_app.core.types import RetrievalResult
from desktop_app.ui import open_file
from desktop_app.ui.safe_document import make_plain
from desktop_app.ui.search.keys import ResultKeys
from desktop_app.ui.search.memory_scope import MemorySearchFn, library_memory_search, memory_hits_as_results
from desktop_app.ui.search.pickers import FilterPickers
from desktop_app.ui.search.query_chips import QueryChips
from desktop_app.ui.search.result_delegate import ResultDelegate
from desktop_app.ui.search.results_model import ResultsModel
from desktop_app.ui.search.saved import SavedSearchesMenu
from desktop_app.ui.search.welcome import SearchHint
from desktop_app.ui.tasks import TaskRunner
from desktop_app.ui.units import counted
from desktop_app.ui.window.changes import ChangeKind, LibraryChanged

log = get_logger("ui")

DEBOUNCE_MS = 120  # under the 150 ms budget: typing feels live, a burst of keys costs one search
LIVE_MS = 500  # a saved search's results follow indexing: one search per burst of changes, not one per file
MODES = (("Hybrid", "hybrid"), ("Keyword", "keyword"), ("Semantic", "semantic"))
SCOPES = (("Documents", "documents"), ("Memory", "memory"), ("Both", "all"))
EMPTY_HINT = "Type to search: results appear as you type. ↓ moves into them, Enter opens, Esc clears."


class SearchPanel(QWidget):
    """Search box, mode and filter pickers, and results.

    Every search is tagged with a sequence number; a result that arrives after a newer search was
    started is dropped, so a slow old query never overwrites a newer one.

    Signals:
        results_shown(str, int): results for this query are on screen (query, count).
        search_failed(str): the latest search raised (message).
        result_opened(str, object): a result was opened (path, page or None).
        reranked(str, int): the reranked results for this query replaced the plain ones (query, count).
    """

    results_shown = Signal(str, int)
    reranked = Signal(str, int)
    search_failed = Signal(str)
    result_opened = Signal(str, object)

    def __init__(self, search_fn: Callable[..., list[RetrievalResult]], tasks: TaskRunner, *, top_k: int = 10,
                 rerank: bool = False, memory_search: MemorySearchFn | None = None, saved: object = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.search_fn = search_fn  # Library.search; tests wrap it to add delays
        self.memory_search = memory_search or library_memory_search(search_fn)  # None: documents only
        self.tasks = tasks
        self.viewer: Callable[[RetrievalResult], bool] | None = None  # the window's viewer pane, when it has one
        self.top_k = top_k
        self._seq = 0
        self.stale_dropped = 0
        self._started: dict[int, float] = {}
        self._live_query = ""  # the saved search last run from the Saved menu: its results follow the files
        self._build_pickers(rerank)
        self.saved_menu = SavedSearchesMenu(saved or getattr(getattr(search_fn, "__self__", None), "saved", None))
        self._build_results()
        self._build_layout()
        self._show_hint(True)
        self._connect()

    def _build_pickers(self, rerank: bool) -> None:
        """The query box, the scope, mode and filter pickers, and the rerank toggle."""
        self.query = QLineEdit(placeholderText="Search your library  (Ctrl+K)", clearButtonEnabled=True)
        self.query.setObjectName("searchBox")
        self.chips = QueryChips()  # the query's parsed parts under the box, each removable
        self.scope = QComboBox(toolTip="Search documents, memory (facts and past chats), or both")
        self.scope.setObjectName("searchScope")
        for label, value in SCOPES:
            self.scope.addItem(label, value)
        self.scope.setVisible(False)  # until memory holds something (set_memory_present)
        self.mode = QComboBox(toolTip="Hybrid combines keyword and semantic search")
        for label, value in MODES:
            self.mode.addItem(label, value)
        self.pickers = FilterPickers()  # folder, type, language and the Filters menu
        self.folder_filter, self.type_filter = self.pickers.folder_filter, self.pickers.type_filter
        self.lang_filter, self.filters_menu = self.pickers.lang_filter, self.pickers.filters_menu
        self.rerank = QCheckBox("Rerank", checked=rerank,
                                toolTip="After the results appear, reorder them by reading each passage with the "
                                        "question (a second, slower pass)")

    def _build_results(self) -> None:
        """The summary line, the results list and the empty state."""
        self.summary = QLabel(EMPTY_HINT, wordWrap=True)  # wrapping: a long hint must not widen the pane
        make_plain(self.summary)  # shows error messages, which may quote a file name
        self.summary.setObjectName("searchSummary")
        self.model = ResultsModel(self)
        self.view = QListView()
        self.view.setModel(self.model)
        self.view.setItemDelegate(ResultDelegate(self.view))
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.view.setUniformItemSizes(True)
        self.hint = SearchHint()  # the empty state: modes, filters, an example query
        self.hint.example_clicked.connect(self.try_example)
        self.results_stack = QStackedWidget()
        self.results_stack.addWidget(self.hint)
        self.results_stack.addWidget(self.view)

    def _build_layout(self) -> None:
        filters = QHBoxLayout()
        filters.addWidget(self.mode)
        filters.addWidget(self.pickers, 1)
        filters.addWidget(self.saved_menu)
        top = QHBoxLayout()  # the toggle beside the query box: the filters row would widen the pane past small screens
        top.addWidget(self.query, 1)
        top.addWidget(self.scope)
        top.addWidget(self.rerank)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.chips)
        layout.addLayout(filters)
        layout.addWidget(self.summary)
        layout.addWidget(self.results_stack, 1)

    def _connect(self) -> None:
        self.debounce = QTimer(self, singleShot=True, interval=DEBOUNCE_MS)
        self.debounce.timeout.connect(self.on_debounce_timeout)
        self.query.textChanged.connect(self.on_text_changed)
        self.query.textChanged.connect(self.chips.show_query)
        self.query.textChanged.connect(self.show_pickers)
        self.chips.query_edited.connect(self.query.setText)  # the box changes, so the search runs again
        self.pickers.group_chosen.connect(self.on_group_chosen)
        self.saved_menu.query_chosen.connect(self.on_saved_chosen)
        self._live = QTimer(self, singleShot=True, interval=LIVE_MS)
        self._live.timeout.connect(self.on_live_timeout)
        self.saved_menu.failed.connect(self.on_saved_failed)
        for box in (self.scope, self.mode):
            box.currentIndexChanged.connect(self.on_filters_changed)
        self.rerank.toggled.connect(self.on_rerank_toggled)
        self.view.doubleClicked.connect(self.on_double_clicked)
        self.keys = ResultKeys(self)  # ↓ into the results, Enter opens, Esc clears, ↑ back to the box

    # ---- public --------------------------------------------------------------------------------

    def set_example(self, text: str) -> None:
        """The example query the empty state offers (a key term of the library)."""
        self.hint.set_example(text)

    def try_example(self, text: str) -> None:
        """Type the example into the search box and search it."""
        self.query.setText(text)
        self.search_now()
        self.query.setFocus(Qt.FocusReason.OtherFocusReason)

    def _show_hint(self, empty: bool) -> None:
        self.results_stack.setCurrentWidget(self.hint if empty else self.view)
        self.summary.setVisible(not empty)  # the hint says the same and more

    def focus_search(self) -> None:
        self.query.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.query.selectAll()

    def set_folders(self, paths: Sequence[str]) -> None:
        """Refresh the folder filter, keeping the current choice when it still exists."""
        self.pickers.set_folders(paths, self.query.text())

    def set_languages(self, languages: Sequence[Sequence]) -> None:
        """Offer the library's chunk languages ([code, chunks] pairs, most first); shown only with two or more."""
        self.pickers.set_languages(languages, self.query.text())

    def set_tags(self, tags: Sequence[Sequence]) -> None:
        """Offer the library's tags ([tag, documents] pairs, most used first) in the Filters menu."""
        self.filters_menu.set_tags(tags)

    def show_pickers(self, text: str) -> None:
        """Make the pickers and the Filters and Saved menus show what the query `text` holds."""
        self.pickers.show_query(text)
        self.saved_menu.query = text

    def set_memory_present(self, present: bool) -> None:
        """Offer the Documents / Memory / Both scope only while memory is on and holds something (a fact, a past
        chat): before that there is nothing but documents, and two choices that always find nothing would puzzle.
        Hidden, the scope goes back to Documents, so a picker nobody sees never narrows the search."""
        shown = present and self.memory_search is not None
        if not shown and self.scope.currentData() != "documents":
            self.scope.setCurrentIndex(self.scope.findData("documents"))
        self.scope.setVisible(shown)

    def search_now(self) -> int:
        """Start a search for the box's text at once (skipping the debounce). Returns its sequence number."""
        self.debounce.stop()
        self._seq += 1
        seq, text = self._seq, self.query.text().strip()
        if not text:
            self.model.clear()
            self.summary.setText(EMPTY_HINT)
            self._show_hint(True)
            self.results_shown.emit("", 0)
            return seq
        kwargs = self.search_kwargs()
        search = self.search_fn
        scope, memory, k = self.scope.currentData(), self.memory_search, self.top_k
        if memory is not None and scope != "documents":
            search = lambda text, **_kw: memory_hits_as_results(memory(text, k, scope))  # noqa: E731
        self._started[seq] = time.perf_counter()
        self.tasks.run(lambda: search(text, **kwargs),
                       lambda results: self.on_search_done(seq, text, results),
                       lambda exc: self.on_search_error(seq, exc), lane="search")
        return seq

    def search_kwargs(self) -> dict:
        """Library.search's keyword arguments for the pickers' current state (rerank is the second pass's)."""
        return {"top_k": self.top_k, "mode": self.mode.currentData()}  # the filters are in the query's text

    def rerank_now(self, seq: int, text: str) -> None:
        """The second pass for search `seq`: the same search reranked, on the rerank lane (never the search one)."""
        kwargs = {**self.search_kwargs(), "rerank": True}
        search = self.search_fn

        def job() -> list[RetrievalResult] | None:
            # queued behind an older rerank while a newer search started: skip the model, it would be dropped
            return search(text, **kwargs) if seq == self._seq else None

        self.tasks.run(job, lambda results: self.on_rerank_done(seq, text, results),
                       lambda exc: self.on_rerank_error(seq, exc), lane="rerank")

    def open_current(self, system: bool = False) -> bool:
        """Open the selected result (or the first one) in the viewer pane at its passage, or (`system`, or no
        viewer) through the open_file seam."""
        index = self.view.currentIndex()
        if not index.isValid():
            if self.model.rowCount() == 0:
                return False
            index = self.model.index(0)
        result = self.model.result(index.row())
        if result.metadata.get("memory", {}).get("kind") in ("fact", "history"):
            return False  # a fact or a past chat's excerpt: no file to open
        page = result.metadata.get("page")
        machine = result.metadata.get("machine", "")
        if not system and self.viewer is not None and self.viewer(result):
            self.result_opened.emit(result.source, page)
            return True
        if not open_file.open_path(result.source, page, machine=machine) and machine:
            return False  # on another desktop's disk: open_path said so
        self.result_opened.emit(result.source, page)
        return True

    # ---- slots ---------------------------------------------------------------------------------

    def on_text_changed(self, text: str) -> None:
        if text.strip():
            self._show_hint(False)
        self.debounce.start()

    def on_debounce_timeout(self) -> None:
        self.search_now()

    def on_filters_changed(self, *_args) -> None:
        if self.query.text().strip():
            self.search_now()

    def on_group_chosen(self, group: str, term: str) -> None:
        """A picker's or the Filters menu's choice written into the query; the edit runs the search."""
        self.query.setText(set_group(self.query.text(), group, term))

    def on_saved_chosen(self, query: str) -> None:
        """Type a saved search into the box and run it; while it stays there, it runs again as files change."""
        self._live_query = query
        self.try_example(query)

    def on_library_changed(self, change: LibraryChanged) -> None:
        if change.kind is ChangeKind.DOCUMENTS and self._live_query and self.query.text() == self._live_query:
            self._live.start()

    def on_live_timeout(self) -> None:
        if self.query.text() == self._live_query:
            self.search_now()

    def on_saved_failed(self, message: str) -> None:
        self.summary.setText(message)
        self.summary.setVisible(True)

    def on_search_done(self, seq: int, text: str, results: list[RetrievalResult]) -> None:
        started = self._started.pop(seq, None)
        if seq != self._seq:
            self.stale_dropped += 1  # a newer search is on its way; this answer is out of date
            return
        self.model.set_results(results)
        if results:
            self.view.setCurrentIndex(self.model.index(0))
        ms = (time.perf_counter() - started) * 1000 if started else 0.0
        self.summary.setText(f"{counted(len(results), 'result')} · {ms:.0f} ms"
                             + (" · reranking…" if self.rerank.isChecked() else "")
                             if results else f"No results for “{text}”")
        self.results_shown.emit(text, len(results))
        if results and self.rerank.isChecked() and self.scope.currentData() == "documents":
            self.rerank_now(seq, text)

    def on_rerank_toggled(self, on: bool) -> None:
        """On: rerank what is shown now; off: show the plain order again."""
        text = self.query.text().strip()
        if not text:
            return
        if on and self.model.rowCount():
            self.summary.setText("Reranking…")
            self.rerank_now(self._seq, text)
        else:
            self.search_now()

    def on_rerank_done(self, seq: int, text: str, results: list[RetrievalResult] | None) -> None:
        if results is None or seq != self._seq or not self.rerank.isChecked():
            self.stale_dropped += 1  # a newer search (or the toggle turned off) made this answer out of date
            return
        current = self.view.currentIndex()
        self.model.set_results(results)
        if results:
            self.view.setCurrentIndex(self.model.index(max(current.row(), 0) if current.isValid() else 0))
        self.summary.setText(f"{counted(len(results), 'result')} · reranked")
        self.reranked.emit(text, len(results))

    def on_rerank_error(self, seq: int, exc: BaseException) -> None:
        if seq != self._seq:
            return
        log.warning("rerank failed: %s", exc)
        self.summary.setText(f"{counted(self.model.rowCount(), 'result')} · not reranked: {exc}")

    def on_search_error(self, seq: int, exc: BaseException) -> None:
        self._started.pop(seq, None)
        if seq != self._seq:
            return
        log.warning("search failed: %s", exc)
        self.model.clear()
        self.summary.setText(f"Search failed: {exc}")
        self.search_failed.emit(str(exc))

    def on_double_clicked(self, _index) -> None:
        self.open_current()
