"""Find the files under a folder that Trove should index."""

from __future__ import annotations

import fnmatch
import functools
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from desktop_app.core.ingest.filetypes import file_type
from desktop_app.core.log import get_logger

log = get_logger("ingest")


@dataclass(frozen=True)
class Found:
    """A candidate file with the stat data used to skip unchanged files."""

    path: Path
    size: int
    mtime_ns: int


def is_excluded(name: str, patterns: tuple[str, ...]) -> bool:
    """Hidden names and names matching a user pattern are skipped."""
    return name.startswith(".") or _pattern_regex(patterns).match(name) is not None


@functools.lru_cache(maxsize=16)
def _pattern_regex(patterns: tuple[str, ...]) -> re.Pattern[str]:
    """All exclude patterns as one compiled regex (matched once per name, not once per pattern)."""
    if not patterns:
        return re.compile(r"(?!)")
    return re.compile("|".join(f"(?:{fnmatch.translate(p)})" for p in patterns))


def wants_file(path: Path, patterns: tuple[str, ...]) -> bool:
    """True when the file's name and type make it a candidate (before size and content checks)."""
    return not is_excluded(path.name, patterns) and file_type(path) is not None


def discover(root: Path, patterns: tuple[str, ...]) -> Iterator[Found]:
    """Walk `root` recursively; skip hidden and excluded names, unknown types and symlink loops."""
    seen_dirs: set[tuple[int, int]] = set()
    stack = [root]
    while stack:
        folder = stack.pop()
        try:
            st = folder.stat()
            key = (st.st_dev, st.st_ino)
            if key in seen_dirs:
                log.info("skipping symlink loop at %s", folder)
                continue
            seen_dirs.add(key)
            entries = list(os.scandir(folder))
        except OSError as exc:
            log.warning("cannot list %s: %s", folder, exc)
            continue
        for entry in sorted(entries, key=lambda e: e.name):
            if is_excluded(entry.name, patterns):
                continue
            try:
                if entry.is_dir(follow_symlinks=True):
                    stack.append(Path(entry.path))
                elif entry.is_file(follow_symlinks=True):
                    path = Path(entry.path)
                    if file_type(path) is None:
                        continue
                    st = entry.stat(follow_symlinks=True)
                    yield Found(path, st.st_size, st.st_mtime_ns)
            except OSError as exc:
                log.warning("cannot stat %s: %s", entry.path, exc)
