"""Saved searches through the facade (`library.saved`) on both engines: a query with its filters kept under a name,
listed, run (the same results as typing it), renamed, removed; kept per library, across reopening; a damaged file
is refused with its path and never overwritten."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_app.core.library import Library
from desktop_app.core.search.saved import FILE_NAME, SavedSearch, SavedSearchError
from desktop_app.core.settings import Settings


def docs_folder(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    (docs / "Invoices").mkdir(parents=True)
    (docs / "launch.md").write_text("---\ndate: 2024-03-14\ntags: [launch]\n---\nThe lighthouse launch plan.\n",
                                    encoding="utf-8")
    (docs / "Invoices" / "acme.txt").write_text("Invoice 2023-11-02\nLighthouse lamp repairs.\n", encoding="utf-8")
    (docs / "notes.txt").write_text("Lighthouse keeper notes.\n", encoding="utf-8")
    return docs


@pytest.fixture(params=["sqlite", "postgres"])
def engine_db(request) -> str | None:
    """None for the embedded engine, a fresh database's URL on the tests' PostgreSQL server."""
    return request.getfixturevalue("pg_url") if request.param == "postgres" else None


@pytest.fixture
def library(engine_db, tmp_path):
    lib = Library(tmp_path / "home", settings=Settings(embedder="hash"), db=engine_db)
    lib.add_folder(docs_folder(tmp_path))
    lib.sync(wait=True)
    yield lib
    lib.close()


def names(results) -> list[str]:
    return sorted(Path(r.source).name for r in results)


def test_a_saved_search_runs_as_typed_and_round_trips(library, tmp_path):
    saved = library.saved
    assert saved.searches() == []
    kept = saved.save("  Launch   notes ", 'lighthouse tag:launch after:2024-03 -"lamp repairs"')
    assert kept == SavedSearch("Launch notes", 'lighthouse tag:launch after:2024-03 -"lamp repairs"')
    saved.save("Invoices", "folder:Invoices lighthouse")
    assert [s.name for s in library.saved.searches()] == ["Launch notes", "Invoices"]  # a new sub-facade, same file
    assert names(saved.run("launch NOTES", mode="keyword")) == ["launch.md"]  # names ignore case
    assert names(saved.run("Invoices", mode="keyword")) == ["acme.txt"]
    assert names(saved.run("Invoices", mode="keyword")) == \
        names(library.search("folder:Invoices lighthouse", mode="keyword"))

    saved.rename("invoices", "ACME bills")
    assert saved.get("acme bills").query == "folder:Invoices lighthouse"
    with pytest.raises(SavedSearchError, match="No saved search called “Invoices”"):
        saved.run("Invoices")
    with pytest.raises(SavedSearchError, match="already a saved search called “Launch notes”"):
        saved.save("launch notes", "something else")
    with pytest.raises(SavedSearchError, match="already"):
        saved.rename("ACME bills", "Launch Notes")
    saved.save("launch notes", "lighthouse", replace=True)
    assert saved.get("Launch notes").query == "lighthouse"
    assert saved.remove("acme BILLS").name == "ACME bills"
    assert saved.searches() == [SavedSearch("Launch notes", "lighthouse")]  # replaced, its name kept
    with pytest.raises(SavedSearchError):
        saved.remove("ACME bills")
    for bad in ("", "   "):
        with pytest.raises(SavedSearchError, match="needs a name"):
            saved.save(bad, "lighthouse")
    with pytest.raises(SavedSearchError, match="needs a query"):
        saved.save("empty", "  ")


def test_saved_searches_are_per_library_and_outlive_the_window(library, engine_db, tmp_path):
    library.saved.save("ภาษาไทย รายงาน", "รายงาน lang:th last month")
    home = library.home
    other = Library(tmp_path / "other-home", settings=Settings(embedder="hash"))
    try:
        assert other.saved.searches() == []  # another library keeps its own
    finally:
        other.close()
    assert (home / FILE_NAME).exists()
    library.close()
    with Library(home, settings=Settings(embedder="hash"), db=engine_db) as again:
        assert again.saved.searches() == [SavedSearch("ภาษาไทย รายงาน", "รายงาน lang:th last month")]


def test_a_damaged_file_is_refused_and_kept(tmp_path):
    lib = Library(tmp_path / "home", settings=Settings(embedder="hash"))
    try:
        path = lib.home / FILE_NAME
        path.write_text('{"not": "a list"', encoding="utf-8")
        with pytest.raises(SavedSearchError, match="damaged"):
            lib.saved.searches()
        with pytest.raises(SavedSearchError, match=str(path)):
            lib.saved.save("x", "y")
        assert path.read_text(encoding="utf-8") == '{"not": "a list"'
    finally:
        lib.close()


def test_a_backup_carries_the_saved_searches(tmp_path):
    with Library(tmp_path / "home", settings=Settings(embedder="hash")) as lib:
        lib.add_folder(docs_folder(tmp_path))
        lib.sync(wait=True)
        lib.saved.save("Bills", "folder:Invoices lighthouse")
        archive = lib.backups.backup(tmp_path / "backup.tar.gz").path
        lib.saved.remove("Bills")
        lib.backups.restore(archive)
    with Library(tmp_path / "home", settings=Settings(embedder="hash")) as again:
        assert again.saved.searches() == [SavedSearch("Bills", "folder:Invoices lighthouse")]
        assert names(again.saved.run("Bills", mode="keyword")) == ["acme.txt"]
