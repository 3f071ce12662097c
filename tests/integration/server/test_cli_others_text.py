"""What `trove search` and `trove stats` print from another person's files (text, page labels, failure reasons)
reaches the terminal with its control characters shown, never as escape sequences: Alice's file holding ESC [ 2 J
does not clear Bob's screen. Real server, Alice writes through her store, Bob runs the CLI with his URL."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest

from desktop_app.cli import main
from desktop_app.core.ingest.chunking import Span
from desktop_app.core.store.postgres import PostgresStore
from desktop_app.core.store.rows import NewChunk, NewDocument, Share
from tests.support.people import person_url

HOSTILE = "lighthouse keeper \x1b[2J\x1b]0;owned\x07 log \x9b31m end"


def test_a_colleagues_escape_sequences_are_shown_not_sent(pg_server, pg_url, tmp_path, capsys):
    PostgresStore(pg_url, machine="desk-admin").close()
    alice = PostgresStore(person_url(pg_server, pg_url, "alice"), machine="desk-alice")
    try:
        folder = alice.add_folder(str(tmp_path / "alice-team"), Share("team"))
        path = Path(folder.path) / "log.txt"
        alice.write_document(NewDocument(folder_id=folder.id, path=str(path), title="log", type="txt",
                                         size=len(HOSTILE), mtime_ns=1, digest="h-log"),
                             [NewChunk(Span(0, len(HOSTILE), HOSTILE), None, label="\x1b[5mii")])
    finally:
        alice.close()
    bob = person_url(pg_server, pg_url, "bob")
    capsys.readouterr()
    assert main(["--home", str(tmp_path / "bob"), "--db", bob, "search", "lighthouse", "--mode", "keyword"]) == 0
    out = capsys.readouterr().out
    assert "lighthouse keeper" in out and "log.txt" in out
    assert "\x1b" not in out and "\x07" not in out and "\x9b" not in out
    assert "\\x1b[2J" in out  # shown, so Bob sees something odd is there


def test_a_library_wide_notice_a_colleague_wrote_is_shown_not_sent(pg_server, pg_url, tmp_path, capsys):
    PostgresStore(pg_url, machine="desk-admin").close()
    hostile = ("INSERT INTO meta VALUES ('embed_error', %s) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
               ("model gone \x1b]0;owned\x07\x1b[2J",))
    with psycopg.connect(person_url(pg_server, pg_url, "alice"), autocommit=True) as conn:  # any desktop may
        with pytest.raises(psycopg.errors.CheckViolation):  # schema 13 refuses it at the server ...
            conn.execute(*hostile)
        with psycopg.connect(pg_url, autocommit=True) as admin:  # ... a library not yet upgraded has no CHECK
            admin.execute("ALTER TABLE meta DROP CONSTRAINT meta_value_plain")
        conn.execute(*hostile)
    bob = person_url(pg_server, pg_url, "bob")
    capsys.readouterr()
    assert main(["--home", str(tmp_path / "bob"), "--db", bob, "stats"]) == 0
    out = capsys.readouterr().out
    assert "semantic indexing: model gone" in out and "\x1b" not in out and "\x07" not in out
