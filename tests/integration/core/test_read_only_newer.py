"""A library a newer Trove wrote, and is holding open, opens read-only here: search and stats work, every write is
refused in the one line that says why, and the newer Trove's file is never changed by this one."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_app.cli import main
from desktop_app.core.errors import ReadOnlyDatabaseError
from desktop_app.core.library import Library
from desktop_app.core.store.sqlite.connect import connect
from desktop_app.core.store.sqlite.migrations import SCHEMA_VERSION

FERRY = "The ferry to the island leaves at dawn, when the harbour master rings the brass bell.\n"
LINE = (f"This library was written by a newer Trove (schema 999; this one knows up to {SCHEMA_VERSION}): it is "
        "read-only here: search and ask work, nothing is indexed and chats are not saved. Update Trove to change it.")


@pytest.fixture
def newer_library(tmp_path, minilm):
    """A library indexed here, then taken over by a 'newer Trove': a connection that records a migration this
    version does not know and keeps the library open (its last writes still in the -wal) for the whole test."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "ferry.txt").write_text(FERRY * 3)
    home = tmp_path / "home"
    with Library(home, embedder=minilm) as lib:
        lib.add_folder(docs)
        lib.sync(wait=True)
    newer = connect(home / "library.db")
    newer.execute("INSERT INTO migrations (id, name, applied_at) VALUES (999, 'from_the_future', 0)")
    newer.execute("CREATE TABLE future_things (id INTEGER PRIMARY KEY, note TEXT)")
    assert (home / "library.db-wal").stat().st_size > 0  # held open: its writes are not checkpointed yet
    yield home, docs, newer
    newer.close()


def files_of(home: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(home.iterdir()) if p.name in ("library.db", "library.db-wal")}


def test_a_library_a_newer_trove_holds_open_is_searched_read_only(newer_library, minilm):
    home, docs, newer = newer_library
    before = files_of(home)
    with Library(home, embedder=minilm) as lib:
        assert lib.read_only == LINE
        assert [Path(r.source).name for r in lib.search("harbour bell", mode="keyword", top_k=1)] == ["ferry.txt"]
        assert [Path(r.source).name for r in lib.search("boat to an island at sunrise", mode="semantic",
                                                        top_k=1)] == ["ferry.txt"]
        assert lib.stats()["documents"] == 1
        for refused in (lambda: lib.sync(wait=True), lib.start_watching, lambda: lib.add_folder(docs)):
            with pytest.raises(ReadOnlyDatabaseError) as err:
                refused()
            assert str(err.value) == LINE
        # the newer Trove goes on writing while this one reads
        newer.execute("INSERT INTO future_things (note) VALUES ('still here')")
        assert lib.stats()["documents"] == 1
    assert newer.execute("SELECT MAX(id) FROM migrations").fetchone()[0] == 999  # nothing migrated back
    after = files_of(home)
    assert after["library.db"] == before["library.db"]
    assert newer.execute("SELECT note FROM future_things").fetchall()[0][0] == "still here"


def test_the_cli_searches_and_says_why_in_one_line(newer_library, capsys):
    home, docs, _newer = newer_library
    assert main(["--home", str(home), "search", "harbour bell", "--mode", "keyword"]) == 0
    captured = capsys.readouterr()
    assert "ferry.txt" in captured.out
    assert captured.err.strip().splitlines() == [f"trove: {LINE}"]
    assert main(["--home", str(home), "index", str(docs)]) == 1
    assert capsys.readouterr().err.strip().splitlines() == [f"trove: {LINE}"]


def test_a_closed_newer_library_opens_read_only_too(tmp_path, minilm, capsys):
    Library(tmp_path / "home", embedder=minilm).close()
    conn = connect(tmp_path / "home" / "library.db")
    conn.execute("INSERT INTO migrations (id, name, applied_at) VALUES (999, 'from_the_future', 0)")
    conn.close()
    before = (tmp_path / "home" / "library.db").read_bytes()
    assert main(["--home", str(tmp_path / "home"), "stats"]) == 0
    assert capsys.readouterr().err.strip().splitlines() == [f"trove: {LINE}"]
    assert (tmp_path / "home" / "library.db").read_bytes() == before
