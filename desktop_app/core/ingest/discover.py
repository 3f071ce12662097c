"""Find the files under a folder that Trove should index, and say why anything else was left alone.

Only regular files are read. Everything is decided from `lstat` data (never by opening): a FIFO, socket or
device is reported, not read. Symbolic links are never followed into the walk: a link whose target lies
inside one of the library's folders is left out (the target is indexed once, under its own path), and a
link that leads anywhere else, loops, or dangles is reported with the reason. A folder that cannot be
listed (permissions, a path longer than the system allows) is reported too. A hidden entry, and a regular file of a
type Trove does not read, are reported as NotRead (the ledger lists them; a hidden folder is one entry, never walked);
names matching the settings' exclude patterns are left out without a word.
"""

from __future__ import annotations

import errno
import fnmatch
import functools
import os
import re
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from desktop_app.core.ingest.filetypes import file_type
from desktop_app.core.log import get_logger

log = get_logger("ingest")


@dataclass(frozen=True)
class Found:
    """A candidate file with the stat data used to skip unchanged files (`mtime_ns` is its change_stamp: what the
    store's mtime_ns column keeps, so no schema change was needed for the inode change time)."""

    path: Path
    size: int
    mtime_ns: int


@dataclass(frozen=True)
class Skipped:
    """An entry that is not read, and why (listed in `trove stats` beside the files that failed).

    `mtime_ns` is the entry's own (lstat) time, so a re-created link or FIFO is looked at again; size is 0.
    """

    path: Path
    reason: str
    mtime_ns: int = 0
    size: int = 0


@dataclass(frozen=True)
class NotRead(Skipped):
    """An entry seen and left alone because of what it is (hidden, or a type Trove does not read), not because
    anything went wrong: listed by the ledger, counted apart from failures."""


HIDDEN_FILE = "hidden file: not read"
HIDDEN_FOLDER = "hidden folder: nothing in it is read"


def unsupported(path: Path) -> str:
    """The reason a regular file of a type Trove does not read was left alone."""
    return f"unsupported file type ({path.suffix.lower() or path.name}): not read"


def is_excluded(name: str, patterns: tuple[str, ...]) -> bool:
    """Hidden names and names matching a user pattern are skipped."""
    return name.startswith(".") or matches_pattern(name, patterns)


def matches_pattern(name: str, patterns: tuple[str, ...]) -> bool:
    """The name matches one of the settings' exclude patterns (left out without a word)."""
    return _pattern_regex(patterns).match(name) is not None


def _hidden(path: Path, st: os.stat_result) -> NotRead:
    folder = stat.S_ISDIR(st.st_mode)
    return NotRead(path, HIDDEN_FOLDER if folder else HIDDEN_FILE, st.st_mtime_ns, 0 if folder else st.st_size)


@functools.lru_cache(maxsize=16)
def _pattern_regex(patterns: tuple[str, ...]) -> re.Pattern[str]:
    """All exclude patterns as one compiled regex (matched once per name, not once per pattern)."""
    if not patterns:
        return re.compile(r"(?!)")
    return re.compile("|".join(f"(?:{fnmatch.translate(p)})" for p in patterns))


def inside(path: str, roots: Iterable[str]) -> bool:
    """`path` is one of `roots` or lies under one (plain string logic on absolute, resolved paths)."""
    return any(path == r or path.startswith(r.rstrip(os.sep) + os.sep) for r in roots)


def classify(path: Path, patterns: tuple[str, ...], roots: Iterable[str]) -> Found | Skipped | None:
    """What one path is, from its lstat data: a file to read, an entry to report, or nothing for Trove."""
    if matches_pattern(path.name, patterns):
        return None
    try:
        st = os.lstat(path)
    except OSError as exc:
        return Skipped(path, _reason(exc)) if exc.errno == errno.ENAMETOOLONG else None
    if path.name.startswith("."):
        return _hidden(path, st)
    return _classify_stat(path, st, tuple(roots))


def _classify_stat(path: Path, st: os.stat_result, roots: tuple[str, ...]) -> Found | Skipped | None:
    mode = st.st_mode
    if stat.S_ISREG(mode):
        if file_type(path) is None:
            return NotRead(path, unsupported(path), st.st_mtime_ns, st.st_size)
        return Found(path, st.st_size, change_stamp(st))
    if stat.S_ISLNK(mode):
        return _classify_link(path, st, roots)
    if stat.S_ISDIR(mode) or file_type(path) is None:
        return None
    from desktop_app.core.ingest.safe_read import kind_of

    return Skipped(path, f"not a regular file ({kind_of(mode)}): never opened", st.st_mtime_ns)


def change_stamp(st: os.stat_result) -> int:
    """When a file last changed, as far as stat can tell: the later of its modification time and its inode change
    time. A rewrite that keeps the length and puts the old mtime back (`touch -r`, `rsync -t`, sync clients)
    still moves st_ctime, which no program can set. A chmod or rename moves it too: such a file is hashed again
    and, its content unchanged, kept (the indexer's hash check). On Windows st_ctime is the creation time."""
    return max(st.st_mtime_ns, st.st_ctime_ns)


def _classify_link(path: Path, st: os.stat_result, roots: tuple[str, ...]) -> Skipped | None:
    """A link is left out when its target is inside the library (indexed there), reported otherwise."""
    try:
        os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return Skipped(path, "symlink loop: never followed", st.st_mtime_ns)
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
            return Skipped(path, "dangling symlink: its target does not exist", st.st_mtime_ns)
        return Skipped(path, _reason(exc), st.st_mtime_ns)
    target = os.path.realpath(path)
    if roots and inside(target, roots):
        return None
    return Skipped(path, "symlink to a place outside the library's folders: never followed", st.st_mtime_ns)


def _reason(exc: OSError) -> str:
    if exc.errno == errno.ENAMETOOLONG:
        return "path too long for this system: not read"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "permission denied: not read"
    return f"cannot read: {exc.strerror or exc}"


def scan(root: Path, patterns: tuple[str, ...], roots: Iterable[str] | None = None) -> Iterator[Found | Skipped]:
    """Walk `root` without following links: Found for each wanted regular file, Skipped (NotRead among them) for
    entries reported.

    `roots` are the library's folders (resolved); a link into any of them is left out. Default: `root`.
    """
    allowed = tuple(roots) if roots is not None else (str(root),)
    seen_dirs: set[tuple[int, int]] = set()
    stack = [root]
    while stack:
        folder = stack.pop()
        try:
            st = os.stat(folder)
            if (st.st_dev, st.st_ino) in seen_dirs:  # a bind mount of an ancestor: walking it again never ends
                continue
            seen_dirs.add((st.st_dev, st.st_ino))
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as exc:
            log.warning("cannot list %s: %s", folder, exc)
            yield Skipped(folder, "folder " + _reason(exc))
            continue
        for entry in entries:
            if matches_pattern(entry.name, patterns):
                continue
            path = Path(entry.path)
            try:
                est = entry.stat(follow_symlinks=False)
            except OSError as exc:
                yield Skipped(path, _reason(exc))
                continue
            if entry.name.startswith("."):  # reported, never walked into
                yield _hidden(path, est)
                continue
            if stat.S_ISDIR(est.st_mode):
                stack.append(path)
                continue
            item = _classify_stat(path, est, allowed)
            if item is not None:
                yield item


def discover(root: Path, patterns: tuple[str, ...], roots: Iterable[str] | None = None) -> Iterator[Found]:
    """The wanted regular files under `root` (what `scan` finds, without the report of what it left alone)."""
    for item in scan(root, patterns, roots):
        if isinstance(item, Found):
            yield item
        elif not isinstance(item, NotRead):
            log.info("skipping %s: %s", item.path, item.reason)
