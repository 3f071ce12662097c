"""Which chunks the semantic phase gives vectors to: not those of a folder whose semantic phase is paused, nor
of a big log, CSV export or mailbox, which stay keyword-only.

Why: a log chunk (512 words) is about 4 KB of text, so a 120 MB log is ~30,000 chunks - hours of the semantic
phase at a few chunks/s on a shared 2-core machine (issue 25: 512 of 44,000 chunks after several minutes), for
text people search by exact words (an error code, a host, a request id) that keyword search finds. Logs, CSV
exports and mailboxes over `keyword_only_mb` are keyword-only; 0 gives every file vectors. The default, 10 MB, is
measured (bench/semantic_rate.py, docs/reliability.md): a real log is ~190 chunks per MB and the semantic phase did
1.1 chunks/s on a quiet 2-core machine, so 10 MB is about half an hour - the longest one file should hold a
folder's semantic phase. A person can pause one
folder's semantic phase (`semantic_paused_folders`); its chunks wait, and resume when it is resumed.
"""

from __future__ import annotations

import os
from pathlib import PurePath

from desktop_app.core.store.base import Store
from desktop_app.core.store.rows import ChunkRow

KEYWORD_ONLY_TYPES = frozenset({"csv", "email"})  # by document type; logs by their name (.log, app.log.1)


def is_log_name(path: str) -> bool:
    """A log file by its name: `x.log`, or a rotated `x.log.1` / `x.log.2024-05-01`."""
    suffixes = PurePath(path.split("#", 1)[0]).suffixes
    return ".log" in suffixes


def keyword_only_kind(path: str, doc_type: str) -> bool:
    """Whether a document of this name and type is one of the kinds a size can make keyword-only."""
    return doc_type in KEYWORD_ONLY_TYPES or is_log_name(path)


class SemanticScope:
    """Decides per chunk whether the semantic phase embeds it now (documents' sizes looked up once each)."""

    def __init__(self, store: Store, *, keyword_only_mb: float = 0.0, paused: tuple[str, ...] = ()) -> None:
        self.store = store
        self.keyword_only_bytes = int(keyword_only_mb * 1_000_000)
        self.paused = tuple(os.path.abspath(p).rstrip(os.sep) + os.sep for p in paused)
        self._sizes: dict[int, int] = {}

    def wanted(self, row: ChunkRow) -> bool:
        """True when `row` gets vectors in this run."""
        where = row.container or row.path
        if self.paused and (where + os.sep).startswith(self.paused):
            return False
        if not self.keyword_only_bytes or not keyword_only_kind(where, row.type):
            return True
        return self._size(row.document_id, where) <= self.keyword_only_bytes

    def _size(self, document_id: int, path: str) -> int:
        if document_id not in self._sizes:
            doc = self.store.document_by_path(path)
            self._sizes[document_id] = doc.size if doc is not None else 0
        return self._sizes[document_id]
