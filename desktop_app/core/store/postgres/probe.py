"""“Test connection”: reach a library server and say what is there, without changing anything on it."""

from __future__ import annotations

import psycopg

import desktop_app.core.store.postgres.connect as pgc
from desktop_app.core.errors import KnownError
from desktop_app.core.store.postgres.connect import scalar
from desktop_app.core.store.postgres.migrations import SCHEMA_VERSION


def server_version(conn: psycopg.Connection) -> str:
    """The server's PostgreSQL version ("18.1")."""
    return str(scalar(conn.execute("SHOW server_version")))


def listen_addresses(conn: psycopg.Connection) -> str:
    """The TCP addresses the server listens on ("" when only on its Unix socket)."""
    return str(scalar(conn.execute("SHOW listen_addresses")) or "")


def check_server(url: str) -> str:
    """One line describing the server at `url` (version, pgvector, Trove schema); a KnownError when it fails."""
    try:
        conn = psycopg.connect(url, autocommit=True, connect_timeout=pgc.CONNECT_TIMEOUT)
    except psycopg.Error as exc:
        raise pgc.translate_connect_error(exc, url) from None
    with conn:
        version = server_version(conn)
        vector = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()
        creatable = scalar(conn.execute(  # installed on the server, and this role may create it here
            "SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector') AND "
            "((SELECT rolsuper FROM pg_roles WHERE rolname = current_user) OR "
            "(COALESCE((SELECT bool_or(trusted) FROM pg_available_extension_versions WHERE name = 'vector'), false) "
            "AND has_database_privilege(current_database(), 'CREATE')))"))
        has_schema = scalar(conn.execute("SELECT to_regclass('trove_migrations') IS NOT NULL"))
        schema = scalar(conn.execute("SELECT max(id) FROM trove_migrations")) if has_schema else None
    if vector is None and not creatable:
        raise pgc.missing_vector(url)
    if schema is not None and schema > SCHEMA_VERSION:
        raise KnownError(f"Connected, but the library there was written by a newer Trove (schema {schema}).")
    library = f"a Trove library (schema {schema})" if schema else "an empty database (Trove sets it up on first use)"
    vec = f"pgvector {vector[0]}" if vector else "pgvector available"
    return f"Connected to PostgreSQL {version} at {pgc.describe(url)}: {vec}, {library}."
