"""The role model's edges on a real server: an invite only joins, a person reaches only their library, nobody acts
as a group, the administrator's desktop sees no person's chat, template1 and backups are closed to others."""

from __future__ import annotations

import itertools
import os
from pathlib import Path
from urllib.parse import urlsplit

import psycopg
import pytest

from desktop_app.core.server import joining
from desktop_app.core.server.invite import decode
from desktop_app.core.server.tls import der_to_pem
from desktop_app.core.store.postgres import PostgresStore
from desktop_app.core.store.postgres.access import roles
from desktop_app.core.store.rows import MessageRow
from tests.support.people import person_url

_names = itertools.count(1)
# What a reader of the library would try first: every table with rows of people, and a policy helper.
READS = ("SELECT * FROM folders", "SELECT * FROM documents", "SELECT * FROM chunks", "SELECT * FROM chunk_vectors",
         "SELECT * FROM meta", "SELECT * FROM machines", "SELECT * FROM chats", "SELECT * FROM messages",
         "SELECT * FROM memory_facts", "SELECT * FROM trove_migrations", "SELECT trove_visible_folders()",
         "CREATE TEMP TABLE t (x int)", "INSERT INTO machines (machine_id) VALUES ('m')")


def person() -> str:
    return f"r{os.getpid()}_{next(_names)}"


def token_url(tmp_path: Path, invite: str) -> tuple[str, str]:
    """(URL, token) to sign in with an invite's raw token, as someone who copied it would (no `trove join`)."""
    made = decode(invite)
    ca = tmp_path / f"ca-{made.person}.crt"
    ca.write_bytes(der_to_pem(made.ca_der))
    return joining.library_url(made, ca, None), made.token


def library_of(url: str) -> str:
    return urlsplit(url).path.lstrip("/")


def test_the_raw_invite_token_can_only_accept_and_its_sessions_end_when_it_is_accepted(pg_server, tmp_path):
    invite = pg_server.invite(person())
    url, token = token_url(tmp_path, invite)
    thief = psycopg.connect(url, password=token, autocommit=True)
    other = psycopg.connect(url, password=token, autocommit=True)
    try:
        for statement in READS:
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                thief.execute(statement)
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            thief.execute("SET ROLE trove_people")
        joined = joining.join(tmp_path / "desk", invite)  # the real person accepts
        for conn in (thief, other):  # every session opened with the token is gone
            with pytest.raises(psycopg.OperationalError):
                conn.execute("SELECT 1")
        with psycopg.connect(joined.url, autocommit=True) as conn:  # the joined desktop reads the library
            assert conn.execute("SELECT count(*) >= 0 FROM folders").fetchone() == (True,)
        with pytest.raises(psycopg.OperationalError):  # and the token no longer signs in
            psycopg.connect(url, password=token).close()
    finally:
        thief.close()
        other.close()


def test_an_invite_is_valid_for_a_day(pg_server):
    made = decode(pg_server.invite(person()))
    import time

    assert 23 * 3600 < made.expires - time.time() <= 24 * 3600


def test_a_person_invited_to_one_library_cannot_connect_to_another(pg_server, pg_url, tmp_path):
    joined = joining.join(tmp_path / "a", pg_server.invite(person()))
    with_password = joining.url_with_password(joined.url)
    with psycopg.connect(with_password) as conn:
        assert conn.execute("SELECT current_database()").fetchone() == ("trove",)
    for other in (library_of(pg_url), "template1", "postgres"):
        with pytest.raises(psycopg.OperationalError, match="permission denied for database"):
            psycopg.connect(with_password.replace("/trove?", f"/{other}?")).close()


def test_nobody_acts_as_a_group_and_every_row_is_a_persons(pg_server, pg_url, tmp_path):
    PostgresStore(pg_url, machine="desk-admin").close()  # the administrator opens it first (its schema)
    alice = person_url(pg_server, pg_url, "alice")
    group = roles.library_group(library_of(pg_url))
    with psycopg.connect(alice, autocommit=True) as conn:
        for role in (roles.PEOPLE_GROUP, group):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(f"SET ROLE {role}")
        assert conn.execute("SELECT count(*) FROM folders").fetchone() == (0,)  # the group's privileges: inherited
    with pytest.raises(psycopg.OperationalError):
        psycopg.connect(alice, options=f"-c role={roles.PEOPLE_GROUP}").close()
    with pg_server.admin() as conn:  # every membership of the people's groups: INHERIT, never SET
        rows = conn.execute(
            "SELECT DISTINCT m.inherit_option, m.set_option FROM pg_auth_members m JOIN pg_roles g ON g.oid = m.roleid "
            "WHERE g.rolname = %s OR starts_with(g.rolname, %s)", (roles.PEOPLE_GROUP, roles.LIBRARY_PREFIX)).fetchall()
    assert rows == [(True, False)]
    with pg_server.admin(library_of(pg_url)) as conn:  # even a session made the group (a superuser can) writes nothing
        for role in (roles.PEOPLE_GROUP, group):
            conn.execute(f"SET ROLE {role}")
            with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"):
                conn.execute("INSERT INTO machines (machine_id) VALUES (%s)", (f"m-{role}",))
            with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"):
                conn.execute("INSERT INTO chats (title, created_at, updated_at) VALUES ('x', 0, 0)")
            conn.execute("RESET ROLE")
        owners = conn.execute("SELECT role FROM machines UNION SELECT owner FROM folders UNION SELECT owner FROM chats "
                              "UNION SELECT owner FROM messages").fetchall()
    assert all(o.startswith(roles.PERSON_PREFIX) or o == roles.OWNER_ROLE for (o,) in owners), owners


def test_the_administrators_desktop_shows_no_persons_chat(pg_server, pg_url):
    admin = PostgresStore(pg_url, machine="desk-admin")
    alice = PostgresStore(person_url(pg_server, pg_url, "alice"), machine="desk-alice")
    try:
        chat = alice.create_chat("alice's own", 1.0)
        alice.add_messages(chat, [MessageRow(0, chat, "user", "a private question", (), (), 1.0)], "t", 1.0)
        mine = admin.create_chat("the administrator's", 2.0)
        assert [c.id for c in admin.list_chats()] == [mine]
        assert not admin.chat_exists(chat) and admin.chat_messages(chat) == [] and admin.delete_chat(chat) is False
        assert [c.id for c in alice.list_chats()] == [chat] and len(alice.chat_messages(chat)) == 1
    finally:
        alice.close()
        admin.close()


def test_a_backup_is_readable_by_its_owner_only(pg_server, pg_url, tmp_path):
    old = os.umask(0o022)
    try:
        dump = pg_server.backup(tmp_path / "library.dump", library_of(pg_url))
    finally:
        os.umask(old)
    assert dump.stat().st_mode & 0o777 == 0o600


def test_a_person_has_limits_and_draws_ids_without_reading_the_sequences(pg_server, pg_url):
    PostgresStore(pg_url, machine="desk-admin").close()
    alice = person_url(pg_server, pg_url, "alice")
    with psycopg.connect(alice, autocommit=True) as conn:
        shown = {name: conn.execute(f"SHOW {name}").fetchone()[0] for name in roles.PERSON_LIMITS}
        assert shown == {"statement_timeout": "15min", "temp_file_limit": "4GB",
                         "idle_in_transaction_session_timeout": "30min"}
        with pytest.raises(psycopg.errors.InsufficientPrivilege):  # a superuser's setting: not raised by them
            conn.execute("SET temp_file_limit = '-1'")
        with pytest.raises(psycopg.errors.InsufficientPrivilege):  # how many chats the others made: not told
            conn.execute("SELECT last_value FROM chats_id_seq")
    pg_server.migrate(library_of(pg_url))  # locked down as `trove server` keeps a library
    with psycopg.connect(alice, autocommit=True) as conn:
        for statement in ("SELECT lo_create(0)", "SELECT lo_from_bytea(0, 'x')", "SELECT * FROM pg_stat_activity",
                          "SELECT * FROM pg_stat_ssl"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(statement)
    store = PostgresStore(alice, machine="desk-alice")
    try:
        assert store.create_chat("mine", 1.0) > 0  # ids are still drawn
    finally:
        store.close()
