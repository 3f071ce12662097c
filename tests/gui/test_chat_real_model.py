"""The chat pane with the real bundled SmolLM2-135M: an answer streams in and Stop ends it.

Only what any CPU must do is checked; what the model says differs between SIMD paths (the scripted-model
tests in test_chat.py check the pane's handling of an answer's text)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from desktop_app.core.settings import Settings
from tests.gui.gui_helpers import SAMPLE_DOCS, add_and_sync

ANSWER_TIMEOUT_MS = 300_000  # generous: the shared 2-core machine can be very busy
MAX_TOKENS = 96


@pytest.fixture
def settings() -> Settings:
    # A small prompt and answer budget keep each answer to seconds on a shared 2-core machine.
    return Settings(embedder="hash", answer_reserve_tokens=MAX_TOKENS, n_ctx=1024, max_context_tokens=320,
                    context_top_k=3)


def test_a_real_answer_streams_and_stop_ends_the_next(qtbot, window, sample_folder):
    add_and_sync(qtbot, window, sample_folder, SAMPLE_DOCS)
    pane = window.chat_pane
    with qtbot.waitSignal(pane.answer_finished, timeout=ANSWER_TIMEOUT_MS) as done:
        pane.input.setPlainText("Why is Venus the hottest planet?")
        qtbot.mouseClick(pane.send_button, Qt.MouseButton.LeftButton)
    answer = done.args[0]
    assert not answer.cancelled and 1 <= answer.completion_tokens <= MAX_TOKENS
    assert pane.tokens_received == answer.completion_tokens and answer.passages
    assert answer.prompt_tokens + MAX_TOKENS <= 1024
    with qtbot.waitSignal(pane.answer_finished, timeout=ANSWER_TIMEOUT_MS) as done:
        pane.ask("Write a long, detailed essay about every planet of the Solar System, one by one.")
        qtbot.waitUntil(lambda: pane.tokens_received >= answer.completion_tokens + 3, timeout=ANSWER_TIMEOUT_MS)
        qtbot.mouseClick(pane.stop_button, Qt.MouseButton.LeftButton)
    stopped = done.args[0]
    assert stopped.cancelled and stopped.completion_tokens < MAX_TOKENS
    assert "stopped" in pane.transcript.toPlainText()
    assert pane.send_button.isEnabled() and not pane.stop_button.isEnabled()
