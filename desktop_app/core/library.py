"""The Library facade: everything the CLI and the UI do goes through here."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from desktop_app.core.db import connect
from desktop_app.core.embed.base import Embedder, make_embedder
from desktop_app.core.errors import FolderNotFoundError, KnownError
from desktop_app.core.events import IndexProgress, Notice
from desktop_app.core.index import store
from desktop_app.core.index.embed_worker import EmbedWorker
from desktop_app.core.index.indexer import Indexer, SyncReport
from desktop_app.core.index.writer import Writer
from desktop_app.core.log import get_logger
from desktop_app.core.pathnames import clean_text
from desktop_app.core.paths import resolve_home
from desktop_app.core.search.candidates import Filters
from desktop_app.core.search.engine import SearchParams, search_chunks
from desktop_app.core.settings import Settings, read_settings, save_settings
from desktop_app.core.types import RetrievalResult

log = get_logger("index")

DB_NAME = "library.db"
SETTINGS_NAME = "settings.json"


@dataclass(frozen=True)
class FolderInfo:
    """A library folder as the UI and `trove folders` show it."""

    id: int
    path: str
    state: str  # active | paused | offline
    documents: int
    failed: int
    chunks: int
    embedded: int


def root_available(root: Path) -> bool:
    """The folder root exists (a missing root means offline, never "every file was deleted")."""
    try:
        return root.is_dir()
    except OSError:
        return False


class Library:
    """A library of folders, their index, search and (lazily) chat. Safe to call from several threads."""

    def __init__(self, home: str | os.PathLike[str] | None = None, *, settings: Settings | None = None,
                 embedder: Embedder | None = None) -> None:
        self.home = resolve_home(home)
        self.db_path = self.home / DB_NAME
        self.settings_path = self.home / SETTINGS_NAME
        # Problems found in settings.json (one line each, naming the field): the CLI prints them, the window shows them.
        self.settings_problems: list[str] = []
        if settings is None:
            settings, self.settings_problems = read_settings(self.settings_path)
        self.settings = settings
        self._listeners: list[Callable[[object], None]] = []
        self._listeners_lock = threading.Lock()
        self.writer = Writer(self.db_path)
        self.embedder = embedder or make_embedder(self.settings.embedder, self.settings.embed_batch_size)
        self._ensure_embedding_model()
        self.indexer = Indexer(self.writer, self.settings, emit=self._publish)
        # Rounds of a few model batches: big enough to sort texts by length, small enough that files become
        # semantically searchable progressively during a long run.
        self.embed_worker = EmbedWorker(self.writer, self.embedder, batch=4 * self.settings.embed_batch_size,
                                        emit=self._publish, notify=self._publish)
        self._sync_lock = threading.Lock()
        self._readers: dict[int, object] = {}
        self._readers_lock = threading.Lock()
        self._chat = None
        self._watcher = None
        self._closed = False
        # Chunks left without vectors (a crash, a model change) are picked up by the next sync(), not here:
        # `trove stats` or a keyword search must not start loading the model.

    # ---- events --------------------------------------------------------------------------------

    def subscribe(self, listener: Callable[[object], None]) -> Callable[[], None]:
        """Call `listener` with every IndexProgress and Notice (from worker threads). Returns an unsubscribe function."""
        with self._listeners_lock:
            self._listeners.append(listener)

        def unsubscribe() -> None:
            with self._listeners_lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)
        return unsubscribe

    def publish(self, event: IndexProgress | Notice) -> None:
        """Send an event to every subscriber (used by the folder watcher for its progress and notices)."""
        self._publish(event)

    def _publish(self, event: IndexProgress | Notice) -> None:
        with self._listeners_lock:
            listeners = list(self._listeners)
        for listener in listeners:
            try:
                listener(event)
            except Exception:  # a broken listener must not stop indexing
                log.exception("progress listener failed")

    # ---- folders -------------------------------------------------------------------------------

    def add_folder(self, path: str | os.PathLike[str]) -> FolderInfo:
        """Add a folder (or re-activate one) to the library. Does not index it: call sync()."""
        root = Path(path).expanduser().resolve()
        if not root.is_dir():
            raise FolderNotFoundError(f"Not a folder: {root}")
        with self.writer.tx() as conn:
            folder_id = store.add_folder(conn, str(root))
        self._folders_changed()
        return self._folder_info(folder_id)

    def remove_folder(self, path: str | os.PathLike[str]) -> int:
        """Remove a folder and everything indexed from it. Returns the number of documents purged."""
        root = str(Path(path).expanduser().resolve())
        with self._sync_lock, self.writer.tx() as conn:
            row = conn.execute("SELECT id FROM folders WHERE path = ?", (root,)).fetchone()
            if row is None:
                raise FolderNotFoundError(f"Not a library folder: {root}")
            purged = store.delete_folder(conn, row[0])
        self._folders_changed()
        return purged

    def set_folder_state(self, path: str | os.PathLike[str], state: str) -> None:
        """Mark a folder active, paused or offline."""
        if state not in ("active", "paused", "offline"):
            raise ValueError(f"unknown folder state {state!r}")
        with self.writer.tx() as conn:
            conn.execute("UPDATE folders SET state = ? WHERE path = ?", (state, str(Path(path).expanduser().resolve())))
        self._folders_changed()

    def folders(self) -> list[FolderInfo]:
        """Every folder with its counts."""
        with self.writer.locked() as conn:
            ids = [r[0] for r in conn.execute("SELECT id FROM folders ORDER BY path")]
        return [self._folder_info(i) for i in ids]

    def _folder_info(self, folder_id: int) -> FolderInfo:
        conn = self._reader()
        row = conn.execute("SELECT id, path, state FROM folders WHERE id = ?", (folder_id,)).fetchone()
        counts = conn.execute(
            "SELECT SUM(status = 'indexed'), SUM(status = 'failed'), COALESCE(SUM(chunk_count), 0) FROM documents WHERE folder_id = ?",
            (folder_id,),
        ).fetchone()
        embedded = conn.execute(
            "SELECT COUNT(*) FROM chunks c JOIN documents d ON d.id = c.document_id WHERE d.folder_id = ? AND c.embedded = 1",
            (folder_id,),
        ).fetchone()[0]
        return FolderInfo(row[0], row[1], row[2], counts[0] or 0, counts[1] or 0, counts[2] or 0, embedded)

    def folder_for_path(self, path: str | os.PathLike[str]) -> FolderInfo | None:
        """The library folder that contains `path`, if any (the deepest one)."""
        row = self._folder_row_for_path(path)
        return self._folder_info(row[0]) if row else None

    def _folder_row_for_path(self, path: str | os.PathLike[str]) -> tuple[int, str, str] | None:
        # (id, path, state) without the per-folder counts: the watcher asks this once per changed file
        target = str(Path(path).expanduser().absolute())
        best = None
        for row in self._reader().execute("SELECT id, path, state FROM folders"):
            if target == row[1] or target.startswith(row[1].rstrip(os.sep) + os.sep):
                if best is None or len(row[1]) > len(best[1]):
                    best = (row[0], row[1], row[2])
        return best

    # ---- sync ----------------------------------------------------------------------------------

    def sync(self, wait: bool = True, *, timeout: float | None = None) -> SyncReport:
        """Bring every active folder's index up to date.

        The keyword phase runs here; the semantic phase runs on the embedder thread. With wait=True this
        returns when both are done; with wait=False, as soon as every file is keyword-searchable.
        """
        report = SyncReport()
        with self._sync_lock:
            for info in self.folders():
                if info.state == "paused":
                    continue
                root = Path(info.path)
                folder_report = self.indexer.sync_folder(info.id, root)
                if folder_report.offline:
                    if info.state != "offline":
                        self.set_folder_state(root, "offline")
                        self._publish(Notice("warning", f"Folder is offline (missing or unmounted): {root}. "
                                                        "Its documents stay searchable.", str(root)))
                elif info.state == "offline":
                    self.set_folder_state(root, "active")
                    self._publish(Notice("info", f"Folder is back online: {root}", str(root)))
                report.merge(folder_report)
                report.seconds += folder_report.seconds
        self._publish(IndexProgress("idle", files_done=report.indexed, files_failed=report.failed))
        self.embed_worker.wake()
        if wait:
            self.wait_for_embeddings(timeout)
        return report

    def sync_paths(self, paths: Iterable[str | os.PathLike[str]], *, wait: bool = False) -> SyncReport:
        """Bring single paths up to date (created, changed or deleted files and folders), e.g. from the watcher."""
        report = SyncReport()
        with self._sync_lock:
            for raw in paths:
                path = Path(raw).expanduser().absolute()
                folder = self._folder_row_for_path(path)
                if folder is None or folder[2] != "active" or not root_available(Path(folder[1])):
                    continue  # a vanished root must never read as "every file deleted"
                if path.is_dir():
                    report.merge(self.indexer.sync_folder(folder[0], path))
                else:
                    report.merge(self.indexer.index_path(folder[0], path))
        self.embed_worker.wake()
        if wait:
            self.wait_for_embeddings()
        return report

    def move_path(self, src: str | os.PathLike[str], dest: str | os.PathLike[str]) -> SyncReport:
        """A file or folder moved: inside the library its chunks and vectors follow; out of it, it is forgotten."""
        src_p, dest_p = Path(src).expanduser().absolute(), Path(dest).expanduser().absolute()
        with self._sync_lock:
            folder = self.folder_for_path(dest_p)
            if folder is None:
                report = SyncReport()
                report.removed = self.indexer.remove_path(src_p)
                return report
            report = self.indexer.move_path(folder.id, src_p, dest_p)
            if not report.moved:
                report.merge(self.indexer.sync_folder(folder.id, dest_p) if dest_p.is_dir()
                             else self.indexer.index_path(folder.id, dest_p))
        self.embed_worker.wake()
        return report

    def wait_for_embeddings(self, timeout: float | None = None) -> bool:
        """Block until the semantic phase has caught up. False on timeout."""
        return self.embed_worker.wait_idle(timeout)

    def _ensure_embedding_model(self) -> None:
        with self.writer.locked() as conn:  # the usual case needs no write lock: another process may hold it long
            if (store.get_meta(conn, "embed_model"), store.get_meta(conn, "embed_dim")) == (
                    self.embedder.model_id, str(self.embedder.dim)):
                return
        with self.writer.tx() as conn:
            if store.ensure_embedding_model(conn, self.embedder.model_id, self.embedder.dim):
                log.info("embedding model is now %s: vectors will be (re)computed", self.embedder.model_id)

    # ---- search --------------------------------------------------------------------------------

    @property
    def search_params(self) -> SearchParams:
        s = self.settings
        return SearchParams(keyword_weight=s.keyword_weight, semantic_weight=s.semantic_weight, rrf_k=s.rrf_k,
                            fusion=s.fusion)

    def search(self, query: str, top_k: int = 10, mode: str = "hybrid", *, group_by_document: bool = False,
               folders: Iterable[str] | None = None, types: Iterable[str] | None = None) -> list[RetrievalResult]:
        """Search what is indexed now (never waits for the writer). Results are chunks, best first."""
        query = clean_text(query)  # lone surrogates (non-UTF-8 argv bytes) cannot reach the tokenizers
        conn = self._reader()
        filters = self._filters(conn, folders, types)
        embedder = self.embedder if self.embed_worker.error is None else None
        if mode == "hybrid" and not self._has_vectors(conn):
            embedder = None  # nothing embedded yet: don't load the model for an empty dense side
        return search_chunks(conn, query, embedder=embedder, mode=mode, top_k=top_k, params=self.search_params,
                             filters=filters, group_by_document=group_by_document)

    @staticmethod
    def _has_vectors(conn) -> bool:
        return conn.execute("SELECT 1 FROM chunks WHERE embedded = 1 LIMIT 1").fetchone() is not None

    @staticmethod
    def _filters(conn, folders: Iterable[str] | None, types: Iterable[str] | None) -> Filters | None:
        if not folders and not types:
            return None
        folder_ids: tuple[int, ...] = ()
        if folders:
            paths = [str(Path(f).expanduser().resolve()) for f in folders]
            folder_ids = tuple(r[0] for r in conn.execute(
                f"SELECT id FROM folders WHERE path IN ({','.join('?' * len(paths))})", paths)) or (-1,)
        return Filters(folder_ids=folder_ids, types=tuple(types or ()))

    def _reader(self):
        """This thread's read-only connection (WAL readers never wait for the writer)."""
        key = threading.get_ident()
        with self._readers_lock:
            conn = self._readers.get(key)
            if conn is None:
                conn = connect(self.db_path, readonly=True, check_same_thread=False)
                self._readers[key] = conn
            return conn

    # ---- stats and settings --------------------------------------------------------------------

    def stats(self) -> dict:
        """Counts for `trove stats` and the status bar."""
        conn = self._reader()
        docs, failed, chunks = conn.execute(
            "SELECT SUM(status = 'indexed'), SUM(status = 'failed'), COALESCE(SUM(chunk_count), 0) FROM documents"
        ).fetchone()
        embedded = conn.execute("SELECT COUNT(*) FROM chunks WHERE embedded = 1").fetchone()[0]
        failures = [{"path": p, "reason": e} for p, e in
                    conn.execute("SELECT path, error FROM documents WHERE status = 'failed' ORDER BY path")]
        size = sum(p.stat().st_size for p in self.home.glob(DB_NAME + "*") if p.exists())
        return {
            "home": str(self.home),
            "documents": docs or 0,
            "failed": failed or 0,
            "chunks": chunks,
            "chunks_embedded": embedded,
            "embedding_model": self.embedder.model_id,
            "embedding_error": self.embed_worker.error or store.get_meta(conn, "embed_error"),
            "folders": [f.__dict__ for f in self.folders()],
            "failures": failures,
            "database_bytes": size,
        }

    def update_settings(self, **changes) -> Settings:
        """Change settings, save them, and apply them to new work."""
        self.settings = self.settings.with_changes(**changes)
        self.indexer.settings = self.settings
        save_settings(self.settings_path, self.settings)
        return self.settings

    def reindex(self, wait: bool = False) -> SyncReport:
        """Re-extract and re-chunk every file (after a chunking change). Unchanged chunk texts keep their vectors."""
        with self.writer.tx() as conn:
            # Clearing the content hash too: the indexer calls a file whose hash matches "unchanged" and would
            # skip re-chunking it. Chunk-level hashes still let unchanged chunk texts keep their vectors.
            conn.execute("UPDATE documents SET mtime_ns = -1, content_hash = ''")
        return self.sync(wait=wait)

    # ---- chat (lazily, so search-only use never loads llama.cpp) --------------------------------

    @property
    def chat(self):
        """The ChatService for this library, created on first use."""
        if self._chat is None:
            from desktop_app.core.chat.service import ChatService

            self._chat = ChatService(self.db_path, self._retrieve_for_chat, lambda: self.settings)
        return self._chat

    def _retrieve_for_chat(self, query: str, top_k: int) -> list[RetrievalResult]:
        return self.search(query, top_k=top_k, mode="hybrid")

    def ask(self, question: str, **kwargs):
        """Answer a question from the library's documents (see ChatService.ask)."""
        return self.chat.ask(clean_text(question), **kwargs)

    # ---- live folder sync ----------------------------------------------------------------------

    def start_watching(self, **options):
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
    def watcher(self):
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
        self.stop_watching()  # before the writer closes: the watcher's sync thread writes through it
        self.embed_worker.stop()
        with self._sync_lock:  # wait for that file, so no thread is mid-transaction when the writer closes
            pass
        if self._chat is not None:
            self._chat.close()
        with self._readers_lock:
            for conn in self._readers.values():
                try:
                    conn.close()
                except KnownError:
                    pass
            self._readers.clear()
        self.writer.close()

    def __enter__(self) -> "Library":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
