"""The search pane's Saved menu, offscreen, over a real library (SQLite, the tests' embedder): the box's query with
its filters is saved under a name, listed, run (typed into the box, chips and pickers following), renamed and
deleted; the searches are the library's (`Library.saved`), so one saved elsewhere is listed too."""

from __future__ import annotations

from pathlib import Path

from desktop_app.core.search.saved import SavedSearch
from desktop_app.ui.window.changes import ChangeKind
from tests.gui.gui_helpers import add_and_sync, search


def titles(panel) -> list[str]:
    menu = panel.saved_menu
    menu.on_about_to_show()  # rebuilt from the library as it opens
    return [a.text() for a in menu.menu_.actions() if not a.isSeparator() and a.menu() is None]


def action(panel, label: str, submenu: str | None = None):
    menu = panel.saved_menu
    menu.on_about_to_show()
    actions = menu.menu_.actions()
    if submenu is not None:
        actions = next(a.menu() for a in actions if a.text() == submenu).actions()
    return next(a for a in actions if a.text() == label)


def test_save_run_rename_and_delete_a_search(qtbot, window, tmp_path):
    docs = tmp_path / "docs"
    (docs / "Invoices").mkdir(parents=True)
    (docs / "Invoices" / "acme.txt").write_text("Invoice 2023-11-02\nLighthouse lamp repairs.\n", encoding="utf-8")
    (docs / "launch.md").write_text("---\ndate: 2024-03-14\ntags: [launch]\n---\nThe lighthouse launch plan.\n",
                                    encoding="utf-8")
    add_and_sync(qtbot, window, docs, 2)
    panel, library = window.search_panel, window.library
    assert panel.saved_menu.isVisibleTo(window)
    assert titles(panel) == ["Save this search…"] and not action(panel, "Save this search…").isEnabled()

    search(qtbot, window, "folder:Invoices lighthouse")
    panel.saved_menu.ask_text = lambda _title, _prompt, _text: "  Bills "
    action(panel, "Save this search…").trigger()
    assert library.saved.searches() == [SavedSearch("Bills", "folder:Invoices lighthouse")]
    library.saved.save("Launch", "tag:launch")  # as `trove saved add` would
    assert titles(panel) == ["Save this search…", "Bills", "Launch"]

    search(qtbot, window, "something else")
    with qtbot.waitSignal(panel.results_shown, timeout=10_000,
                          check_params_cb=lambda q, _n: q == "folder:Invoices lighthouse"):
        action(panel, "Bills").trigger()
    assert panel.query.text() == "folder:Invoices lighthouse"
    assert [Path(r.source).name for r in panel.model.results()] == ["acme.txt"]
    assert panel.folder_filter.currentText() == "folder:Invoices"  # no library folder of that name: as typed
    assert [b.text() for b in panel.chips.buttons] == ["folder:Invoices  ✕"]

    search(qtbot, window, "tag:launch lighthouse")
    panel.saved_menu.ask_text = lambda _title, _prompt, _text: "bills"
    panel.saved_menu.confirm = lambda _question: False  # asked before replacing: no
    action(panel, "Save this search…").trigger()
    assert library.saved.get("Bills").query == "folder:Invoices lighthouse"
    panel.saved_menu.confirm = lambda _question: True
    action(panel, "Save this search…").trigger()
    assert library.saved.get("Bills").query == "tag:launch lighthouse"

    panel.saved_menu.ask_text = lambda _title, _prompt, text: f"{text} (launch)"
    action(panel, "Bills", submenu="Rename").trigger()
    panel.saved_menu.ask_text = lambda _title, _prompt, _text: "Bills (launch)"
    action(panel, "Launch", submenu="Rename").trigger()  # a name taken: refused, said in the pane
    assert "already a saved search called “Bills (launch)”" in panel.summary.text()
    action(panel, "Launch", submenu="Delete").trigger()
    assert titles(panel) == ["Save this search…", "Bills (launch)"]
    assert [s.name for s in library.saved.searches()] == ["Bills (launch)"]


def test_a_saved_search_follows_the_files_while_it_is_shown(qtbot, window, tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "acme.txt").write_text("Invoice from ACME: lighthouse lamp repairs.\n", encoding="utf-8")
    add_and_sync(qtbot, window, docs, 1)
    panel, library = window.search_panel, window.library
    library.saved.save("Lamps", "lighthouse lamp")
    with qtbot.waitSignal(panel.results_shown, timeout=10_000):
        action(panel, "Lamps").trigger()
    assert [Path(r.source).name for r in panel.model.results()] == ["acme.txt"]

    (docs / "globex.txt").write_text("Invoice from Globex: lighthouse lamp oil.\n", encoding="utf-8")
    with qtbot.waitSignal(panel.results_shown, timeout=20_000, check_params_cb=lambda q, n: n == 2):
        library.sync_paths([docs / "globex.txt"], wait=True)  # indexing announces the change; nothing is typed
    assert sorted(Path(r.source).name for r in panel.model.results()) == ["acme.txt", "globex.txt"]

    search(qtbot, window, "lighthouse lamp oil")  # typed by hand: not a saved search, so it stays as it was
    shown, changes = [], []
    panel.results_shown.connect(lambda q, n: shown.append(q))
    window.events.changed.connect(lambda change: changes.append(change.kind))
    (docs / "initech.txt").write_text("Invoice from Initech: lighthouse lamp oil.\n", encoding="utf-8")
    library.sync_paths([docs / "initech.txt"], wait=True)
    qtbot.waitUntil(lambda: ChangeKind.DOCUMENTS in changes, timeout=10_000)  # the pane was told, and let it be
    assert not panel._live.isActive() and shown == []
