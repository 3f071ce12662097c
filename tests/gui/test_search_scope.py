"""The search pane's scope control, offscreen, over a real library (SQLite, the tests' embedder): documents, memory
or both, offered once memory holds something (and on); a memory result has a badge of its own (FACT, CHAT) and
names its provenance (fact and age, or chat and turns, and "outdated" when a newer fact replaced what it says).
Screenshot: docs/screenshots/search-memory-scope.png."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from PySide6.QtCore import Qt

from desktop_app.core.types import Turn
from desktop_app.ui.search.results_model import location_text
from desktop_app.ui.search.type_icons import result_icon, type_icon
from tests.gui.gui_helpers import add_and_sync, search

# a test run never rewrites the repository: TROVE_SCREENSHOTS=docs/screenshots saves the pictures the docs show
SCREENSHOTS = Path(os.environ.get("TROVE_SCREENSHOTS") or Path(tempfile.gettempdir()) / "trove-screenshots")


def shown(results) -> list[tuple[str, str]]:
    return [(Path(r.source).name if r.source.startswith("/") else r.source, location_text(r)) for r in results]


def test_the_scope_control_searches_documents_memory_or_both_with_provenance(qtbot, window, library, tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "ops.txt").write_text("The staging server runbook: restart the staging port listener after deploys.",
                                  encoding="utf-8")
    add_and_sync(qtbot, window, docs, 1)
    panel = window.search_panel
    assert not panel.scope.isVisibleTo(window)  # no memory yet: documents are all there is to search
    memory = library.memory
    chat = library.store.create_chat("Deploy", 1.0)
    memory.save_compacted(chat, [Turn("Which staging port?", "We decided the staging port is 8099.")], title="Deploy")
    memory.add("staging_port", "8099")
    memory.add("staging_port", "8100")  # a correction: the old value and the excerpt that states it are outdated
    window.refresh_now()  # the window learns of memory from Library.stats() (after an answer, or the Memory panel)
    qtbot.waitUntil(lambda: panel.scope.isVisibleTo(window), timeout=10_000)
    assert panel.scope.currentData() == "documents"
    assert {s for s, _ in shown(search(qtbot, window, "staging port"))} == {"ops.txt"}

    panel.scope.setCurrentIndex(panel.scope.findData("memory"))
    qtbot.waitUntil(lambda: panel.model.rowCount() and panel.model.result(0).source.startswith("Memory"),
                    timeout=10_000)
    rows = shown(panel.model.results())
    fact_badge, chat_badge = result_icon({"memory": {"kind": "fact"}}), result_icon({"memory": {"kind": "history"}})
    badges = [panel.model.data(panel.model.index(r), Qt.ItemDataRole.DecorationRole).cacheKey()
              for r in range(panel.model.rowCount())]
    kinds = [panel.model.result(r).metadata["memory"]["kind"] for r in range(panel.model.rowCount())]
    assert badges == [fact_badge.cacheKey() if k == "fact" else chat_badge.cacheKey() for k in kinds]
    assert type_icon("").cacheKey() not in badges  # not the unknown type's "?"
    assert rows[0] == ("Memory · fact", "fact staging_port, today")
    assert ("Memory · fact", "fact staging_port, today (outdated: staging_port → 8100)") in rows
    [chat_row] = [where for name, where in rows if name == "Memory · chat"]
    assert chat_row.startswith("chat 'Deploy' turn 1, ") and chat_row.endswith("(outdated: staging_port → 8100)")
    assert all(not name.endswith(".txt") for name, _ in rows)
    assert panel.open_current() is False  # a fact has no file to open

    panel.scope.setCurrentIndex(panel.scope.findData("all"))
    qtbot.waitUntil(lambda: "ops.txt" in {s for s, _ in shown(panel.model.results())}, timeout=10_000)
    assert {s for s, _ in shown(panel.model.results())} >= {"Memory · fact", "Memory · chat", "ops.txt"}
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    assert window.grab().save(str(SCREENSHOTS / "search-memory-scope.png"), "PNG")

    memory.set_enabled(False)  # memory off: the memory scope finds nothing, and the scope goes away
    assert panel.memory_search("staging port", 10, "memory") == []
    window.refresh_now()
    qtbot.waitUntil(lambda: not panel.scope.isVisibleTo(window), timeout=10_000)
    assert panel.scope.currentData() == "documents"  # a hidden scope does not keep narrowing the search
    assert {s for s, _ in shown(search(qtbot, window, "staging port runbook"))} == {"ops.txt"}
