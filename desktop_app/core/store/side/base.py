"""What the derived indexes beside a library share, on either engine: when one is loaded, rebuilt, or left alone.

A side index (side/vector_index.py, side/keyword_index.py) belongs to one generation of what it is made from (on
SQLite a counter in meta that every write bumps, sqlite/side.py; on PostgreSQL a fingerprint of what this role
may read, postgres/side.py). `SideIndex.usable` hands out the loaded index only at that generation; otherwise
it returns None, so the caller uses the database's own exact plan, and it starts, in a background thread, either
a load of the file on disk (when its header says it is current) or a rebuild: once the generation has stopped
changing for quiet() seconds, and only for libraries of at least min_count() rows. A rebuild takes a lock file,
so two processes never build the same index; a failed one leaves the exact plan, with a notice in the log.
"""

from __future__ import annotations

import fcntl
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Generic, TypeVar

from desktop_app.core.log import get_logger

log = get_logger("db")
T = TypeVar("T")
S = TypeVar("S")
Connection = Any  # an engine's connection (sqlite3 or psycopg): only the engine's subclass reads through it


def of_store(store: object, name: str, make: Callable[[], S]) -> S:
    """A store's side index kept as attribute `name`, made on first use (setdefault: one, when threads race)."""
    found = store.__dict__.get(name)
    return found if found is not None else store.__dict__.setdefault(name, make())


class SideIndex(Generic[T]):
    """One library's side index of one kind; subclasses say how it is named, checked and read (side/), and how its
    generation and rows are read from the engine (sqlite/side.py, postgres/side.py)."""

    what = "side index"  # in notices: "<what> <file> is stale: ..."
    meanwhile = "search uses the database's own index"

    def __init__(self, db_path: Path) -> None:
        self.db_path = db_path
        self._index: T | None = None
        self._generation = -1
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._checked_generation = -1  # the generation the file on disk was last looked at for
        self._seen = (-1, 0.0)  # the last generation a query saw, and since when

    # -- what a kind of index says --

    def path(self) -> Path:
        raise NotImplementedError

    def generation(self, conn: Connection) -> int:
        raise NotImplementedError

    def count(self, conn: Connection) -> int:
        raise NotImplementedError

    def min_count(self) -> int:
        raise NotImplementedError

    def quiet(self) -> float:
        raise NotImplementedError

    def problem(self, generation: int) -> str:
        """Why the file cannot serve this generation, from its header alone ("" when it may)."""
        raise NotImplementedError

    def read(self, generation: int) -> tuple[T | None, str]:
        raise NotImplementedError

    def build(self) -> tuple[T, int]:
        """A new index of everything in the database, written beside it; (the index, its generation)."""
        raise NotImplementedError

    def size(self, index: T) -> int:
        raise NotImplementedError

    # -- the lifecycle --

    def usable(self, conn: Connection) -> T | None:
        """The loaded index when it matches the database, else None (and a load or rebuild is under way)."""
        generation = self.generation(conn)
        if self._index is not None and self._generation == generation:
            return self._index
        with self._lock:
            if self._index is not None and self._generation == generation:
                return self._index
            if self._thread is not None and self._thread.is_alive():
                return None
            if self._checked_generation == generation:
                return None  # already found wanting at this generation (the rebuild failed): the exact plan
            now = time.monotonic()
            if self._seen[0] != generation:
                self._seen = (generation, now)
            reason = self.problem(generation)
            if reason and now - self._seen[1] < self.quiet():
                return None  # still being written (or was a moment ago): no rebuild yet
            self._checked_generation = generation
            if reason and self.count(conn) < self.min_count():
                return None
            if reason:
                self._rebuilding(reason)
            self._thread = threading.Thread(target=self._load, args=(generation, not reason),
                                            name=self.what.replace(" ", "-"), daemon=True)
            self._thread.start()
            return None

    def wait(self, timeout: float | None = None) -> None:
        """Until a running load or rebuild ends (tests, benchmarks)."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)

    def _rebuilding(self, reason: str) -> None:
        log.warning("%s %s is %s: rebuilding it in the background; %s until then",
                    self.what, self.path().name, reason, self.meanwhile)

    def _load(self, generation: int, read_first: bool) -> None:
        try:
            if read_first:
                index, reason = self.read(generation)
                if index is not None:
                    self._adopt(index, generation)
                    return
                self._rebuilding(reason)
            self._rebuild()
        except Exception as exc:  # noqa: BLE001 - a failed rebuild leaves the exact plan, it must not end the app
            log.warning("%s %s could not be rebuilt (%s): %s", self.what, self.path().name, exc, self.meanwhile)

    def _adopt(self, index: T, generation: int) -> None:
        with self._lock:
            self._index, self._generation = index, generation
            self._checked_generation = -1

    def _rebuild(self) -> None:
        lock_path = self.path().with_name(self.path().name + ".lock")
        with open(lock_path, "a+b") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return  # another process is building it; a later query reads its file
            index, generation = self.build()
        self._adopt(index, generation)
        log.info("%s %s rebuilt: %d rows", self.what, self.path().name, self.size(index))
