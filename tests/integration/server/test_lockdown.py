"""No table of a person's own changes what the policies let them see, on every library of the server.

The policies' helpers name their tables with the schema and run with `search_path = pg_catalog, public, pg_temp`;
every library -- the `trove` database and one made by `createdb` and then `trove server migrate --database` -- is
locked down (no TEMP, no CREATE for PUBLIC or people), and a person who was given TEMP anyway cannot log in.
Real server (the session's), real invites and joins.
"""

from __future__ import annotations

import itertools
import os
import subprocess
from pathlib import Path

import psycopg
import pytest
from psycopg import sql

from desktop_app.cli import main
from desktop_app.core.ingest.chunking import Span
from desktop_app.core.server import joining
from desktop_app.core.server.process import ServerError, bin_dir
from desktop_app.core.store.postgres import PostgresStore
from desktop_app.core.store.postgres.access import roles
from desktop_app.core.store.rows import NewChunk, NewDocument, Share

SECRET = "quixotic-larkspur"  # only Alice's private folder holds it
_names = itertools.count(1)


def unique(prefix: str) -> str:
    return f"{prefix}{os.getpid()}_{next(_names)}"


def createdb(pg_server, name: str) -> None:
    """A database made the way an administrator would by hand: PUBLIC keeps TEMP and CONNECT."""
    config = pg_server._config()
    subprocess.run([str(bin_dir() / "createdb"), "-h", config["socket_dir"], "-p", str(config["port"]),
                    "-U", "postgres", name], check=True, capture_output=True, timeout=60)


@pytest.fixture(params=["trove", "createdb"])
def library(request, pg_server):
    """The name of a library: the server's own `trove`, or one made by createdb and `trove server migrate`."""
    if request.param == "trove":
        yield "trove"
        return
    name = unique("made")
    createdb(pg_server, name)
    with pg_server.admin(name) as conn:
        assert conn.execute("SELECT has_database_privilege('public', current_database(), 'TEMPORARY')").fetchone()[0]
    try:
        assert main(["server", "migrate", "--database", name, "--data", str(pg_server.data)]) == 0
        yield name
    finally:
        pg_server.drop_database(name)


def join_as(pg_server, tmp_path: Path, database: str, name: str) -> str:
    """A person invited to `database` who joined with `trove join`: their library URL."""
    return joining.join(tmp_path / name, pg_server.invite(name, database=database)).url


def alice_secret(pg_server, url: str, folder: Path) -> int:
    """Alice's private folder holding SECRET; returns its id."""
    alice = PostgresStore(url, machine=unique("desk-alice"))
    try:
        made = alice.add_folder(str(folder), Share("private"))
        path = folder / "plan.txt"
        alice.write_document(NewDocument(folder_id=made.id, path=str(path), title="plan", type="txt",
                                         size=len(SECRET), mtime_ns=1, digest="h-plan"),
                             [NewChunk(Span(0, len(SECRET), SECRET), None)])
        return made.id
    finally:
        alice.close()


def called_functions(conn: psycopg.Connection) -> dict[str, list[str] | None]:
    """name -> proconfig of every non-catalog function a policy, a column default or a trigger calls."""
    rows = conn.execute(r"""
        WITH called AS (
            SELECT m[1]::oid AS fn FROM pg_policy p,
                regexp_matches(COALESCE(p.polqual::text, '') || COALESCE(p.polwithcheck::text, ''),
                               ':funcid (\d+)', 'g') AS m
            UNION SELECT m[1]::oid FROM pg_attrdef d, regexp_matches(d.adbin::text, ':funcid (\d+)', 'g') AS m
            UNION SELECT tgfoid FROM pg_trigger WHERE NOT tgisinternal)
        SELECT p.proname, p.proconfig FROM called JOIN pg_proc p ON p.oid = called.fn
        WHERE p.pronamespace <> 'pg_catalog'::regnamespace""").fetchall()
    return {name: config for name, config in rows}


def test_every_function_a_policy_or_trigger_calls_pins_its_search_path_with_pg_temp_last(pg_server, library):
    with pg_server.admin(library) as conn:
        found = called_functions(conn)
    assert {"trove_visible_folders", "trove_my_folders", "trove_my_machines", "trove_default_visibility",
            "trove_chunk_folder", "trove_count_languages", "trove_side_chunks",
            "trove_chat_memory_delete"} <= set(found)
    for name, config in found.items():
        paths = [c.removeprefix("search_path=") for c in config or () if c.startswith("search_path=")]
        assert paths == ["pg_catalog, public, pg_temp"], (name, config)


def test_a_persons_own_folders_table_shows_them_nothing_more(pg_server, library, tmp_path):
    alice_url = join_as(pg_server, tmp_path, library, unique("alice"))
    bob = roles.role_name(unique("bob"))
    bob_url = join_as(pg_server, tmp_path, library, bob)
    private = alice_secret(pg_server, alice_url, tmp_path / "alice-private")

    with psycopg.connect(bob_url, autocommit=True) as conn:  # the library is locked down: no temp table at all
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("CREATE TEMP TABLE folders (id bigint)")
        assert conn.execute("SELECT count(*) FROM chunks WHERE text LIKE %s", (f"%{SECRET}%",)).fetchone() == (0,)

    db = sql.Identifier(library)
    with pg_server.admin() as conn:  # the administrator grants Bob TEMP on purpose
        conn.execute(sql.SQL("GRANT TEMPORARY ON DATABASE {} TO {}").format(db, sql.Identifier(bob)))
    try:
        with pytest.raises(psycopg.OperationalError, match="lets people create tables"):
            psycopg.connect(bob_url).close()  # the server refuses Bob's login while he may
        with pytest.raises(ServerError, match=bob):
            pg_server.migrate(library)
        with pg_server.admin(library) as conn:  # were he let in: his temporary `folders` changes nothing
            conn.execute(sql.SQL("SET ROLE {}").format(sql.Identifier(bob)))
            conn.execute("CREATE TEMP TABLE folders (id bigint)")
            conn.execute("CREATE TEMP TABLE machines (machine_id text, role text)")
            conn.execute("INSERT INTO pg_temp.folders SELECT generate_series(1, %s + 1000)", (private,))
            assert private not in conn.execute("SELECT trove_visible_folders()").fetchone()[0]
            conn.execute("SET search_path = pg_temp, public")
            assert private not in conn.execute("SELECT public.trove_visible_folders()").fetchone()[0]
            assert conn.execute("SELECT count(*) FROM public.chunks WHERE text LIKE %s",
                                (f"%{SECRET}%",)).fetchone() == (0,)
            assert conn.execute("SELECT count(*) FROM public.documents WHERE folder_id = %s",
                                (private,)).fetchone() == (0,)
    finally:
        with pg_server.admin() as conn:
            conn.execute(sql.SQL("REVOKE TEMPORARY ON DATABASE {} FROM {}").format(db, sql.Identifier(bob)))
    assert joining.check(bob_url) == bob  # taken back: Bob logs in again
    with pg_server.admin(library) as conn:  # and the chunk is there for its owner
        assert conn.execute("SELECT count(*) FROM chunks WHERE text LIKE %s", (f"%{SECRET}%",)).fetchone() == (1,)


def test_every_library_is_locked_down_when_migrated(pg_server, library):
    with pg_server.admin(library) as conn:
        loose = conn.execute(
            "SELECT has_database_privilege('public', current_database(), 'TEMPORARY'), "
            "has_database_privilege('public', current_database(), 'CREATE'), "
            "has_schema_privilege('public', 'public', 'CREATE'), "
            "has_database_privilege(%s, current_database(), 'TEMPORARY'), "
            "has_database_privilege(%s, current_database(), 'CREATE')",
            (roles.PEOPLE_GROUP, roles.PEOPLE_GROUP)).fetchone()
    assert loose == (False, False, False, False, False)
