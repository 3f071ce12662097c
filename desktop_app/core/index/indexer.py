"""The keyword phase: bring documents in the database in line with files on disk, each file all-or-nothing.

Small quick files share a transaction (a batch of up to BATCH_FILES files or BATCH_SECONDS, each file its own
SAVEPOINT in it: a bad file rolls back alone); other files get one transaction each."""

from __future__ import annotations

import hashlib
import os
import threading
import time
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field, replace
from pathlib import Path

from desktop_app.core.errors import ExtractionError, KnownError
from desktop_app.core.events import IndexProgress, ProgressPhase
from desktop_app.core.folders import has_entries, may_be_unmounted
from desktop_app.core.index.upgrades import rechunk_if_stale
from desktop_app.core.ingest.chunking import ChunkConfig, chunk_spans
from desktop_app.core.ingest.discover import HIDDEN_FOLDER, Found, NotRead, Skipped, classify, scan
from desktop_app.core.ingest.doc_facts import document_facts
from desktop_app.core.ingest.extract import title_from_path
from desktop_app.core.ingest.extract_rows import Extracted, Extraction
from desktop_app.core.ingest.filetypes import cost_class, file_type
from desktop_app.core.ingest.markdown_links import wikilinks
from desktop_app.core.ingest.reader import Counted, extract_document, peek, read_for_index, size_problem
from desktop_app.core.ingest.safe_read import StreamedText
from desktop_app.core.log import get_logger
from desktop_app.core.settings import Settings
from desktop_app.core.store.base import Store
from desktop_app.core.store.rows import DocRow, DocStatus, DocumentMove, NewChunk, NewDocument, NewPart, OcrPageRef

log = get_logger("index")


@dataclass
class SyncReport:
    """What one sync did. `indexed` counts files (re)extracted; `moved` files kept their chunks under a new path."""

    indexed: int = 0
    unchanged: int = 0
    removed: int = 0
    failed: int = 0
    moved: int = 0
    chunks: int = 0
    bytes: int = 0
    seconds: float = 0.0
    offline: list[str] = field(default_factory=list)
    errors: list[tuple[str, str]] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {"indexed": self.indexed, "unchanged": self.unchanged, "removed": self.removed, "failed": self.failed,
                "moved": self.moved, "chunks": self.chunks, "bytes": self.bytes, "seconds": round(self.seconds, 3),
                "offline": list(self.offline), "errors": [{"path": p, "reason": r} for p, r in self.errors]}

    def merge(self, other: SyncReport) -> None:
        for name in ("indexed", "unchanged", "removed", "failed", "moved", "chunks", "bytes"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.offline += other.offline
        self.errors += other.errors


def content_hash(data: bytes) -> str:
    """Content hash of a file's bytes (unchanged files and moves are recognised by it)."""
    return hashlib.blake2b(data, digest_size=20).hexdigest()


def chunk_extracted(doc: Extracted | StreamedText, config: ChunkConfig) -> Iterable[NewChunk]:
    """Chunks of an extraction; pages (PDF pages, slides, chapters, row blocks) are chunked one by one, so every
    chunk lies in one page and carries its label. A StreamedText (a big text file) gives an iterator that reads
    the file as it is consumed."""
    if isinstance(doc, StreamedText):
        return (NewChunk(span, None) for span in doc.spans(config))
    if not doc.pages:
        return [NewChunk(span, None) for span in chunk_spans(doc.text, config)]
    chunks = []
    for page in doc.pages:
        for span in chunk_spans(doc.text[page.start:page.end], config, offset=page.start):
            chunks.append(NewChunk(span, page.number, page.label, page.ocr))
    return chunks


def chunk_page_text(text: str, page: int, label: str, config: ChunkConfig, *, ocr: bool = True) -> list[NewChunk]:
    """Chunks of one page's text that arrived later (from OCR)."""
    return [NewChunk(span, page, label, ocr) for span in chunk_spans(text, config)]


def write_facts(store: Store, doc_id: int, path: Path, doc: Extracted, inner: Extraction) -> None:
    """The dates and tags of a written file and of the documents inside it (a mailbox's messages: each its own
    Date); a part's are read from its text and header fields only. A Markdown note's wikilinks too."""
    facts = document_facts(path, doc.type, doc.text, doc.metadata)
    if facts.date or facts.tags:
        store.set_document_facts(doc_id, facts.date, facts.tags)
    if doc.type == "markdown":  # written even when empty: an edit that removed the last link clears them
        store.set_document_links(doc_id, wikilinks(doc.text))
    for part in inner.documents:
        facts = document_facts(None, part.type, part.text, part.metadata)
        row = store.document_by_path(f"{path}#{part.part}") if facts.date or facts.tags else None
        if row is not None:
            store.set_document_facts(row.id, facts.date, facts.tags)


@dataclass(frozen=True, kw_only=True)
class FileJob:
    """One file on its way through the keyword phase: where it is, what it is, and its content hash once read."""

    folder_id: int
    item: Found | Skipped
    title: str
    type: str
    digest: str = ""

    @property
    def path(self) -> Path:
        return self.item.path

    def hashed(self, digest: str) -> FileJob:
        return replace(self, digest=digest)

    def failure(self) -> NewDocument:
        """The document row that records this file as failed."""
        return NewDocument(folder_id=self.folder_id, path=str(self.path), title=self.title, type=self.type,
                           size=self.item.size, mtime_ns=self.item.mtime_ns, digest=self.digest)


# Many small quick files share one transaction (one COMMIT instead of one per file); each is still its own
# SAVEPOINT. A batch ends after BATCH_FILES files or BATCH_SECONDS, and before a file that is not small and quick,
# so other writers (the semantic phase, the window) wait a fraction of a second at most.
BATCH_FILES = 256
BATCH_SECONDS = 0.25
BATCH_MAX_BYTES = 256 * 1024


class _Batches:
    """The open write batch of a run: `around(item)` is the context to index `item` in."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._open: AbstractContextManager[None] | None = None
        self._files = 0
        self._started = 0.0

    def before(self, item: Found) -> None:
        """Open, keep or close the batch for the next file."""
        small = cost_order(item)[0] == 0 and item.size <= BATCH_MAX_BYTES
        if self._open is not None and (not small or self._files >= BATCH_FILES
                                       or time.monotonic() - self._started >= BATCH_SECONDS):
            self.close()
        if small and self._open is None:
            self._open = self.store.write_batch()
            self._open.__enter__()
            self._files, self._started = 0, time.monotonic()
        self._files += 1

    def close(self, exc: BaseException | None = None) -> None:
        """Commit the open batch (roll it back when `exc` is given)."""
        batch, self._open = self._open, None
        if batch is not None:
            batch.__exit__(type(exc) if exc else None, exc, exc.__traceback__ if exc else None)


# The keyword phase takes quick formats first (each format's cost class is registered with it, in
# core/ingest/filetypes.py): a library of notes is searchable while its PDFs are still read.
def cost_order(item: Found) -> tuple[int, int]:
    """Sort key for the keyword phase: the file type's cost class, then its size."""
    return cost_class(file_type(item.path) or ""), item.size


@dataclass
class FolderPlan:
    """A folder's reconcile, worked out before any file is read."""

    folder_id: int
    known: dict[str, DocRow]
    todo: list[Found]
    vanished: list[DocRow]
    by_hash: dict[str, DocRow]  # vanished documents a found file with the same content moves (popped when it does)
    hashed: frozenset[int]  # the ids by_hash started with


class Indexer:
    """Extracts, chunks and writes files through the Store. One thread at a time (Library's sync lock)."""

    def __init__(self, store: Store, settings: Settings, emit: Callable[[IndexProgress], None] | None = None) -> None:
        self.store = store
        self.settings = settings
        self.emit = emit or (lambda _p: None)
        # Set when the library closes: a long reconcile stops after the file in flight instead of running on.
        self.stopping = threading.Event()

    @property
    def chunk_config(self) -> ChunkConfig:
        s = self.settings
        return ChunkConfig(s.chunk_size, s.chunk_overlap, s.min_chunk_size)

    # ---- whole folders -------------------------------------------------------------------------

    def sync_folder(self, folder_id: int, root: Path) -> SyncReport:
        """Reconcile a folder (or a sub-folder of it): index new and changed files, drop vanished ones,
        follow moves by content hash."""
        return self.sync_folders([(folder_id, root)])

    def sync_folders(self, folders: list[tuple[int, Path]]) -> SyncReport:
        """Reconcile several folders as one run: cheap files of every folder first (text, markdown, code), then
        office files, then PDFs, so the whole library is keyword-searchable early; each by size, smallest first."""
        started = time.monotonic()
        report = SyncReport()
        rechunk_if_stale(self.store)
        plans = []
        for folder_id, root in folders:
            if root.is_symlink():  # e.g. a link to a folder created while watching: never walked into
                report.merge(self.index_path(folder_id, root))
            elif (plan := self.plan(folder_id, root, report)) is not None:
                plans.append(plan)
        todo = sorted(((plan, item) for plan in plans for item in plan.todo), key=lambda pi: cost_order(pi[1]))
        self._emit_scan(len(todo))
        if not self._index_all(todo, report, started):
            report.seconds = time.monotonic() - started
            return report  # the rest is picked up by the next sync; nothing half-done is left
        for plan in plans:
            moved = plan.hashed - {doc.id for doc in plan.by_hash.values()}  # taken from by_hash by a move
            for doc in plan.vanished:
                if doc.id not in moved and self.store.delete_document(doc.id):
                    report.removed += 1
            self.store.mark_scanned(plan.folder_id, time.time())
        report.seconds = time.monotonic() - started
        return report

    def _index_all(self, todo: list[tuple[FolderPlan, Found]], report: SyncReport, started: float) -> bool:
        """Index the files in order, small quick ones in shared batches. False when the library began closing."""
        batches = _Batches(self.store)
        try:
            for n, (plan, item) in enumerate(todo, start=1):
                if self.stopping.is_set():
                    batches.close()
                    return False
                batches.before(item)
                self._index_found(plan.folder_id, item, plan.known.get(str(item.path)), plan.by_hash, report)
                elapsed = max(time.monotonic() - started, 1e-6)
                self.emit(IndexProgress(ProgressPhase.KEYWORD, files_queued=len(todo), files_done=n - report.failed,
                                        files_failed=report.failed, current_file=str(item.path),
                                        bytes_done=report.bytes, rate=n / elapsed,
                                        eta_seconds=(len(todo) - n) * elapsed / n))
        except BaseException as exc:
            batches.close(exc)
            raise
        batches.close()
        return True

    def plan(self, folder_id: int, root: Path, report: SyncReport) -> FolderPlan | None:
        """What a reconcile of `root` has to do; None (and `root` in report.offline) when it is not there.
        Entries that cannot be indexed (FIFOs, links out of the library, loops) are recorded with their reason."""
        if not root.is_dir():
            report.offline.append(str(root))
            return None
        known = self.store.documents_under(folder_id, str(root).rstrip(os.sep) + os.sep)
        found: dict[str, Found] = {}
        skipped: dict[str, Skipped] = {}
        for entry in scan(root, self.settings.excluded_patterns, self._roots()):
            if isinstance(entry, Found):
                found[str(entry.path)] = entry
            else:
                skipped[str(entry.path)] = entry
        if not found and known and not has_entries(root) and may_be_unmounted(root, self._roots()):
            report.offline.append(str(root))  # unmounted while we looked: never read it as "all deleted"
            return None
        changed = [entry for path, entry in skipped.items() if not _unchanged(known.get(path), entry)]
        for at in range(0, len(changed), BATCH_FILES):  # a folder of music or dotfiles: a commit a batch, not a file
            with self.store.write_batch():
                for entry in changed[at:at + BATCH_FILES]:
                    self._skip(folder_id, entry, report)
        vanished = [d for p, d in known.items() if p not in found and p not in skipped]
        by_hash = {d.content_hash: d for d in vanished if d.status == DocStatus.INDEXED and d.content_hash}
        todo = [f for p, f in found.items() if not _unchanged(known.get(p), f)]
        report.unchanged += len(found) - len(todo)
        return FolderPlan(folder_id, known, todo, vanished, by_hash, frozenset(d.id for d in by_hash.values()))

    def _emit_scan(self, queued: int) -> None:
        self.emit(IndexProgress(ProgressPhase.SCAN, files_queued=queued))

    # ---- single files --------------------------------------------------------------------------

    def index_path(self, folder_id: int, path: Path) -> SyncReport:
        """Bring one path up to date: index it if it is a wanted file, remove it (or everything under it) if gone,
        record it with the reason if it is there but cannot be indexed."""
        report = SyncReport()
        started = time.monotonic()
        found = classify(path, self.settings.excluded_patterns, self._roots())
        old = self.store.document_by_path(str(path))
        if found is None:
            report.removed += self.remove_path(path)
        elif _unchanged(old, found):
            report.unchanged += 1
        elif isinstance(found, Skipped):
            self._skip(folder_id, found, report)
        else:
            self._index_found(folder_id, found, old, {}, report)
        report.seconds = time.monotonic() - started
        return report

    def _roots(self) -> list[str]:
        """Every library folder: a link is followed only when it leads into one of them."""
        return [row.path for row in self.store.folders()]

    def remove_path(self, path: Path) -> int:
        """Forget a file, or every file under a folder path. Returns documents removed."""
        return self.store.delete_under(str(path))

    def move_path(self, folder_id: int, src: Path, dest: Path) -> SyncReport:
        """A file or folder moved within the library: keep chunks and vectors, rewrite paths."""
        report = SyncReport()
        old = self.store.document_by_path(str(src))
        if old is not None:
            sources = [(old, dest)]
        else:
            prefix = str(src).rstrip(os.sep) + os.sep
            sources = [(doc, dest / doc.path[len(prefix):]) for doc in self.store.documents_below(prefix)]
        # Keep the size/mtime the chunks were made from: if the file was also edited after the move,
        # the next index_path/sync sees the difference and re-indexes instead of calling it unchanged.
        moves = [DocumentMove(doc_id=doc.id, folder_id=folder_id, path=str(target), size=doc.size,
                              mtime_ns=doc.mtime_ns) for doc, target in sources if _exists(target)]
        report.moved = self.store.move_documents(moves)
        return report

    def _index_found(self, folder_id: int, item: Found, old: DocRow | None,
                     by_hash: dict[str, DocRow], report: SyncReport) -> None:
        path = item.path
        job = FileJob(folder_id=folder_id, item=item, title=title_from_path(path), type=file_type(path) or "")
        too_big = size_problem(item.size, job.type, self.settings)
        if too_big:
            self._fail(job, too_big, report)
            return
        try:
            source = read_for_index(path, job.type)  # regular files only; hashed as it is read
        except (ExtractionError, OSError) as exc:
            self._fail(job, str(exc), report)
            return
        job = job.hashed(source.digest)
        report.bytes += source.size
        if old is not None and old.content_hash == job.digest and old.status == DocStatus.INDEXED:
            self.store.touch_document(old.id, item.size, item.mtime_ns)
            report.unchanged += 1
            return
        moved = by_hash.pop(job.digest, None) if old is None else None
        if moved is not None:
            move = DocumentMove(doc_id=moved.id, folder_id=folder_id, path=str(path), size=item.size,
                                mtime_ns=item.mtime_ns)
            report.moved += self.store.move_documents([move])
            return
        try:
            doc, inner = extract_document(path, job.type, source, self.settings)  # under the per-file budget
        except ExtractionError as exc:
            self._fail(job, str(exc), report)
            return
        except KnownError:
            raise
        except Exception as exc:  # a bug in a parser must not stop the run; the file is marked with the reason
            log.exception("unexpected error extracting %s", path)
            self._fail(job, f"could not be read ({type(exc).__name__}: {exc})", report)
            return
        self._write(job, doc, inner, report)

    def _write(self, job: FileJob, doc: Extracted | StreamedText, inner: Extraction, report: SyncReport) -> None:
        """Write an extraction (its chunks streamed for a big text file), its pages for OCR and its parts."""
        first, chunks = peek(chunk_extracted(doc, self.chunk_config))
        needing_ocr = doc.pages_needing_ocr if isinstance(doc, Extracted) else ()
        ocr_pages = [OcrPageRef(p.number, p.label) for p in needing_ocr] if self.settings.ocr_enabled else []
        parts = self._parts(job.folder_id, inner)
        if first is None and not ocr_pages and not any(p.chunks for p in parts):
            reason = "empty: no text to index" if not needing_ocr else "scanned pages only, and OCR is off"
            self._fail(job, reason, report)
            return
        pages = doc.page_count if isinstance(doc, Extracted) else None
        meta = doc.metadata or None if isinstance(doc, Extracted) else None
        item = job.item
        try:
            # An extraction in memory hands its chunks as a list (its row is written with their count); a big text
            # file streams them.
            counted: Counted[NewChunk] | list[NewChunk] = (list(chunks) if isinstance(doc, Extracted)
                                                           else Counted(chunks))
            doc_id = self.store.write_document(NewDocument(folder_id=job.folder_id, path=str(item.path),
                                                           title=doc.title, type=doc.type, size=item.size,
                                                           mtime_ns=item.mtime_ns, digest=job.digest, pages=pages,
                                                           metadata=meta), counted, ocr_pages, parts)
            if isinstance(doc, Extracted):  # a streamed big text file keeps its modified time as its date
                write_facts(self.store, doc_id, item.path, doc, inner)
        except (ExtractionError, OSError) as exc:  # a file that went wrong half-way: nothing of it was kept
            self._fail(job, str(exc), report)
            return
        report.indexed += 1
        written = len(counted) if isinstance(counted, list) else counted.count
        report.chunks += written + sum(len(p.chunks) for p in parts)

    def _parts(self, folder_id: int, inner: Extraction) -> list[NewPart]:
        """The documents inside a file (messages, attachments) as parts to write with it; unreadable ones with
        their reason. (Their scanned pages are not OCR'd: OCR reads whole files.)"""
        parts = [NewPart(d.part, d.label, NewDocument(folder_id=folder_id, title=d.title, type=d.type,
                                                      pages=d.page_count, metadata=d.metadata or None),
                         tuple(chunk_extracted(d, self.chunk_config)))
                 for d in inner.documents]
        parts += [NewPart(f.part, f.name, NewDocument(folder_id=folder_id, title=f.name,
                                                      type=file_type(Path(f.name)) or ""),
                          reason=f.reason) for f in inner.failed]
        return parts

    def _skip(self, folder_id: int, entry: Skipped, report: SyncReport) -> None:
        """Record an entry that is not read, with its reason (one never read for what it is is no failure)."""
        if isinstance(entry, NotRead):
            record_not_read(self.store, folder_id, entry)
        else:
            self._fail(FileJob(folder_id=folder_id, item=entry, title=entry.path.name,
                               type=file_type(entry.path) or ""), entry.reason, report)

    def _fail(self, job: FileJob, reason: str, report: SyncReport) -> None:
        if _gone(job.path):
            self._vanished(job.path, report)
            return
        log.info("failed to index %s: %s", job.path, reason)
        self.store.record_failure(job.failure(), reason)
        report.failed += 1
        report.errors.append((str(job.path), reason))

    def _vanished(self, path: Path, report: SyncReport) -> None:
        """A file that was listed and is gone by the time it is read is not a failure: it is gone. Its old entry
        is forgotten when its folder is still there (the file was deleted); when the folder went too (deleted or
        unmounted mid-run), the folder's own check (offline) decides, on the next sync, what is kept."""
        log.info("%s disappeared while it was being indexed", path)
        if os.path.isdir(path.parent):
            report.removed += self.remove_path(path)


def record_not_read(store: Store, folder_id: int, entry: NotRead) -> None:
    """A file left alone for what it is (hidden, a type Trove does not read): listed by the ledger with its reason,
    in neither the sync's report nor the failure counts."""
    if not _gone(entry.path):
        kind = "" if entry.reason == HIDDEN_FOLDER else file_type(entry.path) or ""  # a folder has no type
        job = FileJob(folder_id=folder_id, item=entry, title=entry.path.name, type=kind)
        store.record_failure(job.failure(), entry.reason)
        store.mark_not_read(folder_id, str(entry.path))


def _unchanged(old: DocRow | None, found: Found | Skipped) -> bool:
    return old is not None and old.size == found.size and old.mtime_ns == found.mtime_ns


def _gone(path: Path) -> bool:
    """The path names nothing any more (a too-long path or a permission problem is not "gone")."""
    try:
        os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return True
    except OSError:
        return False
    return False


def _exists(path: Path) -> bool:
    try:
        path.stat()
    except OSError:
        return False
    return True
