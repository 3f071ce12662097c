"""The Library facade: everything the CLI and the UI do goes through here.

Library is wiring, the way Anki's Collection composes its managers: the Store (the index, folders and chats on
one engine), an EventBus, a FolderMonitor (the one owner of folder states), IndexPhases (the Indexer's keyword
phase, the OcrWorker for pages with no text layer, the EmbedWorker's vector phase), a SearchService and, created
on first use, a ModelManager (`models`), a ChatService (`chat`), a MemoryService (`memory`) and a LibraryWatcher;
LibraryBackups (`backups`: core/backup.py) is made on each use.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from desktop_app.core.backup import LibraryBackups
from desktop_app.core.chat.answer.quote.whole_units import (
    whole_units,  # chat's passages (so its quotes) are whole sentences
)
from desktop_app.core.embed.base import Embedder
from desktop_app.core.errors import KnownError
from desktop_app.core.events import Event, EventBus
from desktop_app.core.folders import FolderInfo, FolderMonitor
from desktop_app.core.index.indexer import SyncReport
from desktop_app.core.index.ocr_worker import OcrRead
from desktop_app.core.index.phases import IndexPhases
from desktop_app.core.ledger import LibraryLedger
from desktop_app.core.library_derived import first_embedder, library_stats, search_params, settings_embedder
from desktop_app.core.log import get_logger
from desktop_app.core.pathnames import clean_text
from desktop_app.core.paths import resolve_home
from desktop_app.core.read_only import chat_memory, chat_store, read_only_notice, refuse_if_read_only
from desktop_app.core.search.saved import LibrarySavedSearches
from desktop_app.core.search.service import SearchService
from desktop_app.core.settings import Settings, read_settings, save_settings
from desktop_app.core.store import Store, is_server_url, open_store
from desktop_app.core.store.rows import FolderState, Share
from desktop_app.core.types import RetrievalResult
from desktop_app.core.viewer import LibraryViewer
from desktop_app.core.watch.live import LiveSync

if TYPE_CHECKING:  # created on first use: search-only use never loads llama.cpp or watchdog's threads
    from desktop_app.core.chat.answer.result import ChatAnswer
    from desktop_app.core.chat.models.manager import ModelManager
    from desktop_app.core.chat.service import ChatService
    from desktop_app.core.chat.suggest import Suggestion
    from desktop_app.core.chat.summarize import Summary
    from desktop_app.core.memory.service import MemoryService
    from desktop_app.core.watch.service import LibraryWatcher

log = get_logger("index")

DB_NAME = "library.db"
SETTINGS_NAME = "settings.json"
TEAMS = "team-indexes"  # this desktop's side indexes of team libraries (store/postgres/side.py)

__all__ = ["Library", "DB_NAME", "SETTINGS_NAME"]

T = TypeVar("T")


def _typed(home: Path, target: str) -> str:
    """A server URL as typed (--db, $TROVE_DB, settings) with the TLS of a library joined here (its pinned CA,
    verify-full); a plain-text sslmode to another computer is refused in one line. Anything else is unchanged."""
    if not is_server_url(target):
        return target
    from desktop_app.core.server.joining import typed_url

    return typed_url(home, target)


class Library:
    """A library of folders, their index, search and (lazily) chat. Safe to call from several threads. `db` chooses
    the engine: None keeps the embedded SQLite file in `home`; a postgresql:// URL puts the index on a server
    (settings stay in `home`, per machine)."""

    def __init__(self, home: str | os.PathLike[str] | None = None, *, settings: Settings | None = None,
                 embedder: Embedder | None = None, db: str | None = None, ocr_read: OcrRead | None = None) -> None:
        self.home = resolve_home(home)
        self.settings_path = self.home / SETTINGS_NAME
        # Problems found in settings.json (one line each, naming the field): the CLI prints them, the window too.
        self.settings, self.settings_problems = ((settings, []) if settings is not None
                                                 else read_settings(self.settings_path))
        target = _typed(self.home, db or os.environ.get("TROVE_DB") or self.settings.server_url)
        self.db_path = self.home / DB_NAME
        self.store: Store = open_store(target if is_server_url(target) else self.db_path, side_dir=self.home / TEAMS)
        self.bus = EventBus()
        self.monitor = FolderMonitor(self.store, self.bus)
        self.is_team_library = is_server_url(target)
        self.read_only = read_only_notice(self.store)  # "", or the line saying it is searched, never indexed
        self.embedder: Embedder = embedder or first_embedder(self.settings, self.store, team=self.is_team_library)
        self.phases = IndexPhases(self.store, self.monitor, self.settings, self.embedder, ocr_read=ocr_read,
                                  emit=self.bus.publish)
        self.indexer, self.embed_worker, self.ocr_worker = (self.phases.indexer, self.phases.embed_worker,
                                                            self.phases.ocr_worker)
        self.searcher = SearchService(self.store, self.embedder, search_params(self.settings))
        self._chat: ChatService | None = None
        self._memory: MemoryService | None = None
        self._live = LiveSync(self, self.indexer.stopping, lambda: self.phases.closed)
        self._models: ModelManager | None = None

    # ---- events --------------------------------------------------------------------------------

    def subscribe(self, listener: Callable[[Event], None]) -> Callable[[], None]:
        """Call `listener` with every IndexProgress and Notice (from worker threads). Returns an unsubscriber."""
        return self.bus.subscribe(listener)

    def publish(self, event: Event) -> None:
        """Send an event to every subscriber (the watcher's progress and notices)."""
        self.bus.publish(event)

    # ---- folders (FolderMonitor owns their states) ---------------------------------------------

    def add_folder(self, path: str | os.PathLike[str], share: Share | None = None) -> FolderInfo:
        """Add (or re-activate) a folder; sync() indexes it. `share`: who sees it in a team library (None: default)."""
        return self._folders_changed(self.monitor.add(path, share))

    def share_folder(self, path: str | os.PathLike[str], share: Share) -> FolderInfo:
        """Change who may see a folder of a team library (PostgreSQL enforces it; an embedded library refuses)."""
        return self._folders_changed(self.monitor.share(path, share))

    def default_share(self) -> Share:
        """Who sees a new folder unless its owner says otherwise (a team library's administrator decides)."""
        return self.store.default_share()

    def set_default_share(self, share: Share) -> None:
        """The administrator's default for new folders of a team library: team or private."""
        self.store.set_default_share(share)

    def remove_folder(self, path: str | os.PathLike[str]) -> int:
        """Remove a folder and everything indexed from it. Returns the number of documents purged."""
        with self.phases.lock:
            purged = self.monitor.remove(path)
        return self._folders_changed(purged)

    def set_folder_state(self, path: str | os.PathLike[str], state: FolderState | str) -> None:
        """Pause or resume a folder (active / paused; offline is set by the monitor)."""
        self.monitor.set_state(path, state)
        self._folders_changed(None)

    def folders(self) -> list[FolderInfo]:
        """Every folder with its counts."""
        return self.monitor.all()

    def folder_for_path(self, path: str | os.PathLike[str]) -> FolderInfo | None:
        """The library folder that contains `path`, if any (the deepest one)."""
        row = self.monitor.containing(path)
        return self.monitor.info(row) if row else None

    def _folders_changed(self, result: T) -> T:
        """Tell the watcher (when there is one) to look at the folder list now; returns `result`."""
        self._live.folders_changed()
        return result

    # ---- sync (IndexPhases runs the keyword, OCR and semantic phases) ---------------------------

    def sync(self, wait: bool = True, *, timeout: float | None = None) -> SyncReport:
        """Bring every active folder's index up to date (a read-only library refuses). The keyword phase runs here,
        the semantic phase on the embedder thread: wait=True returns when both are done, wait=False as soon as
        every file is keyword-searchable."""
        refuse_if_read_only(self.store)
        return self.phases.sync(wait, timeout=timeout)

    def sync_paths(self, paths: Iterable[str | os.PathLike[str]], *, wait: bool = False) -> SyncReport:
        """Bring single paths up to date (created, changed or deleted files and folders), e.g. from the watcher."""
        return self.phases.sync_paths(paths, wait=wait)

    def move_path(self, src: str | os.PathLike[str], dest: str | os.PathLike[str]) -> SyncReport:
        """A file or folder moved: inside the library its chunks and vectors follow; out of it, it is forgotten."""
        return self.phases.move_path(src, dest)

    def wait_for_embeddings(self, timeout: float | None = None) -> bool:
        """Block until the semantic phase has caught up. False on timeout."""
        return self.embed_worker.wait_idle(timeout)

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until the OCR phase and then the semantic phase have caught up. False on timeout."""
        return self.phases.wait_idle(timeout)

    def set_semantic_paused(self, path: str | os.PathLike[str], paused: bool) -> None:
        """Pause or resume one folder's semantic phase: its chunks wait without vectors until it is resumed."""
        key = os.path.abspath(os.fspath(path))
        others = tuple(p for p in self.settings.semantic_paused_folders if p != key)
        self.update_settings(semantic_paused_folders=(*others, key) if paused else others)
        if not paused:
            self.phases.wake()

    def reindex(self, wait: bool = False) -> SyncReport:
        """Re-extract and re-chunk every file (after a chunking change). Unchanged chunk texts keep their vectors."""
        self.store.forget_content_hashes()
        return self.sync(wait=wait)

    # ---- search --------------------------------------------------------------------------------

    def search(self, query: str, top_k: int = 10, mode: str = "hybrid", *, group_by_document: bool = False,
               folders: Iterable[str] | None = None, types: Iterable[str] | None = None,
               langs: Iterable[str] | None = None, paths: Iterable[str] | None = None,
               rerank: bool = False, literal: bool = False) -> list[RetrievalResult]:
        """Search what is indexed now (never waits for the writer). Results are chunks, best first.

        `paths` keeps documents that are one of those files or lie under one of those folders. `rerank` reorders the
        best candidates with the reranking model (core/search/rerank.py; slower: the window runs it as a second pass).
        """
        self.searcher.embedder_broken = self.embed_worker.error is not None
        query = clean_text(query)  # lone surrogates (non-UTF-8 argv bytes) cannot reach the tokenizers
        return self.searcher.search(query, top_k, mode, group_by_document=group_by_document, folders=folders,
                                    types=types, langs=langs, paths=paths, rerank=rerank, literal=literal)

    # ---- stats and settings --------------------------------------------------------------------

    def stats(self) -> dict[str, Any]:
        """Counts for `trove stats` and the status bar."""
        return library_stats(self.home, self.store, self.folders())

    def update_settings(self, **changes: Any) -> Settings:
        """Change settings, save them, and apply them to new work."""
        old = self.settings
        self.settings = self.settings.with_changes(**changes)
        if self.settings.embedder != old.embedder:  # another semantic model: its vectors replace the old ones
            self.embedder = self.searcher.embedder = settings_embedder(self.settings, self.store,
                                                                       team=self.is_team_library)
            self.phases.use_embedder(self.embedder)
        self.phases.configure(self.settings)
        self.searcher.params = search_params(self.settings)
        save_settings(self.settings_path, self.settings)
        return self.settings

    # ---- owned managers, created on first use (search-only use never loads llama.cpp) -----------
    backups = property(LibraryBackups, doc="Back up this library while in use, check a backup, restore one.")
    ledger = property(LibraryLedger, doc="Every file the library knows, its state and why: pages, counts, retry.")
    viewer = property(LibraryViewer, doc="A passage in its document's text; a PDF page with its boxes highlighted.")
    saved = property(LibrarySavedSearches, doc="Searches kept under a name (per library): list, save, rename, run.")

    @property
    def models(self) -> ModelManager:
        """The chat models of this library's home: list, add, download, choose, remove."""
        if self._models is None:
            from desktop_app.core.chat.models.manager import ModelManager

            self._models = ModelManager.for_library(self)
        return self._models

    @property
    def chat(self) -> ChatService:
        """The ChatService for this library, created on first use."""
        if self._chat is None:
            from desktop_app.core.chat.service import ChatService

            self._chat = ChatService(chat_store(self.store), self._retrieve_for_chat, lambda: self.settings,
                                     embedder=lambda: self.embedder, memory=chat_memory(self))
        return self._chat

    @property
    def memory(self) -> MemoryService:
        """Conversation memory (a MemoryService: facts, raw chat history, unified search, recall), on first use."""
        if self._memory is None:
            from desktop_app.core.memory.service import MemoryService

            self._memory = MemoryService.for_store(self.store, self.home, lambda: self.embedder,
                                                   documents=lambda query, k: self.search(query, top_k=k))
        return self._memory

    def _retrieve_for_chat(self, query: str, top_k: int, paths: Iterable[str] = ()) -> list[RetrievalResult]:
        return whole_units(self.store.chunks_around, self.search(query, top_k, paths=paths or None, literal=True))

    def ask(self, question: str, **kwargs: Any) -> ChatAnswer:
        """Answer a question from the library's documents (see ChatService.ask; `scope=` paths narrows them)."""
        return self.chat.ask(clean_text(question), **kwargs)

    def suggested_questions(self, n: int = 3) -> list[Suggestion]:
        """Questions to start a chat with, from the titles and key terms of what was indexed last (no model)."""
        from desktop_app.core.chat.suggest import sample_documents, suggest_questions

        return suggest_questions(sample_documents(self.store), n)

    def document_chunks(self, path: str | os.PathLike[str]) -> list[tuple[int | None, str]]:
        """(page, text) of an indexed document's chunks, in document order; empty when it is not indexed."""
        return self.store.document_chunks(str(Path(path).expanduser().resolve()))

    def summarize(self, path: str | os.PathLike[str], **kwargs: Any) -> Summary:
        """Summarise one indexed document of any length (map-reduce over its chunks; see ChatService.summarize)."""
        chunks = self.document_chunks(path)
        if not chunks:
            raise KnownError(f"Not an indexed document: {Path(path).expanduser().resolve()}")
        return self.chat.summarize(str(Path(path).expanduser().resolve()), [text for _page, text in chunks], **kwargs)

    def start_watching(self, **options: Any) -> LibraryWatcher:
        """Keep every folder in sync with the disk (`options`: the watcher's observer, intervals); read-only refuses."""
        refuse_if_read_only(self.store)
        return self._live.start(**options)

    def stop_watching(self) -> None:
        """Stop live sync and join its threads (a reconcile ends after its file, never waits for a whole folder)."""
        self._live.stop()

    @property
    def watcher(self) -> LibraryWatcher | None:
        """The LibraryWatcher, or None when start_watching() was never called."""
        return self._live.watcher

    # ---- lifecycle -----------------------------------------------------------------------------

    def close(self, timeout: float = 30.0) -> bool:
        """Stop background work and close every connection; safe twice. False if a phase is stuck in native code."""
        if self.phases.closed:
            return not self.phases.running()
        self.phases.begin_close()  # a sync running on another thread ends after its current file
        self.stop_watching()  # before the store closes: the watcher's sync thread writes through it
        stopped = self.phases.stop(timeout)  # waits for that file, so no thread is mid-transaction at close
        for manager in (self._chat, self._memory):
            if manager is not None:
                manager.close()
        if stopped:  # else the store stays open under that thread, and the caller ends the process (core/shutdown.py)
            self.store.close()
        return stopped

    def __enter__(self) -> Library:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

