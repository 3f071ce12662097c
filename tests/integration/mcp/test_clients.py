"""The snippet Settings → AI apps shows works as printed: the command a client would launch from it serves this
library (the SDK's client stands in for the app)."""

from __future__ import annotations

import json
import shlex

import anyio
from mcp import Client, StdioServerParameters

from desktop_app.mcp.clients import snippet, trove_command
from tests.integration.mcp.support import ROOT, SERVER_ENV, START_TIMEOUT, structured


def launched_from(command: str, args: list[str]) -> tuple[set[str], dict]:
    params = StdioServerParameters(command=command, args=args, env=SERVER_ENV, cwd=str(ROOT))

    async def run():
        with anyio.fail_after(START_TIMEOUT):
            async with Client(params, read_timeout_seconds=START_TIMEOUT) as client:
                names = {t.name for t in (await client.list_tools()).tools}
                return names, structured(await client.call_tool("search", {"query": "lighthouse crimson", "k": 1}))
    return anyio.run(run)


def test_the_claude_desktop_snippet_and_the_claude_code_line_launch_this_library(library_home, docs):
    entry = json.loads(snippet("Claude Desktop", trove_command(), str(library_home)))["mcpServers"]["trove"]
    names, found = launched_from(entry["command"], entry["args"])
    assert "search" in names and found["results"][0]["path"] == str(docs / "korrin.pdf")
    line = shlex.split(snippet("Claude Code", trove_command(), str(library_home)))
    assert line[:5] == ["claude", "mcp", "add", "--scope", "user"] and line[5:7] == ["trove", "--"]
    assert line[7:] == [entry["command"], *entry["args"]]  # the same command as the JSON snippets
