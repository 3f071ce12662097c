"""`trove gui --screenshot PNG [--query Q] [--ask Q]`: drive the window to a state, grab it, save it, quit."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, QTimer, Signal

from desktop_app.core.log import get_logger

log = get_logger("ui")

TIMEOUT_MS = 300_000  # the real embedder and chat model load on first use; give them time, but never hang
SUGGESTIONS_MS = 15_000  # how long a picture of the welcome state waits for its questions (drawn after a pause)


class ScreenshotScript(QObject):
    """Waits for the sample library to be indexed (both phases), types the query, asks the question,
    selects the first citation, then saves `window.grab()`.

    Signals:
        finished(int): done; 0 when the PNG was written.
    """

    finished = Signal(int)

    def __init__(self, window, path: str, *, sample: bool, query: str | None, ask: str | None) -> None:
        super().__init__(window)
        self.window, self.path, self.sample, self.query, self.ask = window, Path(path), sample, query, ask
        self._timeout = QTimer(self, singleShot=True, interval=TIMEOUT_MS)
        self._timeout.timeout.connect(self.on_timeout)
        self._done = False
        self._suggested = False
        self._documents = 0  # from the last refresh's stats: no question is drawn for an empty library
        window.chat_pane.suggestions_shown.connect(self.on_suggestions)

    def on_suggestions(self, _suggestions) -> None:
        self._suggested = True

    def start(self) -> None:
        self._timeout.start()
        if self.sample:
            self.window.sample_ready.connect(self.on_sample_ready)
        else:
            self.window.refreshed.connect(self.on_first_refresh)

    def on_first_refresh(self, *_args) -> None:
        self.window.refreshed.disconnect(self.on_first_refresh)
        self.on_sample_ready("")

    def on_sample_ready(self, _path: str) -> None:
        library = self.window.library
        self.window.tasks.run(lambda: library.wait_for_embeddings(240), self.on_embedded, self.on_error)

    def on_embedded(self, _ok) -> None:
        self.window.refreshed.connect(self.on_refreshed)
        self.window.refresh_now()

    def on_refreshed(self, _folders, stats) -> None:
        self.window.refreshed.disconnect(self.on_refreshed)
        self._documents = stats.get("documents", 0)
        self.when_idle(self.type_query)

    def when_idle(self, then) -> None:
        """Call `then` once no background task is running (e.g. the embedder warm-up), so timings shown are warm."""
        if self.window.tasks.pending():
            QTimer.singleShot(100, lambda: self.when_idle(then))
        else:
            then()

    def type_query(self) -> None:
        if self.query:
            panel = self.window.search_panel
            panel.results_shown.connect(self.on_results)
            panel.query.setText(self.query)
            panel.search_now()
        else:
            self.on_results(None, 0)

    def on_results(self, text, _count) -> None:
        if text is not None and text != self.query:
            return
        if self.query:
            self.window.search_panel.results_shown.disconnect(self.on_results)
        if self.ask:
            pane = self.window.chat_pane
            pane.answer_finished.connect(self.on_answer)
            pane.answer_failed.connect(self.on_answer_failed)
            pane.ask(self.ask)
        else:
            self.when_suggested(self.capture_soon, SUGGESTIONS_MS // 100)

    def when_suggested(self, then, tries: int) -> None:
        """Call `then` once the welcome state shows its questions (or the library has no document to draw
        them from, or `tries` tenths of a second have passed)."""
        if self._suggested or tries <= 0 or not self._documents:
            then()
        else:
            QTimer.singleShot(100, lambda: self.when_suggested(then, tries - 1))

    def on_answer(self, answer) -> None:
        pane = self.window.chat_pane
        if answer.citations:
            pane.on_citation_clicked(len(pane.transcript.exchanges()) - 1, answer.citations[0].n)
        self.capture_soon()

    def on_answer_failed(self, message: str) -> None:
        log.error("the question failed: %s", message)
        self.capture_soon()  # the window shows the failure; that is worth a picture too

    def capture_soon(self) -> None:
        QTimer.singleShot(300, self.capture)  # let layouts and the last render settle

    def capture(self) -> None:
        if self._done:
            return
        self._done = True
        self._timeout.stop()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        ok = self.window.grab().save(str(self.path), "PNG")
        if not ok:
            log.error("could not write %s", self.path)
        self.finished.emit(0 if ok else 1)

    def on_error(self, exc: BaseException) -> None:
        log.error("screenshot preparation failed: %s", exc)
        self._done = True
        self.finished.emit(1)

    def on_timeout(self) -> None:
        if not self._done:
            log.error("gave up waiting for the window after %d s", TIMEOUT_MS // 1000)
            self._done = True
            self.finished.emit(1)
