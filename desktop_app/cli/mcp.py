"""`trove mcp`: serve this library to AI apps over the Model Context Protocol (registered by cli.py).

On stdio by default (what Claude Desktop, Claude Code, Cursor and VS Code launch); `--http` serves Streamable HTTP
on 127.0.0.1 with the library's bearer token. Logs go to <library>/logs/mcp.log: standard output is the protocol.
"""

from __future__ import annotations

import argparse
import sys

from desktop_app.cli.common import EXIT_ERROR, EXIT_OK


def _port(text: str) -> int:
    port = int(text)
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"must be between 0 and 65535, not {port}")
    return port


def add_mcp_commands(subparsers: argparse._SubParsersAction) -> None:
    """Register `mcp`."""
    from desktop_app.mcp.http import DEFAULT_PORT

    p = subparsers.add_parser("mcp", help="serve this library to AI apps (Claude, Cursor, VS Code) over MCP")
    p.add_argument("--http", action="store_true", help="Streamable HTTP on 127.0.0.1 (default: stdio)")
    p.add_argument("--port", type=_port, default=DEFAULT_PORT,
                   help=f"with --http: the port (default {DEFAULT_PORT}; 0 picks a free one)")
    p.add_argument("--allow-writes", action="store_true",
                   help="also offer tools that change the library (add_folder, remember); off by default")
    p.add_argument("--rotate-token", action="store_true",
                   help="make a new HTTP bearer token, print it and exit (clients need the new one)")
    p.add_argument("--show-token", action="store_true", help="print the HTTP bearer token and exit")
    p.set_defaults(func=cmd_mcp)


def cmd_mcp(args, library) -> int:
    """Serve until the client closes stdin (stdio) or until interrupted (--http)."""
    from desktop_app.mcp import http
    from desktop_app.mcp.logs import log_to_file
    from desktop_app.mcp.server import build_server

    if args.rotate_token or args.show_token:
        print(http.rotate_token(library.home) if args.rotate_token else http.read_token(library.home))
        return EXIT_OK
    server = build_server(library, allow_writes=args.allow_writes)
    log = log_to_file(library.home, verbose=args.verbose)
    if not args.http:
        server.run("stdio")
        return EXIT_OK
    try:
        http.serve_http(server, http.read_token(library.home), args.port)
    except OSError as exc:
        print(f"trove: cannot serve on {http.HOST}:{args.port}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_ERROR
    except SystemExit:  # uvicorn exits when it cannot start; it logged why
        print(f"trove: cannot serve on {http.HOST}:{args.port} (see {log})", file=sys.stderr)
        return EXIT_ERROR
    return EXIT_OK
