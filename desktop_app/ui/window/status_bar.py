"""The status bar: what indexing is doing, the progress of both phases, and a button for notices."""

from __future__ import annotations

import os

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QLabel, QProgressBar, QStatusBar, QToolButton, QWidget

from desktop_app.core.events import IndexProgress, Notice
from desktop_app.core.pathnames import display_path
from desktop_app.ui.safe_document import make_plain
from desktop_app.ui.units import counted, semantic_share


class StatusBar(QStatusBar):
    """Phase text, a keyword and a semantic progress bar, and the notices count.

    Signals:
        notices_clicked(): the user wants to read the notices.
    """

    notices_clicked = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.message = QLabel("Ready")
        make_plain(self.message)  # shows file names
        self.message.setObjectName("statusMessage")
        self.keyword = QProgressBar(maximum=1000, textVisible=True, maximumWidth=170)
        self.keyword.setFormat("Keyword %p%")
        self.semantic = QProgressBar(maximum=1000, textVisible=True, maximumWidth=170)
        self.semantic.setFormat("Semantic %p%")
        self.read_only = QLabel("Read-only library")
        self.read_only.setObjectName("statusReadOnly")
        self.read_only.setVisible(False)
        self.network_drive = QLabel("Network drive")  # a library on NFS/SMB/FUSE: a rollback journal, not WAL
        self.network_drive.setObjectName("statusNetworkDrive")
        self.network_drive.setVisible(False)
        self.notices_button = QToolButton(autoRaise=True)
        self.notices_button.clicked.connect(self.notices_clicked.emit)
        self.addWidget(self.message, 1)
        self.addPermanentWidget(self.read_only)
        self.addPermanentWidget(self.network_drive)
        self.addPermanentWidget(self.keyword)
        self.addPermanentWidget(self.semantic)
        self.addPermanentWidget(self.notices_button)
        self._unread = 0
        self._indexing = False
        self._stats: dict = {}
        self.set_unread(0)
        self.keyword.setValue(1000)
        self.semantic.setValue(1000)

    def set_read_only(self, line: str) -> None:
        """Say, for as long as the window is open, that this library is searched and asked but never indexed."""
        self.read_only.setToolTip(line)
        self.read_only.setVisible(True)
        self.showMessage(line, 15000)

    def set_network_drive(self, line: str) -> None:
        """Say, for as long as the window is open, that this library is on a network drive (and what that costs)."""
        self.network_drive.setToolTip(line)
        self.network_drive.setVisible(True)
        self.showMessage(line, 15000)

    def set_unread(self, count: int) -> None:
        self._unread = count
        self.notices_button.setText(f"⚠ {counted(count, 'notice')}" if count else "Notices")
        self.notices_button.setToolTip("Errors and offline folders")

    def on_notice(self, notice: Notice) -> None:
        self.set_unread(self._unread + 1)
        self.showMessage(notice.message, 8000)

    def on_progress(self, event: IndexProgress) -> None:
        if event.phase == "scan":
            self._indexing = True
            self.keyword.setValue(0 if event.files_queued else 1000)
            self.message.setText(f"Scanning: {counted(event.files_queued, 'file')} to index")
        elif event.phase == "keyword":
            self._indexing = True
            self.keyword.setValue(int(1000 * event.fraction))
            name = display_path(os.path.basename(event.current_file))
            self.message.setText(
                f"Indexing {event.files_done + event.files_failed} of {counted(event.files_queued, 'file')} · {name}"
            )
        elif event.phase == "semantic":
            self.semantic.setValue(int(1000 * event.fraction))
            self.message.setText(
                f"Embedding {event.chunks_embedded} of {counted(event.chunks_total, 'chunk')}"
                + (f" · {event.rate:.0f}/s" if event.rate else "")
            )
        elif event.phase == "ocr":
            self.message.setText(
                f"Reading scanned pages (OCR): {event.files_done} of {event.files_queued}"
                f" · {os.path.basename(event.current_file)}"
            )
        elif event.phase == "rebuild":
            self._indexing = True
            self.keyword.setValue(int(1000 * event.fraction))
            chunks = counted(event.chunks_total, "chunk")
            self.message.setText(f"Updating the keyword index: {event.chunks_embedded} of {chunks}")
        elif event.phase == "idle":
            self._indexing = False
            self.keyword.setValue(1000)
            self._show_totals()

    def on_stats(self, stats: dict) -> None:
        """Counts from Library.stats(): the semantic bar shows the whole library's share of embedded chunks."""
        self._stats = stats
        has_folders = bool(stats.get("folders"))
        self.keyword.setVisible(has_folders)  # bars at 100% of nothing say nothing
        self.semantic.setVisible(has_folders)
        chunks, embedded = stats.get("chunks", 0), stats.get("chunks_embedded", 0)
        # The folder rows' rule: no chunks yet is 0% while nothing is read (a first index), 100% once documents are
        # there with nothing to embed; it used to say 100% during a first index while every row said 0%.
        self.semantic.setValue(semantic_share(embedded, chunks, stats.get("documents", 0)))
        if not self._indexing and embedded >= chunks:
            self._show_totals()

    def _show_totals(self) -> None:
        s = self._stats
        if not s:
            self.message.setText("Ready")
            return
        if not s.get("folders"):
            self.message.setText("No folders yet: drop one on the window")
            return
        failed = f", {s['failed']} failed" if s.get("failed") else ""
        pending = s.get("chunks", 0) - s.get("chunks_embedded", 0)
        tail = f" · embedding {counted(pending, 'chunk')}" if pending > 0 else " · up to date"
        self.message.setText(f"{counted(s.get('documents', 0), 'document')}{failed}{tail}")

