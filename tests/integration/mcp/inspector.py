"""The MCP Inspector (npm `@modelcontextprotocol/inspector`), a third-party client, installed once per machine into
a project-local npm folder (not the global one): ~/.cache/trove-npm, or $TROVE_NPM_CACHE."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

# 0.21.1: the newest release whose `--cli` runs on Node 20 (2.x needs Node >= 22.19; 0.21 asks for 22.7 in its
# engines field but its CLI runs on 20, with an npm warning).
INSPECTOR = "@modelcontextprotocol/inspector"
INSPECTOR_VERSION = "0.21.1"
INSTALL_TIMEOUT = 600


def npm_folder() -> Path:
    """Where the Inspector is installed for these tests."""
    return Path(os.environ.get("TROVE_NPM_CACHE") or Path.home() / ".cache" / "trove-npm")


def inspector_bin() -> Path:
    """The Inspector's command, installed first when it is missing or another version (idempotent)."""
    folder = npm_folder()
    manifest = folder / "node_modules" / INSPECTOR / "package.json"
    command = folder / "node_modules" / ".bin" / "mcp-inspector"
    installed = json.loads(manifest.read_text(encoding="utf-8")).get("version") if manifest.is_file() else None
    if installed == INSPECTOR_VERSION and command.exists():
        return command
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        pytest.fail("the MCP Inspector test needs Node.js and npm (apt install nodejs npm): they are not on PATH")
    folder.mkdir(parents=True, exist_ok=True)
    done = subprocess.run([npm, "install", "--prefix", str(folder), "--no-audit", "--no-fund", "--loglevel=error",
                           f"{INSPECTOR}@{INSPECTOR_VERSION}"], capture_output=True, text=True,
                          timeout=INSTALL_TIMEOUT, check=False)
    if done.returncode != 0 or not command.exists():
        pytest.fail(f"npm could not install {INSPECTOR}@{INSPECTOR_VERSION}: {done.stderr.strip()[-2000:]}")
    return command
