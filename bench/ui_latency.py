"""UI responsiveness: how late a 20 ms heartbeat on the Qt event loop runs while the window indexes a folder
of N text files (both phases, real MiniLM by default) and streams a chat answer from the real SmolLM2 model,
with searches typed meanwhile; then the library ledger opened on a library of --ledger-files files (100,000 by
default; bench/ledger_latency.py's measurement: first page, counts, scrolling, a filter and a sort under the same
heartbeat).

The same scenario as tests/gui/test_responsiveness.py, run to the end of the semantic phase and measured
instead of asserted. Reports p50/p95/p99/max heartbeat gap for the whole run and for each stretch
(keyword phase, semantic phase), plus how many gaps exceeded 100 and 200 ms.

Run: QT_QPA_PLATFORM=offscreen .venv/bin/python bench/ui_latency.py [--files 1000] [--embedder minilm|hash]
     [--ledger-files 100000] (0: no ledger stretch)
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import percentile, save  # noqa: E402

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QEventLoop, QTimer  # noqa: E402

from desktop_app.core.library import Library  # noqa: E402
from desktop_app.core.settings import Settings  # noqa: E402
from desktop_app.ui.app import make_application  # noqa: E402
from desktop_app.ui.heartbeat import Heartbeat  # noqa: E402
from tests.gui.gui_helpers import make_corpus  # noqa: E402


def spin_until(predicate, timeout_s: float) -> bool:
    """Run the event loop (so the heartbeat ticks) until predicate() or the timeout."""
    deadline = time.monotonic() + timeout_s
    loop = QEventLoop()
    while not predicate():
        if time.monotonic() > deadline:
            return False
        QTimer.singleShot(20, loop.quit)
        loop.exec()
    return True


def stretch(gaps: list[tuple[float, float]], start: float, end: float) -> dict:
    values = [g for t, g in gaps if start <= t <= end]
    return {
        "ticks": len(values),
        "p50_ms": round(percentile(values, 50), 2),
        "p95_ms": round(percentile(values, 95), 2),
        "p99_ms": round(percentile(values, 99), 2),
        "max_ms": round(max(values, default=0.0), 2),
        "over_100ms": sum(v > 100 for v in values),
        "over_200ms": sum(v > 200 for v in values),
        "seconds": round(end - start, 2),
    }


class GcPauses:
    """Records garbage-collector passes longer than 30 ms (which thread, which generation, when)."""

    def __init__(self) -> None:
        self.pauses: list[tuple[float, float, int, str]] = []
        self._start: dict[int, float] = {}
        gc.callbacks.append(self.on_gc)

    def on_gc(self, phase: str, info: dict) -> None:
        now = time.perf_counter()
        if phase == "start":
            self._start[threading.get_ident()] = now
            return
        began = self._start.pop(threading.get_ident(), now)
        if now - began > 0.03:
            self.pauses.append(
                (began, (now - began) * 1000, info.get("generation", -1), threading.current_thread().name)
            )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--embedder", choices=("minilm", "hash"), default="minilm")
    parser.add_argument("--ledger-files", type=int, default=100_000, help="files of the ledger's library (0: none)")
    parser.add_argument("--out", help="JSON path (default bench/results/ui_latency.json)")
    args = parser.parse_args()

    app = make_application()
    gc_pauses = GcPauses()
    from desktop_app.ui.window.main_window import MainWindow

    with tempfile.TemporaryDirectory() as tmp:
        from PySide6.QtCore import QSettings

        QSettings.setDefaultFormat(QSettings.Format.IniFormat)  # keep the user's real window layout untouched
        QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, tmp)
        corpus = make_corpus(Path(tmp) / "corpus", args.files)
        settings = Settings(
            embedder=args.embedder, answer_reserve_tokens=128, n_ctx=1024, max_context_tokens=320, context_top_k=3
        )
        library = Library(Path(tmp) / "home", settings=settings)
        window = MainWindow(library)
        window.show()
        spin_until(lambda: window.folder_count >= 0 and not window.syncing, 30)
        beat = Heartbeat(20)
        stamped: list[tuple[float, float]] = []
        original = beat.on_timeout

        def on_timeout() -> None:  # keep each gap's time too, to split the run into stretches
            original()
            stamped.append((time.perf_counter(), beat.gaps_ms[-1]))

        beat._timer.timeout.disconnect()
        beat._timer.timeout.connect(on_timeout)

        pane, panel = window.chat_pane, window.search_panel
        answers: list = []
        pane.answer_finished.connect(answers.append)
        pane.answer_failed.connect(lambda m: answers.append(m))
        t0 = time.perf_counter()
        beat.start()
        window.folders_panel.add_paths([str(corpus)])
        spin_until(lambda: bool(library.search("glacier moraine", top_k=1, mode="keyword")), 60)
        t_first = time.perf_counter()
        pane.ask("What do the notes say about glaciers and moraines?")
        for word in ("glacier", "violin rosin", "coral reef", "compiler pass", "chess gambit"):
            spin_until(lambda: False, 0.3)
            panel.query.setText(word)
        spin_until(lambda: bool(answers), 300)
        t_answer = time.perf_counter()
        spin_until(lambda: not window.syncing and library.stats()["documents"] >= args.files, 600)
        t_keyword = time.perf_counter()
        spin_until(lambda: library.wait_for_embeddings(0), 1800)
        t_semantic = time.perf_counter()
        beat.stop()
        stats = library.stats()
        answer = answers[0] if answers else None
        result = {
            "files": args.files,
            "embedder": args.embedder,
            "chunks": stats["chunks"],
            "chunks_embedded": stats["chunks_embedded"],
            "answer": {
                "ok": hasattr(answer, "text"),
                "tokens": getattr(answer, "completion_tokens", 0),
                "seconds": round(t_answer - t_first, 2),
            },
            "timeline_s": {
                "first_searchable": round(t_first - t0, 2),
                "answer_done": round(t_answer - t0, 2),
                "keyword_done": round(t_keyword - t0, 2),
                "semantic_done": round(t_semantic - t0, 2),
            },
            "heartbeat": beat.summary(),
            "while_answering": stretch(stamped, t_first, t_answer),
            "keyword_phase": stretch(stamped, t0, t_keyword),
            "semantic_phase": stretch(stamped, t_keyword, t_semantic),
            # when each long gap ended (seconds from the start) and the collector passes over 30 ms, to explain them
            "gaps_over_100ms": [[round(t - t0, 2), round(g, 1)] for t, g in stamped if g > 100],
            "gc_pauses_over_30ms": [
                [round(t - t0, 2), round(ms, 1), gen, thread] for t, ms, gen, thread in gc_pauses.pauses if t >= t0
            ],
        }
        window.shutdown()
        library.close()
        if args.ledger_files:
            from ledger_latency import run as open_ledger  # the ledger's own benchmark, run here beside the rest

            result["ledger"] = open_ledger(args.ledger_files, Path(tmp) / "ledger-home")
    hb = result["heartbeat"]
    print(
        f"{args.files} files ({result['chunks']} chunks, {args.embedder}); answer {result['answer']['tokens']} tokens "
        f"in {result['answer']['seconds']} s; keyword phase {result['timeline_s']['keyword_done']} s, "
        f"semantic phase done at {result['timeline_s']['semantic_done']} s"
    )
    print(
        f"heartbeat gap over the whole run ({hb['ticks']} ticks): p50 {hb['p50_ms']} ms, p95 {hb['p95_ms']} ms, "
        f"p99 {hb['p99_ms']} ms, max {hb['max_ms']} ms; >100 ms: {hb['over_100ms']}, >200 ms: {hb['over_200ms']}; "
        f"max stall (gap minus run-queue wait) {hb['max_stall_ms']} ms"
    )
    for name in ("while_answering", "keyword_phase", "semantic_phase"):
        s = result[name]
        print(
            f"  {name:16s} p50 {s['p50_ms']:6.2f}  p95 {s['p95_ms']:6.2f}"
            f"  max {s['max_ms']:7.2f} ms  ({s['ticks']} ticks)"
        )
    print(f"  gaps > 100 ms at (s, ms): {result['gaps_over_100ms']}")
    print(f"  gc passes > 30 ms at (s, ms, generation, thread): {result['gc_pauses_over_30ms']}")
    if "ledger" in result:
        led = result["ledger"]
        lb = led["heartbeat"]
        print(f"ledger on {led['files']} files: first page {led['first_page_s']} s, counts {led['counts_s']} s, "
              f"next pages {led['next_pages_s']} s, filter {led['filter_skipped_s']} s, sort {led['sort_by_size_s']} s;"
              f" heartbeat p50 {lb['p50_ms']} / p95 {lb['p95_ms']} / max {lb['max_ms']} ms, >200 ms: "
              f"{lb['over_200ms']}, max stall {lb['max_stall_ms']} ms")
    save("ui_latency", result, args.out)
    del app
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
