"""The chat transcript: Markdown with HTML disabled, citation links, and no resource loading at all."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QUrl, Signal
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QTextBrowser, QWidget

from desktop_app.core.log import get_logger
from desktop_app.ui.chat.answer_view import parse_toggle_url
from desktop_app.ui.chat.markdown import ShownExchange, parse_cite_url, transcript_markdown
from desktop_app.ui.safe_document import SafeTextDocument

log = get_logger("ui")

MARKDOWN = QTextDocument.MarkdownFeature.MarkdownDialectGitHub | QTextDocument.MarkdownFeature.MarkdownNoHTML


class ChatTranscript(QTextBrowser):
    """Shows a list of Exchanges. Links never navigate: only citation links do anything, via a signal.

    Signals:
        citation_clicked(int, int): a [n] marker was clicked (answer index, passage number).
        generation_toggled(int): "Show/Hide the model's answer" was clicked (answer index).
    """

    citation_clicked = Signal(int, int)
    generation_toggled = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("chatTranscript")
        self.setOpenLinks(False)  # we decide what a click does; the browser must not load the target
        self.setOpenExternalLinks(False)
        self.anchorClicked.connect(self.on_anchor_clicked)
        self.setDocument(SafeTextDocument(self))  # refuses every load: Markdown from a model must not read files
        self._exchanges: list[ShownExchange] = []

    def set_exchanges(self, exchanges: Sequence[ShownExchange]) -> None:
        """Render the conversation; keeps the view pinned to the bottom when it was there."""
        self._exchanges = list(exchanges)
        bar = self.verticalScrollBar()
        at_bottom = bar.value() >= bar.maximum() - 4
        self.document().setMarkdown(transcript_markdown(self._exchanges), MARKDOWN)
        if at_bottom:
            bar.setValue(bar.maximum())

    def scroll_to_exchange(self, index: int) -> None:
        """Scroll so exchange `index` starts at the top (a finished long answer is read from its beginning)."""
        seen, block = -1, self.document().begin()
        while block.isValid():
            if block.text() == "You":  # the heading transcript_markdown writes before each question
                seen += 1
                if seen == index:
                    top = self.document().documentLayout().blockBoundingRect(block).top()
                    self.verticalScrollBar().setValue(int(top))
                    return
            block = block.next()

    def exchanges(self) -> list[ShownExchange]:
        return list(self._exchanges)

    @property
    def blocked_resources(self) -> list[str]:
        """What the transcript's document was asked to load and refused (always empty for escaped text)."""
        return list(self.document().requested)

    def on_anchor_clicked(self, url: QUrl) -> None:
        cite = parse_cite_url(url.toString())
        toggle = parse_toggle_url(url.toString())
        if cite is not None:
            self.citation_clicked.emit(*cite)
        elif toggle is not None:
            self.generation_toggled.emit(toggle)
        else:
            log.info("ignored a link in a chat answer: %s", url.toString())
