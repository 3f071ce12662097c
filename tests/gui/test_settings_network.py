"""The settings dialog's connection test and invite join run on the task runner's network lane: the work off the UI
thread, the answer (the probed / joined signal and the label) on it. The success paths against the real server are
in test_server_library.py and tests/integration/server/test_join_in_settings.py."""

from __future__ import annotations

import threading

from PySide6.QtCore import QThread

from desktop_app.core.settings import Settings
from desktop_app.ui.dialogs import settings as settings_dialog
from desktop_app.ui.dialogs.settings import SettingsDialog


def test_a_connection_test_works_off_the_ui_thread_and_answers_on_it(qtbot, qapp, monkeypatch):
    worked_on: list[int] = []
    real = settings_dialog.probe_server

    def probe(url: str) -> str:  # the real probe, noting the thread it ran on
        worked_on.append(threading.get_ident())
        return real(url)

    monkeypatch.setattr(settings_dialog, "probe_server", probe)
    dialog = SettingsDialog(Settings())
    qtbot.addWidget(dialog)
    on_ui: list[bool] = []
    dialog.probed.connect(lambda ok, message: on_ui.append(QThread.currentThread() == qapp.thread()))
    dialog.server_url.setText("postgresql://someone:secret@127.0.0.1:1/library")  # nothing listens on port 1
    with qtbot.waitSignal(dialog.probed, timeout=30_000) as got:
        dialog.test_button.click()
        assert not dialog.test_button.isEnabled()
    ok, message = got.args
    assert worked_on and worked_on[0] != threading.get_ident() and on_ui == [True]
    assert not ok and "Cannot reach the library server" in message and "secret" not in message
    assert dialog.probe_result.text().startswith("✗") and dialog.test_button.isEnabled()


def test_a_damaged_invite_is_answered_on_the_ui_thread(qtbot, qapp, tmp_path):
    dialog = SettingsDialog(Settings(), home=tmp_path / "home")
    qtbot.addWidget(dialog)
    on_ui: list[bool] = []
    dialog.joined.connect(lambda ok, message, url: on_ui.append(QThread.currentThread() == qapp.thread()))
    dialog.invite.setText("trove1:garbage")
    with qtbot.waitSignal(dialog.joined, timeout=30_000) as got:
        dialog.join_button.click()
    ok, message, url = got.args
    assert on_ui == [True] and not ok and url == "" and "damaged" in message
    assert dialog.probe_result.text().startswith("✗") and dialog.join_button.isEnabled()
    assert dialog.invite.text() == "trove1:garbage"  # kept, to be corrected
