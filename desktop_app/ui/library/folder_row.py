"""One folder in the folders panel: name, state, counts and the progress of both indexing phases."""

from __future__ import annotations

import os

from PySide6.QtWidgets import QGridLayout, QLabel, QProgressBar, QWidget

from desktop_app.core.events import IndexProgress
from desktop_app.core.pathnames import display_path
from desktop_app.ui.safe_document import make_plain, plain_tooltip
from desktop_app.ui.theme import set_muted
from desktop_app.ui.units import counted, semantic_share

STATE_TEXT = {"active": "active", "paused": "paused", "offline": "offline: missing or unmounted"}


def share_text(info) -> str:
    """Who sees a team library's folder, in a few words."""
    if info.visibility == "private":
        return "private: only you"
    if info.visibility == "team":
        return "whole team"
    return "you and " + ", ".join(info.people)


def vectors_text(embedded: int, chunks: int) -> str:
    """“3 of 5 chunks have vectors” (“0 of 1 chunk has vectors”) for a semantic bar's tooltip."""
    return f"{embedded} of {counted(chunks, 'chunk')} {'has' if chunks == 1 else 'have'} vectors"


def _bar(name: str) -> QProgressBar:
    bar = QProgressBar(maximum=1000, textVisible=True)
    bar.setFormat(f"{name} %p%")
    bar.setMaximumHeight(16)
    return bar


class FolderRow(QWidget):
    """Shows one FolderInfo. Has no signals: the panel's list owns selection and the context menu."""

    def __init__(self, info, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.info = info
        self.name = QLabel()
        self.name.setObjectName("folderName")
        font = self.name.font()
        font.setBold(True)
        self.name.setFont(font)
        self.details = QLabel()
        self.details.setObjectName("folderDetails")
        make_plain(self.name, self.details)
        self.keyword = _bar("Keyword")
        self.semantic = _bar("Semantic")
        grid = QGridLayout(self)
        grid.setContentsMargins(6, 4, 6, 4)
        grid.setVerticalSpacing(2)
        grid.addWidget(self.name, 0, 0)
        grid.addWidget(self.details, 1, 0)
        grid.addWidget(self.keyword, 2, 0)
        grid.addWidget(self.semantic, 3, 0)
        self.update_info(info)

    def update_info(self, info, keyword: IndexProgress | None = None) -> None:
        """Show new counts; `keyword` is the running keyword-phase progress when this folder is being indexed."""
        self.info = info
        self.name.setText(display_path(os.path.basename(info.path.rstrip(os.sep)) or info.path))
        self.setToolTip(plain_tooltip(info.path, path=True))
        failed = f" · {info.failed} failed" if info.failed else ""
        ocr = f" · {counted(info.ocr_pending, 'page')} waiting for OCR" if info.ocr_pending else ""
        seen = f" · {share_text(info)}" if getattr(info, "owner", "") else ""
        state = STATE_TEXT.get(info.state, info.state)
        self.details.setText(f"{state} · {counted(info.documents, 'document')}{failed}{ocr}{seen}")
        set_muted(self.name, info.state == "paused")  # readable still: the disabled colour of many themes is not
        if keyword is not None and keyword.files_queued:
            self.keyword.setValue(int(1000 * keyword.fraction))
            done = keyword.files_done + keyword.files_failed
            files = counted(keyword.files_queued, "file")
            self.keyword.setToolTip(plain_tooltip(f"{done} of {files}: {display_path(keyword.current_file)}"))
        else:
            self.keyword.setValue(1000 if info.documents or info.failed or info.chunks else 0)
            self.keyword.setToolTip("Every file is keyword-searchable")
        self.semantic.setValue(semantic_share(info.embedded, info.chunks, info.documents))
        self.semantic.setToolTip(vectors_text(info.embedded, info.chunks))
