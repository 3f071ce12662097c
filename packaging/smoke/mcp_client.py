"""The frozen app's `trove mcp` on stdio, driven by the MCP SDK's client as a desktop AI app would drive it.

    python packaging/smoke/mcp_client.py APP_DIR/trove LIBRARY_HOME WORK_DIR QUERY EXPECTED_FILE_WORD

Starts the bundle's `trove --home LIBRARY_HOME mcp` in a minimal environment (HOME and TMPDIR under WORK_DIR), lists
the tools, calls `search` and prints one line; exits non-zero when a tool is missing or the top result is not the
expected file. Run by packaging/smoke_test.sh with the build's Python (the bundle is the server, not the client)."""

from __future__ import annotations

import json
import sys

import anyio
from mcp import Client, StdioServerParameters

WANTED = {"search", "read_passage", "read_document", "ask", "list_folders", "library_status"}


async def check(trove: str, home: str, work: str, query: str, word: str) -> int:
    params = StdioServerParameters(command=trove, args=["--home", home, "mcp"],
                                   env={"HOME": f"{work}/home", "TMPDIR": work, "PATH": "/usr/bin:/bin",
                                        "LANG": "C.UTF-8"})
    with anyio.fail_after(180):
        async with Client(params, read_timeout_seconds=180) as client:
            tools = {t.name for t in (await client.list_tools()).tools}
            found = await client.call_tool("search", {"query": query, "k": 3})
    if missing := WANTED - tools:
        print(f"missing tools: {sorted(missing)}")
        return 1
    data = found.structured_content or json.loads(found.content[0].text)
    top = data["results"][0]["path"] if data.get("results") else ""
    print(f"{len(tools)} tools; search {query!r} -> {top}")
    return 0 if word in top else 1


if __name__ == "__main__":
    raise SystemExit(anyio.run(check, *sys.argv[1:6]))
