"""The library home is 0700, its database (and WAL), settings and index files 0600: others on the machine read none."""

from __future__ import annotations

import os
import stat
import sys

from desktop_app.core.paths import make_private, resolve_home
from desktop_app.core.settings import Settings, save_settings


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_a_library_home_and_everything_it_writes_are_private(make_library, tmp_path):
    old = os.umask(0o022)  # the usual umask: without Trove's care, files come out 0644 and folders 0755
    try:
        docs = tmp_path / "docs"
        docs.mkdir()
        (docs / "note.txt").write_text("a private note about a quoll")
        home = tmp_path / "home"
        lib = make_library(home=home)
        lib.add_folder(docs)
        lib.sync()
        assert lib.search("quoll", mode="keyword")
        lib.close()
        assert mode(home) == 0o700
        databases = [p for p in home.rglob("*") if p.is_file() and p.name.endswith((".db", ".db-wal", ".db-shm"))]
        assert databases, sorted(home.rglob("*"))
        for path in databases:
            assert mode(path) == 0o600, path
        settings = home / "settings.json"
        save_settings(settings, Settings())
        assert mode(settings) == 0o600
    finally:
        os.umask(old)


def test_an_existing_home_is_tightened_and_someone_elses_is_left_alone(tmp_path):
    home = tmp_path / "old-home"
    home.mkdir(mode=0o755)
    os.chmod(home, 0o755)
    assert mode(resolve_home(home)) == 0o700
    db = home / "library.db"
    db.write_bytes(b"")
    os.chmod(db, 0o644)
    make_private(db)
    assert mode(db) == 0o600
    if sys.platform.startswith("linux") and os.getuid() == 0:
        shared = tmp_path / "shared"
        shared.mkdir()
        os.chown(shared, 12345, 12345)
        os.chmod(shared, 0o755)
        make_private(shared)
        assert mode(shared) == 0o755
