"""The configuration a person pastes into an AI app to reach this library: one snippet per client.

The command is the installed `trove` (the frozen app's own executable when frozen; `trove` on PATH; else this
Python running the package), so the snippet works as printed. Used by Settings → AI apps and by docs/mcp.md's
examples.
"""

from __future__ import annotations

import json
import shlex
import shutil
import sys
from pathlib import Path

CLIENTS = ("Claude Desktop", "Claude Code", "Cursor", "VS Code")
WHERE = {
    "Claude Desktop": "Settings → Developer → Edit Config (claude_desktop_config.json), then restart Claude.",
    "Claude Code": "Run this in a terminal once (every project of this user).",
    "Cursor": "~/.cursor/mcp.json (or .cursor/mcp.json in a project).",
    "VS Code": ".vscode/mcp.json in a workspace, or “MCP: Add Server…” for your profile.",
}


def trove_command() -> list[str]:
    """How to start Trove's command line on this computer."""
    if getattr(sys, "frozen", False):
        return [sys.executable]
    found = shutil.which("trove")
    if found:
        return [str(Path(found).resolve())]
    return [sys.executable, "-m", "desktop_app"]


def server_args(home: str | None = None) -> list[str]:
    """`trove`'s arguments that start the stdio server for the library in `home` (None: the default library)."""
    return (["--home", home] if home else []) + ["mcp"]


def snippet(client: str, command: list[str], home: str | None = None) -> str:
    """The text to paste into `client` (one of CLIENTS)."""
    args = command[1:] + server_args(home)
    if client == "Claude Code":
        return "claude mcp add --scope user trove -- " + shlex.join([command[0], *args])
    entry = {"command": command[0], "args": args}
    if client == "VS Code":
        return json.dumps({"servers": {"trove": {"type": "stdio", **entry}}}, indent=2, ensure_ascii=False)
    if client in ("Claude Desktop", "Cursor"):
        return json.dumps({"mcpServers": {"trove": entry}}, indent=2, ensure_ascii=False)
    raise ValueError(f"unknown client {client!r}; one of {', '.join(CLIENTS)}")
