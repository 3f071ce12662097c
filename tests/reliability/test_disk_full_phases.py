"""A disk that fills up in a later phase: each phase stops at its first failed write with the one line, keeps
what is committed, and `trove index` (waiting for the semantic phase) returns; freeing space resumes the work.

The second adversarial run found `trove index` waiting for the semantic phase on a full disk not returning.
A real small tmpfs where the test may mount one (filled after the keyword phase with a ballast file); elsewhere
the library's files may not grow past their size (RLIMIT_FSIZE: the same failed write, EFBIG).
"""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import sqlean as sqlite3

from tests.helpers import assert_consistent
from tests.reliability import faults
from tests.reliability.runner import assert_one_line_error, run_trove

FULL = "The disk holding the library is full; free some space and try again"


def make_docs(folder: Path, n: int) -> Path:
    folder.mkdir(parents=True)
    for i in range(n):
        (folder / f"krill{i}.txt").write_text(f"krill {i} " + " ".join(f"w{j}" for j in range(300)))
    return folder


@contextlib.contextmanager
def library_disk(where: Path) -> Iterator[Callable[[Path], Callable[[], None] | None]]:
    """Yields `fill(home, leave)`: leaves `leave` bytes free on the disk holding `home` (a database opens in 512 KB;
    the semantic phase's first block of vectors needs 1.5 MB) and returns the preexec_fn runs need then."""
    where.mkdir(parents=True)
    mounted = faults.can_mount() and subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=32m", "tmpfs", str(where)], capture_output=True).returncode == 0

    def fill(home: Path, leave: int = 0) -> Callable[[], None] | None:
        if mounted:
            fd = os.open(where / "ballast", os.O_WRONLY | os.O_CREAT, 0o600)
            try:
                disk = os.statvfs(where)
                os.write(fd, b"\0" * max(disk.f_bavail * disk.f_frsize - leave, 0))
                while not leave:
                    os.write(fd, b"\0" * 65536)
            except OSError:
                pass
            finally:
                os.close(fd)
            return None
        largest = max(p.stat().st_size for p in home.iterdir() if p.is_file()) + leave

        def limit() -> None:
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (largest, largest))
        return limit

    try:
        yield fill
    finally:
        if mounted:
            subprocess.run(["umount", "-l", str(where)], capture_output=True)


def free_space(where: Path) -> None:
    (where / "ballast").unlink(missing_ok=True)


def test_the_semantic_phase_on_a_full_disk_returns_with_one_line_and_resumes(tmp_path):
    docs = make_docs(tmp_path / "docs", 300)
    disk = tmp_path / "disk"
    with library_disk(disk) as fill:
        home = disk / "home"
        keyword = run_trove(home, "index", "--no-wait", str(docs))
        assert keyword.returncode == 0, keyword.stderr
        limit = fill(home, 512 * 1024)
        full = run_trove(home, "index", str(docs), preexec_fn=limit, timeout=120)  # waits for the semantic phase
        assert_one_line_error(full, FULL)
        assert "semantic" in full.stderr
        search = run_trove(home, "search", "krill", "-k", "300", "--mode", "keyword", "--json", preexec_fn=limit)
        assert search.returncode == 0 and len(search.json()) == 300  # what the keyword phase committed is kept
        free_space(disk)
        resumed = run_trove(home, "index", str(docs), "--json")
        assert resumed.returncode == 0, resumed.stderr
        vectors = resumed.json()["phases"]["vectors"]
        assert vectors["chunks_pending"] == 0 and vectors["chunks_with_vectors"] == 300, vectors
        assert_consistent(home / "library.db")


def test_the_keyword_rebuild_on_a_full_disk_stops_with_one_line_and_resumes(tmp_path):
    docs = make_docs(tmp_path / "docs", 300)
    disk = tmp_path / "disk"
    with library_disk(disk) as fill:
        home = disk / "home"
        assert run_trove(home, "index", str(docs)).returncode == 0
        conn = sqlite3.connect(str(home / "library.db"), isolation_level=None)
        conn.execute("UPDATE meta SET value = 'an older text pipeline' WHERE key = 'fts_tokenizer'")
        conn.close()
        limit = fill(home, 512 * 1024)
        full = run_trove(home, "index", str(docs), preexec_fn=limit, timeout=120)
        assert_one_line_error(full, FULL)
        free_space(disk)
        resumed = run_trove(home, "index", str(docs))
        assert resumed.returncode == 0, resumed.stderr
        search = run_trove(home, "search", "krill", "-k", "300", "--mode", "keyword", "--json")
        assert search.returncode == 0 and len(search.json()) == 300
        assert_consistent(home / "library.db")


def test_a_library_on_a_disk_with_no_space_at_all_says_the_disk_is_full(tmp_path):
    docs = make_docs(tmp_path / "docs", 20)
    disk = tmp_path / "disk"
    with library_disk(disk) as fill:
        home = disk / "home"
        assert run_trove(home, "index", str(docs)).returncode == 0
        limit = fill(home)
        (docs / "new.txt").write_text("a new krill to write")
        full = run_trove(home, "index", str(docs), preexec_fn=limit, timeout=120)
        assert_one_line_error(full, FULL)
        free_space(disk)
        assert run_trove(home, "index", str(docs)).returncode == 0
        assert_consistent(home / "library.db")


def test_remembering_a_fact_on_a_full_disk_stops_with_one_line_and_keeps_the_others(tmp_path):
    disk = tmp_path / "disk"
    with library_disk(disk) as fill:
        home = disk / "home"
        assert run_trove(home, "memory", "add", "editor", "vim").returncode == 0
        limit = fill(home, 96 * 1024)  # room to open the database, not for a 119 KB fact
        full = run_trove(home, "memory", "add", "city", "Lisbon " * 17000, preexec_fn=limit, timeout=120)
        assert_one_line_error(full, FULL)
        free_space(disk)
        listed = run_trove(home, "memory", "list", "--json")
        assert listed.returncode == 0, listed.stderr
        assert "vim" in listed.stdout and "Lisbon" not in listed.stdout
        assert run_trove(home, "memory", "add", "city", "Lisbon").returncode == 0
