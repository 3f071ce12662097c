"""Coalesce file-system events per path until the file is stable.

Pure logic: the clock and the stat function are passed in, so tests can drive time by hand. Thread-safe:
observer threads add events, the sync thread pops what is ready.

Rules, and why:
- A change (create, modify, close-after-write, delete) on a path waits until no event arrived for `quiet`
  seconds AND the file's (size, mtime) has not changed for `quiet` seconds. Editor save storms collapse
  into one update; a file still being copied (events or not, e.g. on a polled network drive) is not read
  half-written.
- A change under a folder that is itself pending folds into the folder: copying a tree in gives one
  folder sync when the copy is over, not one update per file while it is still going.
- A move is ready at once (rewriting a path does not read the file) and leaves a change on both ends:
  the destination is checked for edits made after the move, the source for a file re-created there
  (atomic-rename saves) or a move that could not be followed.
- A path that changes forever (a log file) is still synced every `max_delay` seconds.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

Signature = tuple[int, int] | None  # (size, mtime_ns); None when the path is gone


@dataclass(frozen=True)
class Change:
    """Bring this path up to date (whatever happened to it: created, modified or deleted)."""

    path: str
    is_dir: bool = False


@dataclass(frozen=True)
class Move:
    """A file or folder was moved or renamed from `src` to `dest`."""

    src: str
    dest: str
    is_dir: bool = False


Op = Change | Move


def stat_signature(path: str) -> Signature:
    """(size, mtime_ns) of a path, None when it does not exist."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns)


@dataclass
class _Pending:
    is_dir: bool
    first_event: float
    last_event: float
    sig: Signature
    sig_since: float


class Debouncer:
    """Pending changes by path; `pop_ready()` hands out moves at once and changes once they are stable."""

    def __init__(self, quiet: float, *, max_delay: float = 60.0, clock: Callable[[], float] = time.monotonic,
                 stat: Callable[[str], Signature] = stat_signature,
                 on_event: Callable[[], None] | None = None) -> None:
        self.quiet = quiet
        self.max_delay = max(max_delay, quiet)
        self._clock = clock
        self._stat = stat
        self._on_event = on_event or (lambda: None)
        self._lock = threading.Lock()
        self._pending: dict[str, _Pending] = {}
        self._dirs: set[str] = set()  # pending entries that are folders, to fold children into
        self._moves: list[Move] = []

    def __len__(self) -> int:
        with self._lock:
            return len(self._pending) + len(self._moves)

    def changed(self, path: str, is_dir: bool = False) -> None:
        """Something happened to `path` (a file or a folder)."""
        with self._lock:
            self._change(path, is_dir)
        self._on_event()

    def moved(self, src: str, dest: str, is_dir: bool = False) -> None:
        """`src` was moved or renamed to `dest`."""
        with self._lock:
            self._moves.append(Move(src, dest, is_dir))
            self._change(src, is_dir)
            self._change(dest, is_dir)
        self._on_event()

    def _change(self, path: str, is_dir: bool) -> None:
        now = self._clock()
        owner = self._pending_ancestor(path)
        if owner is not None:
            self._pending[owner].last_event = now
            return
        entry = self._pending.get(path)
        if entry is None:
            entry = self._pending[path] = _Pending(is_dir, now, now, None, now)
            if is_dir:
                self._fold_children(path, entry)
        entry.last_event = now
        entry.is_dir = entry.is_dir or is_dir
        if entry.is_dir:
            self._dirs.add(path)
        sig = self._stat(path)
        if sig != entry.sig:
            entry.sig, entry.sig_since = sig, now

    def _pending_ancestor(self, path: str) -> str | None:
        if not self._dirs:
            return None
        parent = os.path.dirname(path)
        while parent and parent != path:
            if parent in self._dirs:
                return parent
            path, parent = parent, os.path.dirname(parent)
        return None

    def _fold_children(self, folder: str, entry: _Pending) -> None:
        prefix = folder.rstrip(os.sep) + os.sep
        for path in [p for p in self._pending if p.startswith(prefix)]:
            child = self._pending.pop(path)
            self._dirs.discard(path)
            entry.first_event = min(entry.first_event, child.first_event)

    def pop_ready(self) -> list[Op]:
        """Moves (in the order they happened), then every change that has been stable for `quiet` seconds."""
        with self._lock:
            now = self._clock()
            ready: list[Op] = list(self._moves)
            self._moves.clear()
            for path, entry in list(self._pending.items()):
                if self._is_ready(path, entry, now):
                    del self._pending[path]
                    self._dirs.discard(path)
                    ready.append(Change(path, entry.is_dir))
            return ready

    def _is_ready(self, path: str, entry: _Pending, now: float) -> bool:
        if now - entry.first_event >= self.max_delay:
            return True
        if now - entry.last_event < self.quiet:
            return False
        sig = self._stat(path)
        if sig != entry.sig:  # it changed without telling us (no event, or a polled drive): wait again
            entry.sig, entry.sig_since = sig, now
            return False
        return now - entry.sig_since >= self.quiet

    def discard_under(self, root: str) -> int:
        """Forget pending work for `root` and everything under it (a folder removed or gone offline)."""
        prefix = root.rstrip(os.sep) + os.sep
        with self._lock:
            doomed = [p for p in self._pending if p == root or p.startswith(prefix)]
            for path in doomed:
                del self._pending[path]
                self._dirs.discard(path)
            kept = [m for m in self._moves if not (m.dest == root or m.dest.startswith(prefix))]
            dropped = len(self._moves) - len(kept)
            self._moves[:] = kept
        return len(doomed) + dropped
