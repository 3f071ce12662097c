"""“Test connection”: reach a library server and say what is there, without changing anything on it."""

from __future__ import annotations

import psycopg

import desktop_app.core.store.postgres.connect as pgc
from desktop_app.core.errors import KnownError
from desktop_app.core.store.postgres.connect import scalar
from desktop_app.core.store.postgres.migrations import SCHEMA_VERSION


def check_server(url: str) -> str:
    """One line describing the server at `url` (version, pgvector, Trove schema); a KnownError when it fails."""
    try:
        conn = psycopg.connect(url, autocommit=True, connect_timeout=pgc.CONNECT_TIMEOUT)
    except psycopg.Error as exc:
        raise pgc.translate_connect_error(exc, url) from None
    with conn:
        version = scalar(conn.execute("SHOW server_version"))
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
