"""What `trove server` does inside the cluster and its library databases, on superuser connections: the roles,
ownership, who may connect, the invite-acceptance function, and migrations run as the owner (the SQL; the
server's databases are driven from core/server/databases.py)."""

from __future__ import annotations

import psycopg
from psycopg import sql

from desktop_app.core.log import get_logger
from desktop_app.core.store.postgres.access import roles as roles_mod
from desktop_app.core.store.postgres.access.permissions import no_sequence_reads
from desktop_app.core.store.postgres.access.roles import ADMIN_ROLE, OWNER_ROLE, PEOPLE_GROUP, PERSON_PREFIX

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


def current_database(conn: psycopg.Connection) -> str:
    return str(conn.execute("SELECT current_database()").fetchone()[0])  # type: ignore[index]


def restrict_database(conn: psycopg.Connection, name: str) -> None:
    """Only trove_owner (and its members) and the library's own group may connect; nobody else gets CREATE or
    TEMP (a person of another library on this server cannot even connect)."""
    conn.execute(sql.SQL("REVOKE ALL ON DATABASE {} FROM PUBLIC").format(sql.Identifier(name)))
    roles_mod.ensure_library_group(conn, name)


def lock_down(conn: psycopg.Connection) -> None:
    """Inside one library database: neither PUBLIC nor trove_people may create temporary tables, schemas or
    objects in `public` (a database made by createdb or pg_restore lets PUBLIC make temporary tables)."""
    name = current_database(conn)
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
    name = current_database(conn)
    conn.execute(ACCEPT_INVITE % {"person": PERSON_PREFIX, "group": roles_mod.library_group(name)})
    conn.execute(REFUSE_LOOSE_LOGIN % {"person": PERSON_PREFIX})
    if not conn.execute("SELECT 1 FROM pg_event_trigger WHERE evtname = %s", (LOGIN_TRIGGER,)).fetchone():
        conn.execute(sql.SQL("CREATE EVENT TRIGGER {} ON login EXECUTE FUNCTION trove_admin.refuse_loose_login()")
                     .format(sql.Identifier(LOGIN_TRIGGER)))


def migrate_as_owner(conn: psycopg.Connection, url: str) -> dict[str, bool]:
    """The schema's migrations, run as trove_owner (what they create belongs to it)."""
    from desktop_app.core.store.postgres.migrations import migrate

    conn.execute(sql.SQL("SET ROLE {}").format(sql.Identifier(OWNER_ROLE)))
    try:
        return migrate(conn, url)
    finally:
        conn.execute("RESET ROLE")


# ---- the cluster's databases, for core/server/databases.py ----------------------------------------------------


def close_cluster_databases(conn: psycopg.Connection) -> None:
    """postgres and template1 are not libraries: no person connects to them."""
    for cluster_db in ("postgres", "template1"):
        conn.execute(sql.SQL("REVOKE ALL ON DATABASE {} FROM PUBLIC").format(sql.Identifier(cluster_db)))


def library_databases(conn: psycopg.Connection) -> list[str]:
    """Every database a person could connect to but postgres (each one a library, whoever made it)."""
    return [r[0] for r in conn.execute(
        "SELECT datname FROM pg_database WHERE datallowconn AND NOT datistemplate AND datname <> 'postgres'")]


def own_database(conn: psycopg.Connection, name: str) -> None:
    """`name` belongs to trove_owner, and only its members and the library's group may connect."""
    conn.execute(sql.SQL("ALTER DATABASE {} OWNER TO {}").format(sql.Identifier(name), sql.Identifier(OWNER_ROLE)))
    restrict_database(conn, name)


def create_extensions(conn: psycopg.Connection, extensions: tuple[str, ...]) -> None:
    """The extensions in the connected database, as the superuser (pgvector is not a trusted extension)."""
    for ext in extensions:
        conn.execute(sql.SQL("CREATE EXTENSION IF NOT EXISTS {}").format(sql.Identifier(ext)))


def ensure_database(conn: psycopg.Connection, name: str, template: str | None = None) -> None:
    """A database owned by trove_owner (copied from `template` when given), made when missing, restricted."""
    if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone():
        copy = sql.SQL(" TEMPLATE {}").format(sql.Identifier(template)) if template else sql.SQL("")
        conn.execute(sql.SQL("CREATE DATABASE {} OWNER {}{}").format(
            sql.Identifier(name), sql.Identifier(OWNER_ROLE), copy))
    restrict_database(conn, name)


def drop_database(conn: psycopg.Connection, name: str) -> None:
    """Drop a database (its connections are ended first)."""
    conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
