"""A disk that fills up in a later phase: each phase stops at its first failed write with the one line, keeps
what is committed, and `trove index` (waiting for the semantic phase) returns; freeing space resumes the work.

The second adversarial run found `trove index` waiting for the semantic phase on a full disk not returning.
A real small tmpfs where the test may mount one (filled after the keyword phase with a ballast file); elsewhere
the library's files may not grow past their size (RLIMIT_FSIZE: the same failed write, EFBIG).
"""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import resource
import shutil
import signal
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import psutil
import sqlean as sqlite3

from desktop_app.core.library import Library
from desktop_app.core.settings import Settings
from desktop_app.core.store.sqlite.migrations import SCHEMA_VERSION
from tests.support import faults
from tests.support import sample_docs as sd
from tests.support.helpers import assert_consistent, query_db, write_pdf
from tests.support.runner import ROOT, Run, assert_one_line_error, run_trove, trove_cmd, trove_env

UPGRADE_FIXTURES = Path(__file__).parents[1] / "fixtures" / "libraries"  # made by older schemas (test_upgrades)
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
        home.mkdir()
        # The folder's semantic phase paused for the first run: no vector is written however fast the embedder
        # is (with --no-wait alone, the hash embedder could finish all 300 before the process ended).
        settings = home / "settings.json"
        settings.write_text(json.dumps({"semantic_paused_folders": [os.path.abspath(docs)]}))
        keyword = run_trove(home, "index", "--no-wait", str(docs))
        assert keyword.returncode == 0, keyword.stderr
        assert query_db(home / "library.db", "SELECT COUNT(*) FROM chunks WHERE embedded = 1") == [(0,)]
        settings.write_text("{}")
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


def index_filling_the_disk_after_the_first_ocr_page(home: Path, docs: Path, fill) -> Run:
    """`trove index` waiting for the OCR phase, with the disk filled once the first page is written: a page's OCR
    takes far longer than writing the ballast, so the next page's write is the first to fail."""
    proc = subprocess.Popen(trove_cmd(home, "index", "--json-events", str(docs)), cwd=ROOT, env=trove_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGXFSZ, signal.SIG_IGN))
    assert proc.stdout is not None and proc.stderr is not None
    filled = False
    for line in proc.stdout:
        event = json.loads(line)
        if not filled and event.get("phase") == "ocr" and event.get("files_done", 0) >= 1:
            filled = True
            if fill(home) is not None:  # no tmpfs here: the library's files may not grow past their size now
                largest = max(p.stat().st_size for p in home.iterdir() if p.is_file())
                psutil.Process(proc.pid).rlimit(resource.RLIMIT_FSIZE, (largest, largest))
    stderr = proc.stderr.read()
    assert proc.wait(300) is not None and filled, stderr
    return Run(proc.returncode, "", stderr, 0.0, 0)


def test_the_ocr_phase_on_a_full_disk_stops_with_one_line_and_resumes(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    text_pdf = write_pdf(tmp_path / "t.pdf", ["THE PANGOLIN SLEEPS", "THE ECHIDNA DIGS", "THE BILBY HOPS"])
    sd.write_scanned_pdf(docs / "scan.pdf", text_pdf)
    (docs / "notes.txt").write_text("the aardvark digs at night")
    disk = tmp_path / "disk"
    with library_disk(disk) as fill:
        home = disk / "home"
        full = index_filling_the_disk_after_the_first_ocr_page(home, docs, fill)
        assert_one_line_error(full, FULL, "OCR")
        search = run_trove(home, "search", "aardvark", "--mode", "keyword", "--json")
        assert search.returncode == 0 and len(search.json()) == 1  # what the keyword phase committed is kept
        free_space(disk)
        resumed = run_trove(home, "index", str(docs), "--json", timeout=300)
        assert resumed.returncode == 0, resumed.stderr
        ocr = resumed.json()["phases"]["ocr"]
        assert ocr["pages_pending"] == 0 and ocr["pages_done"] + ocr["pages_failed"] == 3 and not ocr["error"], ocr
        assert_consistent(home / "library.db")


def test_an_older_library_migrated_on_a_full_disk_stops_with_one_line_and_upgrades_after(tmp_path):
    """Migrations run when a library made by an older Trove is first opened: on a full disk they roll back."""
    [archive] = sorted(UPGRADE_FIXTURES.glob("schema3-*.db.gz"))
    disk = tmp_path / "disk"
    with library_disk(disk) as fill:
        home = disk / "home"
        home.mkdir()
        with gzip.open(archive) as src, open(home / "library.db", "wb") as dst:
            shutil.copyfileobj(src, dst)
        documents = "SELECT path, content_hash, chunk_count FROM documents ORDER BY path"
        before, version = query_db(home / "library.db", documents), schema_version(home / "library.db")
        assert version < SCHEMA_VERSION
        limit = fill(home)
        full = run_trove(home, "stats", preexec_fn=limit, timeout=120)
        assert_one_line_error(full, "The disk holding the library is full", "free some space and try again")
        assert query_db(home / "library.db", documents) == before  # nothing committed is lost
        assert schema_version(home / "library.db") == version  # the migration rolled back whole
        free_space(disk)
        stats = run_trove(home, "stats", "--json")
        assert stats.returncode == 0, stats.stderr
        assert stats.json()["documents"] == 3
        assert schema_version(home / "library.db") == SCHEMA_VERSION
        assert query_db(home / "library.db", documents) == before
        with Library(home, settings=Settings(embedder="hash")) as lib:
            lib.sync()  # refills the keyword index of the new text pipeline (as in test_upgrades)
            assert [Path(r.source).name for r in lib.search("lighthouse crimson", mode="keyword")] == ["lighthouse.txt"]
        assert_consistent(home / "library.db")


def schema_version(db: Path) -> int:
    return max(row[0] for row in query_db(db, "SELECT id FROM migrations"))
