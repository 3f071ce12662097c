"""The library ledger (`library.ledger`): every file Trove knows with what became of it, in pages, with counts that
add up to `trove stats`, and a retry for the ones that failed.

A failed file is normally retried only when it changes (its size or time); `retry` makes it look changed and
queues it, so a file that failed for a reason since fixed (a password removed, a limit raised) is read again.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

from desktop_app.core.index.indexer import SyncReport
from desktop_app.core.store.base import LedgerStore
from desktop_app.core.store.ledger_rows import FileState, LedgerQuery, LedgerRow, LedgerTotals, file_of

__all__ = ["LibraryLedger"]


class LibraryLedger:
    """A Library's ledger: `page` and `counts` read the store (on the caller's thread: the window calls them from
    its task runner); `retry` queues files to be read again."""

    def __init__(self, library: Any) -> None:
        self._library = library

    @property
    def _store(self) -> LedgerStore:
        store: LedgerStore = self._library.store
        return store

    def page(self, query: LedgerQuery | None = None, *, offset: int = 0, limit: int = 200) -> list[LedgerRow]:
        """Rows `offset` to `offset + limit` under `query` (every row, by path, when None)."""
        return self._store.ledger_page(query or LedgerQuery(), offset, limit)

    def rows(self, query: LedgerQuery | None = None, *, page_size: int = 1000) -> Iterable[LedgerRow]:
        """Every row under `query`, read a page at a time."""
        offset = 0
        while True:
            rows = self.page(query, offset=offset, limit=page_size)
            yield from rows
            if len(rows) < page_size:
                return
            offset += page_size

    def counts(self, query: LedgerQuery | None = None) -> LedgerTotals:
        """Rows per state under the query's folder, type and language, and how many of the skipped were never read
        (hidden, unsupported type)."""
        query = query or LedgerQuery()
        found = self._store.ledger_counts(query)
        return LedgerTotals({state: found.get(state, 0) for state in FileState}, self._store.ledger_not_read(query))

    def retry(self, paths: Iterable[str | os.PathLike[str]], *, wait: bool = False) -> SyncReport:
        """Read these files again at the next pass, even though they did not change (a document inside a file
        retries its file)."""
        files: list[str] = []
        for raw in paths:
            path = file_of(os.fspath(raw))
            row = self._library.store.document_by_path(path)
            if row is not None:
                self._library.store.touch_document(row.id, -1, -1)  # looks changed to the next look at it
            files.append(path)
        return self._library.sync_paths(files, wait=wait)

