"""The keyword phase: bring documents in the database in line with files on disk, one transaction per file."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from desktop_app.core.errors import ExtractionError, KnownError
from desktop_app.core.events import IndexProgress
from desktop_app.core.index import store
from desktop_app.core.index.writer import Writer
from desktop_app.core.ingest.chunking import ChunkConfig, chunk_spans
from desktop_app.core.ingest.discover import Found, Skipped, classify, scan
from desktop_app.core.ingest.extract import Extracted, title_from_path
from desktop_app.core.ingest.filetypes import file_type
from desktop_app.core.ingest.reader import Counted, extract_document, peek, read_for_index, size_problem
from desktop_app.core.ingest.readtext import StreamedText
from desktop_app.core.log import get_logger
from desktop_app.core.settings import Settings

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

    def merge(self, other: "SyncReport") -> None:
        for name in ("indexed", "unchanged", "removed", "failed", "moved", "chunks", "bytes"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.offline += other.offline
        self.errors += other.errors


def chunk_extracted(doc: Extracted | StreamedText, config: ChunkConfig) -> Iterable[store.NewChunk]:
    """Chunks of an extraction; PDF pages are chunked one by one so every chunk has exactly one page.

    A StreamedText (a big text file) gives an iterator that reads the file as it is consumed."""
    if isinstance(doc, StreamedText):
        return (store.NewChunk(span, None) for span in doc.spans(config))
    if not doc.pages:
        return [store.NewChunk(span, None) for span in chunk_spans(doc.text, config)]
    chunks = []
    for page in doc.pages:
        for span in chunk_spans(doc.text[page.start:page.end], config, offset=page.start):
            chunks.append(store.NewChunk(span, page.number))
    return chunks


class Indexer:
    """Extracts, chunks and writes files. Thread-safe through the Writer; call from any worker thread."""

    def __init__(self, writer: Writer, settings: Settings, emit: Callable[[IndexProgress], None] | None = None) -> None:
        self.writer = writer
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
        started = time.monotonic()
        report = SyncReport()
        if root.is_symlink():  # e.g. a link to a folder created while watching: never walked into
            return self.index_path(folder_id, root)
        if not root.is_dir():
            report.offline.append(str(root))
            return report
        with self.writer.locked() as conn:
            known = store.documents_of_folder(conn, folder_id)
            roots = [r[0] for r in conn.execute("SELECT path FROM folders")]
        prefix = str(root).rstrip(os.sep) + os.sep
        known = {p: d for p, d in known.items() if p.startswith(prefix)}
        found: dict[str, Found] = {}
        skipped: dict[str, Skipped] = {}
        for entry in scan(root, self.settings.excluded_patterns, roots):
            if isinstance(entry, Found):
                found[str(entry.path)] = entry
            else:
                skipped[str(entry.path)] = entry
        if not found and known and not _dir_has_entries(root):
            # An empty mount point looks like a folder whose files were all deleted: treat it as offline.
            report.offline.append(str(root))
            return report
        vanished = {p: d for p, d in known.items() if p not in found and p not in skipped}
        for path, entry in skipped.items():
            if not _unchanged(known.get(path), entry):
                self._fail(folder_id, entry, entry.path.name, file_type(entry.path) or "", "", entry.reason, report)
        by_hash = {d.content_hash: d for d in vanished.values() if d.status == "indexed" and d.content_hash}
        todo = [f for p, f in found.items() if not _unchanged(known.get(p), f)]
        report.unchanged = len(found) - len(todo)
        self._emit_scan(len(todo))
        for n, item in enumerate(todo, start=1):
            if self.stopping.is_set():
                report.seconds = time.monotonic() - started
                return report  # the rest is picked up by the next sync; nothing half-done is left
            self._index_found(folder_id, item, known.get(str(item.path)), by_hash, report)
            self.emit(IndexProgress("keyword", files_queued=len(todo), files_done=n - report.failed,
                                    files_failed=report.failed, current_file=str(item.path), bytes_done=report.bytes,
                                    rate=n / max(time.monotonic() - started, 1e-6),
                                    eta_seconds=(len(todo) - n) * (time.monotonic() - started) / n))
        for path, doc in vanished.items():
            with self.writer.tx() as conn:
                if store.document_by_path(conn, path) is not None:
                    store.delete_document(conn, doc.id)
                    report.removed += 1
        with self.writer.tx() as conn:
            conn.execute("UPDATE folders SET last_scan = ? WHERE id = ?", (time.time(), folder_id))
        report.seconds = time.monotonic() - started
        return report

    def _emit_scan(self, queued: int) -> None:
        self.emit(IndexProgress("scan", files_queued=queued))

    # ---- single files --------------------------------------------------------------------------

    def index_path(self, folder_id: int, path: Path) -> SyncReport:
        """Bring one path up to date: index it if it is a wanted file, remove it (or everything under it) if gone."""
        report = SyncReport()
        started = time.monotonic()
        with self.writer.locked() as conn:
            roots = [r[0] for r in conn.execute("SELECT path FROM folders")]
            old = store.document_by_path(conn, str(path))
        found = classify(path, self.settings.excluded_patterns, roots)
        if found is None:
            report.removed += self.remove_path(path)
        elif _unchanged(old, found):
            report.unchanged += 1
        elif isinstance(found, Skipped):
            self._fail(folder_id, found, path.name, file_type(path) or "", "", found.reason, report)
        else:
            self._index_found(folder_id, found, old, {}, report)
        report.seconds = time.monotonic() - started
        return report

    def remove_path(self, path: Path) -> int:
        """Forget a file, or every file under a folder path. Returns documents removed."""
        prefix = str(path).rstrip(os.sep) + os.sep
        with self.writer.tx() as conn:
            rows = conn.execute(
                # length(?2), not len(prefix): the stored prefix is longer when it holds escaped bytes (pathnames)
                "SELECT id FROM documents WHERE path = ?1 OR substr(path, 1, length(?2)) = ?2", (str(path), prefix)
            ).fetchall()
            for (doc_id,) in rows:
                store.delete_document(conn, doc_id)
        return len(rows)

    def move_path(self, folder_id: int, src: Path, dest: Path) -> SyncReport:
        """A file or folder moved within the library: keep chunks and vectors, rewrite paths."""
        report = SyncReport()
        with self.writer.tx() as conn:
            old = store.document_by_path(conn, str(src))
            moves = [(old, dest)] if old else []
            if not old:
                prefix = str(src).rstrip(os.sep) + os.sep
                for row in conn.execute("SELECT path FROM documents WHERE substr(path, 1, length(?1)) = ?1",
                                        (prefix,)).fetchall():
                    doc = store.document_by_path(conn, row[0])
                    moves.append((doc, dest / row[0][len(prefix):]))
            for doc, target in moves:
                try:
                    st = target.stat()
                except OSError:
                    continue
                existing = store.document_by_path(conn, str(target))
                if existing is not None:
                    store.delete_document(conn, existing.id)
                # Keep the size/mtime the chunks were made from: if the file was also edited after the move,
                # the next index_path/sync sees the difference and re-indexes instead of calling it unchanged.
                store.move_document(conn, doc.id, folder_id=folder_id, new_path=str(target),
                                    size=doc.size, mtime_ns=doc.mtime_ns)
                report.moved += 1
        return report

    def _index_found(self, folder_id: int, item: Found, old: store.DocRow | None,
                     by_hash: dict[str, store.DocRow], report: SyncReport) -> None:
        path = item.path
        type_ = file_type(path) or ""
        title = title_from_path(path)
        too_big = size_problem(item.size, type_, self.settings)
        if too_big:
            self._fail(folder_id, item, title, type_, "", too_big, report)
            return
        try:
            source = read_for_index(path, type_)  # regular files only; hashed as streamed
        except (ExtractionError, OSError) as exc:
            self._fail(folder_id, item, title, type_, "", str(exc), report)
            return
        digest = source.digest
        report.bytes += source.size
        if old is not None and old.content_hash == digest and old.status == "indexed":
            with self.writer.tx() as conn:
                store.touch_document(conn, old.id, item.size, item.mtime_ns)
            report.unchanged += 1
            return
        moved = by_hash.pop(digest, None) if old is None else None
        if moved is not None:
            with self.writer.tx() as conn:
                store.move_document(conn, moved.id, folder_id=folder_id, new_path=str(path),
                                    size=item.size, mtime_ns=item.mtime_ns)
            report.moved += 1
            return
        try:
            doc = extract_document(path, type_, source, self.settings)  # under the per-file budget
        except ExtractionError as exc:
            self._fail(folder_id, item, title, type_, digest, str(exc), report)
            return
        except KnownError:
            raise
        except Exception as exc:  # a bug in a parser must not stop the run; the file is marked with the reason
            log.exception("unexpected error extracting %s", path)
            self._fail(folder_id, item, title, type_, digest, f"could not be read ({type(exc).__name__}: {exc})", report)
            return
        first, chunks = peek(chunk_extracted(doc, self.chunk_config))
        if first is None:
            self._fail(folder_id, item, title, type_, digest, "empty: no text to index", report)
            return
        counted = Counted(chunks)
        try:
            with self.writer.tx() as conn:
                store.write_document(conn, folder_id=folder_id, path=str(path), title=doc.title, type_=doc.type,
                                     size=item.size, mtime_ns=item.mtime_ns, digest=digest,
                                     pages=getattr(doc, "page_count", None), chunks=counted)
        except (ExtractionError, OSError) as exc:  # a streamed file that went wrong half-way: nothing was kept
            self._fail(folder_id, item, title, type_, digest, str(exc), report)
            return
        report.indexed += 1
        report.chunks += counted.count

    def _fail(self, folder_id: int, item: Found | Skipped, title: str, type_: str, digest: str, reason: str,
              report: SyncReport) -> None:
        log.info("failed to index %s: %s", item.path, reason)
        with self.writer.tx() as conn:
            store.record_failure(conn, folder_id=folder_id, path=str(item.path), title=title, type_=type_,
                                 size=item.size, mtime_ns=item.mtime_ns, digest=digest, reason=reason)
        report.failed += 1
        report.errors.append((str(item.path), reason))


def _unchanged(old: store.DocRow | None, found: Found | Skipped) -> bool:
    return old is not None and old.size == found.size and old.mtime_ns == found.mtime_ns


def _dir_has_entries(root: Path) -> bool:
    try:
        return any(True for _ in os.scandir(root))
    except OSError:
        return False
