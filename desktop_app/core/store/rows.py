"""The values a Store takes and gives back: frozen, engine-neutral (no connection or row types leak out)."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

from desktop_app.core.ingest.chunking import Span


class FolderState(enum.StrEnum):
    """Where a library folder stands. Only FolderMonitor changes it."""

    ACTIVE = "active"  # watched and indexed
    PAUSED = "paused"  # watched; changes are held until it is resumed
    OFFLINE = "offline"  # root missing or unmounted: its documents stay searchable, nothing is removed


class DocStatus(enum.StrEnum):
    """A document row is either indexed (has chunks) or failed (has a reason)."""

    INDEXED = "indexed"
    FAILED = "failed"


@dataclass(frozen=True)
class FolderRow:
    """A library folder as stored."""

    id: int
    path: str
    state: FolderState
    added_at: float = 0.0
    last_scan: float | None = None
    machine_id: str = ""  # the machine whose disk the path is on ("" in an embedded, one-machine library)


@dataclass(frozen=True)
class FolderCounts:
    """Documents indexed and failed, chunks, and chunks with vectors (of one folder, or of the library)."""

    documents: int = 0
    failed: int = 0
    chunks: int = 0
    embedded: int = 0


@dataclass(frozen=True)
class DocRow:
    """What the sync needs to know about an indexed (or failed) file."""

    id: int
    folder_id: int
    path: str
    size: int
    mtime_ns: int
    content_hash: str
    status: DocStatus


@dataclass(frozen=True)
class NewDocument:
    """A document about to be written (indexed or failed)."""

    folder_id: int
    path: str
    title: str
    type: str
    size: int
    mtime_ns: int
    digest: str
    pages: int | None = None
    metadata: dict[str, Any] | None = None  # the memory API's JSON; None for files


@dataclass(frozen=True)
class NewChunk:
    """A chunk about to be written: its span and page."""

    span: Span
    page: int | None
    vectors: Any = None  # window vectors already computed (a library being copied): stored with the chunk


@dataclass(frozen=True)
class PendingChunk:
    """A chunk that has no vectors yet."""

    id: int
    text_hash: str
    text: str


@dataclass(frozen=True)
class ChunkVectors:
    """The window vectors computed for one chunk; stored only if the chunk still has this text."""

    chunk_id: int
    text_hash: str
    vectors: Any  # a (windows, dim) float32 array


@dataclass(frozen=True)
class ChunkRow:
    """A chunk with its document, as search results need it."""

    chunk_id: int
    text: str
    page: int | None
    ordinal: int
    start: int
    end: int
    document_id: int
    path: str
    title: str
    type: str
    folder_id: int
    metadata: dict[str, Any] | None = None
    machine_id: str = ""  # the machine whose disk holds the file ("" in an embedded library)


@dataclass(frozen=True)
class StoredDocument:
    """A document as stored, with its chunks and their vectors: what `trove migrate` copies between engines."""

    id: int
    doc: NewDocument
    status: DocStatus
    error: str | None
    chunks: tuple[NewChunk, ...]


@dataclass(frozen=True)
class Failure:
    """A file that could not be indexed, with the reason shown to the user."""

    path: str
    reason: str


@dataclass(frozen=True)
class Filters:
    """Restrict candidates to some folders (ids) and/or document types."""

    folder_ids: tuple[int, ...] = ()
    types: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.folder_ids or self.types)


@dataclass(frozen=True)
class EngineInfo:
    """Which engine a library is on, for `trove stats` (never holds a password)."""

    engine: str  # "sqlite" | "postgresql"
    version: str
    location: str
    size_bytes: int = 0


@dataclass(frozen=True)
class ChatRow:
    """One chat in a list of chats."""

    id: int
    title: str
    created_at: float
    updated_at: float
    message_count: int


@dataclass(frozen=True)
class MessageRow:
    """One stored chat message; citations and passages as JSON-ready dicts."""

    id: int
    chat_id: int
    role: str
    content: str
    citations: tuple[dict[str, Any], ...] = field(default_factory=tuple)
    passages: tuple[dict[str, Any], ...] = field(default_factory=tuple)
    created_at: float = 0.0
