"""Render the viewer and ledger screenshots of docs/ui.md: a PDF citation opened at its page with the passage and
the quote highlighted, a Markdown result rendered with its span selected, code with its line numbers, an Arabic
passage, and the ledger with skipped (hidden and unsupported files among them), encrypted and failed files.

Run from the repository root (offscreen works; QT_SCALE_FACTOR=2 for the 200 % pictures):
    QT_QPA_PLATFORM=offscreen .venv/bin/python docs/screenshots/viewer_ledger.py light docs/screenshots
    QT_QPA_PLATFORM=offscreen .venv/bin/python docs/screenshots/viewer_ledger.py dark docs/screenshots
    QT_QPA_PLATFORM=offscreen QT_SCALE_FACTOR=2 .venv/bin/python docs/screenshots/viewer_ledger.py light \
        docs/screenshots --suffix -200

The library is indexed with the real pipeline (the fast "hash" embedder: the pictures show the viewer, not
semantic ranking); the PDF page is rendered by PDFium and the boxes are PDFium's character boxes.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from PySide6.QtCore import QEventLoop, QTimer  # noqa: E402

from desktop_app.core.library import Library  # noqa: E402
from desktop_app.core.settings import Settings  # noqa: E402
from desktop_app.ui.app import make_application  # noqa: E402
from desktop_app.ui.theme import apply_theme  # noqa: E402
from tests.support.helpers import write_pdf  # noqa: E402

QUOTE = "the storm of March broke three windows of the lamp room"
PAGES = [f"Chapter {i}. The coast road runs past fields of barley and a row of cottages. " * 6 for i in range(1, 7)]
PAGES[3] = ("The lighthouse keeper kept a careful log every night. He wrote that " + QUOTE + " and that the oil "
            "froze in its tank. The relief boat came three days late, and the keeper rationed the lamp oil. ") * 3
NOTE = ("# Harbour notes\n\nThe harbour master counts the boats each **morning**.\n\n"
        "Quinces ripen in the walled garden behind the customs house in late October.\n\n## Tides\n\n"
        "Spring tides flood the lower quay twice a month.\n")
ARABIC = ("تقع المكتبة في وسط المدينة القديمة وتضم آلاف المخطوطات النادرة عن تاريخ العلوم والفلك والطب.\n\n"
          "ويزورها الباحثون من كل مكان لدراسة هذه المخطوطات، وتفتح أبوابها كل يوم من الصباح حتى المساء.")

CODE = "".join(f"def tide_{i}(hour):\n    return (hour * {i}) % 24  # the harbour's table, row {i}\n\n"
               for i in range(1, 40)) + \
    "def lantern_turns(minutes):\n    return minutes * 2  # the lens turns twice a minute\n"


def wait_for(signal, timeout_ms: int = 60_000):
    """Run the event loop until `signal` fires; its arguments."""
    loop, got = QEventLoop(), []
    signal.connect(lambda *args: (got.append(args), loop.quit()))
    QTimer.singleShot(timeout_ms, loop.quit)
    loop.exec()
    if not got:
        raise SystemExit(f"timed out waiting for {signal}")
    return got[0]


def settle(ms: int = 400) -> None:
    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()


def build(docs: Path) -> None:
    docs.mkdir()
    write_pdf(docs / "keeper-log.pdf", PAGES)
    write_pdf(docs / "locked.pdf", ["secret"], password="pw")
    (docs / "harbour.md").write_text(NOTE, encoding="utf-8")
    (docs / "المكتبة.txt").write_text(ARABIC, encoding="utf-8")
    (docs / "program.md").write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 8)
    (docs / "empty.txt").write_bytes(b"")
    (docs / "broken.docx").write_bytes(b"PK\x03\x04 not really a zip")
    (docs / ".draft.md").write_text("a hidden draft", encoding="utf-8")
    (docs / ".obsidian").mkdir()
    (docs / ".obsidian" / "workspace.json").write_text("{}", encoding="utf-8")
    (docs / "foghorn.mp3").write_bytes(b"ID3" + bytes(64))
    (docs / "tides.py").write_text(CODE, encoding="utf-8")


def main(theme: str, out: Path, suffix: str = "") -> int:
    app = make_application()
    apply_theme(app, theme)
    from desktop_app.ui.library.ledger_panel import open_ledger_panel
    from desktop_app.ui.viewer.dock import viewer_of
    from desktop_app.ui.window.main_window import MainWindow

    tag = f"{'-dark' if theme == 'dark' else ''}{suffix}"
    with tempfile.TemporaryDirectory(prefix="trove-viewer-") as tmp:
        docs = Path(tmp) / "notes"
        build(docs)
        library = Library(Path(tmp) / "home", settings=Settings(embedder="hash"))
        library.add_folder(docs)
        library.sync(wait=True)
        window = MainWindow(library)
        window.resize(1500, 900)
        window.show()
        settle(1500)
        pdf = str((docs / "keeper-log.pdf").resolve())
        hit = next(r for r in library.search("lighthouse keeper lamp room", top_k=10) if r.source == pdf)
        viewer = viewer_of(window)
        viewer.show_chunk(int(hit.metadata["chunk_id"]), QUOTE)
        wait_for(viewer.page_shown)
        settle()
        window.grab().save(str(out / f"viewer-pdf{tag}.png"))
        window.search_panel.query.setText("quinces garden")
        window.search_panel.search_now()
        wait_for(window.search_panel.results_shown)
        window.search_panel.view.setCurrentIndex(window.search_panel.model.index(0))
        window.search_panel.open_current()
        wait_for(viewer.passage_shown)
        settle()
        window.grab().save(str(out / f"viewer-markdown{tag}.png"))
        code = next(r for r in library.search("lantern_turns", top_k=5, mode="keyword") if r.source.endswith(".py"))
        viewer.show_chunk(int(code.metadata["chunk_id"]), "the lens turns twice a minute")
        wait_for(viewer.passage_shown)
        settle()
        window.grab().save(str(out / f"viewer-code{tag}.png"))
        arabic = next(r for r in library.search("المخطوطات النادرة", top_k=5) if r.source.endswith(".txt"))
        viewer.show_chunk(int(arabic.metadata["chunk_id"]))
        wait_for(viewer.passage_shown)
        settle()
        window.grab().save(str(out / f"viewer-arabic{tag}.png"))
        panel = open_ledger_panel(window)
        wait_for(panel.counts_shown)
        settle(800)
        panel.grab().save(str(out / f"ledger{tag}.png"))
        window.shutdown()
        library.close()
    return 0


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    suffix = sys.argv[sys.argv.index("--suffix") + 1] if "--suffix" in sys.argv else ""
    args = [a for a in args if a != suffix]
    sys.exit(main(args[0] if args else "light", Path(args[1] if len(args) > 1 else "docs/screenshots"), suffix))
