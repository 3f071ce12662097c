"""The OCR phase: a background thread reads pages with no text layer (scans, photos), one page per transaction.

It runs after the keyword phase and beside the vector phase: the rest of a folder is keyword-searchable long
before its scans are read (10 CPU-s a page is typical). What a page yields is chunked, marked `ocr`, and flows
to the vector phase. A page OCR cannot read is recorded with the reason; a file that changed since its pages
were listed is left for the next sync.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from desktop_app.core.errors import ExtractionError, UnavailableError
from desktop_app.core.events import IndexProgress, Notice, ProgressPhase
from desktop_app.core.index.background_phase import BackgroundPhase
from desktop_app.core.index.indexer import chunk_page_text, content_hash
from desktop_app.core.ingest.chunking import ChunkConfig
from desktop_app.core.ocr.words import OcrWord, encode_words
from desktop_app.core.settings import Settings
from desktop_app.core.store.base import Store
from desktop_app.core.store.rows import OcrTask

# (file bytes, type, page) -> (text, confidence, reason[, words]): the words with their boxes (core/ocr/words.py) are
# what the viewer highlights a passage on the page with; a scripted reader may leave them out
OcrRead = Callable[[bytes, str, int], tuple[str, float, str] | tuple[str, float, str, tuple[OcrWord, ...]]]


def rapidocr_reader(settings: Settings) -> OcrRead:
    """Read a page with the bundled RapidOCR models (loaded on first use, `settings.ocr_threads` threads). The page
    is rendered (PDFium, Pillow) in the extraction worker under the settings' budget; only the recogniser runs here."""
    engine = None

    def read(data: bytes, doc_type: str, page: int) -> tuple[str, float, str, tuple[OcrWord, ...]]:
        nonlocal engine
        from desktop_app.core.ingest.reader import budget_of
        from desktop_app.core.ingest.sandbox import shared_sandbox
        from desktop_app.core.ocr.engine import OcrEngine, ocr_image
        from desktop_app.core.ocr.pages import NO_TEXT_REASON

        if engine is None:
            engine = OcrEngine(threads=settings.ocr_threads, languages=tuple(settings.ocr_languages))
        try:
            image = shared_sandbox().render_page(data, doc_type, page, budget_of(settings))
        except ExtractionError as exc:
            return "", 0.0, str(exc), ()
        result = ocr_image(image, engine)
        if not result.text.strip():
            return "", 0.0, NO_TEXT_REASON, ()
        return result.text, result.confidence, "", result.words
    return read


class OcrWorker(BackgroundPhase):
    """Reads pending pages one at a time; `read` is the OCR engine (a scripted one in fast tests)."""

    name = "OCR"
    verb = "OCR"
    error_key = "ocr_error"

    def __init__(self, store: Store, settings: Settings, *, read: OcrRead | None = None,
                 after_page: Callable[[], None] = lambda: None,
                 emit: Callable[[IndexProgress], None] | None = None,
                 notify: Callable[[Notice], None] | None = None) -> None:
        super().__init__(store, emit=emit, notify=notify)
        self.settings = settings
        self.read = read or rapidocr_reader(settings)
        self.after_page = after_page  # the vector phase picks up the new chunks

    @property
    def chunk_config(self) -> ChunkConfig:
        s = self.settings
        return ChunkConfig(s.chunk_size, s.chunk_overlap, s.min_chunk_size)

    def run_pending(self) -> int:
        """Read every pending page; returns how many pages were written."""
        counts = self.store.ocr_counts()
        total, done, started = counts.pending, 0, time.monotonic()
        after = (0, 0)
        while not self.stopping:
            tasks = self.store.pending_ocr(1, after)
            if not tasks:
                break
            after = (tasks[0].document_id, tasks[0].page)  # a page left pending is not tried again in this run
            if self._read_page(tasks[0]):
                done += 1
                self.after_page()
            rate = done / max(time.monotonic() - started, 1e-6)
            left = self.store.ocr_counts().pending
            self.emit(IndexProgress(ProgressPhase.OCR, files_queued=max(total, done + left), files_done=done,
                                    current_file=tasks[0].path, rate=rate, eta_seconds=left / rate if rate else None))
        return done

    def _read_page(self, task: OcrTask) -> bool:
        """OCR one page and write what it yields; nothing once stop() was called (the page stays pending whole)."""
        words: tuple[OcrWord, ...] = ()
        if task.text:  # read before from this very file (a reindex): only re-chunk (its words are kept)
            text, confidence, reason = task.text, 1.0, ""
        elif self.stopping:  # before loading the engine or rendering: the library is closing
            return False
        else:
            try:
                data = Path(task.path).read_bytes()
            except OSError as exc:
                return self._skip(task, f"cannot read the file: {exc.strerror or exc}")
            if content_hash(data) != task.file_hash:
                return self._skip(task, "")  # changed since it was listed: the next sync lists it again
            try:
                text, confidence, reason, *more = self.read(data, task.type, task.page)
                words = more[0] if more else ()
            except (ExtractionError, UnavailableError) as exc:
                text, confidence, reason = "", 0.0, str(exc)
        if self.stopping:  # stopped while the page was read: it is read again by the next run
            return False
        chunks = chunk_page_text(text, task.page, task.label, self.chunk_config) if text.strip() else []
        return self.store.store_ocr_page(task, chunks, text=text, confidence=confidence,
                                         reason=reason or ("" if chunks else "OCR found no text on this page"),
                                         words=encode_words(words) if chunks else None)

    def _skip(self, task: OcrTask, reason: str) -> bool:
        """A page that cannot be read now: recorded as failed with the reason (or left pending without one)."""
        if reason:
            return self.store.store_ocr_page(task, [], text="", confidence=0.0, reason=reason)
        return False
