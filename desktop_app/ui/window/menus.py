"""The window's menu bar and the dialogs its entries open (settings, chat models, memory, the library's files,
keyboard shortcuts, about). The window's own actions (add a folder, resync, find, stop) stay its panes' slots."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu, QMessageBox

from desktop_app.ui.dialogs.settings import SettingsDialog


class WindowMenus(QObject):
    """Builds `window`'s menus once; each dialog is opened on the window, which keeps it (window.models_dialog …)
    so a second click brings the same one forward."""

    def __init__(self, window) -> None:
        super().__init__(window)
        self.window = window
        self._build()

    def _action(self, menu: QMenu, text: str, slot: Callable[[], object], *keys: str) -> QAction:
        act = QAction(text, self.window)
        if keys:
            act.setShortcuts([QKeySequence(k) for k in keys])
        act.triggered.connect(slot)
        menu.addAction(act)
        return act

    def _build(self) -> None:
        window, action, bar = self.window, self._action, self.window.menuBar()
        file_menu = bar.addMenu("&File")
        action(file_menu, "&Add folder…", window.folders_panel.on_add_clicked, "Ctrl+O")
        action(file_menu, "Open the &sample documents", window.open_sample)
        action(file_menu, "&Resync all folders", window.request_sync, "F5")
        file_menu.addSeparator()
        action(file_menu, "&Back up…", window.backups.on_backup_triggered)
        action(file_menu, "Res&tore…", window.backups.on_restore_triggered)
        file_menu.addSeparator()
        action(file_menu, "&Settings…", self.open_settings, "Ctrl+,")
        file_menu.addSeparator()
        action(file_menu, "&Quit", window.close, "Ctrl+Q")
        search = bar.addMenu("&Search")
        action(search, "&Find", window.search_panel.focus_search, "Ctrl+F", "Ctrl+K")
        chat = bar.addMenu("&Chat")
        action(chat, "&New chat", window.chat_pane.new_chat)
        action(chat, "&Stop answering", window.chat_pane.stop)
        action(chat, "Chat &models…", self.open_models)
        action(chat, "&Memory…", self.open_memory)
        view = bar.addMenu("&View")
        action(view, "&Notices", window.on_notices_clicked)
        action(view, "Library &files…", self.open_ledger, "Ctrl+Shift+L")
        help_menu = bar.addMenu("&Help")
        action(help_menu, "&Keyboard shortcuts", self.open_shortcuts, "F1")
        action(help_menu, "&About Trove", self.open_about)

    def open_settings(self) -> None:
        """The settings dialog; what changed is saved, and re-indexed with when chunking or exclusions changed and
        the person agrees."""
        window = self.window
        dialog = SettingsDialog(window.library.settings, window, home=window.library.home, tasks=window.tasks)
        if dialog.exec():
            changes = dialog.changes()
            reindex = SettingsDialog.needs_reindex(changes) and QMessageBox.question(
                window, "Trove", "Chunking or exclusions changed. Re-index the library now?\n\n"
                                 "Search keeps working while it runs.") == QMessageBox.StandardButton.Yes
            window.apply_settings(changes, reindex=reindex)

    def open_shortcuts(self) -> None:
        from desktop_app.ui.dialogs.about import ShortcutsDialog, menu_shortcuts

        self.window.shortcuts_dialog = ShortcutsDialog(menu_shortcuts(self.window.menuBar()), self.window)
        self.window.shortcuts_dialog.show()

    def open_about(self) -> None:
        from desktop_app.ui.dialogs.about import AboutDialog

        self.window.about_dialog = AboutDialog(self.window.library, self.window)
        self.window.about_dialog.show()

    def open_memory(self) -> None:
        from desktop_app.ui.library.memory_panel import open_memory_panel

        open_memory_panel(self.window)

    def open_ledger(self) -> None:
        from desktop_app.ui.library.ledger_panel import open_ledger_panel

        open_ledger_panel(self.window)

    def open_models(self) -> None:
        from desktop_app.ui.dialogs.models import open_models_dialog

        open_models_dialog(self.window)
