"""The library ledger's values: a file's state, the query that lists files, one row, counts per state.

What the facade's `library.ledger` takes and returns, and what the CLI and the window show (core/store/ledger.py
holds the SQL both engines build from them).
"""

from __future__ import annotations

import enum
import os
from dataclasses import dataclass


class FileState(enum.StrEnum):
    """What became of one file (or one document inside a file)."""

    INDEXED = "indexed"
    WAITING_OCR = "waiting_ocr"
    WAITING_SEMANTIC = "waiting_semantic"
    SKIPPED = "skipped"
    ENCRYPTED = "encrypted"
    FAILED = "failed"


STATE_NAMES = {FileState.INDEXED: "indexed", FileState.WAITING_OCR: "waiting for OCR",
               FileState.WAITING_SEMANTIC: "waiting for vectors", FileState.SKIPPED: "skipped",
               FileState.ENCRYPTED: "encrypted", FileState.FAILED: "failed"}  # what the CLI and the window say
INDEXED_SIDE = (FileState.INDEXED, FileState.WAITING_OCR, FileState.WAITING_SEMANTIC)  # stats' "documents"
FAILED_SIDE = (FileState.SKIPPED, FileState.ENCRYPTED, FileState.FAILED)  # stats' "failed" + "not_read"


class LedgerSort(enum.StrEnum):
    """The columns the ledger sorts by (each maps to one SQL expression, never to text from outside)."""

    PATH = "path"
    STATE = "state"
    TYPE = "type"
    SIZE = "size"
    MODIFIED = "modified"
    REASON = "reason"


@dataclass(frozen=True)
class LedgerQuery:
    """Which rows, in which order. `folder`: a path; rows at or below it. Empty filters keep everything."""

    folder: str = ""
    states: tuple[FileState, ...] = ()
    type: str = ""
    lang: str = ""
    sort: LedgerSort = LedgerSort.PATH
    descending: bool = False


@dataclass(frozen=True)
class LedgerRow:
    """One document as the ledger shows it. `reason` is empty unless it failed or was skipped; `lang` is its chunks'
    main language ("" when it has none); `part_label` names a document inside a file ("" for a file); `not_read`: a
    file seen and left alone (hidden, unsupported type), skipped but not among `trove stats`' failures."""

    doc_id: int
    path: str
    folder: str
    state: FileState
    reason: str
    type: str
    lang: str
    size: int
    mtime_ns: int
    pages: int | None
    chunks: int
    part_label: str
    not_read: bool = False


class LedgerTotals(dict[FileState, int]):
    """Rows per state (every state present, 0 when none), with the sums `trove stats` shows. `not_read` of the
    skipped rows were never read (hidden, unsupported type): stats counts them apart from `failed`."""

    def __init__(self, counts: dict[FileState, int], not_read: int = 0) -> None:
        super().__init__(counts)
        self.not_read = not_read

    @property
    def documents(self) -> int:
        """Indexed documents, waiting ones included: stats' `documents`."""
        return sum(self[s] for s in INDEXED_SIDE)

    @property
    def failed(self) -> int:
        """Skipped, encrypted and failed, less those never read: stats' `failed`."""
        return sum(self[s] for s in FAILED_SIDE) - self.not_read


def file_of(path: str) -> str:
    """The file a ledger path is in: itself, or for a document inside a file ("<file>#<part>", and a file name
    may hold a "#" too) the shortest prefix before a "#" that is there on disk."""
    if os.path.lexists(path):
        return path
    at = path.find("#")
    while at != -1:
        if os.path.lexists(path[:at]):
            return path[:at]
        at = path.find("#", at + 1)
    return path
