"""Settings → Library server → "Join with an invite": the same join as `trove join`, off the UI thread."""

from __future__ import annotations

import os

from PySide6.QtWidgets import QLineEdit

from desktop_app.core.settings import Settings
from desktop_app.ui.dialogs.settings import SettingsDialog


def test_the_settings_dialog_joins_with_an_invite_and_masks_credentials(qtbot, pg_server, tmp_path):
    name = f"gui{os.getpid()}"
    home = tmp_path / "home"
    dialog = SettingsDialog(Settings(), home=home)
    qtbot.addWidget(dialog)
    assert dialog.invite.echoMode() == QLineEdit.EchoMode.Password  # the invite holds a one-time credential
    invite = pg_server.invite(name)
    dialog.invite.setText(invite)
    with qtbot.waitSignal(dialog.joined, timeout=30_000) as got:
        dialog.join_button.click()
        assert not dialog.join_button.isEnabled()  # the UI thread is free while it signs in
    ok, message, url = got.args
    assert ok and f"as {name}" in message and dialog.probe_result.text().startswith("✓")
    assert dialog.server_url.text() == url and dialog.changes() == {"server_url": url}
    assert dialog.server_url.echoMode() == QLineEdit.EchoMode.Normal  # no password in it: nothing to hide
    assert next((home / "team").rglob("pgpass")).stat().st_mode & 0o777 == 0o600 and dialog.invite.text() == ""

    dialog.invite.setText(invite)
    with qtbot.waitSignal(dialog.joined, timeout=30_000) as got:
        dialog.join_button.click()
    ok, message, _url = got.args
    assert not ok and "already used" in message and dialog.probe_result.text().startswith("✗")

    dialog.server_url.setText(pg_server.url())  # an administrator URL with its password in it
    assert dialog.server_url.echoMode() == QLineEdit.EchoMode.PasswordEchoOnEdit
