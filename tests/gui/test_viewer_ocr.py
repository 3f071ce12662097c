"""The viewer on pages OCR read: a chat citation of a scanned PDF (pictures only, no text layer) opens at its page with
the quote's words highlighted from the word boxes OCR kept at index time, and a search result from a photo of a
ticket (an image file) opens as its page with the passage's words highlighted.

Real OCR (the bundled RapidOCR models) reads the scans while the library syncs. The highlight is checked against the
words OCR stored for the page, matched here by their text alone (independently of the viewer's matching), and
against the rendered page: every highlighted word box holds ink, so the boxes sit on the words a person sees.
"""

from __future__ import annotations

import threading

import pytest
from PIL import Image, ImageDraw, ImageFont
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

from desktop_app.core.chat.answer.context import Passage
from desktop_app.core.chat.answer.gate.citations import Citation
from desktop_app.core.ocr.words import OcrWord, decode_words
from desktop_app.ui.viewer.dock import open_result, viewer_of

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]  # OCR of three small scans: minutes on a loaded machine

PAGE_ONE = ["The coast road runs past fields", "of barley and a row of cottages."]
PAGE_TWO = ["The lighthouse keeper kept a log.", "The storm of March broke three", "windows of the lamp room."]
QUOTE = "storm of March broke three windows"
TICKET = ["Harbour ferry ticket", "Return fare paid in cash"]


def write_scan(path, pages: list[list[str]]) -> None:
    """An image-only PDF: each page a picture of its lines (what a scanner makes), 150 dpi."""
    pictures = []
    for lines in pages:
        picture = Image.new("RGB", (1100, 420), "white")
        draw = ImageDraw.Draw(picture)
        for number, line in enumerate(lines):
            draw.text((50, 50 + number * 110), line, fill="black", font=ImageFont.load_default(size=48))
        pictures.append(picture)
    pictures[0].save(str(path), "PDF", resolution=150, save_all=True, append_images=pictures[1:])


@pytest.fixture
def scans(qtbot, make_window, library, tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    write_scan(docs / "keeper-scan.pdf", [PAGE_ONE, PAGE_TWO])
    ticket = Image.new("RGB", (900, 300), "white")
    draw = ImageDraw.Draw(ticket)
    for number, line in enumerate(TICKET):
        draw.text((40, 40 + number * 110), line, fill="black", font=ImageFont.load_default(size=48))
    ticket.save(docs / "ticket.png")
    library.add_folder(docs)
    library.sync(wait=True)  # the keyword phase, then OCR of the three pages
    assert library.stats()["ocr"]["pages_done"] == 3
    window = make_window()
    window.show()
    qtbot.waitExposed(window)
    qtbot.waitUntil(lambda: not window.syncing, timeout=10_000)
    return window, docs


@pytest.fixture
def render_threads(monkeypatch):
    """The threads pages were rendered and matched on."""
    import desktop_app.core.viewer as viewer_module

    seen: list[threading.Thread] = []
    real = viewer_module.with_ocr_boxes

    def recorded(*args, **kwargs):
        seen.append(threading.current_thread())
        return real(*args, **kwargs)
    monkeypatch.setattr(viewer_module, "with_ocr_boxes", recorded)
    return seen


def stored_words(library, path: str, page: int) -> list[OcrWord]:
    return decode_words(library.store.ocr_words(path, page))


def words_of(words: list[OcrWord], phrase: str) -> list[OcrWord]:
    """The run of OCR words that spells `phrase` word by word (case and trailing punctuation aside)."""
    wanted = [w.strip(".,") for w in phrase.lower().split()]
    said = [w.text.lower().strip(".,") for w in words]
    for at in range(len(said) - len(wanted) + 1):
        if said[at:at + len(wanted)] == wanted:
            return words[at:at + len(wanted)]
    raise AssertionError(f"OCR did not read {phrase!r}: {[w.text for w in words]}")


def covered(word: OcrWord, rects, width: int, height: int, slack: float = 0.5) -> bool:
    left, top, right, bottom = word.left * width, word.top * height, word.right * width, word.bottom * height
    return any(r.left - slack <= left and right <= r.right + slack and r.top - slack <= top
               and bottom <= r.bottom + slack for r in rects)


def inked(page, word: OcrWord) -> bool:
    """The rendered page (before any highlight) has dark pixels inside the word's box."""
    for y in range(int(word.top * page.height), int(word.bottom * page.height)):
        for x in range(int(word.left * page.width), int(word.right * page.width)):
            at = y * page.stride + x * 4
            if max(page.pixels[at:at + 3]) < 100:  # B, G, R
                return True
    return False


def test_a_citation_of_a_scanned_pdf_opens_at_its_page_with_the_quotes_words_highlighted(
        qtbot, scans, render_threads):
    window, docs = scans
    library = window.library
    pdf = str((docs / "keeper-scan.pdf").resolve())
    hit = next(r for r in library.search("lighthouse keeper lamp room", top_k=10, mode="keyword") if r.source == pdf)
    assert hit.metadata["page"] == 2 and hit.metadata["ocr"] is True
    chunk_id = int(hit.metadata["chunk_id"])
    words = stored_words(library, pdf, 2)
    quoted = words_of(words, QUOTE)
    chat = library.chat
    chat_id = chat.new_chat()
    chat.store.add_exchange(chat_id, "What broke?", "Windows broke [1].", [Citation(1, pdf, 2, chunk_id, "")],
                            [Passage(1, hit.content, pdf, page=2, chunk_id=chunk_id)])
    pane = window.chat_pane
    pane.open_chat(chat_id)
    qtbot.waitUntil(lambda: "Windows broke" in pane.transcript.toPlainText(), timeout=5000)
    pos = pane.transcript.cursorRect(pane.transcript.document().find("[1]")).center()
    pos.setX(pos.x() - 3)
    with qtbot.waitSignal(viewer_of(window).page_shown, timeout=60_000) as shown:
        qtbot.mouseClick(pane.transcript.viewport(), Qt.MouseButton.LeftButton, pos=pos)
    viewer = viewer_of(window)
    page = shown.args[0]
    assert (page.page, page.pages, page.ocr) == (2, 2, True) and page.passage_boxes
    assert viewer.title.text().endswith("· p. 2")
    for word in words_of(words, " ".join(PAGE_TWO)):  # the passage is the whole page: every word washed
        assert covered(word, page.passage_boxes, page.width, page.height), word

    with qtbot.waitSignal(viewer.page_shown, timeout=60_000) as shown:
        viewer.show_chunk(chunk_id, QUOTE)  # with the quote an answer shows (its words stronger)
    page = shown.args[0]
    assert len(page.quote_boxes) == 2  # the quote runs over two lines: one rectangle each
    for word in quoted:
        assert covered(word, page.quote_boxes, page.width, page.height), word
        assert inked(page, word), word  # the box is on the word as rendered, not somewhere else on the page
    for word in words_of(words, "The lighthouse keeper"):  # outside the quote, inside the passage
        assert not covered(word, page.quote_boxes, page.width, page.height), word
    shown_image = viewer.page_image.pixmap().toImage()
    first = page.quote_boxes[0]
    x, y = int(first.left + 2), int((first.top + first.bottom) / 2)
    while QColor(shown_image.pixel(x, y)).lightness() < 128:  # a glyph's ink: step to the paper beside it
        x += 1
    assert QColor(shown_image.pixel(x, y)).blue() < 200 <= QColor(shown_image.pixel(x, y)).red()  # orange-washed

    with qtbot.waitSignal(viewer.page_shown, timeout=60_000) as shown:
        viewer.prev_button.click()  # page 1 is a scan too: no passage on it, nothing highlighted
    assert shown.args[0].page == 1 and shown.args[0].quote_boxes == () and shown.args[0].passage_boxes == ()
    assert render_threads and threading.main_thread() not in render_threads  # never on the UI thread


def test_a_search_result_from_an_image_opens_as_its_page_with_the_passages_words_highlighted(qtbot, scans):
    window, docs = scans
    library = window.library
    png = str((docs / "ticket.png").resolve())
    hit = next(r for r in library.search("return fare cash", top_k=10, mode="keyword") if r.source == png)
    window.search_panel.query.setText("return fare cash")
    viewer = viewer_of(window)
    with qtbot.waitSignal(viewer.page_shown, timeout=60_000) as shown:
        assert open_result(window, hit)
    assert (shown.args[0].page, shown.args[0].pages, shown.args[0].ocr) == (1, 1, True)
    # fitted to the pane's width as a PDF page is (re-rendered once the new dock is laid out)
    qtbot.waitUntil(lambda: not viewer._waiting and abs(viewer.pdf.width - (viewer.stack.width() - 24)) <= 24,
                    timeout=60_000)
    page = viewer.pdf
    assert page.ocr and page.passage_boxes
    assert viewer.stack.currentWidget() is viewer.scroll and not viewer.next_hit_button.isVisible()
    words = stored_words(library, png, 1)
    for word in words_of(words, " ".join(TICKET)):
        assert covered(word, page.passage_boxes, page.width, page.height), word
        assert inked(page, word), word
    viewer.setFocus()
    qtbot.keyClick(viewer, Qt.Key.Key_Plus, Qt.KeyboardModifier.ControlModifier)  # zoom: the boxes scale with it
    qtbot.waitUntil(lambda: viewer.pdf is not None and viewer.pdf.width > page.width, timeout=60_000)
    bigger = viewer.pdf
    assert bigger.passage_boxes and bigger.passage_boxes[0].left == pytest.approx(
        page.passage_boxes[0].left * bigger.width / page.width, rel=0.02)
