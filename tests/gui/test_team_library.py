"""Bob's window on a team library (the test server, Bob signed in as himself): searching in every mode and
listing folders, it never shows Alice's private folder or anything from it, and it does show the team folder
Alice shares (its results, and in the search's folder picker). PostgreSQL's row-level security decides; the
window only shows what Bob's own connection may read.

    TROVE_TEAM_SCREENSHOT=docs/screenshots/team-b.png pytest tests/gui/test_team_library.py

also saves the window as the docs show it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from desktop_app.core.library import Library
from desktop_app.core.store.rows import Share
from tests.gui.gui_helpers import search, wait_indexed
from tests.support.people import person_url

SECRET = "zanzibar"  # only Alice's private files hold it
MODES = ("keyword", "semantic", "hybrid")


def write_folder(root: Path, files: dict[str, str]) -> Path:
    root.mkdir(parents=True)
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
    return root


@pytest.fixture
def office(tmp_path, settings, pg_server, pg_url, monkeypatch):
    """Alice indexed her private folder and the team folder from her desktop; Bob has a folder of his own."""
    Library(tmp_path / "admin", settings=settings, db=pg_url).close()  # the administrator migrated it
    folders = {
        "alice": write_folder(tmp_path / "alice-private", {
            f"merger-{i}.txt": f"The {SECRET} merger: harbour berths and tides, draft {i}." for i in range(3)}),
        "team": write_folder(tmp_path / "team-harbour", {
            f"pilots-{i}.txt": f"Harbour pilots' rota for week {i}: tides, berths and ferry times." for i in range(4)}),
        "bob": write_folder(tmp_path / "bob-notes", {
            f"bob-{i}.txt": f"Bob's notes on harbour cranes and berths, page {i}." for i in range(2)}),
    }
    monkeypatch.setenv("TROVE_MACHINE_ID", "desk-alice")
    alice = Library(tmp_path / "alice-home", settings=settings, db=person_url(pg_server, pg_url, "alice"))
    try:
        alice.add_folder(folders["alice"], Share("private"))
        alice.add_folder(folders["team"], Share("team"))
        alice.sync()
        assert alice.wait_for_embeddings(120)
    finally:
        alice.close()
    monkeypatch.setenv("TROVE_MACHINE_ID", "desk-bob")
    return {"url": person_url(pg_server, pg_url, "bob"), "folders": folders}


@pytest.fixture
def library(tmp_path, settings, office):
    """The window's library: Bob's, on the server."""
    lib = Library(tmp_path / "bob-home", settings=settings, db=office["url"])
    yield lib
    lib.close()


def places(results) -> set[str]:
    return {Path(r.source).parent.name for r in results}


def search_in(qtbot, window, text: str, mode: str) -> list:
    panel = window.search_panel
    panel.query.setText("")
    panel.mode.setCurrentIndex(panel.mode.findData(mode))
    return search(qtbot, window, text)


def test_bobs_window_shows_the_team_folder_and_nothing_of_alices(qtbot, window, library, office):
    folders = office["folders"]
    window.folders_panel.add_paths([str(folders["bob"])])
    wait_indexed(qtbot, window, folders["bob"], 2)
    qtbot.waitUntil(lambda: library.wait_for_embeddings(0) and library.stats()["chunks_embedded"] == 6,
                    timeout=60_000)
    listed = set(window.folders_panel._rows)
    assert listed == {str(folders["bob"].resolve())}  # his own; the team folder is indexed on Alice's desktop
    picker = window.search_panel.folder_filter
    qtbot.waitUntil(lambda: picker.count() == 3, timeout=10_000)  # "All folders", his own, the team's
    choices = {picker.itemData(i) for i in range(1, picker.count())}
    assert choices == {str(folders["bob"].resolve()), str(folders["team"].resolve())}

    for mode in MODES:
        results = search_in(qtbot, window, "harbour berths", mode)
        assert places(results) == {"team-harbour", "bob-notes"}, (mode, places(results))
        assert len(results) == 6 and not any(SECRET in r.content for r in results)
        hidden = search_in(qtbot, window, SECRET, mode)
        assert "alice-private" not in places(hidden) and not any(SECRET in r.content for r in hidden)
    assert search_in(qtbot, window, SECRET, "keyword") == []
    assert window.search_panel.summary.text() == f"No results for “{SECRET}”"

    panel = window.search_panel
    search_in(qtbot, window, "harbour berths", "hybrid")
    typed = f"folder:{folders['team'].name} harbour berths"  # the picker writes the folder into the query
    with qtbot.waitSignal(panel.results_shown, timeout=10_000, check_params_cb=lambda q, _n: q == typed):
        picker.setCurrentIndex(picker.findData(str(folders["team"].resolve())))
    results = panel.model.results()
    assert places(results) == {"team-harbour"} and len(results) == 4
    with qtbot.waitSignal(panel.results_shown, timeout=10_000, check_params_cb=lambda q, _n: q == "harbour berths"):
        picker.setCurrentIndex(0)
    results = panel.model.results()
    assert places(results) == {"team-harbour", "bob-notes"}
    assert all(r.metadata.get("machine") == "desk-alice" for r in results if "team-harbour" in r.source)

    shot = window.grab()
    assert not shot.isNull() and shot.width() > 600
    target = os.environ.get("TROVE_TEAM_SCREENSHOT")
    if target:
        assert shot.save(target)
