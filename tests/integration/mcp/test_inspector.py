"""A third-party client: the MCP Inspector's command-line mode lists Trove's tools and calls `search` on a real
library over stdio. Node.js and npm are required: without them this test fails (it never skips)."""

from __future__ import annotations

import json
import subprocess

from tests.integration.mcp.inspector import inspector_bin
from tests.integration.mcp.support import ROOT, SERVER_ENV, trove_command


def inspect_trove(home, *method: str) -> dict:
    """Run `mcp-inspector --cli <trove mcp> --method ...` and return its JSON output."""
    server = trove_command(home, "mcp")
    env_args = [arg for key, value in SERVER_ENV.items() for arg in ("-e", f"{key}={value}")]
    out = subprocess.run([str(inspector_bin()), "--cli", *env_args, *server, *method], capture_output=True,
                         text=True, timeout=300, cwd=ROOT, check=False)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout)


def test_the_inspector_lists_the_tools_and_searches(library_home, docs):
    listed = inspect_trove(library_home, "--method", "tools/list")
    names = {t["name"] for t in listed["tools"]}
    assert {"search", "read_passage", "read_document", "ask", "list_folders", "library_status"} <= names
    search = next(t for t in listed["tools"] if t["name"] == "search")
    assert search["inputSchema"]["required"] == ["query"] and "\n" not in search["description"]

    called = inspect_trove(library_home, "--method", "tools/call", "--tool-name", "search",
                           "--tool-arg", "query=lighthouse painted crimson", "--tool-arg", "k=2")
    assert not called.get("isError")
    best = called["structuredContent"]["results"][0]
    assert best["path"] == str(docs / "korrin.pdf") and best["page"] == 2
