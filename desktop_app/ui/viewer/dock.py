"""The viewer pane docked in the main window, and the hooks by which search results and chat citations open it.

The dock is made on first use (a window that never opens a passage builds none); `attach_viewer` is the one call
the window makes.
"""

from __future__ import annotations

import os
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDockWidget

from desktop_app.core.types import RetrievalResult
from desktop_app.ui.viewer.pane import ViewerPane


def attach_viewer(window: Any) -> None:
    """Enter / double-click on a search result, a click on a chat citation and a double-click in the Sources list
    open the viewer pane (a memory item there too: a fact, a past chat's excerpt)."""
    window.search_panel.viewer = lambda result: open_result(window, result)
    window.chat_pane.viewer = window.chat_pane.sources.viewer = \
        lambda chunk_id, quote: viewer_of(window).show_chunk(chunk_id, quote)
    window.chat_pane.sources.memory_viewer = lambda item: viewer_of(window).show_memory(item)


def viewer_of(window: Any) -> ViewerPane:
    """The window's viewer pane, docked on the right (made on first use), shown."""
    dock = getattr(window, "viewer_dock", None)
    if dock is None:
        dock = QDockWidget("Viewer", window)
        dock.setObjectName("viewerDock")
        dock.setWidget(ViewerPane(window.library, window.tasks, dock))
        window.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)
        window.resizeDocks([dock], [max(window.width() * 2 // 5, 420)], Qt.Orientation.Horizontal)
        window.viewer_dock = dock
    dock.show()
    dock.raise_()
    return dock.widget()


def open_result(window: Any, result: RetrievalResult) -> bool:
    """Open a search result in the viewer; False (the system viewer's turn) when it has no passage of a file here:
    a result on another desktop's disk, or one without a chunk."""
    chunk = result.metadata.get("chunk_id")
    if chunk is None or (result.metadata.get("machine") and not os.path.exists(result.source)):
        return False
    viewer_of(window).show_chunk(int(chunk), query=window.search_panel.query.text())
    return True
