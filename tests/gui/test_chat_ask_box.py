"""The chat pane's question box on its own: Send and Ctrl+Enter hand over the text, plain Enter starts a new line,
and busy swaps Send for Stop."""

from __future__ import annotations

from PySide6.QtCore import Qt

from desktop_app.ui.chat.ask_box import AskBox


def test_ctrl_enter_and_send_hand_over_the_text_and_enter_does_not(qtbot):
    box = AskBox()
    qtbot.addWidget(box)
    sent: list[str] = []
    box.send_requested.connect(sent.append)
    box.input.setPlainText("How hot is Venus?")
    qtbot.keyClick(box.input, Qt.Key.Key_Return)  # a new line in the question, not a send
    assert sent == []
    qtbot.keyClick(box.input, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    qtbot.mouseClick(box.send_button, Qt.MouseButton.LeftButton)
    typed = box.input.toPlainText()  # the box keeps the text: clearing it is the pane's, once it asked
    assert "How hot is Venus?" in typed and "\n" in typed and sent == [typed, typed]


def test_busy_turns_stop_on_and_send_off(qtbot):
    box = AskBox()
    qtbot.addWidget(box)
    stops: list[bool] = []
    box.stop_requested.connect(lambda: stops.append(True))
    assert box.send_button.isEnabled() and not box.stop_button.isEnabled()
    box.set_busy(True)
    assert not box.send_button.isEnabled() and box.stop_button.isEnabled()
    qtbot.mouseClick(box.stop_button, Qt.MouseButton.LeftButton)
    box.set_busy(False)
    assert stops == [True] and box.send_button.isEnabled() and not box.stop_button.isEnabled()
