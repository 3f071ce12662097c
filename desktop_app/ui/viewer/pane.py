"""The viewer pane: a search result or a chat citation opened at its passage, highlighted.

PDFs show as rendered pages (library.viewer.pdf_page on the task runner: PDFium never runs on the UI thread) with
the passage's characters lightly and the quote's strongly highlighted, from PDFium's own character boxes; next /
previous page and zoom re-render one page. A scanned page, and an image file (shown as its page), are highlighted
with the boxes of the words OCR read there (kept at index time: nothing is OCR'd again to show it). Every other
type shows its extracted text (the chunks around the passage, rebuilt by their spans; a small code or Markdown file
whole) with the passage washed and selected (the quote, when there is one, selected in it), scrolled into view:
Markdown rendered (no resource loaded, no HTML), code in a monospace font with the file's line numbers; a
right-to-left paragraph lays out right to left (Qt's bidi, per paragraph). "Open in system viewer" is one key away
(Ctrl+Shift+O, or Shift+Enter on a search result).
"""

from __future__ import annotations

import re
from typing import Any

from PySide6.QtCore import QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QImage, QKeySequence, QPainter, QPixmap, QShortcut, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QStackedWidget,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from desktop_app.core.pathnames import display_path
from desktop_app.core.viewer_rows import Box, PassageText, PdfPage
from desktop_app.ui import open_file
from desktop_app.ui.safe_document import SafeTextDocument
from desktop_app.ui.tasks import TaskRunner
from desktop_app.ui.viewer.text_views import NumberedText, render_markdown

PASSAGE_COLOR = QColor(255, 214, 0, 70)  # the passage: a light wash
QUOTE_COLOR = QColor(255, 150, 0, 150)  # the quote inside it: stronger
ZOOM_STEP, MIN_SCALE, MAX_SCALE = 1.25, 0.5, 4.0  # 4 px a point: a A4 page is 32 MB of pixels


class ViewerPane(QWidget):
    """One document at a time, opened at a passage.

    Signals:
        passage_shown(object): a text document is shown with its passage selected (PassageText).
        page_shown(object): a PDF page is shown (PdfPage, with the boxes painted on it).
        failed(str): the passage or page could not be shown (why).
    """

    passage_shown = Signal(object)
    page_shown = Signal(object)
    failed = Signal(str)

    def __init__(self, library: Any, tasks: TaskRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("viewerPane")
        self.library, self.tasks = library, tasks
        self.passage: PassageText | None = None
        self.pdf: PdfPage | None = None
        self.quote = ""
        self.hits: re.Pattern[str] | None = None  # the search's words, for "Next hit"
        self.scale = 0.0  # pixels per point; 0 until a page is shown: the first one fits the pane's width
        self.fitting = True  # the page follows the pane's width until the person zooms
        self._generation = 0
        self._waiting = False  # a passage or page is on its way (a re-fit waits for it, never replaces it)
        self._refit = QTimer(self, singleShot=True, interval=150)  # a drag of the splitter is one re-render
        self._refit.timeout.connect(self.on_refit_timeout)
        self._build()
        self.failed.connect(self.on_failed_shown)

    def _build(self) -> None:
        self.title = QLabel("", self)
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.prev_button, self.next_button = QPushButton("◀", self), QPushButton("▶", self)
        self.zoom_out_button, self.zoom_in_button = QPushButton("−", self), QPushButton("+", self)
        self.page_label = QLabel("", self)
        self.system_button = QPushButton("Open in system viewer", self)
        self.next_hit_button = QPushButton("Next hit", self)
        self.next_hit_button.setToolTip("The next place the search's words appear (F3)")
        self.next_hit_button.clicked.connect(self.next_hit)
        self.prev_button.clicked.connect(lambda: self.show_page(self.pdf.page - 1 if self.pdf else 1))
        self.next_button.clicked.connect(lambda: self.show_page(self.pdf.page + 1 if self.pdf else 1))
        self.zoom_in_button.clicked.connect(lambda: self.zoom(ZOOM_STEP))
        self.zoom_out_button.clicked.connect(lambda: self.zoom(1 / ZOOM_STEP))
        self.system_button.clicked.connect(self.open_in_system_viewer)
        # only while the viewer has the focus: Page Down must still scroll the results list and the chat
        for keys, slot in ((QKeySequence("Ctrl+Shift+O"), self.open_in_system_viewer),
                           (QKeySequence(QKeySequence.StandardKey.MoveToNextPage), self.next_button.click),
                           (QKeySequence(QKeySequence.StandardKey.MoveToPreviousPage), self.prev_button.click),
                           (QKeySequence(QKeySequence.StandardKey.ZoomIn), lambda: self.zoom(ZOOM_STEP)),
                           (QKeySequence(QKeySequence.StandardKey.ZoomOut), lambda: self.zoom(1 / ZOOM_STEP)),
                           (QKeySequence(QKeySequence.StandardKey.FindNext), self.next_hit)):
            QShortcut(keys, self, slot, context=Qt.ShortcutContext.WidgetWithChildrenShortcut)
        bar = QHBoxLayout()
        bar.addWidget(self.title, 1)
        for w in (self.next_hit_button, self.prev_button, self.page_label, self.next_button, self.zoom_out_button,
                  self.zoom_in_button, self.system_button):
            bar.addWidget(w)
        self.text = NumberedText(self)
        self.text.setObjectName("viewerText")
        self.rendered = QTextEdit(self)  # Markdown, rendered
        self.rendered.setObjectName("viewerRendered")
        self.rendered.setReadOnly(True)
        self.rendered.setDocument(SafeTextDocument(self.rendered))
        self.page_image = QLabel(self)
        self.page_image.setObjectName("viewerPage")
        self.page_image.setAlignment(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)
        self.scroll = QScrollArea(self)
        self.scroll.setWidget(self.page_image)
        self.scroll.setWidgetResizable(True)
        self.stack = QStackedWidget(self)
        self.stack.addWidget(self.text)
        self.stack.addWidget(self.rendered)
        self.stack.addWidget(self.scroll)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(bar)
        layout.addWidget(self.stack, 1)
        self._pdf_controls(False)

    def _pdf_controls(self, on: bool) -> None:
        for w in (self.prev_button, self.next_button, self.zoom_out_button, self.zoom_in_button, self.page_label):
            w.setVisible(on)
        self.next_hit_button.setVisible(not on)  # a page's words are not searched (yet): the text's are

    # ---- opening -------------------------------------------------------------------------------

    def show_chunk(self, chunk_id: int, quote: str = "", query: str = "") -> None:
        """Open the document of chunk `chunk_id` at it (`quote`: a stretch of it to highlight more strongly;
        `query`: the search that found it, whose words "Next hit" steps through)."""
        words = [re.escape(w) for w in re.findall(r"\w{2,}", query)]
        self.hits = re.compile("|".join(sorted(words, key=len, reverse=True)), re.IGNORECASE) if words else None
        self._generation += 1
        self._waiting = True
        generation, viewer = self._generation, self.library.viewer
        self.quote = quote
        self.tasks.run(lambda: viewer.passage(chunk_id, quote),
                       lambda found: self.on_passage(generation, found),
                       lambda exc: self.on_failed(generation, exc))

    def show_memory(self, item: dict) -> None:
        """Open a memory item (a cited fact, a recalled past chat's excerpt: library.viewer.memory's `item`) as text
        with the fact or the excerpt's turns highlighted."""
        self.hits = None
        self._generation += 1
        self._waiting = True
        generation, viewer = self._generation, self.library.viewer
        self.quote = ""
        self.tasks.run(lambda: viewer.memory(item), lambda found: self.on_passage(generation, found),
                       lambda exc: self.on_failed(generation, exc))

    def on_passage(self, generation: int, passage: PassageText | None) -> None:
        if generation != self._generation:
            return  # another passage was asked for since
        self._waiting = False
        if passage is None:
            self.failed.emit("This passage is no longer in the library (its file changed).")
            return
        if self.passage is None or self.passage.path != passage.path:
            self.scale, self.fitting = 0.0, True  # another document: fit its page to the pane again
        self.passage = passage
        name = display_path(passage.title or passage.path)
        self.title.setText(f"{name} · {display_path(passage.place)}" if passage.place else name)
        if (passage.pdf or passage.image) and passage.page is not None:
            self.show_page(passage.page)
            return
        self.pdf = None
        self._pdf_controls(False)
        self.system_button.setEnabled(bool(passage.path))  # a memory item is no file
        self._show_text(passage)
        self.passage_shown.emit(passage)

    @property
    def shown_text(self) -> QPlainTextEdit | QTextEdit:
        """The text view on show: the plain / code view, or the rendered Markdown."""
        return self.rendered if self.stack.currentWidget() is self.rendered else self.text

    def _show_text(self, p: PassageText) -> None:
        spans = [p.start, p.end] + ([p.quote_start, p.quote_end] if p.quote_start >= 0 else [])
        at = render_markdown(self.rendered.document(), p.text, spans) if p.type == "markdown" else None
        view: QPlainTextEdit | QTextEdit = self.text if at is None else self.rendered
        if at is None:
            self.text.setPlainText(p.text)
            self.text.set_numbered(p.type == "code" and p.whole)  # numbers only when they are the file's
            at = spans
        self.stack.setCurrentWidget(view)
        # a plain-text view lays every paragraph out by its own first strong letter (Qt's bidi) but aligns them all
        # alike: a right-to-left passage's document is aligned to the right
        option = view.document().defaultTextOption()
        option.setAlignment(Qt.AlignmentFlag.AlignRight if p.rtl else Qt.AlignmentFlag.AlignLeft)
        view.document().setDefaultTextOption(option)
        cursor = _span(view, at[1], at[0])  # the cursor at the passage's start: the view scrolls to its beginning
        marks = [_mark(cursor, PASSAGE_COLOR)]
        if len(at) == 4:  # the quote is what is selected (a selection paints over the washes): the passage washed
            cursor = _span(view, at[3], at[2])
            marks.append(_mark(cursor, QUOTE_COLOR))
        view.setExtraSelections(marks)
        view.setTextCursor(cursor)  # selected: copy works, and the view scrolls to it
        if isinstance(view, QPlainTextEdit):
            view.centerCursor()
        else:
            view.ensureCursorVisible()

    # ---- PDF pages -----------------------------------------------------------------------------

    def show_page(self, page: int) -> None:
        """Render page `page` of the current PDF on a worker (the passage's and quote's boxes found on it)."""
        p = self.passage
        if p is None:
            return
        self._generation += 1
        self._waiting = True
        generation, viewer, scale, quote = self._generation, self.library.viewer, self.scale, self.quote
        # the stack, not the scroll area: a page not shown yet has no laid-out viewport; less a scroll bar
        fit = 0.0 if scale else max(self.stack.width() - 24, 200) * self.devicePixelRatioF()
        def render() -> tuple[PdfPage, QImage]:
            rendered = viewer.pdf_page(p.path, page, scale=scale, passage=p.chunk_text, quote=quote, fit_width=fit)
            return rendered, painted(rendered)  # a QImage may be painted off the UI thread (a QPixmap may not)
        self.tasks.run(render, lambda done: self.on_page(generation, *done),
                       lambda exc: self.on_failed(generation, exc))

    def on_page(self, generation: int, page: PdfPage, image: QImage) -> None:
        if generation != self._generation:
            return
        self._waiting = False
        self.pdf, self.scale = page, page.scale
        self._pdf_controls(True)
        self.page_label.setText(f"{page.page} / {page.pages}")
        self.prev_button.setEnabled(page.page > 1)
        self.next_button.setEnabled(page.page < page.pages)
        pixmap = QPixmap.fromImage(image)
        pixmap.setDevicePixelRatio(self.devicePixelRatioF())  # rendered for the screen's pixels: sharp at 200 %
        self.page_image.setPixmap(pixmap)
        self.stack.setCurrentWidget(self.scroll)
        first = (page.quote_boxes or page.passage_boxes or (None,))[0]
        if first is not None:
            ratio = self.devicePixelRatioF()
            self.scroll.ensureVisible(int(first.left / ratio), int(first.top / ratio), 40, 120)
        self.page_shown.emit(page)

    def zoom(self, factor: float) -> None:
        if self.pdf is not None and self.scale:
            self.scale, self.fitting = min(max(self.scale * factor, MIN_SCALE), MAX_SCALE), False
            self.show_page(self.pdf.page)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if self.fitting and self.pdf is not None:
            self._refit.start()

    def on_refit_timeout(self) -> None:
        wanted = max(self.stack.width() - 24, 200) * self.devicePixelRatioF()
        if self._waiting:
            self._refit.start()  # after what is on its way
        elif self.fitting and self.pdf is not None and abs(wanted - self.pdf.width) > 24:
            self.scale = 0.0
            self.show_page(self.pdf.page)

    def on_failed(self, generation: int, exc: BaseException) -> None:
        if generation == self._generation:
            self._waiting = False
            self.failed.emit(str(exc) or type(exc).__name__)

    def next_hit(self) -> bool:
        """Select the next place after the cursor where one of the search's words appears (from the top again
        past the last); False when there is none (or the document shows as a page)."""
        if self.hits is None or self.stack.currentWidget() is self.scroll:
            return False
        view = self.shown_text
        text = view.document().toRawText()  # indexed as the cursor's positions
        found = self.hits.search(text, view.textCursor().selectionEnd()) or self.hits.search(text)
        if found is None:
            return False
        view.setTextCursor(_span(view, found.start(), found.end()))
        view.ensureCursorVisible()
        return True

    def on_failed_shown(self, message: str) -> None:
        self.title.setText(message)  # the pane says why it shows nothing new (one line, plain text)

    def open_in_system_viewer(self) -> bool:
        """Hand the current document to the desktop's viewer (at its page, for a PDF)."""
        if self.passage is None or not self.passage.path:
            return False
        return open_file.open_path(self.passage.path, self.pdf.page if self.pdf else self.passage.page)


def painted(page: PdfPage) -> QImage:
    """The page's pixels with the passage's boxes washed in and the quote's boxes stronger on top."""
    image = QImage(page.pixels, page.width, page.height, page.stride, QImage.Format.Format_ARGB32).copy()
    painter = QPainter(image)
    try:
        for boxes, color in ((page.passage_boxes, PASSAGE_COLOR), (page.quote_boxes, QUOTE_COLOR)):
            for box in boxes:
                painter.fillRect(rect_of(box), color)
    finally:
        painter.end()
    return image


def rect_of(box: Box) -> QRectF:
    return QRectF(box.left, box.top, box.right - box.left, box.bottom - box.top)


def _span(view: QPlainTextEdit | QTextEdit, start: int, end: int) -> QTextCursor:
    cursor = QTextCursor(view.document())
    cursor.setPosition(start)
    cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
    return cursor


def _mark(cursor: QTextCursor, color: QColor) -> QTextEdit.ExtraSelection:
    selection = QTextEdit.ExtraSelection()
    selection.cursor = cursor  # type: ignore[misc]  -- PySide's ExtraSelection fields are plain attributes
    fmt = QTextCharFormat()
    fmt.setBackground(color)
    selection.format = fmt  # type: ignore[misc]
    return selection
