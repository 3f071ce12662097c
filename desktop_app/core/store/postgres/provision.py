"""What `trove server` does inside the cluster and its library databases, on superuser connections: the roles,
ownership, who may connect, the invite-acceptance function, and migrations run as the owner."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import psycopg
from psycopg import sql

from desktop_app.core.log import get_logger
from desktop_app.core.store.postgres import roles as roles_mod
from desktop_app.core.store.postgres.process import ServerError, bin_dir, check_private, run_user
from desktop_app.core.store.postgres.roles import ADMIN_ROLE, OWNER_ROLE, PEOPLE_GROUP, PERSON_PREFIX

log = get_logger("server")

DATABASE = "trove"
EXTENSIONS = ("vector", "pg_trgm", "unaccent")

# A person's first connection (with the invite's token) calls this to set the password only their desktop
# knows. It is the only thing a person may do to a role: it changes their own (session_user), only while the
# invite is pending (a finite VALID UNTIL), only to a SCRAM verifier, and ends the expiry; a second call -- a
# reused invite -- finds nothing pending. Owned by the superuser (SECURITY DEFINER), with a fixed search_path.
ACCEPT_INVITE = f"""
CREATE SCHEMA IF NOT EXISTS trove_admin;
CREATE OR REPLACE FUNCTION trove_admin.accept_invite(new_verifier text) RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
    until timestamptz;
BEGIN
    IF NOT starts_with(session_user::text, '{PERSON_PREFIX}')
       OR NOT pg_has_role(session_user, '{PEOPLE_GROUP}', 'MEMBER') THEN
        RAISE EXCEPTION 'only a person may accept an invite' USING ERRCODE = '42501';
    END IF;
    SELECT rolvaliduntil INTO until FROM pg_roles WHERE rolname = session_user;
    IF until IS NULL OR until = 'infinity' THEN
        RAISE EXCEPTION 'this invite was already used' USING ERRCODE = '28P01';
    END IF;
    IF new_verifier NOT LIKE 'SCRAM-SHA-256$%' THEN
        RAISE EXCEPTION 'not a SCRAM-SHA-256 verifier' USING ERRCODE = '22023';
    END IF;
    EXECUTE format('ALTER ROLE %I PASSWORD %L VALID UNTIL %L', session_user, new_verifier, 'infinity');
    RETURN session_user;
END
$fn$;
REVOKE ALL ON SCHEMA trove_admin FROM PUBLIC;
REVOKE ALL ON FUNCTION trove_admin.accept_invite(text) FROM PUBLIC;
GRANT USAGE ON SCHEMA trove_admin TO {PEOPLE_GROUP};
GRANT EXECUTE ON FUNCTION trove_admin.accept_invite(text) TO {PEOPLE_GROUP};
"""


def restrict_database(conn: psycopg.Connection, name: str) -> None:
    """Only trove_owner (and its members) and trove_people may connect; nobody else gets CREATE or TEMP."""
    db = sql.Identifier(name)
    conn.execute(sql.SQL("REVOKE ALL ON DATABASE {} FROM PUBLIC").format(db))
    conn.execute(sql.SQL("GRANT CONNECT ON DATABASE {} TO {}").format(db, sql.Identifier(PEOPLE_GROUP)))


def prepare_library(conn: psycopg.Connection) -> None:
    """Inside one library database: everything the trove role made now belongs to trove_owner (libraries
    from before the owner role existed), nobody but the owner creates in `public`, and invites can be accepted."""
    if conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (ADMIN_ROLE,)).fetchone():
        conn.execute(sql.SQL("REASSIGN OWNED BY {} TO {}").format(sql.Identifier(ADMIN_ROLE),
                                                                  sql.Identifier(OWNER_ROLE)))
    conn.execute("REVOKE CREATE ON SCHEMA public FROM PUBLIC")
    conn.execute(ACCEPT_INVITE)


def migrate_as_owner(conn: psycopg.Connection, url: str) -> dict[str, bool]:
    """The schema's migrations, run as trove_owner (what they create belongs to it)."""
    from desktop_app.core.store.postgres.migrations import migrate

    conn.execute(sql.SQL("SET ROLE {}").format(sql.Identifier(OWNER_ROLE)))
    try:
        return migrate(conn, url)
    finally:
        conn.execute("RESET ROLE")


class ServerDatabases:
    """The databases half of TroveServer (which provides admin() and url())."""

    def admin(self, database: str = "postgres") -> psycopg.Connection:
        raise NotImplementedError

    def url(self, database: str = DATABASE, password: str | None = None) -> str:
        raise NotImplementedError

    def _config(self) -> dict[str, Any]:
        raise NotImplementedError

    def backup(self, path: Path, database: str = DATABASE) -> Path:
        """A pg_dump of one library (custom format, every row: the superuser over the private socket), written
        by the bundled pg_dump to `path`; `pg_restore` reads it back."""
        config = self._config()
        check_private(config.get("socket_dir", ""), run_user())
        path = path.expanduser().absolute()
        cmd = [str(bin_dir() / "pg_dump"), "--format=custom", f"--file={path}", "-h", config["socket_dir"],
               "-p", str(config["port"]), "-U", "postgres", database]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=3600, stdin=subprocess.DEVNULL)
        if done.returncode != 0:
            tail = done.stderr.strip().splitlines()[-1:] or [f"exit status {done.returncode}"]
            raise ServerError(f"pg_dump failed: {tail[0]}")
        return path

    def _provision(self, password: str) -> None:
        """The roles (the trove role's password reset to ours), the trove database, every library handed to
        trove_owner, and the trove database's schema migrated as the owner."""
        with self.admin() as conn:
            roles_mod.ensure_group_roles(conn)
            roles_mod.ensure_admin(conn, password)
            conn.execute("REVOKE ALL ON DATABASE postgres FROM PUBLIC")
            libraries = [r[0] for r in conn.execute(
                "SELECT datname FROM pg_database WHERE datallowconn AND NOT datistemplate AND datname <> 'postgres'")]
        self.create_database(DATABASE)
        for name in {*libraries, DATABASE}:
            with self.admin(name) as conn:
                prepare_library(conn)
            with self.admin() as conn:
                conn.execute(sql.SQL("ALTER DATABASE {} OWNER TO {}").format(
                    sql.Identifier(name), sql.Identifier(OWNER_ROLE)))
        self.migrate(DATABASE)

    def migrate(self, database: str = DATABASE) -> None:
        """Bring a library's schema up to date, as trove_owner (`trove server migrate`)."""
        with self.admin(database) as conn:
            migrate_as_owner(conn, self.url(database))

    def create_database(self, name: str, *, extensions: tuple[str, ...] = EXTENSIONS,
                        template: str | None = None) -> str:
        """A database owned by trove_owner with `extensions` (none: a database without pgvector), copied from
        `template` when given; only trove_owner's members and trove_people may connect. Returns its URL."""
        with self.admin() as conn:
            if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone():
                copy = sql.SQL(" TEMPLATE {}").format(sql.Identifier(template)) if template else sql.SQL("")
                conn.execute(sql.SQL("CREATE DATABASE {} OWNER {}{}").format(
                    sql.Identifier(name), sql.Identifier(OWNER_ROLE), copy))
            restrict_database(conn, name)
        with self.admin(name) as conn:
            for ext in extensions:
                conn.execute(sql.SQL("CREATE EXTENSION IF NOT EXISTS {}").format(sql.Identifier(ext)))
        return self.url(name)

    def drop_database(self, name: str) -> None:
        """Drop a database (its connections are ended first)."""
        with self.admin() as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))

