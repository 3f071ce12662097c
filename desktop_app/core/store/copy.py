"""Copy a library from one store to another (embedded → server): documents (with the documents inside them and
their OCR pages), chunks, vectors, folders, chats.

Engine-neutral (Store protocol only). Resumable: each document is one transaction on the target, and a
document already there with the same content hash and status is skipped, so running it again after an
interruption carries on. Vectors travel with their chunks: nothing is re-embedded. The copy ends with a
count check of documents, failures, chunks and vectors per folder.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace

from desktop_app.core.store.base import Store
from desktop_app.core.store.rows import DocStatus, FolderCounts, FolderState, StoredDocument

BATCH = 100


@dataclass
class CopyReport:
    """What a copy did and whether the counts on both sides agree."""

    copied: int = 0
    skipped: int = 0
    chunks: int = 0
    chats: int = 0
    seconds: float = 0.0
    source: FolderCounts = field(default_factory=FolderCounts)
    target: FolderCounts = field(default_factory=FolderCounts)

    @property
    def counts_match(self) -> bool:
        """Documents, failures, chunks, chunks with vectors and pages waiting for OCR agree."""
        return self.source == self.target


def copy_library(source: Store, target: Store, *, progress: Callable[[int, int], None] | None = None,
                 batch: int = BATCH) -> CopyReport:
    """Copy everything in `source` into `target` (see the module docstring). `progress(done, total)`."""
    started = time.monotonic()
    report = CopyReport()
    model, dim = source.get_meta("embed_model"), source.get_meta("embed_dim")
    if model and dim:
        target.ensure_embedding_model(model, int(dim))
    folders = _copy_folders(source, target)
    total = source.counts()
    total_docs = total.documents + total.failed
    after = 0
    while page := source.stored_documents(after, batch):
        for stored in page:
            if stored.doc.folder_id in folders:
                copy_document(stored, folders[stored.doc.folder_id], target, report)
        after = page[-1].id
        if progress:
            progress(report.copied + report.skipped, total_docs)
    report.chats = _copy_chats(source, target)
    report.source = _sum(source, list(folders))
    report.target = _sum(target, list(folders.values()))
    report.seconds = time.monotonic() - started
    return report


def _copy_folders(source: Store, target: Store) -> dict[int, int]:
    """Target folder ids by source folder id (same paths and states, now this machine's)."""
    mapping = {}
    for row in source.folders():
        made = target.add_folder(row.path)
        if row.state != FolderState.ACTIVE:
            target.set_folder_state(made.id, row.state)
        if row.last_scan is not None:
            target.mark_scanned(made.id, row.last_scan)
        mapping[row.id] = made.id
    return mapping


def copy_document(stored: StoredDocument, folder_id: int, target: Store, report: CopyReport) -> None:
    """One file (with the documents inside it, its chunks, vectors and OCR pages) into `target`'s folder
    `folder_id`, unless the same content is there already (also core/team_backup.py)."""
    documents = 1 + len(stored.parts)  # a file and the documents inside it
    there = target.document_by_path(stored.doc.path)
    if there is not None and there.content_hash == stored.doc.digest and there.status == stored.status:
        report.skipped += documents  # copied by an earlier, interrupted run
        return
    if stored.status == DocStatus.NOT_READ:
        return  # a hidden or unsupported file: the target's first sync lists it again
    doc = replace(stored.doc, folder_id=folder_id)
    if stored.status == DocStatus.FAILED:
        target.record_failure(doc, stored.error or "")
    else:
        parts = [replace(p, doc=replace(p.doc, folder_id=folder_id)) for p in stored.parts]
        target.write_document(doc, stored.chunks, stored.ocr_pages, parts)
        report.chunks += len(stored.chunks) + sum(len(p.chunks) for p in parts)
    report.copied += documents


def _copy_chats(source: Store, target: Store) -> int:
    """Chats the target lacks (matched by title, creation time and message count), with their messages."""
    have = {(c.title, c.created_at, c.message_count) for c in target.list_chats()}
    copied = 0
    for chat in reversed(source.list_chats()):  # oldest first, so the target lists them in the same order
        if (chat.title, chat.created_at, chat.message_count) in have:
            continue
        messages = source.chat_messages(chat.id)
        new_id = target.create_chat(chat.title, chat.created_at)
        if messages:
            target.add_messages(new_id, messages, chat.title, chat.updated_at)
        copied += 1
    return copied


def _sum(store: Store, folder_ids: list[int]) -> FolderCounts:
    counts = [store.counts(fid) for fid in folder_ids]
    return FolderCounts(*(sum(getattr(c, f.name) for c in counts) for f in fields(FolderCounts)))
