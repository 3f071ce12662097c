"""Ways to break a library's disk for a test: corrupt pages, truncate, read-only, full, locked.

Where the test runs as root with mount rights (a container), a real tmpfs is used for a full or read-only
disk; elsewhere the same situation is made with RLIMIT_FSIZE (writes past a size fail with EFBIG, as on a
full disk) or with file permissions. Both ways are real failures of real writes.
"""

from __future__ import annotations

import contextlib
import os
import random
import resource
import signal
import stat
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import sqlean as sqlite3

PAGE = 4096


def pages_of(db: Path, tables: tuple[str, ...]) -> list[int]:
    """Page numbers (1-based) that hold the named tables or indexes (SQLite's dbstat)."""
    conn = sqlite3.connect(str(db))
    try:
        marks = ",".join("?" * len(tables))
        return [r[0] for r in conn.execute(f"SELECT pageno FROM dbstat WHERE name IN ({marks})", tables)]
    finally:
        conn.close()


def corrupt_pages(db: Path, pages: list[int], seed: int = 7) -> None:
    """Overwrite whole pages with random bytes; page 1 (the header and schema) is never touched."""
    rng = random.Random(seed)
    with open(db, "r+b") as fh:
        for page in pages:
            if page > 1:
                fh.seek((page - 1) * PAGE)
                fh.write(rng.randbytes(PAGE))


def truncate_half(db: Path) -> None:
    size = db.stat().st_size
    with open(db, "r+b") as fh:
        fh.truncate((size // 2 // PAGE) * PAGE)


def can_mount() -> bool:
    return os.geteuid() == 0 and sys.platform.startswith("linux")


@contextlib.contextmanager
def small_disk(where: Path, size_kb: int) -> Iterator[Callable[[], None] | None]:
    """A folder on a tmpfs of `size_kb` (yields None), or, without mount rights, a preexec_fn that makes every
    file the child writes stop at `size_kb` (EFBIG, SIGXFSZ ignored) — the same failed write, per process."""
    where.mkdir(parents=True, exist_ok=True)
    if can_mount() and subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size_kb}k", "tmpfs", str(where)],
                                      capture_output=True).returncode == 0:
        try:
            yield None
        finally:
            subprocess.run(["umount", "-l", str(where)], capture_output=True)
        return

    def limit() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (size_kb * 1024, size_kb * 1024))

    yield limit


@contextlib.contextmanager
def read_only(folder: Path) -> Iterator[None]:
    """Make `folder` and its files unwritable: a read-only bind mount as root, permissions otherwise."""
    if can_mount() and subprocess.run(["mount", "--bind", "-o", "ro", str(folder), str(folder)],
                                      capture_output=True).returncode == 0:
        # a bind mount's ro flag needs a remount on some kernels
        subprocess.run(["mount", "-o", "remount,bind,ro", str(folder)], capture_output=True)
        try:
            yield
        finally:
            subprocess.run(["umount", "-l", str(folder)], capture_output=True)
        return
    modes = {p: p.stat().st_mode for p in [folder, *folder.iterdir()]}
    for p in modes:
        p.chmod(stat.S_IMODE(modes[p]) & ~0o222)
    try:
        yield
    finally:
        for p, mode in modes.items():
            p.chmod(stat.S_IMODE(mode))


def hold_write_lock(db: Path, seconds: float) -> subprocess.Popen:
    """Another process that takes the database's write lock and keeps it for `seconds` (started when it prints)."""
    code = ("import sqlean, sys, time\n"
            f"c = sqlean.connect({str(db)!r}, isolation_level=None)\n"
            "c.execute('BEGIN IMMEDIATE'); c.execute('UPDATE meta SET value = value')\n"
            f"print('locked', flush=True); time.sleep({seconds})\n")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "locked"
    return proc
