"""The ledger window on a large library: how long until its first page and its counts show, and whether the UI
thread stays served (a 20 ms heartbeat) while it opens, scrolls page after page, filters and sorts.

The library is written straight into the store (N documents of one short chunk, one in 50 failed or skipped, one in
100 never read, none embedded yet: every indexed row is "waiting for vectors", the ledger's costliest state to work
out) under a folder that is not on disk, so the window's startup rescan leaves it alone (offline).

    QT_QPA_PLATFORM=offscreen python bench/ledger_latency.py --files 100000
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from PySide6.QtCore import QEventLoop, QSettings, Qt, QTimer  # noqa: E402

from bench._common import save  # noqa: E402
from desktop_app.core.ingest.chunking import Span  # noqa: E402
from desktop_app.core.library import Library  # noqa: E402
from desktop_app.core.settings import Settings  # noqa: E402
from desktop_app.core.store.ledger_rows import FileState  # noqa: E402
from desktop_app.core.store.rows import NewChunk, NewDocument  # noqa: E402
from desktop_app.core.store.sqlite import SQLiteStore  # noqa: E402
from desktop_app.ui.app import make_application  # noqa: E402
from desktop_app.ui.heartbeat import Heartbeat  # noqa: E402


def spin_until(predicate, timeout_s: float) -> float:
    """Run the event loop until predicate(); seconds it took (raises past the timeout)."""
    started, loop = time.perf_counter(), QEventLoop()
    while not predicate():
        if time.perf_counter() - started > timeout_s:
            raise SystemExit(f"timed out after {timeout_s} s")
        QTimer.singleShot(10, loop.quit)
        loop.exec()
    return time.perf_counter() - started


def build(db: Path, folder: str, n: int) -> float:
    started = time.perf_counter()
    store = SQLiteStore(db)
    store.ensure_embedding_model("hash", 384)
    folder_id = store.add_folder(folder).id
    with store.write_batch():
        for i in range(n):
            path = f"{folder}/d{i // 1000:03}/file{i:06}.txt"
            doc = NewDocument(folder_id=folder_id, title=f"file{i}", type="text", path=path, size=100 + i,
                              mtime_ns=1, digest=f"h{i}")
            if i % 50 == 0:
                store.record_failure(doc, "binary file (contains NUL bytes)" if i % 100 else "encrypted PDF")
            elif i % 100 == 25:  # seen and never read (core/ingest/discover.py NotRead)
                store.record_failure(doc, "unsupported file type (.txt): not read")
                store.mark_not_read(folder_id, path)
            else:
                text = f"note {i} about the harbour and its boats"
                store.write_document(doc, [NewChunk(Span(0, len(text), text), None)])
    store.close()
    return time.perf_counter() - started


def run(files: int, home: Path) -> dict:
    """Write a library of `files` documents in `home` (a new folder), open the window on it and measure its ledger:
    the first page, the counts, five more pages, a state filter and a sort, under a 20 ms heartbeat.
    (Also bench/ui_latency.py's ledger stretch.)"""
    from desktop_app.ui.library.ledger_panel import open_ledger_panel
    from desktop_app.ui.window.main_window import MainWindow

    home.mkdir(parents=True)
    folder = str(home.parent / f"{home.name}-not-mounted")
    built = build(home / "library.db", folder, files)
    print(f"wrote {files} documents in {built:.0f} s")
    # the folder's semantic phase paused: every row stays waiting for vectors, the costliest state to derive
    library = Library(home, settings=Settings(embedder="hash", semantic_paused_folders=(folder,)))
    window = MainWindow(library)
    window.show()
    spin_until(lambda: window.folder_count >= 0 and not window.syncing, 120)
    beat = Heartbeat(20)
    beat.start()
    counted: list = []
    started = time.perf_counter()
    panel = open_ledger_panel(window)
    panel.counts_shown.connect(counted.append)
    model = panel.model
    first_page = spin_until(lambda: model.rowCount() > 0, 120)
    counts = spin_until(lambda: bool(counted), 120) + first_page
    scroll = []
    for _ in range(5):  # five more pages, as a person scrolling to the end would ask for them
        rows = model.rowCount()
        panel.table.scrollToBottom()
        scroll.append(spin_until(lambda rows=rows: model.rowCount() > rows, 120))
    t = time.perf_counter()
    panel.state_box.setCurrentIndex(panel.state_box.findData(str(FileState.SKIPPED)))
    spin_until(lambda: model.rowCount() > 0 and not model.is_loading(), 120)
    filtered = time.perf_counter() - t
    t = time.perf_counter()
    panel.state_box.setCurrentIndex(0)
    panel.table.sortByColumn(5, Qt.SortOrder.DescendingOrder)
    spin_until(lambda: model.rowCount() > 0 and not model.is_loading(), 120)
    sorted_s = time.perf_counter() - t
    beat.stop()
    result = {"files": files, "build_s": round(built, 1), "first_page_s": round(first_page, 3),
              "counts_s": round(counts, 3), "next_pages_s": [round(s, 3) for s in scroll],
              "filter_skipped_s": round(filtered, 3), "sort_by_size_s": round(sorted_s, 3),
              "total_s": round(time.perf_counter() - started, 1), "heartbeat": beat.summary(),
              "counts": {str(k): v for k, v in counted[0].items()} if counted else {}}
    window.shutdown()
    library.close()
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=100_000)
    parser.add_argument("--out", help="JSON path (default bench/results/ledger_latency.json)")
    args = parser.parse_args()
    make_application()
    with tempfile.TemporaryDirectory() as tmp:
        QSettings.setDefaultFormat(QSettings.Format.IniFormat)  # keep the user's real window layout untouched
        QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, tmp)
        result = run(args.files, Path(tmp) / "home")
        print(result)
    save("ledger_latency", result, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
