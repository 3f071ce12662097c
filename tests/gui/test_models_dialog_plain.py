"""The Models dialog shows file names as text: a model file named like HTML is never rendered as HTML."""

from __future__ import annotations

from PySide6.QtCore import Qt

from tests.support.gguf_files import write_gguf

NAME = "<img src=pic.png><b>loud-Q4_0.gguf"  # no "/" in a file name


def test_a_model_named_like_html_is_shown_as_text(window, qtbot, tmp_path):
    with qtbot.waitSignal(window.tasks.idle, timeout=10_000, raising=False):
        pass
    window.menus.open_models()
    dialog = window.models_dialog
    qtbot.waitUntil(lambda: len(dialog.entries) >= 1, timeout=10_000)
    local = write_gguf(tmp_path / NAME)
    dialog.add_file(str(local))
    qtbot.waitUntil(lambda: dialog.models_table.rowCount() == 2, timeout=10_000)
    assert dialog.status.textFormat() == Qt.TextFormat.PlainText
    assert NAME in dialog.status.text()
    tips = [dialog.models_table.item(r, 0).toolTip() for r in range(dialog.models_table.rowCount())]
    [tip] = [t for t in tips if "loud" in t]
    assert "&lt;img src=pic.png&gt;&lt;b&gt;loud" in tip and "<img" not in tip
