"""The library-wide notices every desktop may write (meta's `embed_error`, `ocr_error`) are data: the server refuses a
value with a control character (an ANSI escape, a C1 CSI) or past 4000 characters, whoever writes it by hand, and a
desktop's own failure text is stored with its controls shown. Real server, Alice signs in as a person."""

from __future__ import annotations

import psycopg
import pytest

from desktop_app.core.store.postgres import PostgresStore
from tests.support.people import connect, person_url

UPSERT = "INSERT INTO meta (key, value) VALUES (%s, %s) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value"


def test_a_persons_escape_sequence_in_a_shared_notice_is_refused_and_a_plain_error_is_kept(pg_server, pg_url):
    PostgresStore(pg_url, machine="desk-admin").close()  # the schema, 013's CHECK included
    alice_url = person_url(pg_server, pg_url, "alice")
    with connect(alice_url) as conn:
        plain = "Embedding stopped: the model file is missing.\n\tlook in Settings → Models"
        conn.execute(UPSERT, ("embed_error", plain))  # a person may write the shared notice
        assert conn.execute("SELECT value FROM meta WHERE key = 'embed_error'").fetchone() == (plain,)
        for hostile in ("stopped \x1b[2J\x1b]0;owned\x07", "stopped \x9b31m red", "bell\x07", "x" * 4001):
            with pytest.raises(psycopg.errors.CheckViolation):
                conn.execute("UPDATE meta SET value = %s WHERE key = 'embed_error'", (hostile,))
            with pytest.raises(psycopg.errors.CheckViolation):
                conn.execute(UPSERT, ("ocr_error", hostile))
        assert conn.execute("SELECT value FROM meta WHERE key = 'embed_error'").fetchone() == (plain,)
    with connect(pg_url) as admin, pytest.raises(psycopg.errors.CheckViolation):  # the administrator too
        admin.execute(UPSERT, ("ocr_error", "\x1b[31m"))

    alice = PostgresStore(alice_url, machine="desk-alice")
    try:  # a desktop's own failure text holding controls is kept, shown, not refused
        alice.set_meta("ocr_error", "cannot read \x1b[2Jpage\x9b")
        assert alice.get_meta("ocr_error") == "cannot read \\x1b[2Jpage\\x9b"
    finally:
        alice.close()
