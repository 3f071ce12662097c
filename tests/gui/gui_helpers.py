"""Helpers shared by the GUI tests (waiting for syncs and searches, simulated drops)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent

SYNC_TIMEOUT_MS = 60_000
SAMPLE_DOCS = 7  # files in resources/sample_docs


def drop(widget, paths) -> QDropEvent:
    """Call `widget`'s drop handler with a file-manager drop of `paths` (as text/uri-list URLs).

    The handler is called directly: Qt delivers a Drop only after a drag entered the widget, and
    QDragEnterEvent's constructor is deprecated ("do not create one yourself").
    """
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    event = QDropEvent(QPointF(20, 20), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                       Qt.KeyboardModifier.NoModifier)
    event.setAccepted(False)
    widget.dropEvent(event)
    return event


def documents_in(window, folder: Path) -> int:
    """Indexed documents the folders panel shows for `folder` (-1 while it is not listed)."""
    row = window.folders_panel._rows.get(str(Path(folder).resolve()))
    return row.info.documents if row is not None else -1


def wait_indexed(qtbot, window, folder: Path, documents: int, timeout: int = SYNC_TIMEOUT_MS) -> None:
    """Wait until the panel shows `documents` indexed files for `folder` and no sync is running."""
    def done() -> bool:
        if window.syncing or documents_in(window, folder) < documents:
            window.schedule_refresh()
            return False
        return True
    qtbot.waitUntil(done, timeout=timeout)


def add_and_sync(qtbot, window, folder: Path, documents: int) -> None:
    """Add a folder through the panel and wait until its files are keyword-indexed and listed."""
    window.folders_panel.add_paths([str(folder)])
    wait_indexed(qtbot, window, folder, documents)


def search(qtbot, window, text: str) -> list:
    """Type `text` into the search box and wait for its results."""
    panel = window.search_panel
    with qtbot.waitSignal(panel.results_shown, timeout=10_000, check_params_cb=lambda q, _n: q == text):
        panel.query.setText(text)
    return panel.model.results()


_TOPICS = ("river delta sediment flood plain", "compiler register allocation pass", "violin bow rosin string",
           "glacier moraine ice age valley", "sourdough crumb hydration oven", "protein folding enzyme site",
           "medieval castle siege wall", "solar panel inverter battery", "chess opening gambit pawn",
           "coral reef bleaching ocean heat")


def make_corpus(folder: Path, n: int, words: int = 180) -> Path:
    """`n` small text files with varied, searchable vocabulary (deterministic)."""
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        topic = _TOPICS[i % len(_TOPICS)].split()
        body = " ".join(f"{topic[(i + j) % len(topic)]}{'' if j % 7 else f' note{i}'}" for j in range(words))
        sub = folder / f"part{i % 10}"
        sub.mkdir(exist_ok=True)
        (sub / f"doc{i:04d}.txt").write_text(f"Document {i} about {' '.join(topic)}.\n\n{body}\n", encoding="utf-8")
    return folder
