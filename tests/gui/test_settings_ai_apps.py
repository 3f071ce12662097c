"""Settings → AI apps: the snippet for each app names the installed trove and this library, Copy puts exactly it
on the clipboard, and the HTTP token shown is the library's (0600)."""

from __future__ import annotations

import json
import stat

from PySide6.QtGui import QGuiApplication

from desktop_app.mcp.clients import CLIENTS, snippet, trove_command
from desktop_app.mcp.http import read_token, token_path
from desktop_app.ui.dialogs.settings import SettingsDialog
from desktop_app.ui.dialogs.settings_ai_apps import AiAppsDialog


def test_each_apps_snippet_is_shown_and_copied(qtbot, tmp_path):
    dialog = AiAppsDialog(tmp_path)
    qtbot.addWidget(dialog)
    command = trove_command()
    for client in CLIENTS:
        dialog.client.setCurrentText(client)
        shown = dialog.snippet.toPlainText()
        assert shown == snippet(client, command, str(tmp_path)) and command[0] in shown
        if client != "Claude Code":
            servers = json.loads(shown)
            entry = (servers.get("mcpServers") or servers["servers"])["trove"]
            assert entry["command"] == command[0] and entry["args"][-3:] == ["--home", str(tmp_path), "mcp"]
        dialog.copy_button.click()
        assert QGuiApplication.clipboard().text() == shown
    assert not token_path(tmp_path).exists()  # the token is made only when asked for


def test_the_token_is_shown_on_request_and_is_the_librarys(qtbot, tmp_path):
    dialog = AiAppsDialog(tmp_path)
    qtbot.addWidget(dialog)
    assert dialog.token.text() == ""
    dialog.show_token_button.click()
    assert dialog.token.text() == read_token(tmp_path) and len(dialog.token.text()) >= 40
    assert stat.S_IMODE(token_path(tmp_path).stat().st_mode) == 0o600


def test_settings_opens_the_ai_apps_page_for_its_library(qtbot, library, monkeypatch):
    opened = []
    monkeypatch.setattr(AiAppsDialog, "exec", lambda dialog: opened.append(dialog) or 0)
    dialog = SettingsDialog(library.settings, home=library.home)
    qtbot.addWidget(dialog)
    dialog.ai_apps_button.click()
    assert len(opened) == 1 and opened[0].home == library.home
    assert f'"{library.home}"' in opened[0].snippet.toPlainText()
