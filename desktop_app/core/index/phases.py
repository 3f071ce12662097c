"""IndexPhases: a library's three indexing phases and the lock that orders them.

The keyword phase (Indexer) runs on the caller's thread under one lock; the OCR phase (OcrWorker) and the
semantic phase (EmbedWorker) run on their own threads and are woken after it. `Library` owns one and
delegates `sync`, `sync_paths`, `move_path` and the waits to it.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from desktop_app.core.embed.base import Embedder
from desktop_app.core.events import Event, IndexProgress, ProgressPhase
from desktop_app.core.folders import FolderMonitor, deepest_folder
from desktop_app.core.index.embed_worker import EmbedWorker
from desktop_app.core.index.indexer import Indexer, SyncReport
from desktop_app.core.index.ocr_worker import OcrRead, OcrWorker
from desktop_app.core.index.upgrades import rebuild_keywords
from desktop_app.core.log import get_logger
from desktop_app.core.settings import Settings
from desktop_app.core.store.base import Store
from desktop_app.core.store.rows import FolderRow, FolderState

log = get_logger("index")

__all__ = ["IndexPhases"]


class IndexPhases:
    """Keyword, OCR and semantic phases of one library's index. Safe to call from several threads."""

    def __init__(self, store: Store, monitor: FolderMonitor, settings: Settings, embedder: Embedder, *,
                 ocr_read: OcrRead | None, emit: Callable[[Event], None]) -> None:
        self.store, self.monitor, self.settings = store, monitor, settings
        self._emit = emit
        if store.ensure_embedding_model(embedder.model_id, embedder.dim):
            log.info("embedding model is now %s: vectors will be (re)computed", embedder.model_id)
        # Chunks left without vectors (a crash, a model change) are picked up by the next sync(), not here:
        # `trove stats` or a keyword search must not start loading the model.
        self.indexer = Indexer(store, settings, emit=emit)
        # Rounds of a few seconds (at most a few model batches, sorted by length): a kill loses little, and files
        # become semantically searchable progressively during a long run.
        self.embed_worker = EmbedWorker(store, embedder, batch=4 * settings.embed_batch_size, settings=settings,
                                        emit=emit, notify=emit)
        # The third phase: pages with no text layer, read after the keyword phase (their text then gets vectors).
        self.ocr_worker = OcrWorker(store, settings, read=ocr_read, after_page=self.embed_worker.wake, emit=emit,
                                    notify=emit)
        self.lock = threading.Lock()  # one keyword pass at a time; close() takes it before the store closes
        self.closed = False

    def sync(self, wait: bool = True, *, timeout: float | None = None) -> SyncReport:
        """Bring every active folder's index up to date (see Library.sync)."""
        with self.lock:
            # after a text pipeline upgrade; search meanwhile uses what is there
            rebuild_keywords(self.store, self.indexer.stopping, self._emit)
            active = [row for row in self.monitor.rows()
                      if self.monitor.check(row) == FolderState.ACTIVE and self.claim(row)]
            report = self.indexer.sync_folders([(row.id, Path(row.path)) for row in active])
            for row in active:
                if row.path in report.offline:  # vanished, or an empty stand-in for a folder with documents
                    self.monitor.went_offline(row)
        self._emit(IndexProgress(ProgressPhase.IDLE, files_done=report.indexed, files_failed=report.failed))
        self.wake()
        if wait:
            self.wait_idle(timeout)
        return report

    def sync_paths(self, paths: Iterable[str | os.PathLike[str]], *, wait: bool = False) -> SyncReport:
        """Bring single paths up to date (created, changed or deleted files and folders)."""
        report = SyncReport()
        with self.lock:
            folders = self.monitor.rows()
            for raw in paths:
                path = Path(raw).expanduser().absolute()
                folder = deepest_folder(folders, str(path))
                if folder is None or folder.state != FolderState.ACTIVE or not self.monitor.available(folder):
                    continue  # a vanished root must never read as "every file deleted"
                if not self.claim(folder):
                    continue
                # a hidden folder inside a library folder is one not-read row, never walked (as a sync lists it)
                hidden = path.name.startswith(".") and str(path) != folder.path
                if path.is_dir() and not hidden:
                    report.merge(self.indexer.sync_folder(folder.id, path))
                else:
                    report.merge(self.indexer.index_path(folder.id, path))
        self.wake()
        if wait:
            self.wait_idle()
        return report

    def move_path(self, src: str | os.PathLike[str], dest: str | os.PathLike[str]) -> SyncReport:
        """A file or folder moved: inside the library its chunks and vectors follow; out of it, it is forgotten."""
        src_p, dest_p = Path(src).expanduser().absolute(), Path(dest).expanduser().absolute()
        with self.lock:
            folder = self.monitor.containing(dest_p)
            if folder is None:
                report = SyncReport()
                report.removed = self.indexer.remove_path(src_p)
                return report
            if not self.claim(folder):
                return SyncReport()
            report = self.indexer.move_path(folder.id, src_p, dest_p)
            if not report.moved:
                report.merge(self.indexer.sync_folder(folder.id, dest_p) if dest_p.is_dir()
                             else self.indexer.index_path(folder.id, dest_p))
        self.wake()
        return report

    def claim(self, folder: FolderRow) -> bool:
        """On a shared library only the machine holding a folder's lease indexes it (the store renews it)."""
        if self.store.claim_folder(folder.id):
            return True
        log.info("folder %s is being indexed by machine %s", folder.path, self.store.folder_holder(folder.id))
        return False

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until the OCR phase and then the semantic phase have caught up. False on timeout."""
        deadline = None if timeout is None else time.monotonic() + timeout
        if not self.ocr_worker.wait_idle(timeout):
            return False
        return self.embed_worker.wait_idle(None if deadline is None else max(deadline - time.monotonic(), 0))

    def wake(self) -> None:
        """Start the OCR phase (when pages wait for it) and the semantic phase on what the keyword phase left."""
        with self.lock:  # close() takes this lock before it closes the store
            if self.closed:
                return
            ocr_pending = self.settings.ocr_enabled and self.store.ocr_counts().pending
        if ocr_pending:
            self.ocr_worker.wake()
        self.embed_worker.wake()

    def configure(self, settings: Settings) -> None:
        """New settings for new work in every phase."""
        self.settings = self.indexer.settings = self.ocr_worker.settings = self.embed_worker.settings = settings

    def use_embedder(self, embedder: Embedder) -> None:
        """Another semantic model from now on: its vectors replace the old ones, in the background."""
        self.embed_worker.embedder = embedder
        if self.store.ensure_embedding_model(embedder.model_id, embedder.dim):
            log.info("embedding model is now %s: vectors will be (re)computed", embedder.model_id)
            self.embed_worker.wake()

    def begin_close(self) -> None:
        """No new work from now on; a keyword pass running on another thread ends after its current file."""
        self.closed = True
        self.indexer.stopping.set()

    def stop(self, timeout: float = 30.0) -> bool:
        """Stop the OCR and semantic threads and wait for the keyword pass, so no thread is mid-transaction.

        False when the OCR or semantic thread is still running after `timeout` s each (inside onnxruntime or
        the embedder's native code, which cannot be interrupted)."""
        stopped = [self.ocr_worker.stop(timeout), self.embed_worker.stop(timeout)]
        with self.lock:
            pass
        return all(stopped)

    def running(self) -> bool:
        """True while the OCR or semantic thread has not ended (after stop(): it is still inside native code)."""
        return self.ocr_worker.running() or self.embed_worker.running()
