"""The viewer never blocks the UI thread: page 800 of a 1,000-page PDF, then zoomed and turned, are rendered on a
worker while a 20 ms heartbeat on the event loop keeps being served (asserted on the stall, the gap less the time
the OS kept the thread waiting for a core, as tests/gui/test_responsiveness.py does)."""

from __future__ import annotations

import time

import pypdfium2 as pdfium
from fpdf import FPDF

from desktop_app.core.viewer_rows import PassageText
from desktop_app.ui.heartbeat import Heartbeat
from desktop_app.ui.viewer.pane import ViewerPane

PAGES = 1000
MAX_STALL_MS = 200  # "never frozen", not a benchmark
MIN_TICKS = 10


def thousand_pages(tmp_path) -> str:
    """A 1,000-page PDF: one dense page made by fpdf2, copied by PDFium (writing 1,000 pages with fpdf2 takes a
    minute on a loaded machine)."""
    one = FPDF()
    one.set_font("Helvetica", size=11)
    one.add_page()
    one.multi_cell(0, 6, "The survey of the northern coast continues with soundings. " * 30)
    one.output(str(tmp_path / "one.pdf"))
    source, document = pdfium.PdfDocument(str(tmp_path / "one.pdf")), pdfium.PdfDocument.new()
    try:
        document.import_pages(source, [0] * PAGES)
        document.save(str(tmp_path / "long.pdf"))
    finally:
        document.close()
        source.close()
    return str(tmp_path / "long.pdf")


def test_page_800_of_a_long_pdf_renders_off_the_ui_thread(qtbot, library, tmp_path):
    from desktop_app.ui.tasks import TaskRunner

    path = thousand_pages(tmp_path)
    tasks = TaskRunner()
    pane = ViewerPane(library, tasks)
    qtbot.addWidget(pane)
    pane.resize(700, 900)
    pane.show()
    pane.passage = PassageText(path, "long", "pdf", "", 0, 0, 800, chunk_text="The survey of the northern coast",
                               pdf=True)
    beat = Heartbeat(20)
    beat.start()
    started = time.perf_counter()
    with qtbot.waitSignal(pane.page_shown, timeout=60_000) as shown:
        pane.show_page(800)
    first = time.perf_counter() - started
    assert (shown.args[0].page, shown.args[0].pages) == (800, PAGES) and shown.args[0].passage_boxes
    # up to the largest zoom: a page of tens of megabytes of pixels, which would stall a UI thread that drew it
    for step in (lambda: pane.zoom(8.0), pane.next_button.click, pane.prev_button.click, lambda: pane.zoom(0.8)):
        with qtbot.waitSignal(pane.page_shown, timeout=60_000):
            step()
    # the renders may all be done within a few beats on a fast machine: keep the loop beating long enough that the
    # stall figure covers a served heartbeat whatever the speed (waitUntil fails if the loop is never served)
    qtbot.waitUntil(lambda: len(beat.gaps_ms) >= MIN_TICKS, timeout=10_000)
    beat.stop()
    stats = beat.summary()
    print(f"page 800 of {PAGES} shown in {first * 1000:.0f} ms; heartbeat {stats}")
    assert pane.pdf is not None and pane.pdf.page == 800 and pane.pdf.scale > shown.args[0].scale * 2.5
    assert stats["ticks"] >= MIN_TICKS
    assert stats["max_stall_ms"] < MAX_STALL_MS, stats
    tasks.shutdown()
