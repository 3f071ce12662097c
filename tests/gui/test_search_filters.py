"""The filters menu writes the query's syntax, offscreen, over a real library (SQLite, the tests' embedder): a picker
or the Filters menu puts `type:pdf`, `after:2024-03`, `tag:launch` into the search box, the pickers show what the
box holds, and removing a chip puts the picker back: the box, its chips and the menu always agree."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_app.ui.search.filters import TYPED
from tests.gui.gui_helpers import add_and_sync, search
from tests.support.helpers import write_pdf


@pytest.fixture
def dated(qtbot, window, tmp_path):
    docs = tmp_path / "docs"
    (docs / "Invoices").mkdir(parents=True)
    (docs / "launch.md").write_text("---\ndate: 2024-03-14\ntags: [launch]\n---\nThe lighthouse launch plan.\n",
                                    encoding="utf-8")
    (docs / "Invoices" / "acme.txt").write_text("Invoice 2023-11-02\nLighthouse lamp repairs.\n", encoding="utf-8")
    write_pdf(docs / "keeper.pdf", ["The lighthouse keeper's log."])
    add_and_sync(qtbot, window, docs, 3)
    window.schedule_refresh()
    qtbot.waitUntil(lambda: "launch" in window.search_panel.filters_menu.tags, timeout=10_000)
    return window


def names(panel) -> list[str]:
    return sorted(Path(r.source).name for r in panel.model.results())


def chip_texts(panel) -> list[str]:
    return [b.text().removesuffix("  ✕") for b in panel.chips.buttons]


def choose(qtbot, panel, change, expected: str) -> None:
    """Make a choice and wait for the search of the query it wrote."""
    with qtbot.waitSignal(panel.results_shown, timeout=10_000, check_params_cb=lambda q, _n: q == expected):
        change()
    assert panel.query.text() == expected


def menu_action(panel, menu_title: str, label: str):
    menu = panel.filters_menu
    menu.on_about_to_show()  # the menu is rebuilt as it opens, ticking what the query holds
    sub = next(a.menu() for a in menu.menu_.actions() if a.text() == menu_title)
    return next(a for a in sub.actions() if a.text() == label)


def test_a_picker_writes_its_filter_and_removing_the_chip_resets_it(qtbot, dated):
    panel = dated.search_panel
    assert names(panel) == [] and len(search(qtbot, dated, "lighthouse")) == 3
    choose(qtbot, panel, lambda: panel.type_filter.setCurrentIndex(panel.type_filter.findData("pdf")),
           "type:pdf lighthouse")
    assert names(panel) == ["keeper.pdf"] and chip_texts(panel) == ["type:pdf"]
    choose(qtbot, panel, lambda: panel.type_filter.setCurrentIndex(panel.type_filter.findData("text")),
           "type:text lighthouse")  # replaced in place, not added
    assert names(panel) == ["acme.txt"]
    choose(qtbot, panel, lambda: panel.chips.buttons[0].click(), "lighthouse")
    assert panel.type_filter.currentIndex() == 0 and len(panel.model.results()) == 3
    docs = next(i for i in range(1, panel.folder_filter.count()) if panel.folder_filter.itemText(i) == "docs")
    choose(qtbot, panel, lambda: panel.folder_filter.setCurrentIndex(docs), "folder:docs lighthouse")
    assert len(panel.model.results()) == 3
    choose(qtbot, panel, lambda: panel.folder_filter.setCurrentIndex(0), "lighthouse")


def test_typing_a_filter_shows_in_the_picker(qtbot, dated):
    panel = dated.search_panel
    search(qtbot, dated, "lighthouse type:md")
    assert panel.type_filter.currentData() == "markdown"
    assert names(panel) == ["launch.md"]
    search(qtbot, dated, "lighthouse type:md type:pdf")  # two types: the picker shows them as typed
    assert panel.type_filter.currentData() == TYPED
    assert panel.type_filter.currentText() == "type:markdown type:pdf"
    assert names(panel) == ["keeper.pdf", "launch.md"]
    choose(qtbot, panel, lambda: panel.type_filter.setCurrentIndex(0), "lighthouse")
    assert panel.type_filter.findData(TYPED) < 0  # the as-typed entry goes with what it showed


def test_the_filters_menu_writes_dates_tags_and_file_names(qtbot, dated):
    panel = dated.search_panel
    search(qtbot, dated, "lighthouse")
    panel.filters_menu.ask_text = lambda _title, _prompt: "2024"
    choose(qtbot, panel, menu_action(panel, "Date", "Before…").trigger, "before:2024 lighthouse")
    assert names(panel) == ["acme.txt"] and chip_texts(panel) == ["before:2024"]  # its date: its first line
    panel.filters_menu.ask_text = lambda _title, _prompt: "2024-03"
    choose(qtbot, panel, menu_action(panel, "Date", "After…").trigger, "after:2024-03 lighthouse")
    assert names(panel) == ["keeper.pdf", "launch.md"]  # the pdf has no date of its own: its modified time
    assert menu_action(panel, "Date", "Any time").isChecked() is False
    choose(qtbot, panel, menu_action(panel, "Date", "Last year").trigger, "last year lighthouse")
    assert menu_action(panel, "Date", "Last year").isChecked()
    choose(qtbot, panel, menu_action(panel, "Date", "Any time").trigger, "lighthouse")

    choose(qtbot, panel, menu_action(panel, "Tag", "#launch").trigger, "tag:launch lighthouse")
    assert names(panel) == ["launch.md"] and menu_action(panel, "Tag", "#launch").isChecked()
    panel.filters_menu.ask_text = lambda _title, _prompt: "acme"
    choose(qtbot, panel, menu_action(panel, "File name", "Containing…").trigger, "file:acme tag:launch lighthouse")
    assert names(panel) == []  # both: the acme file has no launch tag
    choose(qtbot, panel, menu_action(panel, "Tag", "Any tag").trigger, "file:acme lighthouse")
    assert names(panel) == ["acme.txt"]
    panel.filters_menu.ask_text = lambda _title, _prompt: "banana"  # not a date: nothing is written
    menu_action(panel, "Date", "After…").trigger()
    assert panel.query.text() == "file:acme lighthouse"
