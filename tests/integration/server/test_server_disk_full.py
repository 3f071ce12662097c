"""A full server disk: the library's database lives on a small tmpfs the test mounts (a tablespace of the test
server), indexing into it stops with one line, nothing committed is lost, and once there is room again the next
sync picks up where it stopped.

PostgreSQL itself meets the full disk ("could not extend file …: No space left on device", SQLSTATE 53100): the
WAL stays on the server's own disk, as it does where an office puts its data on a volume of its own. Mounting
needs root (or CAP_SYS_ADMIN); the test fails, never skips, where it cannot.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import psycopg
import pytest
from psycopg import sql

from desktop_app.core.errors import DiskFullError, KnownError
from desktop_app.core.library import Library
from desktop_app.core.server.process import run_user
from desktop_app.core.settings import Settings
from tests.integration.store.test_postgres_failures import assert_server_matches_disk, one_line
from tests.support.pg_server import TEMPLATE, assert_server_consistent

HEADROOM_KB = 1536  # room left on the tmpfs once the empty library is on it


def mount(args: list[str]) -> None:
    done = subprocess.run(["mount", *args], capture_output=True, text=True)
    assert done.returncode == 0, f"this test mounts a small tmpfs (needs root): {done.stderr.strip()}"


@pytest.fixture
def small_disk(pg_server):
    """(URL of an empty library on a nearly full tmpfs, the mount point)."""
    point = Path(tempfile.mkdtemp(prefix="trove-small-disk-"))
    name, space = f"small{os.getpid()}", f"small_disk_{os.getpid()}"
    mount(["-t", "tmpfs", "-o", "size=64m,mode=0755", "tmpfs", str(point)])
    try:
        place = point / "pg"
        place.mkdir(mode=0o700)
        if run_user():
            shutil.chown(place, run_user(), run_user())
        url = pg_server.create_database(name, extensions=(), template=TEMPLATE)
        with pg_server.admin() as conn:
            conn.execute(sql.SQL("CREATE TABLESPACE {} LOCATION {}").format(sql.Identifier(space),
                                                                            sql.Literal(str(place))))
            conn.execute(sql.SQL("ALTER DATABASE {} SET TABLESPACE {}").format(sql.Identifier(name),
                                                                              sql.Identifier(space)))
        Library(Path(tempfile.mkdtemp()), settings=Settings(embedder="hash"), db=url).close()  # migrated
        used_kb = int(subprocess.run(["du", "-sk", str(point)], capture_output=True, text=True,
                                     check=True).stdout.split()[0])
        mount(["-o", f"remount,size={used_kb + HEADROOM_KB}k", str(point)])
        yield url, point
    finally:
        pg_server.drop_database(name)
        with pg_server.admin() as conn:
            conn.execute(sql.SQL("DROP TABLESPACE IF EXISTS {}").format(sql.Identifier(space)))
        subprocess.run(["umount", str(point)], check=False)
        point.rmdir()


def make_files(folder: Path, n: int) -> Path:
    """n files of distinct words (their terms, vectors and index entries all take room)."""
    folder.mkdir(parents=True)
    for i in range(n):
        words = " ".join(f"w{i}x{j}" for j in range(400))
        (folder / f"note{i:04d}.txt").write_text(f"harbour note {i}: {words}\n", encoding="utf-8")
    return folder


def test_a_full_server_disk_stops_indexing_in_one_line_and_the_next_sync_resumes(small_disk, tmp_path):
    url, point = small_disk
    folder = make_files(tmp_path / "docs", 400)
    lib = Library(tmp_path / "home", settings=Settings(embedder="hash"), db=url)
    # The check's session opens while there is room: a session started on the full disk fails before any query
    # ("could not write init file"), whatever the library did.
    checker = psycopg.connect(url, autocommit=True)
    try:
        lib.add_folder(folder)
        with pytest.raises(KnownError) as full:
            lib.sync(wait=True)
        assert isinstance(full.value, DiskFullError), repr(full.value)
        assert one_line(full.value, url).startswith("The library server's disk is full")
        assert "picks up where it stopped" in str(full.value)
        before = lib.store.counts()
        assert 0 < before.documents < 400
        assert_server_consistent(url, checker)  # what was committed is whole; nothing is half-written
        mount(["-o", "remount,size=64m", str(point)])  # room again
        report = lib.sync(wait=True)
        assert report.failed == 0 and 0 < report.indexed <= 400 - before.documents + 1
        assert lib.store.counts().documents == 400
        assert lib.store.counts().embedded == lib.store.counts().chunks
    finally:
        checker.close()
        lib.close()
    assert_server_consistent(url)
    assert_server_matches_disk(url, folder)
