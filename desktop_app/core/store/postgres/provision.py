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
from desktop_app.core.store.postgres.permissions import no_sequence_reads
from desktop_app.core.store.postgres.process import ServerError, bin_dir, check_private, run_user
from desktop_app.core.store.postgres.roles import ADMIN_ROLE, OWNER_ROLE, PEOPLE_GROUP, PERSON_PREFIX

log = get_logger("server")

DATABASE = "trove"
EXTENSIONS = ("vector", "pg_trgm", "unaccent")

# A person's first connection (with the invite's token) calls this to set the password only their desktop
# knows. Until then the role is in no group: it may connect to its invite's library and call this, nothing else.
# It changes only its own role (session_user), only while the invite is pending (a finite VALID UNTIL), only to a
# SCRAM verifier, and ends the expiry; it makes the role a member of this library's group (its privileges, never
# its identity) and ends every other session of the role, so a session opened with the token -- by whoever else
# held it -- is gone. A second call -- a reused invite -- finds nothing pending. Owned by the superuser (SECURITY
# DEFINER), with a fixed search_path; one per library (the group's name is written into it).
ACCEPT_INVITE = """
CREATE SCHEMA IF NOT EXISTS trove_admin;
CREATE OR REPLACE FUNCTION trove_admin.accept_invite(new_verifier text) RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
    until timestamptz;
BEGIN
    IF NOT starts_with(session_user::text, '%(person)s') THEN
        RAISE EXCEPTION 'only a person may accept an invite' USING ERRCODE = '42501';
    END IF;
    SELECT rolvaliduntil INTO until FROM pg_catalog.pg_roles WHERE rolname = session_user;
    IF until IS NULL OR until = 'infinity' THEN
        RAISE EXCEPTION 'this invite was already used' USING ERRCODE = '28P01';
    END IF;
    IF new_verifier NOT LIKE 'SCRAM-SHA-256$%%' THEN
        RAISE EXCEPTION 'not a SCRAM-SHA-256 verifier' USING ERRCODE = '22023';
    END IF;
    EXECUTE format('ALTER ROLE %%I PASSWORD %%L VALID UNTIL %%L', session_user, new_verifier, 'infinity');
    EXECUTE format('GRANT %%I TO %%I WITH INHERIT TRUE, SET FALSE', '%(group)s', session_user);
    EXECUTE format('REVOKE CONNECT ON DATABASE %%I FROM %%I', current_database(), session_user);
    PERFORM pg_catalog.pg_terminate_backend(a.pid) FROM pg_catalog.pg_stat_activity a
        WHERE a.usename = session_user AND a.pid <> pg_catalog.pg_backend_pid();
    RETURN session_user;
END
$fn$;
REVOKE ALL ON SCHEMA trove_admin FROM PUBLIC;
REVOKE ALL ON FUNCTION trove_admin.accept_invite(text) FROM PUBLIC;
GRANT USAGE ON SCHEMA trove_admin TO PUBLIC;
GRANT EXECUTE ON FUNCTION trove_admin.accept_invite(text) TO PUBLIC;
"""


# A person's login into a library where they could create a temporary table or any object is refused by the
# server itself (a `login` event trigger): such a library is one `trove server migrate --database` away from being
# locked down again, and until then nobody tries the policies against tables of their own.
REFUSE_LOOSE_LOGIN = """
CREATE OR REPLACE FUNCTION trove_admin.refuse_loose_login() RETURNS event_trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $fn$
BEGIN
    IF starts_with(session_user::text, '%(person)s')
       AND (has_database_privilege(current_database(), 'TEMPORARY')
            OR has_database_privilege(current_database(), 'CREATE')
            OR has_schema_privilege('public', 'CREATE')) THEN
        RAISE EXCEPTION USING ERRCODE = '42501', MESSAGE = 'this team library lets people create tables: its '
            || 'administrator must lock it down first (trove server migrate --database ' || current_database() || ')';
    END IF;
END
$fn$;
"""
LOGIN_TRIGGER = "trove_refuse_loose_login"


def restrict_database(conn: psycopg.Connection, name: str) -> None:
    """Only trove_owner (and its members) and the library's own group may connect; nobody else gets CREATE or
    TEMP (a person of another library on this server cannot even connect)."""
    conn.execute(sql.SQL("REVOKE ALL ON DATABASE {} FROM PUBLIC").format(sql.Identifier(name)))
    roles_mod.ensure_library_group(conn, name)


def lock_down(conn: psycopg.Connection) -> None:
    """Inside one library database: neither PUBLIC nor trove_people may create temporary tables, schemas or
    objects in `public` (a database made by createdb or pg_restore lets PUBLIC make temporary tables)."""
    name = str(conn.execute("SELECT current_database()").fetchone()[0])  # type: ignore[index]
    grantees: list[sql.Composable] = [sql.SQL("PUBLIC")]
    for group in (PEOPLE_GROUP, roles_mod.library_group(name)):
        if conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (group,)).fetchone():
            grantees.append(sql.Identifier(group))
    for grantee in grantees:
        conn.execute(sql.SQL("REVOKE TEMPORARY, CREATE ON DATABASE {} FROM {}").format(sql.Identifier(name), grantee))
        conn.execute(sql.SQL("REVOKE CREATE ON SCHEMA public FROM {}").format(grantee))
    conn.execute(CLOSED_CATALOG)


# Large objects live outside every table (no row-level security, no owner of ours), and the activity views tell
# anyone who else is connected, from where and since when: people get neither (the superuser still does).
CLOSED_CATALOG = """
REVOKE EXECUTE ON FUNCTION pg_catalog.lo_create(oid), pg_catalog.lo_creat(integer),
    pg_catalog.lo_from_bytea(oid, bytea) FROM PUBLIC;
REVOKE SELECT ON pg_catalog.pg_stat_activity, pg_catalog.pg_stat_ssl, pg_catalog.pg_stat_gssapi FROM PUBLIC;
"""


def people_who_may_create(conn: psycopg.Connection) -> list[str]:
    """The people (or their group) who may still create a temporary table or an object in this database (a
    privilege granted to them by name survives lock_down: the administrator's to take back)."""
    rows = conn.execute(
        "SELECT r.rolname FROM pg_roles r WHERE (starts_with(r.rolname, %s) OR starts_with(r.rolname, %s) "
        "OR r.rolname = %s) AND NOT r.rolsuper "
        "AND (has_database_privilege(r.oid, current_database(), 'TEMPORARY') "
        "OR has_database_privilege(r.oid, current_database(), 'CREATE') "
        "OR has_schema_privilege(r.oid, 'public', 'CREATE')) ORDER BY 1",
        (PERSON_PREFIX, roles_mod.LIBRARY_PREFIX, PEOPLE_GROUP)).fetchall()
    return [r[0] for r in rows]


def prepare_library(conn: psycopg.Connection) -> None:
    """Inside one library database: everything the trove role made now belongs to trove_owner (libraries
    from before the owner role existed), nobody but the owner creates anything, invites can be accepted, and
    a person's login is refused while they could create tables."""
    if conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (ADMIN_ROLE,)).fetchone():
        conn.execute(sql.SQL("REASSIGN OWNED BY {} TO {}").format(sql.Identifier(ADMIN_ROLE),
                                                                  sql.Identifier(OWNER_ROLE)))
    lock_down(conn)
    no_sequence_reads(conn)
    name = str(conn.execute("SELECT current_database()").fetchone()[0])  # type: ignore[index]
    conn.execute(ACCEPT_INVITE % {"person": PERSON_PREFIX, "group": roles_mod.library_group(name)})
    conn.execute(REFUSE_LOOSE_LOGIN % {"person": PERSON_PREFIX})
    if not conn.execute("SELECT 1 FROM pg_event_trigger WHERE evtname = %s", (LOGIN_TRIGGER,)).fetchone():
        conn.execute(sql.SQL("CREATE EVENT TRIGGER {} ON login EXECUTE FUNCTION trove_admin.refuse_loose_login()")
                     .format(sql.Identifier(LOGIN_TRIGGER)))


def check_locked(conn: psycopg.Connection) -> None:
    """A ServerError naming the people who may still create tables in this library (their logins are refused)."""
    loose = people_who_may_create(conn)
    if loose:
        name = conn.execute("SELECT current_database()").fetchone()[0]  # type: ignore[index]
        raise ServerError(f"In library {name!r}, {', '.join(loose)} may create temporary tables or objects, so "
                          f"their logins are refused: REVOKE TEMPORARY, CREATE ON DATABASE {name} (and CREATE ON "
                          "SCHEMA public) from them.")


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
        by the bundled pg_dump to `path`, mode 0600; `pg_restore` reads it back."""
        config = self._config()
        check_private(config.get("socket_dir", ""), run_user())
        path = path.expanduser().absolute()
        cmd = [str(bin_dir() / "pg_dump"), "--format=custom", f"--file={path}", "-h", config["socket_dir"],
               "-p", str(config["port"]), "-U", "postgres", database]
        # Every person's rows: readable by this user only, even while pg_dump writes it (umask), and if it existed.
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=3600, stdin=subprocess.DEVNULL,
                              umask=0o077)
        if done.returncode != 0:
            tail = done.stderr.strip().splitlines()[-1:] or [f"exit status {done.returncode}"]
            raise ServerError(f"pg_dump failed: {tail[0]}")
        path.chmod(0o600)
        return path

    def _provision(self, password: str) -> None:
        """The roles (the trove role's password reset to ours), the trove database, every library handed to
        trove_owner, and the trove database's schema migrated as the owner."""
        with self.admin() as conn:
            roles_mod.ensure_group_roles(conn)
            roles_mod.ensure_admin(conn, password)
            for cluster_db in ("postgres", "template1"):  # not libraries: no person connects to them
                conn.execute(sql.SQL("REVOKE ALL ON DATABASE {} FROM PUBLIC").format(sql.Identifier(cluster_db)))
            libraries = [r[0] for r in conn.execute(
                "SELECT datname FROM pg_database WHERE datallowconn AND NOT datistemplate AND datname <> 'postgres'")]
        self.create_database(DATABASE)
        for name in {*libraries, DATABASE}:
            self._adopt(name, check=False)
        with self.admin() as conn:
            roles_mod.harden_memberships(conn, sorted({*libraries, DATABASE}))
        self.migrate(DATABASE)

    def _adopt(self, name: str, *, check: bool = True) -> None:
        """Make `name` a library as `trove server` keeps them (whoever made it: createdb, pg_restore): owned by
        trove_owner, connectable by people only, locked down; a ServerError (with `check`) if people may still
        create tables in it."""
        with self.admin() as conn:
            conn.execute(sql.SQL("ALTER DATABASE {} OWNER TO {}").format(
                sql.Identifier(name), sql.Identifier(OWNER_ROLE)))
            restrict_database(conn, name)
        with self.admin(name) as conn:
            prepare_library(conn)
            if check:
                check_locked(conn)
            else:
                for loose in people_who_may_create(conn):
                    log.warning("in library %s, %s may create tables: their logins are refused", name, loose)

    def migrate(self, database: str = DATABASE) -> None:
        """Bring a library's schema up to date, as trove_owner (`trove server migrate`), after locking it down
        (a ServerError names anyone who may still create tables in it)."""
        self._adopt(database)
        with self.admin(database) as conn:
            for ext in EXTENSIONS:  # as the superuser: pgvector is not a trusted extension
                conn.execute(sql.SQL("CREATE EXTENSION IF NOT EXISTS {}").format(sql.Identifier(ext)))
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

