"""The window on a server library: indexing, searching, a result on another desktop, the settings' connection test."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_app.core.ingest.chunking import Span
from desktop_app.core.library import Library
from desktop_app.core.store.postgres import PostgresStore
from desktop_app.core.store.rows import NewChunk, NewDocument
from desktop_app.ui import open_file
from desktop_app.ui.dialogs.settings import SettingsDialog
from desktop_app.ui.search.results_model import LocationRole
from tests.gui.gui_helpers import SAMPLE_DOCS, add_and_sync, search

ELSEWHERE = "/srv/desk-a-only/harbour/lighthouse-logbook.txt"  # a path that exists on desk-a's disk only


@pytest.fixture
def library(tmp_path, settings, pg_url, monkeypatch):
    """This window's library is on the test server, as machine desk-b; desk-a indexed one file of its own."""
    other = PostgresStore(pg_url, machine="desk-a")
    folder = other.add_folder(str(Path(ELSEWHERE).parent))
    text = "The lighthouse logbook records every ship that passed the harbour."
    other.write_document(NewDocument(folder_id=folder.id, path=ELSEWHERE, title="Lighthouse logbook", type="txt",
                                     size=len(text), mtime_ns=1, digest="h"),
                         [NewChunk(Span(0, len(text), text), None)])
    other.close()
    monkeypatch.setenv("TROVE_MACHINE_ID", "desk-b")
    lib = Library(tmp_path / "home", settings=settings, db=pg_url)
    yield lib
    lib.close()


@pytest.fixture
def told():
    messages: list[str] = []
    previous = open_file.set_notifier(messages.append)
    yield messages
    open_file.set_notifier(previous)


def test_the_window_indexes_and_searches_a_server_library(qtbot, window, sample_folder, library):
    add_and_sync(qtbot, window, sample_folder, SAMPLE_DOCS)
    assert library.stats()["engine"]["name"] == "postgresql"
    results = search(qtbot, window, "sourdough")
    assert results and Path(results[0].source).name == "sourdough-bread.html"
    assert "machine" not in results[0].metadata


def test_a_result_on_another_desktop_says_where_it_is(qtbot, window, sample_folder, opened, told):
    add_and_sync(qtbot, window, sample_folder, SAMPLE_DOCS)
    results = search(qtbot, window, "lighthouse logbook")
    row = next(i for i, r in enumerate(results) if r.source == ELSEWHERE)
    panel = window.search_panel
    assert panel.model.index(row).data(LocationRole).endswith("on desk-a")
    panel.view.setCurrentIndex(panel.model.index(row))
    assert panel.open_current() is False
    assert opened.calls == [] and len(told) == 1
    assert "another computer (desk-a)" in told[0] and ELSEWHERE in told[0]


def test_the_settings_dialog_tests_a_connection_off_the_ui_thread(qtbot, library, pg_server, pg_url):
    dialog = SettingsDialog(library.settings)
    qtbot.addWidget(dialog)
    dialog.server_url.setText(pg_url)
    with qtbot.waitSignal(dialog.probed, timeout=20_000) as got:
        dialog.test_button.click()
        assert not dialog.test_button.isEnabled()  # the UI thread is free while it connects
    ok, message = got.args
    assert ok and "PostgreSQL 18" in message and "a Trove library" in message
    assert dialog.probe_result.text().startswith("✓") and dialog.test_button.isEnabled()
    assert dialog.changes() == {"server_url": pg_url}

    wrong = pg_server.url(password="not-it")
    dialog.server_url.setText(wrong)
    with qtbot.waitSignal(dialog.probed, timeout=20_000) as got:
        dialog.test_button.click()
    ok, message = got.args
    assert not ok and "refused the user name or password" in message and "not-it" not in message
