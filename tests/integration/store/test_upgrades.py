"""Libraries written by every earlier schema open with today's Trove, keep their data, and keep working."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import pytest

from desktop_app.core.embed.base import HashEmbedder
from desktop_app.core.library import Library
from desktop_app.core.settings import Settings
from desktop_app.core.store.sqlite.migrations import SCHEMA_VERSION
from tests.support.helpers import assert_consistent, query_db

FIXTURES = Path(__file__).parents[2] / "fixtures" / "libraries"
OLD_LIBRARIES = sorted(FIXTURES.glob("*.db.gz"))
DOCS = {"lighthouse.txt", "bread.md", "trains.txt"}


def unpack(archive: Path, home: Path) -> Path:
    home.mkdir(parents=True)
    with gzip.open(archive) as src, open(home / "library.db", "wb") as dst:
        shutil.copyfileobj(src, dst)
    return home


def test_there_is_a_fixture_for_every_released_schema():
    assert {p.name.split("-")[0] for p in OLD_LIBRARIES} == {"schema3", "schema4"}


@pytest.mark.parametrize("archive", OLD_LIBRARIES, ids=lambda p: p.name.removesuffix(".db.gz"))
def test_an_old_library_upgrades_and_keeps_its_data(archive, tmp_path):
    home = unpack(archive, tmp_path / "home")
    before = query_db(home / "library.db", "SELECT path, title, content_hash, chunk_count FROM documents ORDER BY path")
    with Library(home, settings=Settings(embedder="hash"), embedder=HashEmbedder()) as lib:
        applied = query_db(lib.db_path, "SELECT id FROM migrations ORDER BY id")
        assert [r[0] for r in applied] == list(range(1, SCHEMA_VERSION + 1))
        after = query_db(lib.db_path, "SELECT path, title, content_hash, chunk_count FROM documents ORDER BY path")
        assert after == before and {Path(r[0]).name for r in after} == DOCS
        chats = lib.chat.list_chats()
        assert len(chats) == 1 and [m.role for m in lib.chat.messages(chats[0].id)] == ["user", "assistant"]
        # the keyword index of the new text pipeline is refilled from the stored chunk text by the next sync
        assert lib.store.keyword_rebuild_pending() == 3
        lib.sync(wait=True)  # the folder is gone: it goes offline and its documents stay
        assert lib.store.keyword_rebuild_pending() == 0
        assert [Path(r.source).name for r in lib.search("lighthouse crimson", mode="keyword")] == ["lighthouse.txt"]
        assert dict(lib.store.languages()) == {"en": 3}
        assert lib.stats()["documents"] == 3 and lib.stats()["chunks_embedded"] == 3
        assert [Path(r.source).name for r in lib.search("Harrowgate", mode="semantic", top_k=1)] == ["trains.txt"]
    assert_consistent(home / "library.db")


def test_the_window_layout_library_keeps_its_vectors(tmp_path):
    """A library made after the window layout shipped (by an edited migration 002) is not re-embedded."""
    [archive] = [p for p in OLD_LIBRARIES if "windows" in p.name]
    home = unpack(archive, tmp_path / "home")
    vectors_before = query_db(home / "library.db", "SELECT rowid, embedding FROM chunks_vec ORDER BY rowid")
    with Library(home, settings=Settings(embedder="hash"), embedder=HashEmbedder()):
        pass
    assert query_db(home / "library.db", "SELECT rowid, embedding FROM chunks_vec ORDER BY rowid") == vectors_before
    assert query_db(home / "library.db", "SELECT COUNT(*) FROM chunks WHERE embedded = 1") == [(3,)]


def test_a_library_from_a_newer_trove_opens_read_only_untouched(tmp_path):
    """Never migrated nor written: it opens read-only and says why (tests/integration/core/test_read_only_newer.py
    searches one a newer Trove holds open)."""
    home = unpack(OLD_LIBRARIES[-1], tmp_path / "home")
    from desktop_app.core.store.sqlite.connect import connect

    conn = connect(home / "library.db")
    conn.execute("INSERT INTO migrations (id, name, applied_at) VALUES (999, 'from_the_future', 0)")
    conn.close()
    before = (home / "library.db").read_bytes()
    with Library(home, settings=Settings(embedder="hash")) as lib:
        assert lib.read_only.startswith("This library was written by a newer Trove (schema 999;")
    assert (home / "library.db").read_bytes() == before
    assert not (home / "library.db.before-upgrade").exists()
