"""A snapshot before every migration: kept through a failed upgrade, `trove repair --rollback` returns to it, deleted
once the upgraded library has opened again, and refused with one line when the disk has no room for it."""

from __future__ import annotations

import gzip
import shutil
import subprocess
from pathlib import Path

import pytest

from desktop_app.cli import main
from desktop_app.core.embed.base import HashEmbedder
from desktop_app.core.errors import DiskFullError
from desktop_app.core.library import Library
from desktop_app.core.settings import Settings
from desktop_app.core.store.sqlite import migrations
from desktop_app.core.store.sqlite.backup.upgrade_snapshot import current, snapshot_path
from desktop_app.core.store.sqlite.migrations import SCHEMA_VERSION
from tests.support.helpers import assert_consistent, query_db

FIXTURES = Path(__file__).parents[2] / "fixtures" / "libraries"
SCHEMA4 = FIXTURES / "schema4-9b0234f.db.gz"
DOCS = "SELECT path, title, content_hash, chunk_count FROM documents ORDER BY path"


def unpack(home: Path) -> Path:
    home.mkdir(parents=True)
    with gzip.open(SCHEMA4) as src, open(home / "library.db", "wb") as dst:
        shutil.copyfileobj(src, dst)
    return home / "library.db"


def open_library(home: Path) -> Library:
    return Library(home, settings=Settings(embedder="hash"), embedder=HashEmbedder())


def applied(db: Path) -> list[int]:
    return [r[0] for r in query_db(db, "SELECT id FROM migrations ORDER BY id")]


def test_a_migration_that_fails_midway_leaves_the_snapshot_and_rollback_returns_to_it(tmp_path, monkeypatch, capsys):
    db = unpack(tmp_path / "home")
    before_docs, before_bytes = query_db(db, DOCS), db.read_bytes()
    assert applied(db) == [1, 2, 3, 4]

    def m008_fails_midway(conn) -> None:
        conn.execute("ALTER TABLE documents ADD COLUMN container TEXT")  # half of its work, then the fault
        raise RuntimeError("fault injected in migration 8")

    broken = [(mid, name, m008_fails_midway if mid == 8 else fn) for mid, name, fn in migrations.MIGRATIONS]
    monkeypatch.setattr(migrations, "MIGRATIONS", broken)
    with pytest.raises(RuntimeError, match="fault injected"):
        open_library(tmp_path / "home")
    assert applied(db) == [1, 2, 3, 4, 5, 6, 7]  # 5-7 committed, 8 rolled back whole: a schema in between
    snap = current(db)
    assert snap is not None and (snap.from_schema, snap.to_schema, snap.migrated) == (4, SCHEMA_VERSION, False)
    assert applied(snapshot_path(db)) == [1, 2, 3, 4]

    with pytest.raises(RuntimeError):  # a second attempt keeps the older snapshot (schema 4), not schema 7
        open_library(tmp_path / "home")
    assert applied(snapshot_path(db)) == [1, 2, 3, 4]
    monkeypatch.undo()

    assert main(["--home", str(tmp_path / "home"), "repair", "--rollback"]) == 0
    out = capsys.readouterr().out
    assert "schema 4" in out and "did not finish" in out
    [kept] = [p for p in (tmp_path / "home").iterdir() if ".rolled-back-" in p.name and "-" not in p.suffix[-4:]]
    assert str(kept) in out and applied(kept) == [1, 2, 3, 4, 5, 6, 7]  # the half-upgraded file, kept
    assert applied(db) == [1, 2, 3, 4] and query_db(db, DOCS) == before_docs
    assert query_db(db, "PRAGMA integrity_check") == [("ok",)]
    assert current(db) is None and db.read_bytes()[100:] == before_bytes[100:]  # the same pages (header: counters)

    with open_library(tmp_path / "home") as lib:  # and the upgrade now goes through
        assert applied(db) == list(range(1, SCHEMA_VERSION + 1))
        assert lib.stats()["documents"] == 3
        lib.sync(wait=True)  # the keyword index is refilled from the stored chunks (test_upgrades.py)
    assert_consistent(db)


def test_the_snapshot_stays_through_the_upgrade_and_goes_at_the_next_start(tmp_path):
    db = unpack(tmp_path / "home")
    with open_library(tmp_path / "home"):
        snap = current(db)
        assert snap is not None and snap.migrated and applied(snapshot_path(db)) == [1, 2, 3, 4]
    assert current(db) is not None  # kept after the start that upgraded
    with open_library(tmp_path / "home"):
        pass
    assert current(db) is None and not snapshot_path(db).exists()  # opened again: no longer needed
    assert main(["--home", str(tmp_path / "home"), "repair", "--rollback"]) == 1  # nothing to roll back to


def test_a_new_library_and_a_current_one_take_no_snapshot(tmp_path):
    with open_library(tmp_path / "home") as lib:
        assert current(lib.db_path) is None
    with open_library(tmp_path / "home") as lib:
        assert current(lib.db_path) is None


@pytest.fixture
def small_disk(tmp_path):
    """A real file system with room for the database but not for a copy of it (tmpfs, mounted as root)."""
    mount = tmp_path / "small"
    mount.mkdir()
    size = SCHEMA4_BYTES + 64 * 1024
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mount)], capture_output=True)
    assert made.returncode == 0, f"tests run as root (CI): mount -t tmpfs failed: {made.stderr.decode()}"
    yield mount
    subprocess.run(["umount", "-l", str(mount)], check=True)


with gzip.open(SCHEMA4) as _fixture:
    SCHEMA4_BYTES = len(_fixture.read())


def test_no_room_for_the_snapshot_refuses_with_one_line_and_changes_nothing(small_disk, capsys):
    db = unpack(small_disk / "home")
    before = db.read_bytes()
    free = shutil.disk_usage(small_disk).free
    assert free < SCHEMA4_BYTES * 1.1  # the real disk cannot hold the copy
    with pytest.raises(DiskFullError, match="free some space"):
        open_library(small_disk / "home")
    assert sorted(p.name for p in (small_disk / "home").iterdir()) == ["library.db"]  # no snapshot, no -wal
    assert db.read_bytes()[100:] == before[100:] and applied(db) == [1, 2, 3, 4]  # the header says WAL now
    assert main(["--home", str(small_disk / "home"), "search", "lighthouse"]) == 1
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and "keeps a copy of it" in lines[0] and "Nothing was changed" in lines[0]
