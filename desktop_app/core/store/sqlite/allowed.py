"""The chunks a document filter allows (paths, dates, tags: the query language's), remembered while no document
changes, so the side indexes can take such filters as they take folder filters.

Reading them is a scan of the documents table (a date is the document's own or its modified day, a tag may be a
folder name on its path): tens of milliseconds at 100k documents, on every query. Triggers (migration 015) bump
meta.doc_generation whenever a document or a folder's path changes, so the set read at one generation is the
answer until the next; a search-as-you-type session with a date or tag filter reads it once.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

import numpy as np

from desktop_app.core.store.rows import Filters
from desktop_app.core.store.sqlite.connect import Connection
from desktop_app.core.store.sqlite.side import counter

REMEMBERED = 8  # filters whose allowed chunks are kept (a few searches with different filters in turn)


class Allowed:
    """The chunk ids one document filter allows at one documents generation: sorted (numpy) and as a set."""

    def __init__(self, ids: list[int], generation: int) -> None:
        self.sorted = np.unique(np.asarray(ids, dtype=np.int64))
        self.set = frozenset(ids)
        self.generation = generation

    def __len__(self) -> int:
        return len(self.set)


class AllowedChunks:
    """Per store: the allowed chunks of the last REMEMBERED document filters, each at its documents generation."""

    def __init__(self) -> None:
        self._known: OrderedDict[Filters, Allowed] = OrderedDict()
        self._lock = threading.Lock()  # the two sides of a hybrid search ask from two threads

    def of(self, conn: Connection, filters: Filters, where: tuple[str, list[object]]) -> Allowed:
        """The chunks `filters` allows now (read again when a document changed since it was last read); `where`:
        its ` AND ...` clauses over chunks `c` and documents `d` with their arguments (keywords.filter_sql)."""
        generation = doc_generation(conn)
        with self._lock:
            known = self._known.get(filters)
            if known is not None and known.generation == generation:
                self._known.move_to_end(filters)
                return known
        extra, args = where
        ids = [r[0] for r in conn.execute(
            f"SELECT c.id FROM chunks c JOIN documents d ON d.id = c.document_id WHERE 1{extra}", args)]
        made = Allowed(ids, generation)
        with self._lock:
            self._known[filters] = made
            while len(self._known) > REMEMBERED:
                self._known.popitem(last=False)
        return made


def doc_generation(conn: Connection) -> int:
    """meta.doc_generation: bumped by every change to documents or to a folder's path (migration 015's triggers)."""
    return counter(conn, "doc_generation")
