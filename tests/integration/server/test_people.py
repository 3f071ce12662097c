"""Invites, joining, revoking and rotating on a real server (the session's, over loopback with TLS)."""

from __future__ import annotations

import itertools
import json
import os
import shutil
import socket
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

import psycopg
import pytest

from desktop_app.cli import main
from desktop_app.core.redact import redact
from desktop_app.core.server import joining
from desktop_app.core.server.invite import Invite, InviteError, decode, encode
from desktop_app.core.server.server import TroveServer
from desktop_app.core.server.tls import make_ca
from desktop_app.core.store.postgres.access import roles
from desktop_app.core.store.postgres.connect import ServerAuthError, ServerTrustError

_names = itertools.count(1)


def person() -> str:
    return f"p{os.getpid()}_{next(_names)}"


def mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


def one_line(exc: BaseException) -> str:
    text = str(exc)
    assert text and "\n" not in text
    return text


def with_params(url: str, **params: str) -> str:
    base, _, query = url.partition("?")
    kept = dict(p.split("=", 1) for p in query.split("&"))
    return base + "?" + "&".join(f"{k}={v}" for k, v in {**kept, **params}.items())


def test_an_invite_joins_once_and_keeps_the_password_in_a_private_file(pg_server, tmp_path):
    name = person()
    invite = pg_server.invite(name)
    assert decode(invite).host == "127.0.0.1" and decode(invite).database == "trove"
    joined = joining.join(tmp_path / "desk", invite)
    (team,) = (tmp_path / "desk" / "team").iterdir()  # this library's folder
    assert team.name == f"127.0.0.1-{decode(invite).port}-trove"
    assert mode(team.parent) == mode(team) == 0o700 and mode(team / "ca.crt") == mode(team / "pgpass") == 0o600
    assert sorted(p.name for p in team.iterdir()) == ["ca.crt", "pgpass"]  # nothing pending left behind
    assert redact(joined.url) == joined.url and decode(invite).token not in joined.url
    assert "sslmode=verify-full" in joined.url and "channel_binding=require" in joined.url
    assert joining.check(joined.url) == roles.role_name(name)
    assert (name, "active", 0) in pg_server.users()

    with pytest.raises(InviteError) as err:  # the same invite again, on another desktop
        joining.join(tmp_path / "thief", invite)
    assert "already used" in one_line(err.value) and f"trove server rotate {name}" in str(err.value)
    assert not list((tmp_path / "thief").rglob("pgpass"))
    assert joining.check(joined.url) == roles.role_name(name)  # the first desktop still signs in


def test_an_invite_that_expired_on_the_server_is_one_line(pg_server, tmp_path):
    name = person()
    with pg_server.admin() as conn:  # the role's VALID UNTIL passed, whatever the invite's own date says
        roles.create_person(conn, name, "token-0123456789", valid_until=time.time() - 5)
    made = decode(pg_server.invite(person()))
    forged = encode(Invite(**{**made.__dict__, "person": name, "token": "token-0123456789"}))
    with pytest.raises(InviteError) as err:
        joining.join(tmp_path / "late", forged)
    assert "already used, has expired or was revoked" in one_line(err.value)


def test_revoking_ends_the_open_session_and_the_access_at_once(pg_server, tmp_path):
    name = person()
    joined = joining.join(tmp_path / "b", pg_server.invite(name))
    open_conn = psycopg.connect(joined.url, autocommit=True)
    assert open_conn.execute("SELECT 1").fetchone() == (1,)
    pg_server.revoke(name)
    with pytest.raises(psycopg.OperationalError):
        open_conn.execute("SELECT 1")
    open_conn.close()
    with pytest.raises(ServerAuthError) as err:
        joining.check(joined.url)
    assert "no longer lets this person sign in" in one_line(err.value)
    assert (name, "revoked", 0) in pg_server.users()
    with pg_server.admin() as conn:
        assert name in roles.list_people(conn)  # kept, so `rotate` can let them back in

    again = joining.join(tmp_path / "b", pg_server.rotate(name))  # rotate: a new invite, access back
    assert joining.check(again.url) == roles.role_name(name)


def test_rotating_ends_the_old_password(pg_server, tmp_path):
    name = person()
    old = joining.join(tmp_path / "old", pg_server.invite(name))
    old_url = joining.url_with_password(old.url)
    fresh = pg_server.rotate(name)
    assert any(n == name and s.startswith("invited (until") for n, s, _ in pg_server.users())
    with pytest.raises(ServerAuthError):
        joining.check(old_url)
    assert joining.check(joining.join(tmp_path / "new", fresh).url) == roles.role_name(name)


def test_a_person_owns_nothing_and_may_create_nothing(pg_server, tmp_path):
    joined = joining.join(tmp_path / "p", pg_server.invite(person()))
    with psycopg.connect(joined.url, autocommit=True) as conn:
        owners = {r[0] for r in conn.execute("SELECT DISTINCT tableowner FROM pg_tables WHERE schemaname = 'public'")}
        assert owners == {roles.OWNER_ROLE}
        for ddl in ("CREATE TABLE mine (x int)", "CREATE SCHEMA mine", "CREATE TEMP TABLE mine (x int)",
                    "DROP TABLE documents", "ALTER TABLE folders ADD COLUMN x int", "TRUNCATE documents",
                    "ALTER ROLE CURRENT_USER VALID UNTIL 'infinity'", "CREATE ROLE other LOGIN"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(ddl)
        with pytest.raises(psycopg.errors.InvalidPassword, match="already used"):  # a second accept
            conn.execute("SELECT trove_admin.accept_invite('SCRAM-SHA-256$4096:x')")
    with pytest.raises(ServerAuthError):  # the cluster's own database is not a library
        joining.check(joining.url_with_password(joined.url).replace("/trove?", "/postgres?"))


def test_the_admin_role_creates_tables_as_the_owner_and_old_libraries_are_handed_over(pg_server, pg_url):
    from desktop_app.core.store.postgres import PostgresStore
    from desktop_app.core.store.postgres.access.provision import prepare_library

    PostgresStore(pg_url, machine="m").close()
    name = urlsplit(pg_url).path.lstrip("/")
    with pg_server.admin(name) as conn:
        conn.execute("SET SESSION AUTHORIZATION trove")
        conn.execute("SET ROLE NONE")  # as an older Trove made them: owned by the trove login role
        conn.execute("CREATE TABLE legacy (x int)")
        conn.execute("RESET SESSION AUTHORIZATION")
        assert conn.execute("SELECT tableowner FROM pg_tables WHERE tablename = 'legacy'").fetchone() == ("trove",)
        prepare_library(conn)
        prepare_library(conn)  # idempotent
        owners = {r[0] for r in conn.execute("SELECT DISTINCT tableowner FROM pg_tables WHERE schemaname = 'public'")}
    assert owners == {roles.OWNER_ROLE}


class PlainServer:
    """A TCP listener that answers PostgreSQL's TLS request with 'N' (no TLS), as a plain-text server does."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.asked = 0
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                conn.settimeout(5)
                if len(conn.recv(8)) == 8:
                    self.asked += 1
                    conn.sendall(b"N")
                    time.sleep(0.2)


def test_a_plain_text_server_a_wrong_certificate_and_sslmode_disable_are_refused(pg_server, tmp_path):
    joined = joining.join(tmp_path / "d", pg_server.invite(person()))
    port = pg_server.status().port
    plain = PlainServer()
    try:
        with pytest.raises(ServerTrustError) as err:
            joining.check(joined.url.replace(f":{port}/", f":{plain.port}/"))
        assert "does not offer TLS" in one_line(err.value) and plain.asked >= 1
    finally:
        plain.sock.close()
    other_ca = tmp_path / "other-ca.crt"
    other_ca.write_bytes(make_ca("impostor")[0])
    with pytest.raises(ServerTrustError) as err:
        joining.check(with_params(joined.url, sslrootcert=str(other_ca)))
    assert "the CA in your invite did not sign" in one_line(err.value)
    with pytest.raises(ServerTrustError) as err:
        joining.check(with_params(joined.url, sslmode="disable", channel_binding="disable"))
    assert "accepts only TLS" in one_line(err.value)


def test_a_server_whose_certificate_changed_is_refused(tmp_path):
    data = Path(tempfile.mkdtemp(prefix="trove-test-pg-"))  # not under pytest's folder: it is made 0700 again
    server = TroveServer(data / "srv")
    try:
        server.start(listen="127.0.0.1", port=0)
        joined = joining.join(tmp_path / "desk", server.invite("erin"))
        assert joining.check(joined.url) == "trove_p_erin"
        server.stop()
        server.tls.ca_cert.unlink()  # the server is set up again (or another one took its address)
        server.start(listen="127.0.0.1", port=server.status().port)
        with pytest.raises(ServerTrustError) as err:
            joining.check(joined.url)
        assert "not the server you joined" in one_line(err.value)
    finally:
        server.stop()
        shutil.rmtree(data, ignore_errors=True)


def test_the_cli_invites_joins_and_prints_the_url_for_psql(pg_server, tmp_path, capsys):
    name = person()
    assert main(["server", "invite", name, "--data", str(pg_server.data)]) == 0
    out = capsys.readouterr()
    invite = out.out.strip()
    assert invite.startswith("trove1:") and "trove join` and paste it" in out.err
    home = tmp_path / "home"
    assert main(["--home", str(home), "join", invite]) == 0
    joined_out = capsys.readouterr().out
    assert f"as {name}" in joined_out and pg_server.status().ca_fingerprint in joined_out
    stored = json.loads((home / "settings.json").read_text())["server_url"]
    assert redact(stored) == stored and "passfile=" in stored
    assert main(["--home", str(home), "join", "--print-url"]) == 0
    printed = capsys.readouterr().out.strip()
    assert "passfile" not in printed and redact(printed) != printed
    with psycopg.connect(printed) as conn:  # what psql / pg_dump get
        assert conn.execute("SELECT current_user").fetchone() == (roles.role_name(name),)
    assert main(["server", "users", "--data", str(pg_server.data)]) == 0
    assert name in capsys.readouterr().out
    assert main(["--home", str(home), "join", invite]) == 1
    assert "already used" in capsys.readouterr().err
    assert pg_server.status().front
    assert main(["server", "status", "--data", str(pg_server.data)]) == 0
    out = capsys.readouterr()
    assert "admits: this machine" in out.out and "CA fingerprint" in out.out and "front is not running" not in out.err
    assert ":***@" in out.out  # the administrator URL, without its password


def test_a_backup_holds_every_row_and_restores(pg_server, pg_url, tmp_path):
    import subprocess

    from desktop_app.core.server.process import bin_dir
    from desktop_app.core.store.postgres import PostgresStore

    name = urlsplit(pg_url).path.lstrip("/")
    store = PostgresStore(pg_url, machine="m")
    store.add_folder(str(tmp_path))
    store.close()
    dump = pg_server.backup(tmp_path / "library.dump", name)
    assert dump.stat().st_size > 0
    copy = f"restored{os.getpid()}"
    pg_server.create_database(copy, extensions=())
    try:
        config = pg_server._config()
        subprocess.run([str(bin_dir() / "pg_restore"), "-h", config["socket_dir"], "-p", str(config["port"]),
                        "-U", "postgres", "-d", copy, str(dump)], check=True, capture_output=True, timeout=120)
        with pg_server.admin(copy) as conn:
            assert conn.execute("SELECT path FROM folders").fetchall() == [(str(tmp_path),)]
            owners = conn.execute("SELECT DISTINCT tableowner FROM pg_tables WHERE schemaname = 'public'").fetchall()
        assert owners == [(roles.OWNER_ROLE,)]
    finally:
        pg_server.drop_database(copy)



def test_a_second_library_keeps_the_first_ones_pin_and_password(pg_server, pg_url, tmp_path):
    other = urlsplit(pg_url).path.lstrip("/")
    first = joining.join(tmp_path / "desk", pg_server.invite(person()))
    second = joining.join(tmp_path / "desk", pg_server.invite(person(), database=other))
    assert first.url != second.url and len(list((tmp_path / "desk" / "team").iterdir())) == 2
    assert joining.check(first.url) == roles.role_name(first.person)  # still signs in with its own password
    assert joining.check(second.url) == roles.role_name(second.person)
