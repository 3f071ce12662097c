"""The Store protocol: everything a library keeps, behind typed methods. No SQL above this line.

Two engines implement it: SQLiteStore (the embedded default: one file, FTS5 + sqlite-vec, one writer) and
PostgresStore (a team library on a server). Every write method is one transaction: a crash leaves the
document before or after, never half-written. Reads never wait for writers. Safe to call from any thread.

`Store` is composed of one small protocol per responsibility (EngineStore, MachineStore, FolderStore,
DocumentStore, OcrStore, KeywordStore, VectorStore, SearchStore, ChatStore, LedgerStore, MemoryStore, LinkStore); a
collaborator that needs only one part may ask for that part.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from contextlib import AbstractContextManager
from typing import Protocol, runtime_checkable

import numpy as np

from desktop_app.core.store.ledger_rows import FileState, LedgerQuery, LedgerRow
from desktop_app.core.store.link_rows import LinkStore
from desktop_app.core.store.memory_rows import Fact, MemoryChunk, NewFact, NewMemoryChunk
from desktop_app.core.store.rows import (
    ChatRow,
    ChunkRow,
    ChunkVectors,
    DocRow,
    DocumentMove,
    EngineInfo,
    Failure,
    Filters,
    FolderCounts,
    FolderRow,
    FolderState,
    MessageRow,
    NewChunk,
    NewDocument,
    NewPart,
    OcrCounts,
    OcrPageRef,
    OcrTask,
    PendingChunk,
    Share,
    StoredDocument,
)


class EngineStore(Protocol):
    """The engine itself: what it is, its meta values, closing it."""

    def info(self) -> EngineInfo:
        """Engine name, version and where the library lives (no secrets)."""
        ...

    def close(self) -> None:
        """Close every connection. Safe to call twice."""
        ...

    def get_meta(self, key: str, default: str | None = None) -> str | None:
        """A library-wide setting the index depends on (model id, tokenizer version, last error)."""
        ...

    def set_meta(self, key: str, value: str | None) -> None:
        """Set (or with None, remove) a meta value."""
        ...

    def ensure_embedding_model(self, model_id: str, dim: int) -> bool:
        """Vectors of two models never mix: a different model (or size) drops every vector. True when reset."""
        ...


class MachineStore(Protocol):
    """Which machine indexes which folder (a server library is shared by many desktops)."""

    @property
    def machine_id(self) -> str:
        """This machine's stable id ("" for an embedded library, which only one machine writes)."""
        ...

    def claim_folder(self, folder_id: int) -> bool:
        """Take (or keep) the right to index a folder. False while another live machine holds it; a machine that
        stopped renewing loses it after the lease expires. The store renews what it holds until release or close."""
        ...

    def release_folder(self, folder_id: int) -> None:
        """Give up the right to index a folder (another machine that watches it may take it at once)."""
        ...

    def folder_holder(self, folder_id: int) -> str | None:
        """The machine that holds a folder's lease now (None when nobody does)."""
        ...

    def all_folders(self) -> list[FolderRow]:
        """Every machine's folders, by path (folders() is only this machine's)."""
        ...


class FolderStore(Protocol):
    """The library's folders, their states, shares and counts."""

    def add_folder(self, path: str, share: Share | None = None) -> FolderRow:
        """Insert a folder as active, or return the row it already has. `share` says who may see it on a team
        library (None: the library's default; an embedded library has one person and refuses one)."""
        ...

    def set_folder_share(self, folder_id: int, share: Share) -> FolderRow:
        """Change who may see a folder (a team library; an embedded one refuses with one line)."""
        ...

    def default_share(self) -> Share:
        """Who sees a new folder unless its owner says otherwise."""
        ...

    def set_default_share(self, share: Share) -> None:
        """The administrator's default for new folders (team or private)."""
        ...

    def folders(self) -> list[FolderRow]:
        """This machine's folders (every folder in an embedded library), by path."""
        ...

    def folder(self, folder_id: int) -> FolderRow | None:
        """One folder by id."""
        ...

    def set_folder_state(self, folder_id: int, state: FolderState) -> None:
        """Record a folder's state (FolderMonitor is the only caller)."""
        ...

    def delete_folder(self, folder_id: int) -> int:
        """Purge a folder with its documents, chunks and vectors. Returns the documents removed."""
        ...

    def mark_scanned(self, folder_id: int, when: float) -> None:
        """Record the end of a full reconcile."""
        ...

    def counts(self, folder_id: int | None = None) -> FolderCounts:
        """Documents, failures, chunks and embedded chunks of one folder (or of the whole library)."""
        ...

    def folder_has_documents(self, folder_id: int) -> bool:
        """Whether anything was ever indexed (or failed) from the folder."""
        ...


class DocumentStore(Protocol):
    """Documents: written, moved, failed and forgotten, one transaction each."""

    def write_batch(self) -> AbstractContextManager[None]:
        """Writes inside may share one transaction (SQLite: one COMMIT for many small files), each still
        all-or-nothing on its own: a failed one rolls back alone. An engine may commit each write by itself."""
        ...

    def documents_under(self, folder_id: int, prefix: str = "") -> dict[str, DocRow]:
        """A folder's document rows by path, only those whose path starts with `prefix` when given."""
        ...

    def document_by_path(self, path: str) -> DocRow | None:
        """The document row for one path."""
        ...

    def write_document(self, doc: NewDocument, chunks: Iterable[NewChunk], ocr_pages: Sequence[OcrPageRef] = (),
                       parts: Sequence[NewPart] = ()) -> int:
        """Replace whatever was stored for doc.path (its parts included) with these chunks and `parts` (documents
        inside the file, keyed "<path>#<part>"); unchanged chunk texts keep their vectors. `ocr_pages` (pages with
        no text layer) are listed for the OCR phase, keeping what OCR read of this file. A chunk that brings its own
        vectors (NewChunk.vectors: a library being copied) is stored with them."""
        ...

    def record_failure(self, doc: NewDocument, reason: str) -> None:
        """Mark a file failed with a reason (its chunks go); it is retried only when it changes."""
        ...

    def touch_document(self, doc_id: int, size: int, mtime_ns: int) -> None:
        """New stat data for a file whose content did not change."""
        ...

    def set_document_facts(self, doc_id: int, date: str | None, tags: Sequence[str]) -> None:
        """A document's own date (an ISO day; None: its modified time counts) and its tags (case-folded)."""
        ...

    def move_documents(self, moves: Sequence[DocumentMove]) -> int:
        """Move documents to their new folder and path (with the stat data given) keeping chunks and vectors; a
        document already at a target path is replaced. One transaction. Returns how many moved."""
        ...

    def delete_document(self, doc_id: int) -> bool:
        """Forget one document and everything derived from it. False when it was already gone."""
        ...

    def delete_under(self, path: str) -> int:
        """Forget the document at `path` and every document below it. Returns how many."""
        ...

    def documents_below(self, prefix: str) -> list[DocRow]:
        """Documents whose path starts with `prefix` (a folder path ending in a separator), in any folder."""
        ...

    def failures(self) -> list[Failure]:
        """Every failed file with its reason, by path."""
        ...

    def stored_documents(self, after_id: int, limit: int) -> list[StoredDocument]:
        """Documents in id order after `after_id`, with chunks and vectors (to copy a library to another engine)."""
        ...

    def formats(self) -> list[tuple[str, int]]:
        """Each document type among the indexed documents with its count, most first (then by name)."""
        ...

    def listed_documents(self, filters: Filters, limit: int) -> list[tuple[int, float]]:
        """The first chunk of each document a filter allows, newest document date first; score 1.0."""
        ...

    def document_dates(self) -> tuple[int, str, str]:
        """How many documents have a date of their own, the earliest and the latest (ISO days; "" when none)."""
        ...

    def tag_counts(self, limit: int = 20) -> list[tuple[str, int]]:
        """The most used stored tags with their document counts, most first (then by name)."""
        ...

    def forget_content_hashes(self) -> None:
        """Make every file look changed, so the next sync re-extracts and re-chunks it (reindex)."""
        ...


class OcrStore(Protocol):
    """Pages with no text layer, waiting for (or read by) the OCR phase."""

    def pending_ocr(self, limit: int, after: tuple[int, int] = (0, 0)) -> list[OcrTask]:
        """Pages waiting for OCR after (document id, page), in that order."""
        ...

    def store_ocr_page(self, task: OcrTask, chunks: Sequence[NewChunk], *, text: str, confidence: float,
                       reason: str, words: str | None = None) -> bool:
        """Write one page's OCR outcome and chunks (one transaction); False when the document changed meanwhile.
        `words`: the words OCR read with their boxes (core/ocr/words.py); None keeps the row's (a re-chunked page's)."""
        ...

    def ocr_words(self, path: str, page: int) -> str | None:
        """The words OCR read on page `page` of the file at `path`, with their boxes (None: not read by OCR)."""
        ...

    def ocr_counts(self) -> OcrCounts:
        """Pages waiting for OCR, read, and unreadable."""
        ...

    def ocr_failures(self) -> list[Failure]:
        """Pages OCR could not read, named "path (page)", with the reason."""
        ...


class KeywordStore(Protocol):
    """The keyword index's upkeep and the languages it holds."""

    def keyword_rebuild_pending(self) -> int:
        """Chunks whose keyword rows were made by another version of the text pipeline (0: the index is current)."""
        ...

    def rebuild_keywords(self, limit: int) -> int:
        """Rewrite the keyword rows of up to `limit` chunks from their stored text; returns how many are left."""
        ...

    def languages(self) -> list[tuple[str, int]]:
        """Each chunk language in the library with its chunk count, most chunks first."""
        ...


class VectorStore(Protocol):
    """Chunk vectors: what waits for the semantic phase, and writing them."""

    def count_pending(self, *, skip_documents: Collection[int] = ()) -> int:
        """Chunks without vectors (not counting those of `skip_documents`)."""
        ...

    def pending_chunks(self, limit: int, after_id: int = 0, document_id: int | None = None, *,
                       skip_documents: Collection[int] = ()) -> list[PendingChunk]:
        """Chunks without vectors, in id order, after `after_id` (of one document when given), none of
        `skip_documents` (the documents the semantic phase leaves out)."""
        ...

    def store_vectors(self, items: Iterable[ChunkVectors]) -> int:
        """Write window vectors for chunks that still exist with the same text. Returns how many chunks got them."""
        ...

    def has_vectors(self) -> bool:
        """Whether any chunk has vectors."""
        ...


class SearchStore(Protocol):
    """Candidates for a query and the rows a result is built from."""

    def keyword_candidates(
        self, query: str, limit: int, *, title_weight: float = 2.0, filters: Filters | None = None
    ) -> list[tuple[int, float]]:
        """Chunk ids matching the words of `query` (never raises on any text), best first; higher score is better."""
        ...

    def dense_candidates(
        self, vector: np.ndarray, limit: int, *, filters: Filters | None = None
    ) -> list[tuple[int, float]]:
        """Chunk ids nearest to a normalised query vector, best first; score = cosine similarity."""
        ...

    def document_chunks(self, path: str) -> list[tuple[int | None, str]]:
        """(page, text) of one document's chunks, in document order (empty when it is not indexed)."""
        ...

    def chunks_around(self, chunk_id: int, reach: int = 1) -> list[tuple[int | None, int, int, str]]:
        """(page, start, end, text) of a chunk and of up to `reach` chunks either side of it in its document, in
        document order (empty when it no longer exists): the text around a passage, to quote whole sentences."""
        ...

    def document_titles(self, document_ids: Sequence[int]) -> dict[int, str]:
        """The stored titles of these documents, by id (ids that no longer exist are left out)."""
        ...

    def chunk_rows(self, chunk_ids: Sequence[int]) -> dict[int, ChunkRow]:
        """Chunks with their documents, by id (ids that no longer exist are left out)."""
        ...

    def folder_ids(self, paths: Sequence[str]) -> tuple[int, ...]:
        """Ids of the library folders among `paths`."""
        ...


class ChatStore(Protocol):
    """Chats and their messages."""

    def create_chat(self, title: str, now: float) -> int:
        """A new, empty chat."""
        ...

    def chat_exists(self, chat_id: int) -> bool:
        """Whether a chat id is in this library."""
        ...

    def list_chats(self) -> list[ChatRow]:
        """Every chat, most recently used first."""
        ...

    def chat_messages(self, chat_id: int) -> list[MessageRow]:
        """A chat's messages, oldest first."""
        ...

    def add_messages(self, chat_id: int, messages: Sequence[MessageRow], title_if_empty: str, now: float) -> None:
        """Append messages (their ids are ignored) and touch the chat, in one transaction."""
        ...

    def delete_chat(self, chat_id: int) -> bool:
        """Delete a chat and its messages; False when there was none."""
        ...


class LedgerStore(Protocol):
    """The library ledger: every document row with its state, a page at a time (core/store/ledger.py)."""

    def ledger_page(self, query: LedgerQuery, offset: int = 0, limit: int = 200) -> list[LedgerRow]:
        """Rows `offset` to `offset + limit` of the ledger under `query`."""
        ...

    def ledger_counts(self, query: LedgerQuery) -> dict[FileState, int]:
        """Rows per state under the query's folder, type and language."""
        ...

    def ledger_not_read(self, query: LedgerQuery) -> int:
        """Rows under the query's folder that were seen and never read (hidden, unsupported): part of its skipped
        count, none of `trove stats`' failed."""
        ...

    def mark_not_read(self, folder_id: int, path: str) -> None:
        """A file just recorded as failed (record_failure) was never read: hidden, or of a type Trove does not
        read. It stays listed with its reason and leaves the failure counts."""
        ...


class MemoryFacts(Protocol):
    """The person's remembered facts (on a team library, only their own rows), the memory switch, and clearing."""

    def enabled(self) -> bool:
        """Whether memory is on (it is unless the person turned it off)."""
        ...

    def set_enabled(self, on: bool) -> None:
        """Turn memory on or off."""
        ...

    def forgot_through(self) -> int:
        """The newest chat message the last forget-all covered (0: never): older turns are not saved again."""
        ...

    def set_forgot_through(self, message_id: int) -> None:
        """Record a forget-all's watermark (see forgot_through)."""
        ...

    def insert_fact(self, fact: NewFact, now: float, merged_keys: Sequence[str] = (),
                    vector: bytes | None = None) -> int:
        """Store a new fact with its keyword row; returns its id."""
        ...

    def touch_fact(self, fact_id: int, now: float, confidence: float, merged_keys: Sequence[str],
                   expires_at: float | None) -> None:
        """The same fact said again: newer, at least as confident, maybe under another key spelling."""
        ...

    def supersede(self, old_id: int, new_id: int) -> None:
        """Mark `old_id` as corrected by `new_id` (it stays, flagged outdated)."""
        ...

    def fact(self, fact_id: int) -> Fact | None:
        """One fact by id."""
        ...

    def facts(self, *, current_only: bool = False) -> list[Fact]:
        """Every fact (or only those no correction replaced), newest first."""
        ...

    def facts_by_id(self, ids: Iterable[int]) -> dict[int, Fact]:
        """Facts by id (missing ids left out)."""
        ...

    def fact_keyword_candidates(self, query: str, limit: int) -> list[tuple[int, float]]:
        """Facts whose key or value match the query's terms, best first (higher score is better)."""
        ...

    def fact_vectors(self) -> list[tuple[int, bytes]]:
        """(id, vector) of every fact that has one."""
        ...

    def facts_without_vectors(self) -> list[Fact]:
        """Facts whose vector is missing (stored without an embedder, or the model changed)."""
        ...

    def set_fact_vectors(self, items: Iterable[tuple[int, bytes]]) -> None:
        """Store facts' vectors."""
        ...

    def delete_facts(self, ids: Iterable[int]) -> int:
        """Forget facts by id, with every older value they superseded. Returns how many rows went."""
        ...

    def delete_all(self) -> int:
        """Forget every fact, raw chunk and recall record. Returns how many facts and chunks went."""
        ...

    def delete_chat(self, chat_id: int) -> int:
        """Forget what one chat left in memory (its raw chunks, the facts said in it, its recall records)."""
        ...


class MemoryChunks(Protocol):
    """Raw history: verbatim turns of the person's chats, their keyword rows and window vectors, and what recall
    already put into each chat."""

    def ensure_model(self, model_id: str, dim: int) -> bool:
        """Another embedding model (or size) than the one memory's vectors were made with drops them all, the
        facts' too (they are made again). True when they were reset."""
        ...

    def insert(self, chunks: Sequence[NewMemoryChunk], now: float) -> list[int]:
        """Append chunks with their keyword rows; a text already stored for that chat is skipped. New ids."""
        ...

    def last_turn(self, chat_id: int) -> int:
        """The newest turn number of a chat already in raw memory (0: none)."""
        ...

    def chunks(self, ids: Iterable[int]) -> dict[int, MemoryChunk]:
        """Chunks by id (missing ids left out)."""
        ...

    def chat_chunks(self, chat_id: int) -> list[MemoryChunk]:
        """One chat's raw chunks, oldest first."""
        ...

    def count(self) -> int:
        """How many raw chunks memory holds."""
        ...

    def keyword_candidates(self, query: str, limit: int) -> list[tuple[int, float]]:
        """Chunks matching the query's terms, best first (higher score is better)."""
        ...

    def dense_candidates(self, vector: np.ndarray, limit: int) -> list[tuple[int, float]]:
        """Chunks nearest to a normalised query vector: (id, cosine of the chunk's best window), best first."""
        ...

    def pending(self, limit: int) -> list[MemoryChunk]:
        """Chunks without vectors, oldest first."""
        ...

    def store_vectors(self, items: Iterable[tuple[int, np.ndarray]]) -> int:
        """Write the window vectors (windows x dim) of chunks that still exist and have none. Returns how many."""
        ...

    def recalled(self, chat_id: int) -> set[int]:
        """Chunks recall already injected into this chat."""
        ...

    def mark_recalled(self, chat_id: int, chunk_ids: Iterable[int], now: float) -> None:
        """Record that these chunks were injected into this chat (never again there)."""
        ...


@runtime_checkable
class MemoryStore(Protocol):
    """Conversation memory, kept by the library's engine: in the SQLite file beside the documents, or on a team
    server in tables row-level security keeps to their person. Each call hands out a view over the open store
    (cheap; it shares the store's connections and transactions)."""

    def memory_facts(self) -> MemoryFacts:
        """The person's facts and memory switch."""
        ...

    def memory_chunks(self) -> MemoryChunks:
        """The person's raw history chunks."""
        ...


@runtime_checkable
class Store(EngineStore, MachineStore, FolderStore, DocumentStore, OcrStore, KeywordStore, VectorStore, SearchStore,
            ChatStore, LedgerStore, MemoryStore, LinkStore, Protocol):
    """A library's index, folders, chats and memory: every part above, on one engine."""
