"""A library on a network drive uses a rollback journal, and says so in one line. The drive is a real FUSE mount
made here (bindfs, a passthrough FUSE filesystem: `packaging/system_deps.sh` installs it; the tests run as root with
/dev/fuse, as CI does); the same library on the test's local disk keeps WAL."""

from __future__ import annotations

import errno
import fcntl
import shutil
from pathlib import Path

import pytest
import sqlean

from desktop_app.cli import main
from desktop_app.core.errors import KnownError
from desktop_app.core.store.sqlite import SQLiteStore
from desktop_app.core.store.sqlite.network_drive import network_mount
from tests.support.fuse_drive import fuse_mount

TEXT = "The ferry to the island leaves at dawn, when the harbour master rings the brass bell.\n"


@pytest.fixture
def fuse_drive(tmp_path):
    """What sshfs or rclone look like to the kernel: a FUSE mount."""
    with fuse_mount(tmp_path) as point:
        yield point


def journal(db: Path) -> str:
    store = SQLiteStore(db)
    try:
        return store._read(lambda conn: conn.execute("PRAGMA journal_mode").fetchone()[0])
    finally:
        store.close()


def test_a_library_on_a_fuse_mount_uses_a_rollback_journal_and_says_so(fuse_drive, tmp_path, capsys):
    mount = network_mount(fuse_drive / "home" / "library.db")  # not made yet: its nearest folder decides
    assert mount is not None and mount.fstype == "fuse" and mount.point == str(fuse_drive)
    assert network_mount(tmp_path / "local" / "library.db") is None

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "ferry.txt").write_text(TEXT * 3)
    home = fuse_drive / "home"
    assert main(["--home", str(home), "index", str(docs)]) == 0
    notice = [line for line in capsys.readouterr().err.splitlines() if "network drive" in line]
    assert notice == [f"trove: This library is on a network drive (fuse at {fuse_drive}): it uses a rollback "
                      "journal instead of WAL, so a search waits while indexing writes."]
    assert main(["--home", str(home), "search", "harbour bell", "--mode", "keyword"]) == 0
    captured = capsys.readouterr()
    assert "ferry.txt" in captured.out
    assert captured.err.strip().splitlines() == notice  # once per command

    assert journal(home / "library.db") == "delete"
    # written through the drive, read back from its backing folder: the file's header says rollback journal
    # (bytes 18-19 are 2 for WAL, 1 for a rollback journal) and no -wal or -shm was ever left there
    header = (tmp_path / "backing" / "home" / "library.db").read_bytes()[:20]
    assert header[18:20] == b"\x01\x01"
    assert not list((tmp_path / "backing" / "home").glob("library.db-*"))

    local = tmp_path / "local"
    assert main(["--home", str(local), "index", str(docs)]) == 0
    assert not [line for line in capsys.readouterr().err.splitlines() if "network drive" in line]
    assert journal(local / "library.db") == "wal"


def test_a_wal_library_moved_onto_the_drive_leaves_wal(fuse_drive, tmp_path):
    """A library made on a local disk (WAL in its header) and copied onto the drive is switched on first open."""
    local = tmp_path / "made-here" / "library.db"
    local.parent.mkdir()
    SQLiteStore(local).close()
    assert local.read_bytes()[18:20] == b"\x02\x02"
    (fuse_drive / "moved").mkdir()
    shutil.copy(local, fuse_drive / "moved" / "library.db")
    store = SQLiteStore(fuse_drive / "moved" / "library.db")
    try:
        assert "network drive" in store.journal_notice
        assert store._read(lambda conn: conn.execute("PRAGMA journal_mode").fetchone()[0]) == "delete"
        store.set_meta("moved", "yes")
    finally:
        store.close()
    assert (tmp_path / "backing" / "moved" / "library.db").read_bytes()[18:20] == b"\x01\x01"


def test_a_drive_that_cannot_lock_files_is_refused_in_one_line(fuse_drive, monkeypatch, capsys):
    """The lock probe is real on the drive above (it locks); here the lock call answers as on a share mounted
    without lock support (ENOLCK), and the library refuses before it writes anything."""
    real_lockf = fcntl.lockf

    def no_locks(fd, cmd, *args):
        if cmd != fcntl.LOCK_UN:
            raise OSError(errno.ENOLCK, "No locks available")
        return real_lockf(fd, cmd, *args)

    monkeypatch.setattr(fcntl, "lockf", no_locks)
    home = fuse_drive / "home"
    home.mkdir()
    with pytest.raises(KnownError, match="cannot lock files"):
        SQLiteStore(home / "library.db")
    assert main(["--home", str(home), "stats"]) == 1
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and "network drive that cannot lock files (fuse at" in lines[0]
    assert not [p for p in home.iterdir() if p.name.startswith(".trove-lock-probe")]  # the probe cleans up
    assert not list(home.glob("library.db-*"))  # refused before any write: no journal, no -wal


def test_on_a_fuse_drive_without_shared_mappings_wal_fails_and_the_library_works(tmp_path, capsys):
    """Measured: FUSE mounted with direct_io (as network filesystems often are) cannot map WAL's -shm, so a WAL
    database there fails on its first write (SQLITE_IOERR, "disk I/O error"); the library, on a rollback journal,
    indexes and searches."""
    with fuse_mount(tmp_path, "-o", "direct_io") as drive:
        raw = sqlean.connect(str(drive / "wal.db"))
        try:
            with pytest.raises(sqlean.OperationalError, match="disk I/O error"):
                raw.execute("PRAGMA journal_mode = WAL")
                raw.execute("CREATE TABLE t (a)")
        finally:
            raw.close()
        docs = tmp_path / "docs"
        docs.mkdir()
        (docs / "ferry.txt").write_text(TEXT * 3)
        assert main(["--home", str(drive / "home"), "index", str(docs)]) == 0
        assert main(["--home", str(drive / "home"), "search", "harbour bell", "--mode", "keyword"]) == 0
        captured = capsys.readouterr()
        assert "ferry.txt" in captured.out and "uses a rollback journal" in captured.err
