"""Trove as a Model Context Protocol server: the third front end beside the CLI and the window.

`trove mcp` serves one library over stdio (what Claude Desktop, Claude Code, Cursor and VS Code launch) or, with
`--http`, over Streamable HTTP on 127.0.0.1 behind a bearer token and an Origin check. Headless: nothing here
imports PySide6, and every tool calls the `Library` facade (what the CLI and the window call), so a team library
answers with the person's own role and row-level security decides what an assistant sees.

Modules: `text` (document text made safe to hand to another model), `tools` (the tools as plain functions of a
Library, returning JSON-ready dicts), `server` (the MCPServer with their schemas and the `trove://` resources),
`http` (the loopback transport: token file, Origin and token checks), `logs` (the log file; stdout is the protocol).
"""
