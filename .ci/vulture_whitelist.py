"""Names vulture cannot see used: framework hooks called by Qt / html.parser / watchdog / ctypes, registry entries,
and fields of frozen rows that are data. `make lint` scans desktop_app with this file beside it."""

# ruff: noqa
from desktop_app.core.ingest import extract
from desktop_app.core.memory import backends
from desktop_app.core.store import rows
from desktop_app.ui import chat_pane, drops, main_window, models_dialog, safe_document, search_panel

extract._VisibleText.handle_starttag  # html.parser calls these
extract._VisibleText.handle_endtag
extract._VisibleText.handle_data
_.attrs  # html.parser's signature

backends.HybridMemory  # registered with @MemoryRegistry.register, created by key
backends.BM25Memory

rows.DocStatus.FAILED  # stored values and row fields: data, read by callers and JSON
rows.FolderRow.added_at
rows.FolderRow.last_scan

_.row_factory  # sqlite3 connection attribute
_.dwLength  # ctypes MEMORYSTATUSEX field (Windows)

chat_pane.ChatPane.eventFilter  # Qt overrides
search_panel.SearchPanel.eventFilter
models_dialog.ModelsDialog.eventFilter
drops.FolderDropTarget.dragEnterEvent
drops.FolderDropTarget.dragMoveEvent
main_window.MainWindow.closeEvent
safe_document.SafeTextDocument.loadResource
