"""The folder panel's "Who sees it" control on a team library (a person signed in as themselves), and the window
refusing to open a result that is not in one of this machine's folders."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6.QtWidgets import QMenu

from desktop_app.core.library import Library
from desktop_app.core.store.postgres import PostgresStore
from desktop_app.ui import open_file
from tests.gui.gui_helpers import SAMPLE_DOCS, add_and_sync
from tests.support.people import person_url


@pytest.fixture
def library(tmp_path, settings, pg_server, pg_url, monkeypatch):
    """This window's library is on the test server, signed in as Alice; Bob is another person on it."""
    Library(tmp_path / "admin", settings=settings, db=pg_url).close()  # the administrator migrated it
    monkeypatch.setenv("TROVE_MACHINE_ID", "desk-alice")
    lib = Library(tmp_path / "home", settings=settings, db=person_url(pg_server, pg_url, "alice"))
    yield lib
    lib.close()


@pytest.fixture
def bob(pg_server, pg_url):
    store = PostgresStore(person_url(pg_server, pg_url, "bob"), machine="desk-bob")
    yield store
    store.close()


def _share_actions(window, folder: Path) -> dict[str, object]:
    menu = window.folders_panel.context_menu(str(folder.resolve()))
    sub = menu.findChild(QMenu, "shareMenu")
    return {a.text(): a for a in sub.actions()}


def _details(window, folder: Path) -> str:
    return window.folders_panel._rows[str(folder.resolve())].details.text()


def test_the_folder_panel_changes_who_sees_a_folder(qtbot, window, sample_folder, library, bob):
    add_and_sync(qtbot, window, sample_folder, SAMPLE_DOCS)
    assert "whole team" in _details(window, sample_folder) and bob.counts().documents == SAMPLE_DOCS
    actions = _share_actions(window, sample_folder)
    assert actions["Everyone in the team"].isChecked() and not actions["Only me"].isChecked()
    with qtbot.waitSignal(window.folders_panel.changed, timeout=10_000):
        actions["Only me"].trigger()
    qtbot.waitUntil(lambda: "private" in _details(window, sample_folder), timeout=10_000)
    assert bob.counts().documents == 0 and library.folders()[0].visibility == "private"
    assert _share_actions(window, sample_folder)["Only me"].isChecked()

    window.folders_panel.ask_people = lambda current: "bob"
    with qtbot.waitSignal(window.folders_panel.changed, timeout=10_000):
        _share_actions(window, sample_folder)["Certain people…"].trigger()
    qtbot.waitUntil(lambda: "you and bob" in _details(window, sample_folder), timeout=10_000)
    assert bob.counts().documents == SAMPLE_DOCS


def test_a_result_outside_this_machines_folders_is_not_opened(qtbot, window, sample_folder, tmp_path, opened):
    add_and_sync(qtbot, window, sample_folder, SAMPLE_DOCS)
    refused: list[tuple[str, str | None]] = []
    previous = open_file.set_refuser(lambda text, folder: refused.append((text, folder)))
    try:
        outside = tmp_path / "outside.txt"
        outside.write_text("not in the library")
        assert open_file.open_path(str(outside)) is False
        program = sample_folder / "install.sh"
        program.write_text("#!/bin/sh\necho hi\n")
        assert open_file.open_path(str(program)) is False
        inside = sample_folder / "first-aid-basics.txt"
        assert open_file.open_path(str(inside)) is True
    finally:
        open_file.set_refuser(previous)
    assert opened.calls == [(str(inside), None)]
    assert "library folders" in refused[0][0] and refused[0][1] is None
    assert "program or script" in refused[1][0] and refused[1][1] == os.path.realpath(sample_folder)
