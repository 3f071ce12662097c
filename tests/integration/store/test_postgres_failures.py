"""A server library under bad conditions: each failure is one plain line, nothing is lost, indexing resumes."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import psycopg
import pytest

from desktop_app.core.errors import KnownError, SchemaTooNewError, ServerUnavailableError
from desktop_app.core.library import Library
from desktop_app.core.redact import redact
from desktop_app.core.settings import Settings
from desktop_app.core.store.postgres import PostgresStore
from desktop_app.core.store.postgres import connect as pgc
from desktop_app.core.store.postgres.connect import MissingExtensionError, ServerAuthError
from desktop_app.core.store.postgres.probe import check_server
from tests.support.pg_server import assert_server_consistent, server_documents

ROOT = Path(__file__).parents[3]


def one_line(exc: BaseException, url: str = "") -> str:
    text = str(exc)
    assert "\n" not in text and text
    if url and "@" in url:
        secret = url.split("://", 1)[1].split("@", 1)[0].split(":", 1)[-1]
        assert secret not in text
    return text


def make_files(folder: Path, n: int) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        (folder / f"note{i:04d}.txt").write_text(f"note {i} about harbour number {i}\n" * 3, encoding="utf-8")
    return folder


def assert_server_matches_disk(url: str, folder: Path) -> None:
    disk = {str(p): p.read_text(encoding="utf-8") for p in folder.rglob("*.txt")}
    server = server_documents(url)
    assert sorted(server) == sorted(disk)
    for path, text in disk.items():
        assert server[path] == (len(text.encode()), text.strip())  # one chunk per small file


def wait_until_reachable(url: str, attempts: int = 600) -> None:
    """Until the server takes a new connection (by attempts, each bounded by the connect timeout)."""
    for _ in range(attempts):
        try:
            psycopg.connect(url, connect_timeout=pgc.CONNECT_TIMEOUT).close()
            return
        except psycopg.OperationalError:
            time.sleep(0.1)
    raise AssertionError("the server did not come back")


def test_wrong_password_is_one_line_without_the_password(pg_server):
    url = pg_server.url(password="not-the-password")
    with pytest.raises(ServerAuthError) as err:
        PostgresStore(url, machine="m")
    assert "refused the user name or password" in one_line(err.value, url)


def test_server_down_at_start_is_one_line(pg_server):
    url = pg_server.url().replace(f":{pg_server.status().port}/", ":1/")
    with pytest.raises(ServerUnavailableError) as err:
        PostgresStore(url, machine="m")
    assert "connection refused" in one_line(err.value, url)


def test_a_database_without_pgvector_is_one_line(pg_server):
    url = pg_server.create_database("no_vector_here", extensions=())
    try:
        with pytest.raises(MissingExtensionError) as err:
            PostgresStore(url, machine="m")
        assert "CREATE EXTENSION vector" in one_line(err.value, url)
        with psycopg.connect(url) as conn:  # refused whole: no half-made schema left behind
            assert conn.execute("SELECT to_regclass('documents')").fetchone()[0] is None
        with pytest.raises(MissingExtensionError):
            check_server(url)
    finally:
        pg_server.drop_database("no_vector_here")


def test_a_library_from_a_newer_trove_is_refused_and_left_alone(pg_url, tmp_path):
    store = PostgresStore(pg_url, machine="m")
    folder = store.add_folder(str(tmp_path))
    store.set_meta("keep", "me")
    store.close()
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("INSERT INTO trove_migrations VALUES (999, 'from the future', 0)")
    with pytest.raises(SchemaTooNewError) as err:
        PostgresStore(pg_url, machine="m")
    assert "newer version of Trove" in one_line(err.value)
    with pytest.raises(KnownError):
        check_server(pg_url)
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT path FROM folders").fetchall() == [(folder.path,)]
        assert conn.execute("SELECT value FROM meta WHERE key = 'keep'").fetchone() == ("me",)


def test_the_cli_says_each_failure_in_one_line(pg_server, tmp_path):
    bad = pg_server.url(password="wrong")
    done = subprocess.run([sys.executable, "-m", "desktop_app", "--home", str(tmp_path), "--db", bad, "stats"],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("trove: ") and "wrong" not in done.stderr


def test_the_password_never_shows_in_engine_info(pg_url):
    store = PostgresStore(pg_url, machine="m")
    try:
        assert store.info().location == redact(pg_url) and ":***@" in store.info().location
    finally:
        store.close()


def test_a_server_restart_mid_index_is_ridden_out(pg_server, pg_url, tmp_path):
    folder = make_files(tmp_path / "docs", 300)
    lib = Library(tmp_path / "home", settings=Settings(embedder="hash"), db=pg_url)
    try:
        lib.add_folder(folder)
        result: dict = {}
        worker = threading.Thread(target=lambda: result.setdefault("report", lib.sync(wait=True)))
        worker.start()
        deadline = time.monotonic() + 60
        while lib.store.counts().documents < 20:
            assert time.monotonic() < deadline and worker.is_alive(), "indexing never got going"
            time.sleep(0.05)
        pg_server.restart()  # fast shutdown: the file in flight is rolled back, then the server is back
        worker.join(120)
        assert not worker.is_alive() and result["report"].failed == 0
        assert lib.store.counts().embedded == lib.store.counts().chunks == 300
    finally:
        lib.close()
    assert_server_consistent(pg_url)
    assert_server_matches_disk(pg_url, folder)


def test_a_server_gone_for_long_stops_the_run_in_one_line_and_resumes_later(pg_server, pg_url, tmp_path,
                                                                              monkeypatch):
    folder = make_files(tmp_path / "docs", 200)
    patience = pgc.RETRY_SECONDS
    monkeypatch.setattr(pgc, "RETRY_SECONDS", 1.0)  # gone "for long": a second of retries, then the one line
    lib = Library(tmp_path / "home", settings=Settings(embedder="hash"), db=pg_url)
    try:
        lib.add_folder(folder)
        failure: dict = {}

        def run() -> None:
            try:
                lib.sync(wait=False)
            except KnownError as exc:
                failure["error"] = exc

        worker = threading.Thread(target=run)
        worker.start()
        while lib.store.counts().documents < 20 and worker.is_alive():
            time.sleep(0.05)
        pg_server.stop()
        try:
            worker.join(600)  # bounded only so a hang fails: the run ends by its own retry deadline
            assert not worker.is_alive()
            assert isinstance(failure.get("error"), ServerUnavailableError)
            assert "Trove picks up where it stopped" in one_line(failure["error"], pg_url)
        finally:
            pg_server.restart()
        # Back. Under load the pool's reconnect backoff and the TLS handshake can take longer than that second:
        # the resumed sync gets the normal patience, so the test does not depend on how fast the server returns.
        monkeypatch.setattr(pgc, "RETRY_SECONDS", patience)
        wait_until_reachable(pg_url)
        report = lib.sync(wait=True)  # back: the rest is indexed, nothing indexed before is redone
        assert report.failed == 0 and 0 < report.indexed < 200
    finally:
        lib.close()
    assert_server_consistent(pg_url)
    assert_server_matches_disk(pg_url, folder)
