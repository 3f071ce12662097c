
"""The search pane's scope control, offscreen, over a real library (SQLite, the tests' embedder): documents, memory
or both; a memory result names its provenance (fact and age, or chat and turns, and "outdated" when a newer fact
replaced what it says). Screenshot: docs/screenshots/search-memory-scope.png."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from desktop_app.core.chat.budget import Turn
from desktop_app.ui.results_model import location_text
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
    memory = library.memory
    chat = library.store.create_chat("Deploy", 1.0)
    memory.save_compacted(chat, [Turn("Which staging port?", "We decided the staging port is 8099.")], title="Deploy")
    memory.add("staging_port", "8099")
    memory.add("staging_port", "8100")  # a correction: the old value and the excerpt that states it are outdated
    panel = window.search_panel
    assert panel.scope.isVisible() and panel.scope.currentData() == "documents"
    assert {s for s, _ in shown(search(qtbot, window, "staging port"))} == {"ops.txt"}

    panel.scope.setCurrentIndex(panel.scope.findData("memory"))
    qtbot.waitUntil(lambda: panel.model.rowCount() and panel.model.result(0).source.startswith("Memory"),
                    timeout=10_000)
    rows = shown(panel.model.results())
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

    memory.set_enabled(False)  # memory off: the memory scope finds nothing, documents are still searched
    panel.scope.setCurrentIndex(panel.scope.findData("memory"))
    qtbot.waitUntil(lambda: panel.model.rowCount() == 0, timeout=10_000)
