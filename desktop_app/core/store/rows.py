"""The values a Store takes and gives back: frozen, engine-neutral (no connection or row types leak out)."""

from __future__ import annotations

import enum
import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

from desktop_app.core.errors import KnownError
from desktop_app.core.ingest.chunking import Span


class FolderState(enum.StrEnum):
    """Where a library folder stands. Only FolderMonitor changes it."""

    ACTIVE = "active"  # watched and indexed
    PAUSED = "paused"  # watched; changes are held until it is resumed
    OFFLINE = "offline"  # root missing or unmounted: its documents stay searchable, nothing is removed


class DocStatus(enum.StrEnum):
    """A document row is indexed (has chunks), failed (has a reason), or not read: a file seen and left alone
    (hidden, or of a type Trove does not read), listed by the ledger with its reason, counted apart from failures."""

    INDEXED = "indexed"
    FAILED = "failed"
    NOT_READ = "not_read"


PERSON_PREFIX = "trove_p_"  # a person's login role on a team library is this + their name
_PERSON_NAME = re.compile(r"^[a-z0-9_]{1,40}$")


@dataclass(frozen=True)
class Share:
    """Who may see a folder: 'private', 'team', or 'people' with the person names listed (besides its owner)."""

    visibility: str = "team"
    people: tuple[str, ...] = ()

    def __str__(self) -> str:
        return ",".join(self.people) if self.visibility == "people" else self.visibility

    @property
    def roles(self) -> list[str]:
        """The login roles of the people listed."""
        return [PERSON_PREFIX + name for name in self.people]


def parse_share(text: str) -> Share:
    """`team`, `private`, or `NAME,NAME…` (people's names as invited) — a KnownError names a bad one."""
    value = (text or "").strip().lower()
    if value in ("team", "private"):
        return Share(value)
    names = tuple(dict.fromkeys(n.strip().removeprefix(PERSON_PREFIX) for n in value.split(",") if n.strip()))
    bad = [n for n in names if not _PERSON_NAME.match(n)]
    if not names or bad:
        raise KnownError(f"--share takes team, private, or people's names separated by commas (a-z, 0-9, _): "
                         f"{text!r} is not one.")
    return Share("people", names)


@dataclass(frozen=True)
class FolderRow:
    """A library folder as stored."""

    id: int
    path: str
    state: FolderState
    added_at: float = 0.0
    last_scan: float | None = None
    machine_id: str = ""  # the machine whose disk the path is on ("" in an embedded, one-machine library)
    owner: str = ""  # the person who added it (a team library; "" in an embedded one)
    visibility: str = "team"  # private | team | people (a team library; an embedded one has one person)
    people: tuple[str, ...] = ()  # with visibility "people": who sees it besides its owner

    @property
    def share(self) -> Share:
        """Who may see the folder."""
        return Share(self.visibility, self.people)


@dataclass(frozen=True)
class FolderCounts:
    """Documents indexed and failed, chunks, and chunks with vectors (of one folder, or of the library)."""

    documents: int = 0
    failed: int = 0
    chunks: int = 0
    embedded: int = 0
    ocr_pending: int = 0  # pages waiting for the OCR phase


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


@dataclass(frozen=True, kw_only=True)
class NewDocument:
    """A document about to be written (indexed or failed). A part of a container (an attachment, an e-mail of a
    mailbox) has no path, size, mtime or digest of its own: those default to empty."""

    folder_id: int
    title: str
    type: str
    path: str = ""
    size: int = 0
    mtime_ns: int = 0
    digest: str = ""
    pages: int | None = None
    metadata: dict[str, Any] | None = None  # the memory API's JSON; None for files


@dataclass(frozen=True, kw_only=True)
class DocumentMove:
    """One document moving to a new path (Store.move_documents): its chunks and vectors go with it."""

    doc_id: int
    folder_id: int
    path: str
    size: int  # the stat data the chunks were made from
    mtime_ns: int


@dataclass(frozen=True)
class NewChunk:
    """A chunk about to be written: its span, page, how a citation names the page, and whether OCR read it."""

    span: Span
    page: int | None
    label: str = ""
    ocr: bool = False
    vectors: Any = None  # window vectors already computed (a library being copied): stored with the chunk


@dataclass(frozen=True)
class NewPart:
    """A document inside a file (a message of a mailbox, an attachment): written and replaced with its file.

    Its own NewDocument's path is ignored: a part is keyed "<file>#<part>". `reason` set: it could not be read."""

    part: str
    label: str
    doc: NewDocument
    chunks: tuple[NewChunk, ...] = ()
    reason: str = ""


@dataclass(frozen=True)
class OcrPageRef:
    """A page of a document with no text layer: the OCR phase reads it later.

    A library being copied carries what OCR made of the page (`status` "done" or "failed", with its text or
    reason); a done page's chunks travel with the document's own."""

    page: int
    label: str = ""
    status: str = "pending"
    text: str | None = None
    confidence: float | None = None
    reason: str | None = None
    words: str | None = None  # OCR's words with their boxes, as stored (core/ocr/words.py)


@dataclass(frozen=True)
class OcrTask:
    """A page waiting for OCR, with what the OCR worker needs to read it and to check the file did not change."""

    document_id: int
    path: str
    type: str
    file_hash: str
    page: int
    label: str = ""
    text: str | None = None  # what OCR read of this very file before (a reindex): only re-chunk it


@dataclass(frozen=True)
class OcrCounts:
    """Pages of the OCR phase: waiting, read, and unreadable."""

    pending: int = 0
    done: int = 0
    failed: int = 0


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
    lang: str = ""  # the chunk's main language or script (core.text.detect_language)
    label: str = ""  # how a citation names the page ("slide 3"); empty: "p. N" when there is a page
    ocr: bool = False  # the text came from OCR
    container: str = ""  # for a document inside a file: that file (what opens); `path` is "<file>#<part>"
    part_label: str = ""  # and how it is named there ("message 3 · report.pdf")
    machine_id: str = ""  # the machine whose disk holds the file ("" in an embedded library)
    doc_date: str = ""  # the document's own date (ISO day; "" when its modified time stands in)
    tags: tuple[str, ...] = ()  # its stored tags (not its folders')


@dataclass(frozen=True)
class StoredDocument:
    """A document as stored, with its chunks and their vectors: what `trove migrate` copies between engines."""

    id: int
    doc: NewDocument
    status: DocStatus
    error: str | None
    chunks: tuple[NewChunk, ...]
    parts: tuple[NewPart, ...] = ()  # the documents inside the file, with their chunks and vectors
    ocr_pages: tuple[OcrPageRef, ...] = ()  # its pages with no text layer, and what OCR made of them


@dataclass(frozen=True)
class Failure:
    """A file that could not be indexed, with the reason shown to the user."""

    path: str
    reason: str


@dataclass(frozen=True)
class Filters:
    """Restrict candidates to some folders (ids), document types, chunk languages and/or paths."""

    folder_ids: tuple[int, ...] = ()
    types: tuple[str, ...] = ()
    langs: tuple[str, ...] = ()
    paths: tuple[str, ...] = ()  # absolute: a document matches its own path, its file's, or a folder path above it
    # The query language's (core/search/query_language.py): every group holds texts one of which the document's
    # path contains, case-folded (`file:NAME`, `folder:NAME` as /NAME/); its date within [date_from, date_to)
    # (ISO days, "" open); one of the tags.
    path_has: tuple[tuple[str, ...], ...] = ()
    date_from: str = ""
    date_to: str = ""
    tags: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.folder_ids or self.types or self.langs or self.paths or self.by_document())

    def by_document(self) -> bool:
        """Whether it asks about documents' paths, dates or tags: what side indexes do not hold (they ask SQL)."""
        return bool(self.paths or self.path_has or self.date_from or self.date_to or self.tags)


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


def text_hash(text: str) -> str:
    """Content hash of a chunk's text (reuses vectors across edits and moves), the same in every engine."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
