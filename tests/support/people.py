"""People on the test server: a login role per person, a member of the library's group, as `trove server invite`
and `trove join` leave them.

Made with the server's superuser connection (pg_server.admin()) by roles.py, the code `trove server invite` uses
(trove_p_<name>, admitted to trove_l_<library>); roles are the cluster's, so they are made once and reused by every
test, and admitted to each test's library.
"""

from __future__ import annotations

from urllib.parse import quote, urlsplit, urlunsplit

import psycopg

from desktop_app.core.store.postgres.access import roles

PASSWORD = "pw-for-tests-only"


def ensure_person(pg_server, name: str) -> str:
    """The role `trove_p_<name>` (LOGIN, no expiry), made if missing. Returns the role name."""
    role = roles.role_name(name)
    with pg_server.admin() as conn:
        roles.ensure_group_roles(conn)
        if not conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)).fetchone():
            roles.create_person(conn, name, PASSWORD)
    return role


def person_url(pg_server, url: str, name: str) -> str:
    """The library URL `url` signed in as person `name` (made if missing, admitted to that library)."""
    role = ensure_person(pg_server, name)
    parts = urlsplit(url)
    with pg_server.admin() as conn:
        roles.admit(conn, role, parts.path.lstrip("/"))
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{quote(role)}:{quote(PASSWORD)}@{host}"))


def connect(url: str) -> psycopg.Connection:
    """A raw autocommit connection (what someone with the URL and psql could do)."""
    return psycopg.connect(url, autocommit=True)
