"""A damaged, truncated, read-only, locked or full library: one line, never a traceback, never a lost library."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from tests.support import faults
from tests.support.helpers import assert_consistent
from tests.support.runner import assert_one_line_error, run_trove, trove_env


def make_docs(folder: Path, n: int, word: str, size: int = 40) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        (folder / f"{word}{i}.txt").write_text(f"{word} {i} " + " ".join(f"w{j}" for j in range(size)),
                                               encoding="utf-8")
    return folder


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def indexed(tmp_path):
    """A library home with one indexed folder (closed, checkpointed)."""
    docs = make_docs(tmp_path / "docs", 60, "walrus", 200)
    home = tmp_path / "home"
    assert run_trove(home, "index", str(docs)).returncode == 0
    return home, docs


def test_corrupt_pages_give_one_line_and_repair_rebuilds(indexed):
    home, docs = indexed
    db = home / "library.db"
    # stats reads the kept counts (migration 011), not the chunks: their pages are damaged too
    faults.corrupt_pages(db, faults.pages_of(db, ("chunks", "chunks_fts_data", "documents", "doc_counts")))
    before = digest(db)
    for args in (("search", "walrus"), ("stats",), ("index", str(docs))):
        assert_one_line_error(run_trove(home, *args), "damaged", "trove repair")
    assert digest(db) == before  # nothing rewrote or removed it
    repair = run_trove(home, "repair")
    assert repair.returncode == 0, repair.stderr
    assert "moved it aside" in repair.stdout
    assert [p.name for p in home.glob("library.db.damaged-*") if not p.name.endswith(("-wal", "-shm"))]
    assert "walrus0.txt" in run_trove(home, "search", "walrus", "-k", "100").stdout
    assert_consistent(db)
    assert "nothing to do" in run_trove(home, "repair").stdout


def test_a_truncated_database_gives_one_line(indexed):
    home, _ = indexed
    faults.truncate_half(home / "library.db")
    assert_one_line_error(run_trove(home, "search", "walrus"), "damaged", "trove repair")
    assert (home / "library.db").exists()


def test_a_read_only_library_gives_one_line_and_is_untouched(indexed):
    home, docs = indexed
    before = digest(home / "library.db")
    (docs / "new.txt").write_text("a walrus that needs writing", encoding="utf-8")
    with faults.read_only(home):
        run = run_trove(home, "index", str(docs))
        assert_one_line_error(run)
        assert "database" in run.stderr
    assert digest(home / "library.db") == before


def test_a_long_held_lock_gives_one_line_and_searches_go_on(indexed):
    home, docs = indexed
    holder = faults.hold_write_lock(home / "library.db", 60)
    try:
        env = trove_env(TROVE_BUSY_TIMEOUT_MS="1500")
        (docs / "new.txt").write_text("a new walrus", encoding="utf-8")
        assert_one_line_error(run_trove(home, "index", str(docs), env=env), "locked by another program")
        search = run_trove(home, "search", "walrus", "--mode", "keyword", env=env)  # readers are never blocked
        assert search.returncode == 0 and "walrus" in search.stdout, search.stderr
    finally:
        holder.kill()
        holder.wait()
    assert run_trove(home, "index", str(docs)).returncode == 0


def test_disk_full_during_indexing_keeps_what_was_indexed(tmp_path):
    small = make_docs(tmp_path / "small", 20, "narwhal")
    big = make_docs(tmp_path / "big", 1000, "krill", 800)
    with faults.small_disk(tmp_path / "disk", 8192) as limit:  # vec0 alone takes 1.5 MB per 1024 vectors
        home = tmp_path / "disk" / "home"
        assert run_trove(home, "index", str(small), preexec_fn=limit).returncode == 0
        full = run_trove(home, "index", str(big), preexec_fn=limit)
        assert_one_line_error(full)
        assert "full" in full.stderr or "disk" in full.stderr, full.stderr
        stats = run_trove(home, "stats", "--json", preexec_fn=limit)
        assert stats.returncode == 0, stats.stderr
        search = run_trove(home, "search", "narwhal", "-k", "50", "--mode", "keyword", "--json", preexec_fn=limit)
        assert search.returncode == 0 and len(search.json()) == 20  # nothing indexed before was lost
        assert_consistent(home / "library.db")
