"""The Library facade: everything the CLI and the UI do goes through here.

Library is wiring, the way Anki's Collection composes its managers: the Store (the index, folders and chats on
one engine), an EventBus, a FolderMonitor (the one owner of folder states), the Indexer (keyword phase), the
EmbedWorker (vector phase), the OcrWorker (pages with no text layer), a SearchService and, created on first use,
a ChatService and a LibraryWatcher.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from desktop_app.core.embed.auto import library_embedder, recorded_embedder
from desktop_app.core.embed.base import Embedder
from desktop_app.core.errors import KnownError
from desktop_app.core.events import Event, EventBus, IndexProgress
from desktop_app.core.folders import FolderInfo, FolderMonitor, deepest_folder
from desktop_app.core.index.embed_worker import EmbedWorker
from desktop_app.core.index.indexer import Indexer, SyncReport
from desktop_app.core.index.ocr_worker import OcrRead, OcrWorker
from desktop_app.core.log import get_logger
from desktop_app.core.pathnames import clean_text
from desktop_app.core.paths import resolve_home
from desktop_app.core.search.service import SearchParams, SearchService
from desktop_app.core.settings import Settings, read_settings, save_settings
from desktop_app.core.store import Store, is_server_url, open_store
from desktop_app.core.store.rows import FolderRow, FolderState, Share
from desktop_app.core.types import RetrievalResult

log = get_logger("index")

DB_NAME = "library.db"
SETTINGS_NAME = "settings.json"

__all__ = ["Library", "DB_NAME", "SETTINGS_NAME"]


class Library:
    """A library of folders, their index, search and (lazily) chat. Safe to call from several threads.

    `db` chooses the engine: None keeps the embedded SQLite file in `home`; a postgresql:// URL puts the
    index on a server (settings stay in `home`, per machine).
    """

    def __init__(self, home: str | os.PathLike[str] | None = None, *, settings: Settings | None = None,
                 embedder: Embedder | None = None, db: str | None = None, ocr_read: OcrRead | None = None) -> None:
        self.home = resolve_home(home)
        self.settings_path = self.home / SETTINGS_NAME
        # Problems found in settings.json (one line each, naming the field): the CLI prints them, the window too.
        self.settings_problems: list[str] = []
        if settings is None:
            settings, self.settings_problems = read_settings(self.settings_path)
        self.settings = settings
        target = db or os.environ.get("TROVE_DB") or self.settings.server_url
        self.db_path = self.home / DB_NAME
        self.store: Store = open_store(target if is_server_url(target) else self.db_path)
        self.bus = EventBus()
        self.monitor = FolderMonitor(self.store, self.bus)
        self.embedder = embedder or library_embedder(self.settings.embedder, self.settings.embed_batch_size,
                                                     self.store.languages)
        self.is_team_library = is_server_url(target)
        if self.is_team_library and embedder is None:  # the model of the server's vectors decides, not this desktop
            try:
                self.embedder = recorded_embedder(self.store.get_meta("embed_model"), self.embedder,
                                                  self.settings.embed_batch_size)
            except KnownError:
                self.store.close()
                raise
        if self.store.ensure_embedding_model(self.embedder.model_id, self.embedder.dim):
            log.info("embedding model is now %s: vectors will be (re)computed", self.embedder.model_id)
        self.indexer = Indexer(self.store, self.settings, emit=self.bus.publish)
        # Rounds of a few seconds (at most a few model batches, sorted by length): a kill loses little, and files
        # become semantically searchable progressively during a long run.
        self.embed_worker = EmbedWorker(self.store, self.embedder, batch=4 * self.settings.embed_batch_size,
                                        settings=self.settings, emit=self.bus.publish, notify=self.bus.publish)
        # The third phase: pages with no text layer, read after the keyword phase (their text then gets vectors).
        self.ocr_worker = OcrWorker(self.store, self.settings, read=ocr_read, after_page=self.embed_worker.wake,
                                    emit=self.bus.publish, notify=self.bus.publish)
        self.searcher = SearchService(self.store, self.embedder, self._search_params())
        self._sync_lock = threading.Lock()
        self._chat: Any = None
        self._memory: Any = None
        self._watcher: Any = None
        self._closed = False
        # Chunks left without vectors (a crash, a model change) are picked up by the next sync(), not here:
        # `trove stats` or a keyword search must not start loading the model.

    # ---- events --------------------------------------------------------------------------------

    def subscribe(self, listener: Callable[[Event], None]) -> Callable[[], None]:
        """Call `listener` with every IndexProgress and Notice (from worker threads). Returns an unsubscriber."""
        return self.bus.subscribe(listener)

    def publish(self, event: Event) -> None:
        """Send an event to every subscriber (the watcher's progress and notices)."""
        self.bus.publish(event)

    # ---- folders -------------------------------------------------------------------------------

    def add_folder(self, path: str | os.PathLike[str], share: Share | None = None) -> FolderInfo:
        """Add a folder (or re-activate one) to the library. Does not index it: call sync(). `share`: who may see
        it in a team library (None: the library's default for new folders)."""
        info = self.monitor.add(path, share)
        self._folders_changed()
        return info

    def share_folder(self, path: str | os.PathLike[str], share: Share) -> FolderInfo:
        """Change who may see a folder of a team library (PostgreSQL enforces it; an embedded library refuses)."""
        info = self.monitor.share(path, share)
        self._folders_changed()
        return info

    def default_share(self) -> Share:
        """Who sees a new folder unless its owner says otherwise (a team library's administrator decides)."""
        return self.store.default_share()

    def set_default_share(self, share: Share) -> None:
        """The administrator's default for new folders of a team library: team or private."""
        self.store.set_default_share(share)

    def remove_folder(self, path: str | os.PathLike[str]) -> int:
        """Remove a folder and everything indexed from it. Returns the number of documents purged."""
        with self._sync_lock:
            purged = self.monitor.remove(path)
        self._folders_changed()
        return purged

    def set_folder_state(self, path: str | os.PathLike[str], state: FolderState | str) -> None:
        """Pause or resume a folder (active / paused; offline is set by the monitor)."""
        self.monitor.set_state(path, state)
        self._folders_changed()

    def folders(self) -> list[FolderInfo]:
        """Every folder with its counts."""
        return self.monitor.all()

    def folder_for_path(self, path: str | os.PathLike[str]) -> FolderInfo | None:
        """The library folder that contains `path`, if any (the deepest one)."""
        row = self.monitor.containing(path)
        return self.monitor.info(row) if row else None

    # ---- sync ----------------------------------------------------------------------------------

    def sync(self, wait: bool = True, *, timeout: float | None = None) -> SyncReport:
        """Bring every active folder's index up to date.

        The keyword phase runs here; the semantic phase runs on the embedder thread. With wait=True this
        returns when both are done; with wait=False, as soon as every file is keyword-searchable.
        """
        with self._sync_lock:
            self.indexer.rebuild_keywords()  # after a text pipeline upgrade; search meanwhile uses what is there
            active = [row for row in self.store.folders()
                      if self.monitor.check(row) == FolderState.ACTIVE and self._claim(row)]
            report = self.indexer.sync_folders([(row.id, Path(row.path)) for row in active])
            for row in active:
                if row.path in report.offline:  # vanished, or an empty stand-in for a folder with documents
                    self.monitor.went_offline(row)
        self.bus.publish(IndexProgress("idle", files_done=report.indexed, files_failed=report.failed))
        self._wake_background()
        if wait:
            self.wait_idle(timeout)
        return report

    def sync_paths(self, paths: Iterable[str | os.PathLike[str]], *, wait: bool = False) -> SyncReport:
        """Bring single paths up to date (created, changed or deleted files and folders), e.g. from the watcher."""
        report = SyncReport()
        with self._sync_lock:
            folders = self.store.folders()
            for raw in paths:
                path = Path(raw).expanduser().absolute()
                folder = deepest_folder(folders, str(path))
                if folder is None or folder.state != FolderState.ACTIVE or not self.monitor.available(folder):
                    continue  # a vanished root must never read as "every file deleted"
                if not self._claim(folder):
                    continue
                if path.is_dir():
                    report.merge(self.indexer.sync_folder(folder.id, path))
                else:
                    report.merge(self.indexer.index_path(folder.id, path))
        self._wake_background()
        if wait:
            self.wait_idle()
        return report

    def move_path(self, src: str | os.PathLike[str], dest: str | os.PathLike[str]) -> SyncReport:
        """A file or folder moved: inside the library its chunks and vectors follow; out of it, it is forgotten."""
        src_p, dest_p = Path(src).expanduser().absolute(), Path(dest).expanduser().absolute()
        with self._sync_lock:
            folder = self.monitor.containing(dest_p)
            if folder is None:
                report = SyncReport()
                report.removed = self.indexer.remove_path(src_p)
                return report
            if not self._claim(folder):
                return SyncReport()
            report = self.indexer.move_path(folder.id, src_p, dest_p)
            if not report.moved:
                report.merge(self.indexer.sync_folder(folder.id, dest_p) if dest_p.is_dir()
                             else self.indexer.index_path(folder.id, dest_p))
        self._wake_background()
        return report

    def _claim(self, folder: FolderRow) -> bool:
        """On a shared library only the machine holding a folder's lease indexes it (the store renews it)."""
        if self.store.claim_folder(folder.id):
            return True
        log.info("folder %s is being indexed by machine %s", folder.path, self.store.folder_holder(folder.id))
        return False

    def wait_for_embeddings(self, timeout: float | None = None) -> bool:
        """Block until the semantic phase has caught up. False on timeout."""
        return self.embed_worker.wait_idle(timeout)

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until the OCR phase and then the semantic phase have caught up. False on timeout."""
        deadline = None if timeout is None else time.monotonic() + timeout
        if not self.ocr_worker.wait_idle(timeout):
            return False
        return self.embed_worker.wait_idle(None if deadline is None else max(deadline - time.monotonic(), 0))

    def _wake_background(self) -> None:
        with self._sync_lock:  # close() takes this lock before it closes the store
            if self._closed:
                return
            ocr_pending = self.settings.ocr_enabled and self.store.ocr_counts().pending
        if ocr_pending:
            self.ocr_worker.wake()
        self.embed_worker.wake()

    def set_semantic_paused(self, path: str | os.PathLike[str], paused: bool) -> None:
        """Pause or resume one folder's semantic phase: its chunks wait without vectors until it is resumed."""
        key = os.path.abspath(os.fspath(path))
        others = tuple(p for p in self.settings.semantic_paused_folders if p != key)
        self.update_settings(semantic_paused_folders=(*others, key) if paused else others)
        if not paused:
            self._wake_background()

    def reindex(self, wait: bool = False) -> SyncReport:
        """Re-extract and re-chunk every file (after a chunking change). Unchanged chunk texts keep their vectors."""
        self.store.forget_content_hashes()
        return self.sync(wait=wait)

    # ---- search --------------------------------------------------------------------------------

    def _search_params(self) -> SearchParams:
        s = self.settings
        return SearchParams(
            keyword_weight=s.keyword_weight, semantic_weight=s.semantic_weight, rrf_k=s.rrf_k, fusion=s.fusion
        )

    def search(self, query: str, top_k: int = 10, mode: str = "hybrid", *, group_by_document: bool = False,
               folders: Iterable[str] | None = None, types: Iterable[str] | None = None,
               langs: Iterable[str] | None = None, paths: Iterable[str] | None = None,
               rerank: bool = False) -> list[RetrievalResult]:
        """Search what is indexed now (never waits for the writer). Results are chunks, best first.

        `paths` keeps documents that are one of those files or lie under one of those folders. `rerank` reorders
        the best candidates with the reranking model (core/search/rerank.py; slower: the window runs it as a
        second pass).
        """
        self.searcher.embedder_broken = self.embed_worker.error is not None
        query = clean_text(query)  # lone surrogates (non-UTF-8 argv bytes) cannot reach the tokenizers
        return self.searcher.search(query, top_k, mode, group_by_document=group_by_document, folders=folders,
                                    types=types, langs=langs, paths=paths, rerank=rerank)

    # ---- stats and settings --------------------------------------------------------------------

    def stats(self) -> dict[str, Any]:
        """Counts for `trove stats` and the status bar."""
        totals = self.store.counts()
        engine = self.store.info()
        ocr = self.store.ocr_counts()
        return {
            "home": str(self.home),
            "engine": {"name": engine.engine, "version": engine.version, "location": engine.location},
            "documents": totals.documents,
            "failed": totals.failed,
            "chunks": totals.chunks,
            "chunks_embedded": totals.embedded,
            "embedding_model": self.store.get_meta("embed_model"),
            "embedding_error": self.store.get_meta("embed_error"),
            "folders": [f.__dict__ for f in self.folders()],
            "search_folders": sorted({f.path for f in self.store.all_folders()}),  # + what other desktops share
            "failures": [{"path": f.path, "reason": f.reason}
                         for f in [*self.store.failures(), *self.store.ocr_failures()]],
            "ocr": {"pages_pending": ocr.pending, "pages_done": ocr.done, "pages_failed": ocr.failed,
                    "error": self.store.get_meta("ocr_error")},
            "languages": [[lang, n] for lang, n in self.store.languages()],
            "keyword_rebuild_pending": self.store.keyword_rebuild_pending(),
            "database_bytes": engine.size_bytes,
        }

    def update_settings(self, **changes: Any) -> Settings:
        """Change settings, save them, and apply them to new work."""
        old = self.settings
        self.settings = self.settings.with_changes(**changes)
        if self.settings.embedder != old.embedder:
            embedder = library_embedder(self.settings.embedder, self.settings.embed_batch_size, self.store.languages)
            if self.is_team_library:
                embedder = recorded_embedder(self.store.get_meta("embed_model"), embedder,
                                             self.settings.embed_batch_size)
            self._use_embedder(embedder)
        self.indexer.settings = self.settings
        self.ocr_worker.settings = self.settings
        self.embed_worker.settings = self.settings
        self.searcher.params = self._search_params()
        save_settings(self.settings_path, self.settings)
        return self.settings

    def _use_embedder(self, embedder: Embedder) -> None:
        """Another semantic model from now on: its vectors replace the old ones, in the background."""
        self.embedder = self.embed_worker.embedder = self.searcher.embedder = embedder
        if self.store.ensure_embedding_model(embedder.model_id, embedder.dim):
            log.info("embedding model is now %s: vectors will be (re)computed", embedder.model_id)
            self.embed_worker.wake()

    # ---- chat (lazily, so search-only use never loads llama.cpp) --------------------------------

    @property
    def chat(self) -> Any:
        """The ChatService for this library, created on first use."""
        if self._chat is None:
            from desktop_app.core.chat.service import ChatService

            self._chat = ChatService(self.store, self._retrieve_for_chat, lambda: self.settings,
                                     embedder=lambda: self.embedder, memory=lambda: self.memory)
        return self._chat

    @property
    def memory(self) -> Any:
        """Conversation memory (a MemoryService: facts, raw chat history, unified search, recall), on first use."""
        if self._memory is None:
            from desktop_app.core.memory.service import MemoryService

            self._memory = MemoryService.for_store(self.store, self.home, lambda: self.embedder,
                                                   documents=lambda query, k: self.search(query, top_k=k))
        return self._memory

    def _retrieve_for_chat(self, query: str, top_k: int, paths: Iterable[str] = ()) -> list[RetrievalResult]:
        return self.search(query, top_k=top_k, mode="hybrid", paths=paths or None)

    def ask(self, question: str, **kwargs: Any) -> Any:
        """Answer a question from the library's documents (see ChatService.ask; `scope=` paths narrows them)."""
        return self.chat.ask(clean_text(question), **kwargs)

    def suggested_questions(self, n: int = 3) -> list[Any]:
        """Questions to start a chat with, from the titles and key terms of what was indexed last (no model)."""
        from desktop_app.core.chat.suggest import sample_documents, suggest_questions

        return suggest_questions(sample_documents(self.store), n)

    def document_chunks(self, path: str | os.PathLike[str]) -> list[tuple[int | None, str]]:
        """(page, text) of an indexed document's chunks, in document order; empty when it is not indexed."""
        return self.store.document_chunks(str(Path(path).expanduser().resolve()))

    def summarize(self, path: str | os.PathLike[str], **kwargs: Any) -> Any:
        """Summarise one indexed document of any length (map-reduce over its chunks; see ChatService.summarize)."""
        chunks = self.document_chunks(path)
        if not chunks:
            raise KnownError(f"Not an indexed document: {Path(path).expanduser().resolve()}")
        return self.chat.summarize(str(Path(path).expanduser().resolve()), [text for _page, text in chunks], **kwargs)

    # ---- live folder sync ----------------------------------------------------------------------

    def start_watching(self, **options: Any) -> Any:
        """Keep every folder in sync with the disk in the background (created on first use). Returns the watcher.

        `options` go to LibraryWatcher when it is created (observer factory, poll and check intervals).
        """
        if self._watcher is None:
            from desktop_app.core.watch.service import LibraryWatcher

            self._watcher = LibraryWatcher(self, **options)
        self._watcher.start()
        return self._watcher

    def stop_watching(self) -> None:
        """Stop live sync; joins the watcher's threads. Safe to call when not watching.

        A reconcile in progress ends after its current file (the next sync finishes it), so this never waits
        for a whole folder to be indexed.
        """
        if self._watcher is not None:
            self.indexer.stopping.set()
            try:
                self._watcher.stop()
            finally:
                if not self._closed:
                    self.indexer.stopping.clear()

    @property
    def watcher(self) -> Any:
        """The LibraryWatcher, or None when start_watching() was never called."""
        return self._watcher

    def _folders_changed(self) -> None:
        if self._watcher is not None:
            self._watcher.folders_changed()

    # ---- lifecycle -----------------------------------------------------------------------------

    def close(self) -> None:
        """Stop background work and close every connection. Safe to call twice."""
        if self._closed:
            return
        self._closed = True
        self.indexer.stopping.set()  # a sync running on another thread ends after its current file
        self.stop_watching()  # before the store closes: the watcher's sync thread writes through it
        self.ocr_worker.stop()
        self.embed_worker.stop()
        with self._sync_lock:  # wait for that file, so no thread is mid-transaction when the store closes
            pass
        if self._chat is not None:
            self._chat.close()
        if self._memory is not None:
            self._memory.close()
        self.store.close()

    def __enter__(self) -> Library:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
