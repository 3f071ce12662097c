"""The query language's chips under the search box, offscreen, over a real library (SQLite, the tests' embedder):
typing `type:pdf` shows a chip and narrows the results; removing the chip rewrites the query and searches again;
a malformed part is a chip that says it is searched as words. Screenshot: query-chips.png."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from desktop_app.ui.search.query_chips import QueryChips
from tests.gui.gui_helpers import add_and_sync, search
from tests.support.helpers import write_pdf

SCREENSHOTS = Path(os.environ.get("TROVE_SCREENSHOTS") or Path(tempfile.gettempdir()) / "trove-screenshots")


def chip_texts(panel) -> list[str]:
    return [b.text() for b in panel.chips.buttons]


def test_typing_a_filter_shows_a_chip_and_removing_it_rewrites_the_query(qtbot, window, tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    write_pdf(docs / "harbour.pdf", ["The harbour crane schedule for the spring."])
    (docs / "harbour.txt").write_text("Notes on the harbour crane repairs.", encoding="utf-8")
    add_and_sync(qtbot, window, docs, 2)
    panel = window.search_panel

    results = search(qtbot, window, "type:pdf harbour")
    assert [Path(r.source).name for r in results] == ["harbour.pdf"]
    assert panel.chips.isVisibleTo(window) and chip_texts(panel) == ["type:pdf  ✕"]
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    assert window.grab().save(str(SCREENSHOTS / "query-chips.png"), "PNG")

    with qtbot.waitSignal(panel.results_shown, timeout=10_000, check_params_cb=lambda q, _n: q == "harbour"):
        panel.chips.buttons[0].click()
    assert panel.query.text() == "harbour"
    assert sorted(Path(r.source).name for r in panel.model.results()) == ["harbour.pdf", "harbour.txt"]
    qtbot.waitUntil(lambda: not panel.chips.isVisibleTo(window))  # plain words are not chips

    search(qtbot, window, 'harbour -repairs after:banana "crane schedule"')
    assert chip_texts(panel) == ["not repairs  ✕", "after:banana (searched as words: not a date)  ✕",
                                 '"crane schedule"  ✕']
    assert [Path(r.source).name for r in panel.model.results()] == ["harbour.pdf"]
    assert window.grab().save(str(SCREENSHOTS / "query-chips-words.png"), "PNG")


def test_each_chip_removes_only_its_part(qtbot):
    chips = QueryChips()
    qtbot.addWidget(chips)
    query = 'tag:work "exact words" lang:th ภาษา last month -draft'
    chips.show_query(query)
    edits = []
    chips.query_edited.connect(edits.append)
    for button in list(chips.buttons):
        button.click()
    assert edits == ['"exact words" lang:th ภาษา last month -draft', "tag:work lang:th ภาษา last month -draft",
                     'tag:work "exact words" ภาษา last month -draft', 'tag:work "exact words" lang:th ภาษา -draft',
                     'tag:work "exact words" lang:th ภาษา last month']
