"""Render the screenshot of docs/ui.md that shows a scanned page in the viewer: a PDF of pictures only (no text layer,
what a scanner makes), read by the bundled OCR models while the library syncs, opened at the passage with the quote's
words highlighted from the word boxes OCR kept.

Run from the repository root (offscreen works; it takes a minute or two: the page is really OCR'd):
    QT_QPA_PLATFORM=offscreen .venv/bin/python docs/screenshots/viewer_ocr.py light docs/screenshots
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # viewer_ledger.py beside it: its event-loop helpers

from PIL import Image, ImageDraw, ImageFont  # noqa: E402
from viewer_ledger import settle, wait_for  # noqa: E402

from desktop_app.core.library import Library  # noqa: E402
from desktop_app.core.settings import Settings  # noqa: E402
from desktop_app.ui.app import make_application  # noqa: E402
from desktop_app.ui.theme import apply_theme  # noqa: E402

QUOTE = "the storm of March broke three windows of the lamp room"
LINES = ["Keeper's log, North Head light, 1911", "",
         "The lighthouse keeper kept a careful log every night.",
         "He wrote that the storm of March broke three windows",
         "of the lamp room and that the oil froze in its tank.",
         "The relief boat came three days late, and the keeper",
         "rationed the lamp oil until it came."]


def write_scan(path: Path) -> None:
    """An image-only PDF of one page: the log's lines on off-white paper at 150 dpi."""
    page = Image.new("RGB", (1240, 760), (250, 247, 238))
    draw = ImageDraw.Draw(page)
    for number, line in enumerate(LINES):
        size = 46 if number == 0 else 40
        draw.text((90, 80 + number * 80), line, fill=(30, 30, 30), font=ImageFont.load_default(size=size))
    page.save(str(path), "PDF", resolution=150)


def main(theme: str, out: Path, suffix: str = "") -> int:
    app = make_application()
    apply_theme(app, theme)
    from desktop_app.ui.viewer.dock import viewer_of
    from desktop_app.ui.window.main_window import MainWindow

    tag = f"{'-dark' if theme == 'dark' else ''}{suffix}"
    with tempfile.TemporaryDirectory(prefix="trove-ocr-") as tmp:
        docs = Path(tmp) / "scans"
        docs.mkdir()
        write_scan(docs / "keeper-log-scan.pdf")
        library = Library(Path(tmp) / "home", settings=Settings(embedder="hash"))
        library.add_folder(docs)
        library.sync(wait=True)  # the keyword phase, then OCR of the page
        window = MainWindow(library)
        window.resize(1500, 900)
        window.show()
        settle(1500)
        window.search_panel.query.setText("storm lamp room")
        window.search_panel.search_now()
        wait_for(window.search_panel.results_shown)
        hit = window.search_panel.model.results()[0]
        viewer = viewer_of(window)
        viewer.show_chunk(int(hit.metadata["chunk_id"]), QUOTE)
        wait_for(viewer.page_shown)
        settle()
        window.grab().save(str(out / f"viewer-ocr{tag}.png"))
        window.shutdown()
        library.close()
    app.quit()
    return 0


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    suffix = sys.argv[sys.argv.index("--suffix") + 1] if "--suffix" in sys.argv else ""
    args = [a for a in args if a != suffix]
    sys.exit(main(args[0] if args else "light", Path(args[1] if len(args) > 1 else "docs/screenshots"), suffix))
