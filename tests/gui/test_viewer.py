"""The viewer pane: a chat citation of a real multi-page PDF opens at its page with the passage's and the quote's
characters highlighted (checked against PDFium's own character boxes, found independently here); a search result
from a text file opens with its span selected; an Arabic document shows right to left; the system viewer stays
one key away."""

from __future__ import annotations

import threading

import pypdfium2 as pdfium
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

from desktop_app.core.chat.answer.context import Passage
from desktop_app.core.chat.answer.gate.citations import Citation
from desktop_app.ui.search.results_model import SnippetHtmlRole
from desktop_app.ui.viewer.dock import viewer_of
from desktop_app.ui.viewer.pane import QUOTE_COLOR
from tests.gui.gui_helpers import search
from tests.support.helpers import write_pdf

QUOTE = "the storm of March broke three windows of the lamp room"
PAGES = [f"Chapter {i}. The coast road runs past fields of barley and a row of cottages. " * 4 for i in range(1, 6)]
PAGES[3] = ("The lighthouse keeper kept a careful log every night. He wrote that " + QUOTE + " and that the oil "
            "froze in its tank. The relief boat came three days late. ") * 2
ARABIC = ("تقع المكتبة في وسط المدينة القديمة وتضم آلاف المخطوطات النادرة عن تاريخ العلوم والفلك والطب. "
          "ويزورها الباحثون من كل مكان لدراسة هذه المخطوطات.")
NOTE = ("# Harbour notes\n\nThe harbour master counts the boats each morning.\n\n"
        "Quinces ripen in the walled garden behind the customs house in late October.\n")


@pytest.fixture
def viewer_window(qtbot, make_window, library, tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    write_pdf(docs / "keeper.pdf", PAGES)
    (docs / "arabic.txt").write_text(ARABIC, encoding="utf-8")
    (docs / "harbour.md").write_text(NOTE, encoding="utf-8")
    library.add_folder(docs)
    library.sync(wait=True)
    window = make_window()
    window.show()
    qtbot.waitExposed(window)
    qtbot.waitUntil(lambda: window.folder_count >= 0 and not window.syncing, timeout=10_000)
    return window, docs


@pytest.fixture
def render_threads(monkeypatch):
    """The threads PDF pages were rendered on."""
    import desktop_app.core.viewer as viewer_module

    seen: list[threading.Thread] = []
    real = viewer_module.render_pdf_page

    def recorded(*args, **kwargs):
        seen.append(threading.current_thread())
        return real(*args, **kwargs)
    monkeypatch.setattr(viewer_module, "render_pdf_page", recorded)
    return seen


def pdf_chunk(library, pdf: str) -> tuple[int, str]:
    hit = next(r for r in library.search("lighthouse keeper lamp room", top_k=10) if r.source == pdf)
    assert hit.metadata["page"] == 4
    return int(hit.metadata["chunk_id"]), hit.content


def pdfium_boxes(pdf: str, page: int, text: str, scale: float) -> list[tuple[float, float, float, float]]:
    """PDFium's loose boxes (in pixels at `scale`) of the visible characters of `text`'s first match on `page`."""
    document = pdfium.PdfDocument(pdf)
    try:
        p = document[page - 1]
        textpage = p.get_textpage()
        searcher = textpage.search(text, match_case=False)
        start, count = searcher.get_next()
        height = p.get_height()
        chars = textpage.get_text_range(start, count)
        boxes = []
        for i in range(start, start + count):
            if chars[i - start].isspace():
                continue
            left, bottom, right, top = textpage.get_charbox(i, loose=True)
            boxes.append((left * scale, (height - top) * scale, right * scale, (height - bottom) * scale))
        return boxes
    finally:
        document.close()


def covered(box, rects, slack: float = 0.5) -> bool:
    return any(r.left - slack <= box[0] and box[2] <= r.right + slack and r.top - slack <= box[1]
               and box[3] <= r.bottom + slack for r in rects)


def test_a_citation_opens_the_pdf_at_its_page_with_the_quote_highlighted(qtbot, viewer_window, render_threads):
    window, docs = viewer_window
    pdf = str((docs / "keeper.pdf").resolve())
    chunk_id, content = pdf_chunk(window.library, pdf)
    pane = window.chat_pane
    chat = window.library.chat
    chat_id = chat.new_chat()
    passage = Passage(1, content, pdf, page=4, chunk_id=chunk_id)
    chat.store.add_exchange(chat_id, "What broke?", "Windows broke [1].", [Citation(1, pdf, 4, chunk_id, "")],
                            [passage])
    pane.open_chat(chat_id)
    qtbot.waitUntil(lambda: "Windows broke" in pane.transcript.toPlainText(), timeout=5000)
    cursor = pane.transcript.document().find("[1]")
    pos = pane.transcript.cursorRect(cursor).center()
    pos.setX(pos.x() - 3)
    with qtbot.waitSignal(viewer_of(window).page_shown, timeout=20_000) as shown:
        qtbot.mouseClick(pane.transcript.viewport(), Qt.MouseButton.LeftButton, pos=pos)
    page = shown.args[0]
    assert (page.page, page.pages) == (4, 5) and page.passage_boxes
    assert viewer_of(window).title.text().endswith("· p. 4")
    for box in pdfium_boxes(pdf, 4, "The lighthouse keeper kept a careful log", page.scale):
        assert covered(box, page.passage_boxes), box

    viewer = viewer_of(window)
    sources = pane.sources
    item = sources.list.item(0)
    rect = sources.list.visualItemRect(item)
    with qtbot.waitSignal(viewer.page_shown, timeout=20_000) as shown:  # the Sources list opens it too
        qtbot.mouseClick(sources.list.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
        qtbot.mouseDClick(sources.list.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert shown.args[0].page == 4 and shown.args[0].passage_boxes

    with qtbot.waitSignal(viewer.page_shown, timeout=20_000) as shown:
        viewer.show_chunk(chunk_id, QUOTE)
    page = shown.args[0]
    quote_boxes = pdfium_boxes(pdf, 4, QUOTE, page.scale)
    assert quote_boxes and page.quote_boxes
    assert all(covered(box, page.quote_boxes) for box in quote_boxes)
    union_height = sum(r.bottom - r.top for r in page.quote_boxes)
    assert union_height <= 2.5 * max(b[3] - b[1] for b in quote_boxes)  # the quote's line(s), not the page
    shown_image = viewer.page_image.pixmap().toImage()
    first = page.quote_boxes[0]
    x, y = int(first.left + 2), int((first.top + first.bottom) / 2)
    while QColor(shown_image.pixel(x, y)).lightness() < 128:  # a glyph's ink: step to the paper beside it
        x += 1
    assert QColor(shown_image.pixel(x, y)).blue() < 200 <= QColor(shown_image.pixel(x, y)).red()  # orange-washed
    assert QUOTE_COLOR.alpha() > 0

    with qtbot.waitSignal(viewer.page_shown, timeout=20_000) as shown:
        viewer.next_button.click()
    assert shown.args[0].page == 5 and shown.args[0].quote_boxes == ()
    with qtbot.waitSignal(viewer.page_shown, timeout=20_000) as shown:
        viewer.zoom_in_button.click()
    assert shown.args[0].page == 5 and shown.args[0].width > page.width
    assert len(render_threads) >= 4 and threading.main_thread() not in render_threads  # PDFium never on the UI thread


def test_a_text_result_opens_with_its_span_selected_and_the_system_viewer_is_one_key_away(
        qtbot, viewer_window, opened):
    window, docs = viewer_window
    panel = window.search_panel
    results = search(qtbot, window, "quinces walled garden")
    assert results and results[0].source.endswith("harbour.md")
    snippet = panel.model.data(panel.model.index(0), SnippetHtmlRole)
    assert "Harbour notes" in snippet and "#" not in snippet  # the Markdown heading reads as text
    panel.query.setFocus()
    qtbot.keyClick(panel.query, Qt.Key.Key_Down)
    with qtbot.waitSignal(viewer_of(window).passage_shown, timeout=20_000) as shown:
        qtbot.keyClick(panel.view, Qt.Key.Key_Return)
    passage = shown.args[0]
    viewer = viewer_of(window)
    assert results[0].content == passage.text[passage.start:passage.end] and passage.whole
    assert viewer.shown_text is viewer.rendered  # Markdown, rendered: the heading without its "#"
    selected = viewer.rendered.textCursor().selectedText().replace("\u2029", "\n")
    assert selected == "\n".join(line.lstrip("# ") for line in NOTE.strip().split("\n") if line)
    assert "#" not in viewer.rendered.toPlainText()
    assert viewer.rendered.document().firstBlock().blockFormat().headingLevel() == 1
    viewer.rendered.setFocus()
    hits = []
    for _ in range(4):  # F3: the search's words, one after the other, from the top again past the last
        qtbot.keyClick(viewer.rendered, Qt.Key.Key_F3)
        hits.append(viewer.rendered.textCursor().selectedText())
    assert hits == ["Quinces", "walled", "garden", "Quinces"]  # the query was "quinces walled garden"
    assert opened.calls == []
    qtbot.keyClick(panel.view, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyRelease(panel.view, Qt.Key.Key_Shift)  # the platform's modifier state, not held into later tests
    assert opened.calls == [(results[0].source, None)]
    viewer.rendered.setFocus()
    qtbot.keyClick(viewer.rendered, Qt.Key.Key_O,
                   Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyRelease(viewer.rendered, Qt.Key.Key_Control)
    assert opened.calls[-1] == (str((docs / "harbour.md").resolve()), None) and len(opened.calls) == 2


def test_a_passage_that_is_gone_says_so(qtbot, viewer_window):
    window, _docs = viewer_window
    viewer = viewer_of(window)
    with qtbot.waitSignal(viewer.failed, timeout=20_000) as failed:
        viewer.show_chunk(999_999)
    assert "no longer in the library" in failed.args[0] and viewer.title.text() == failed.args[0]


def test_an_arabic_document_shows_right_to_left(qtbot, viewer_window):
    window, docs = viewer_window
    hit = next(r for r in window.library.search("المخطوطات النادرة", top_k=5) if r.source.endswith("arabic.txt"))
    viewer = viewer_of(window)
    with qtbot.waitSignal(viewer.passage_shown, timeout=20_000) as shown:
        viewer.show_chunk(int(hit.metadata["chunk_id"]))
    assert shown.args[0].rtl
    assert ARABIC.split(".")[0] in viewer.text.toPlainText()
    block = viewer.text.document().findBlock(shown.args[0].start)
    assert block.textDirection() == Qt.LayoutDirection.RightToLeft
    assert viewer.text.document().defaultTextOption().alignment() & Qt.AlignmentFlag.AlignRight
    line = block.layout().lineAt(0)
    assert line.x() + line.naturalTextWidth() > viewer.text.viewport().width() * 0.8  # laid out from the right
