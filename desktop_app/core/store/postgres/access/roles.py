"""The team library's roles (docs/team-library.md has the picture), made idempotently by `trove server start`.

- `trove_owner` (NOLOGIN) owns the library databases and every table in them; migrations run as it.
- `trove` (LOGIN, the administrator's URL on the server machine) is a member of trove_owner and every one of
  its sessions runs as it (`ALTER ROLE trove SET role`), so what it creates belongs to trove_owner.
- `trove_people` (NOLOGIN) holds the people's GRANTs (DML only, from the schema's migrations); nobody is in it
  directly and it may connect nowhere.
- `trove_l_<library>` (NOLOGIN), one per library database: the only role that may CONNECT to it; a member of
  trove_people, so its members get the people's GRANTs there and only there.
- `trove_p_<name>`: one LOGIN role per person, SCRAM password, made by `trove server invite NAME`. Until the
  invite is accepted it is in no group: it may connect to its invite's library and call accept_invite, nothing
  else. Accepting makes it a member of that library's group.

Every membership is `WITH INHERIT TRUE, SET FALSE`: a person has the group's privileges but can never act as the
group (`SET ROLE trove_people` and `options=-c role=…` fail), so every row a person writes is owned by them.

Every function takes a superuser connection (autocommit). Passwords are sent as SCRAM verifiers made on this
side (libpq's PQencryptPasswordConn), so no statement ever carries a password in clear.
"""

from __future__ import annotations

import hashlib
import re
import time

import psycopg
from psycopg import sql

from desktop_app.core.errors import KnownError

PEOPLE_GROUP = "trove_people"
OWNER_ROLE = "trove_owner"
PERSON_PREFIX = "trove_p_"
LIBRARY_PREFIX = "trove_l_"
ADMIN_ROLE = "trove"
CONNECTION_LIMIT = 32  # per person: a desktop's pool (8) several times over
# Per person, so one desktop (or one psql) cannot hold the server: generous for a search or a side-index build
# (a cursor's every fetch is its own statement), short of a runaway query or a disk filled with sort files.
PERSON_LIMITS = {"statement_timeout": "15min", "temp_file_limit": "4GB",
                 "idle_in_transaction_session_timeout": "30min"}
_NAME = re.compile(r"[a-z0-9_]{1,40}")
_LIBRARY = re.compile(r"[a-z0-9_]{1,50}")
MEMBER = sql.SQL(" WITH INHERIT TRUE, SET FALSE")  # the group's privileges, never its identity


class RoleError(KnownError):
    """A person's name that cannot be a role, or a person who does not exist (or already does)."""


def role_name(person: str) -> str:
    """`alice` -> `trove_p_alice` (lower-case letters, digits and _, at most 40)."""
    name = person.strip().lower()
    if name.startswith(PERSON_PREFIX):
        name = name[len(PERSON_PREFIX):]
    if not _NAME.fullmatch(name):
        raise RoleError(f"{person!r} cannot be a person's name: use up to 40 letters a-z, digits or _.")
    return PERSON_PREFIX + name


def person_of(role: str) -> str:
    """A person's display name: the role name without the prefix."""
    return role[len(PERSON_PREFIX):] if role.startswith(PERSON_PREFIX) else role


def _ident(name: str) -> sql.Identifier:
    return sql.Identifier(name)


def _exists(conn: psycopg.Connection, role: str) -> bool:
    return conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)).fetchone() is not None


def verifier(conn: psycopg.Connection, role: str, password: str) -> str:
    """The SCRAM-SHA-256 verifier of `password` for `role` (what ALTER ROLE … PASSWORD stores)."""
    return conn.pgconn.encrypt_password(password.encode(), role.encode(), b"scram-sha-256").decode("ascii")


def accept_invite(conn: psycopg.Connection, new_verifier: str) -> None:
    """A pending person's first session sets its own password (provision.ACCEPT_INVITE; it raises when the invite
    was used or has expired)."""
    conn.execute("SELECT trove_admin.accept_invite(%s)", (new_verifier,))


def current_role(conn: psycopg.Connection) -> str:
    """The role this session signed in as ("" when the server says nothing)."""
    row = conn.execute("SELECT current_user").fetchone()
    return str(row[0]) if row else ""


def _until(valid_until: float | None) -> sql.Composable:
    if valid_until is None:
        return sql.SQL("'infinity'")
    return sql.Literal(time.strftime("%Y-%m-%d %H:%M:%S+00", time.gmtime(valid_until)))


def library_group(database: str) -> str:
    """The group whose members may connect to one library: `trove_l_<database>` (hashed when the name is long
    or has other characters than a-z, digits and _)."""
    if _LIBRARY.fullmatch(database):
        return LIBRARY_PREFIX + database
    return LIBRARY_PREFIX + hashlib.sha256(database.encode("utf-8")).hexdigest()[:24]


def _create_nologin(conn: psycopg.Connection, role: str) -> None:
    if not _exists(conn, role):
        try:
            conn.execute(sql.SQL("CREATE ROLE {} NOLOGIN").format(_ident(role)))
        except psycopg.errors.DuplicateObject:
            pass  # another start made it at the same moment


def ensure_group_roles(conn: psycopg.Connection) -> None:
    """trove_owner and trove_people, made when missing."""
    for role in (OWNER_ROLE, PEOPLE_GROUP):
        _create_nologin(conn, role)


def ensure_library_group(conn: psycopg.Connection, database: str) -> str:
    """The library's group (made when missing, in trove_people without SET); the only role that may connect to it
    besides the owner's members. Returns its name."""
    group = library_group(database)
    _create_nologin(conn, group)
    conn.execute(sql.SQL("GRANT {} TO {}").format(_ident(PEOPLE_GROUP), _ident(group)) + MEMBER)
    db = _ident(database)
    conn.execute(sql.SQL("GRANT CONNECT ON DATABASE {} TO {}").format(db, _ident(group)))
    conn.execute(sql.SQL("REVOKE CONNECT ON DATABASE {} FROM {}").format(db, _ident(PEOPLE_GROUP)))
    return group


def admit(conn: psycopg.Connection, role: str, database: str) -> None:
    """Make `role` a member of the library's group (its privileges, not its identity)."""
    group = ensure_library_group(conn, database)
    conn.execute(sql.SQL("GRANT {} TO {}").format(_ident(group), _ident(role)) + MEMBER)


def _groups_of(conn: psycopg.Connection, role: str) -> list[str]:
    rows = conn.execute("SELECT g.rolname FROM pg_auth_members m JOIN pg_roles g ON g.oid = m.roleid "
                        "JOIN pg_roles u ON u.oid = m.member WHERE u.rolname = %s "
                        "AND (starts_with(g.rolname, %s) OR g.rolname = %s)",
                        (role, LIBRARY_PREFIX, PEOPLE_GROUP)).fetchall()
    return sorted({r[0] for r in rows})


def _leave_groups(conn: psycopg.Connection, role: str) -> None:
    for group in _groups_of(conn, role):
        conn.execute(sql.SQL("REVOKE {} FROM {}").format(_ident(group), _ident(role)))


def harden_memberships(conn: psycopg.Connection, libraries: list[str]) -> None:
    """Memberships made by an older Trove: a person directly in trove_people (which could connect to every
    library) moves to the groups of `libraries`, and every membership of the people's groups loses SET."""
    legacy = [r[0] for r in conn.execute(
        "SELECT u.rolname FROM pg_auth_members m JOIN pg_roles g ON g.oid = m.roleid JOIN pg_roles u "
        "ON u.oid = m.member WHERE g.rolname = %s AND starts_with(u.rolname, %s)", (PEOPLE_GROUP, PERSON_PREFIX))]
    for role in legacy:
        for database in libraries:
            admit(conn, role, database)
        conn.execute(sql.SQL("REVOKE {} FROM {}").format(_ident(PEOPLE_GROUP), _ident(role)))
    rows = conn.execute(
        "SELECT g.rolname, u.rolname FROM pg_auth_members m JOIN pg_roles g ON g.oid = m.roleid JOIN pg_roles u "
        "ON u.oid = m.member WHERE (g.rolname = %s OR starts_with(g.rolname, %s)) AND (m.set_option OR NOT "
        "m.inherit_option)", (PEOPLE_GROUP, LIBRARY_PREFIX)).fetchall()
    for group, member in rows:
        conn.execute(sql.SQL("GRANT {} TO {}").format(_ident(group), _ident(member)) + MEMBER)
    for (role,) in conn.execute("SELECT rolname FROM pg_roles WHERE starts_with(rolname, %s)",
                                (PERSON_PREFIX,)).fetchall():
        limit_person(conn, role)


def ensure_admin(conn: psycopg.Connection, password: str) -> None:
    """The `trove` login role with `password`, acting as trove_owner in every session."""
    verb = "ALTER" if _exists(conn, ADMIN_ROLE) else "CREATE"
    conn.execute(sql.SQL(verb + " ROLE {} LOGIN PASSWORD {}").format(
        _ident(ADMIN_ROLE), sql.Literal(verifier(conn, ADMIN_ROLE, password))))
    if not conn.execute("SELECT 1 FROM pg_auth_members m JOIN pg_roles r ON r.oid = m.roleid "
                        "JOIN pg_roles u ON u.oid = m.member WHERE r.rolname = %s AND u.rolname = %s",
                        (OWNER_ROLE, ADMIN_ROLE)).fetchone():
        conn.execute(sql.SQL("GRANT {} TO {}").format(_ident(OWNER_ROLE), _ident(ADMIN_ROLE)))
    conn.execute(sql.SQL("ALTER ROLE {} SET role = {}").format(_ident(ADMIN_ROLE), sql.Literal(OWNER_ROLE)))


def create_person(conn: psycopg.Connection, person: str, password: str, *,
                  valid_until: float | None = None, database: str | None = None) -> str:
    """A person's login role, pending: in no group, its password ending at `valid_until`, allowed to connect to
    `database` only to accept its invite (provision.ACCEPT_INVITE admits it). Returns the role name."""
    role = role_name(person)
    if _exists(conn, role):
        raise RoleError(f"{person_of(role)!r} already exists: `trove server rotate {person_of(role)}` makes a "
                        "new invite for them.")
    conn.execute(sql.SQL("CREATE ROLE {} LOGIN PASSWORD {} VALID UNTIL {} CONNECTION LIMIT {}").format(
        _ident(role), sql.Literal(verifier(conn, role, password)), _until(valid_until),
        sql.Literal(CONNECTION_LIMIT)))
    if database is not None:
        conn.execute(sql.SQL("GRANT CONNECT ON DATABASE {} TO {}").format(_ident(database), _ident(role)))
    limit_person(conn, role)
    return role


def limit_person(conn: psycopg.Connection, role: str) -> None:
    """The person's PERSON_LIMITS, set on their role (temp_file_limit only a superuser may set: they cannot
    raise it)."""
    for name, value in PERSON_LIMITS.items():
        conn.execute(sql.SQL("ALTER ROLE {} SET {} = {}").format(_ident(role), sql.Identifier(name),
                                                                 sql.Literal(value)))


def _known(conn: psycopg.Connection, person: str) -> str:
    role = role_name(person)
    if not _exists(conn, role):
        raise RoleError(f"No person called {person_of(role)!r} on this server (`trove server users` lists them).")
    return role


def end_sessions(conn: psycopg.Connection, role: str) -> int:
    """Terminate every session of `role` (waiting up to 5 s for each); returns how many there were."""
    rows = conn.execute("SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE usename = %s",
                        (role,)).fetchall()
    return len(rows)


def revoke_person(conn: psycopg.Connection, person: str) -> None:
    """No more logins, out of every library's group, and every open session ended, at once."""
    role = _known(conn, person)
    conn.execute(sql.SQL("ALTER ROLE {} NOLOGIN").format(_ident(role)))
    _leave_groups(conn, role)
    end_sessions(conn, role)


def rotate_person(conn: psycopg.Connection, person: str, password: str, *,
                  valid_until: float | None = None, database: str | None = None) -> None:
    """A new password (a new invite's token) and the person pending again: out of every library's group until
    the invite for `database` is accepted; the old sessions end."""
    role = _known(conn, person)
    conn.execute(sql.SQL("ALTER ROLE {} LOGIN PASSWORD {} VALID UNTIL {}").format(
        _ident(role), sql.Literal(verifier(conn, role, password)), _until(valid_until)))
    _leave_groups(conn, role)
    if database is not None:
        conn.execute(sql.SQL("GRANT CONNECT ON DATABASE {} TO {}").format(_ident(database), _ident(role)))
    end_sessions(conn, role)


def list_people(conn: psycopg.Connection) -> list[str]:
    """Every person's name (role name minus the prefix), revoked ones included."""
    rows = conn.execute("SELECT rolname FROM pg_roles WHERE starts_with(rolname, %s) ORDER BY rolname",
                        (PERSON_PREFIX,)).fetchall()
    return [person_of(r[0]) for r in rows]


def people_status(conn: psycopg.Connection) -> list[tuple[str, str, int]]:
    """(name, state, open sessions) per person; state is active, invited until …, or revoked."""
    rows = conn.execute(
        "SELECT r.rolname, r.rolcanlogin, "
        "CASE WHEN r.rolvaliduntil IS NULL OR r.rolvaliduntil = 'infinity' THEN NULL "
        "ELSE to_char(r.rolvaliduntil AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI') END, "
        "(SELECT count(*) FROM pg_stat_activity a WHERE a.usename = r.rolname) "
        "FROM pg_roles r WHERE starts_with(r.rolname, %s) ORDER BY r.rolname",
        (PERSON_PREFIX,)).fetchall()
    out = []
    for role, login, until, sessions in rows:
        state = "revoked" if not login else f"invited (until {until} UTC)" if until else "active"
        out.append((person_of(role), state, int(sessions)))
    return out
