"""Help: About Trove (the version, and where the library, the logs and the models live, as text to select and
copy) and Keyboard shortcuts (every menu shortcut, read from the menus themselves, and the panes' own keys)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMenu,
    QMenuBar,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop_app import __version__
from desktop_app.core.library_tools import bundled_model_path, models_folder
from desktop_app.ui.log_file import log_path
from desktop_app.ui.safe_document import make_plain

# Keys the panes handle themselves (not menu actions): the search box, the results, the chat box.
PANE_KEYS = (
    ("Down / Up", "Move from the search box into the results, and between results"),
    ("Enter", "Open the selected result (a PDF at the passage's page)"),
    ("Esc", "Clear the search"),
    ("Ctrl+Enter", "Send the question in the chat box"),
    ("Ctrl+N", "Start a new chat"),
)


@dataclass(frozen=True)
class Place:
    """One line of About: what it is, where it is."""

    label: str
    path: str


def places(library) -> list[Place]:
    """Where this library's pieces live on this computer (a team library's index is on its server)."""
    home = Path(library.home)
    info = library.store.info()
    bundled = bundled_model_path()
    out = [Place("Library folder", str(home)),
           Place("Index" if not library.is_team_library else "Index (server)", str(info.location)),
           Place("Settings", str(library.settings_path)),
           Place("Log file", str(log_path(home))),
           Place("Downloaded models", str(models_folder(home)))]
    if bundled is not None:
        out.append(Place("Bundled model", str(bundled)))
    return out


def menu_shortcuts(menubar: QMenuBar) -> list[tuple[str, str]]:
    """(keys, "Menu → Action") of every menu action with a shortcut, in menu order."""
    rows = []
    for menu_action in menubar.actions():
        menu = menu_action.menu()
        if not isinstance(menu, QMenu):
            continue
        for act in menu.actions():
            keys = [k.toString(QKeySequence.SequenceFormat.NativeText) for k in act.shortcuts()]
            if keys:
                rows.append((", ".join(keys), f"{_plain(menu.title())} → {_plain(act.text())}"))
    return rows


def _plain(text: str) -> str:
    """A menu text without its mnemonic marks (“&File” → “File”, “&&” → “&”) or trailing dots."""
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&").rstrip("…")


class AboutDialog(QDialog):
    """The version and the places of the library, its index, settings, log file and models (selectable)."""

    def __init__(self, library, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("About Trove")
        self.setObjectName("aboutDialog")
        heading = QLabel(f"Trove {__version__}")
        font = heading.font()
        font.setPointSizeF(font.pointSizeF() * 1.4)
        font.setBold(True)
        heading.setFont(font)
        blurb = QLabel("A local-first knowledge base: your folders, searched as you type and answered from, "
                       "on this computer.", wordWrap=True)
        form = QFormLayout()
        self.fields: dict[str, QLineEdit] = {}
        for place in places(library):
            field = QLineEdit(place.path, readOnly=True)  # selectable and copyable, never rendered as HTML
            field.setObjectName("aboutPath")
            field.setCursorPosition(0)
            field.setMinimumWidth(field.fontMetrics().averageCharWidth() * 60)
            form.addRow(place.label, field)
            self.fields[place.label] = field
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(heading)
        layout.addWidget(blurb)
        layout.addLayout(form)
        layout.addWidget(buttons)
        make_plain(heading, blurb)


class ShortcutsDialog(QDialog):
    """Every keyboard shortcut: the menus' (read from them, so the list cannot drift) and the panes' own."""

    def __init__(self, menu_rows: Sequence[tuple[str, str]], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Keyboard shortcuts")
        self.setObjectName("shortcutsDialog")
        self.rows = [*menu_rows, *PANE_KEYS]
        self.table = QTableWidget(len(self.rows), 2)
        self.table.setHorizontalHeaderLabels(["Keys", "Action"])
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        for row, (keys, what) in enumerate(self.rows):
            self.table.setItem(row, 0, QTableWidgetItem(keys))
            self.table.setItem(row, 1, QTableWidgetItem(what))
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table)
        layout.addWidget(buttons)
        self.table.resizeRowsToContents()
        metrics = self.fontMetrics()
        whole = (self.table.horizontalHeader().sizeHint().height() + self.table.verticalHeader().length()
                 + 2 * self.table.frameWidth())
        self.table.setMinimumHeight(min(whole, metrics.height() * 40))  # every row without scrolling, at any scale
        self.resize(metrics.averageCharWidth() * 80, self.sizeHint().height())
