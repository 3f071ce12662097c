"""The Memory panel: what Trove remembers about the person, and their control over it.

List the facts (key, value, confidence, age, where they came from), search memory (facts and past chats, or
everything with the documents), add or edit a fact (an edit is a correction: the old value stays, outdated),
forget one, forget all, and turn memory off (nothing is deleted; no prompt or search uses it). Every call goes to
the Library facade (`library.memory`) on the task runner, so the window never waits on the database.
"""

from __future__ import annotations

import time

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop_app.ui.safe_document import plain_tooltip
from desktop_app.ui.units import counted
from desktop_app.ui.window.changes import ChangeKind

COLUMNS = ("Key", "Value", "Confidence", "Updated", "Source")
SCOPES = ("memory", "all", "documents")
DAY = 86400.0
SOURCES = {"user_explicit": "you", "conversation": "a chat", "document": "a document"}


def age_text(seconds: float) -> str:
    """"today", "3d ago"."""
    days = int(max(seconds, 0.0) // DAY)
    return "today" if days == 0 else f"{days}d ago"


def split_fact(text: str) -> tuple[str, str] | None:
    """"key = value" or "key: value" typed by the person, as (key, value); None when it has no separator."""
    for sep in ("=", ":", "→"):
        key, found, value = text.partition(sep)
        if found and key.strip() and value.strip():
            return key.strip(), value.strip()
    return None


class MemoryPanel(QDialog):
    """Facts and memory search for one library. Non-modal.

    Signals:
        changed(): memory changed (a fact added, edited or forgotten, or memory turned on or off); the panel has
            already shown the new state when it is emitted.
    """

    changed = Signal()

    def __init__(self, library, tasks, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Memory")
        self.setObjectName("memoryPanel")
        self.library, self.tasks = library, tasks
        self.facts: list = []
        self.hits: list = []
        self.enabled = True
        self.notice = ""  # what the last forget by word did, shown beside the count
        self.note = QLabel("Facts Trove remembers about you are in every chat's prompt; past chats are recalled "
                           "when they match. Nothing leaves this computer.")
        self.note.setWordWrap(True)
        self.on_box = QCheckBox("Memory on")
        self.on_box.setChecked(True)
        self.on_box.toggled.connect(self.set_enabled)
        self.query = QLineEdit(placeholderText="Search memory…", clearButtonEnabled=True)
        self.query.returnPressed.connect(self.search)
        self.scope = QComboBox()
        self.scope.addItems(SCOPES)
        self.scope.setToolTip("memory: facts and past chats · all: with your documents · documents: documents only")
        self.scope.currentIndexChanged.connect(lambda _i: self.search())
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setObjectName("memoryFacts")
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.table.itemDoubleClicked.connect(lambda _item: self.on_edit_clicked())
        self.results = QListWidget()
        self.results.setObjectName("memoryResults")
        self.results.setWordWrap(True)
        self.status = QLabel("")
        self.buttons: dict[str, QPushButton] = {}
        row = self._button_row()
        search_row = QHBoxLayout()
        search_row.addWidget(self.query, 1)
        search_row.addWidget(self.scope)
        layout = QVBoxLayout(self)
        layout.addWidget(self.note)
        layout.addLayout(search_row)
        layout.addWidget(QLabel("Facts"))
        layout.addWidget(self.table, 2)
        layout.addLayout(row)
        layout.addWidget(QLabel("Search results"))
        layout.addWidget(self.results, 1)
        layout.addWidget(self.status)
        self.resize(720, 560)
        self.table.itemSelectionChanged.connect(self._update_buttons)
        self._update_buttons()

    def _button_row(self) -> QHBoxLayout:
        """Add, edit, forget (one, by a word of the key, all), and the memory switch."""
        row = QHBoxLayout()
        for name, text, slot in (("add", "Add…", self.on_add_clicked), ("edit", "Edit…", self.on_edit_clicked),
                                 ("forget", "Forget", self.forget_selected),
                                 ("forget_word", "Forget by word…", self.on_forget_word_clicked),
                                 ("forget_all", "Forget all…", self.on_forget_all_clicked)):
            button = QPushButton(text)
            button.clicked.connect(slot)
            self.buttons[name] = button
            row.addWidget(button)
        row.addStretch(1)
        row.addWidget(self.on_box)
        return row

    # ---- loading -------------------------------------------------------------------------------

    def refresh(self) -> None:
        """Load the facts and whether memory is on (off the UI thread)."""
        memory = self.library.memory
        self.tasks.run(lambda: (memory.enabled, memory.list()), self.on_loaded, self.on_error)

    def on_loaded(self, loaded) -> None:
        self.enabled, self.facts = loaded
        self.on_box.blockSignals(True)
        self.on_box.setChecked(self.enabled)
        self.on_box.blockSignals(False)
        now = time.time()
        self.table.setRowCount(len(self.facts))
        for r, fact in enumerate(self.facts):
            cells = (fact.key, fact.value, f"{round(fact.confidence * 100)}%", age_text(now - fact.updated_at),
                     SOURCES.get(fact.source, fact.source))
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(plain_tooltip(text))
                self.table.setItem(r, c, item)
        self.table.resizeColumnToContents(0)
        count = counted(len(self.facts), "fact")
        count = f"{count} · {self.notice}" if self.notice else count
        self.status.setText(count if self.enabled else f"{count} · memory is off: no prompt or search uses it")
        self._update_buttons()

    # ---- search --------------------------------------------------------------------------------

    def search(self) -> None:
        """Search memory for the box's text in the chosen scope; every hit says where it came from."""
        text = self.query.text().strip()
        if not text:
            self.on_results([])
            return
        memory, scope = self.library.memory, self.scope.currentText()
        self.tasks.run(lambda: memory.search(text, top_k=10, scope=scope), self.on_results, self.on_error)

    def on_results(self, hits) -> None:
        self.hits = list(hits)
        self.results.clear()
        for h in self.hits:
            mark = " · outdated" if h.outdated else ""
            origin = h.label() if h.kind != "document" else f"document · {h.label()}"
            item = QListWidgetItem(f"{origin}{mark}\n{' '.join(h.text.split())[:240]}")
            item.setToolTip(plain_tooltip(h.text[:2000]))
            self.results.addItem(item)
        if self.query.text().strip() and not self.hits:
            self.results.addItem("nothing found" + ("" if self.enabled else " (memory is off)"))

    # ---- changes -------------------------------------------------------------------------------

    def selected_fact(self):
        rows = self.table.selectionModel().selectedRows()
        return self.facts[rows[0].row()] if rows and rows[0].row() < len(self.facts) else None

    def add_fact(self, key: str, value: str) -> None:
        """Remember a fact (the same key with another value corrects it)."""
        memory = self.library.memory
        self._change(lambda: memory.add(key, value))

    def edit_selected(self, value: str) -> None:
        """Give the selected fact a new value (a correction: the old value is kept, marked outdated)."""
        fact = self.selected_fact()
        if fact is not None and value.strip() and value.strip() != fact.value:
            memory = self.library.memory
            self._change(lambda: memory.add(fact.key, value.strip(), category=fact.category))

    def forget_selected(self) -> None:
        """Forget the selected fact (with the older values it replaced)."""
        fact = self.selected_fact()
        if fact is not None:
            memory = self.library.memory
            self._change(lambda: memory.forget(fact.id))

    def forget_word(self, word: str) -> None:
        """Forget the facts whose key holds `word` (`locker` → locker_code); when none does, say which keys there
        are."""
        memory = self.library.memory

        def done(found) -> None:
            self.notice = ("forgot " + ", ".join(f"{f.key} → {f.value}" for f in found.facts) if found.facts
                           else f"no fact matches “{word}”; the keys are: {', '.join(found.keys) or 'none'}")
            self.refresh()
            self.search()
            if found.facts:
                self.changed.emit()

        self.tasks.run(lambda: memory.forget_matching(word), done, self.on_error)

    def forget_all(self) -> None:
        """Forget every fact and all past-chat memory."""
        memory = self.library.memory
        self._change(memory.forget_all)

    def set_enabled(self, on: bool) -> None:
        """Turn memory on or off (off: it stays stored, but no prompt or search uses it)."""
        memory = self.library.memory
        self._change(lambda: memory.set_enabled(on))

    def _change(self, fn) -> None:
        self.notice = ""
        def done(_result) -> None:
            self.refresh()
            self.search()
            self.changed.emit()

        self.tasks.run(fn, done, self.on_error)

    def on_error(self, exc: BaseException) -> None:
        self.status.setText(f"Memory: {exc}")

    # ---- buttons (the dialogs they open are not used by tests: they call the methods above) ----

    def on_add_clicked(self) -> None:
        text, ok = QInputDialog.getText(self, "Remember a fact", "key = value (e.g. editor = neovim):")
        if ok and text.strip():
            parts = split_fact(text)
            if parts is None:
                self.status.setText("Write a fact as key = value, e.g. editor = neovim.")
                return
            self.add_fact(*parts)

    def on_edit_clicked(self) -> None:
        fact = self.selected_fact()
        if fact is None:
            return
        value, ok = QInputDialog.getText(self, "Edit a fact", f"{fact.key}:", text=fact.value)
        if ok:
            self.edit_selected(value)

    def on_forget_word_clicked(self) -> None:
        word, ok = QInputDialog.getText(self, "Forget facts", "Forget the facts whose key holds the word:")
        if ok and word.strip():
            self.forget_word(word.strip())

    def on_forget_all_clicked(self) -> None:
        answer = QMessageBox.question(self, "Forget everything?",
                                      "Forget every fact and everything remembered from past chats? "
                                      "Chats themselves stay.")
        if answer == QMessageBox.StandardButton.Yes:
            self.forget_all()

    def _update_buttons(self) -> None:
        has = self.selected_fact() is not None
        self.buttons["edit"].setEnabled(has)
        self.buttons["forget"].setEnabled(has)
        self.buttons["forget_all"].setEnabled(bool(self.facts))

    def keyPressEvent(self, event) -> None:  # noqa: N802 - Qt's name
        if event.key() == Qt.Key.Key_Delete and self.table.hasFocus():
            self.forget_selected()
            return
        super().keyPressEvent(event)


def open_memory_panel(window) -> MemoryPanel:
    """Show the window's Memory panel (created once), up to date."""
    panel = getattr(window, "memory_panel", None)
    if panel is None:
        panel = MemoryPanel(window.library, window.tasks, parent=window)
        window.memory_panel = panel
        panel.changed.connect(lambda: window.events.announce(ChangeKind.MEMORY))  # the search pane's memory scope
    panel.refresh()
    if panel.isVisible():
        panel.raise_()
    else:
        panel.show()
    return panel
