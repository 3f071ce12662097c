"""`trove server start|stop|status`: a PostgreSQL library server on this machine, without a DBA."""

from __future__ import annotations

import argparse
import json

from desktop_app.cli.common import EXIT_ERROR, EXIT_OK


def add_server_commands(subparsers: argparse._SubParsersAction) -> None:
    """Register `server` and its subcommands."""
    p = subparsers.add_parser("server", help="run a PostgreSQL library server (for a team library)")
    sub = p.add_subparsers(dest="server_command", metavar="ACTION", required=True)

    q = sub.add_parser("start", help="initialise (first time) and start the server; prints the URL for --db")
    q.add_argument("--data", metavar="DIR", help="where the server keeps its files (default: the user data dir)")
    q.add_argument("--listen", metavar="ADDR", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1; 0.0.0.0 for other machines)")
    q.add_argument("--port", type=int, default=5432, help="TCP port (default 5432; 0 picks a free one)")
    q.add_argument("--json", action="store_true")
    q.set_defaults(func=cmd_start, needs_library=False)

    for name, func, text in (("stop", cmd_stop, "stop the server"), ("status", cmd_status, "is it running, where")):
        q = sub.add_parser(name, help=text)
        q.add_argument("--data", metavar="DIR")
        q.add_argument("--json", action="store_true")
        q.set_defaults(func=func, needs_library=False)


def _server(args):
    from desktop_app.core.store.postgres.server import TroveServer

    return TroveServer(args.data)


def cmd_start(args, _library) -> int:
    status = _server(args).start(listen=args.listen, port=args.port)
    if args.json:
        print(json.dumps(status.__dict__, indent=2))
    else:
        print(f"PostgreSQL {status.version} is running (data: {status.data})")
        print(f"library URL (keep it private, it holds the password): {status.url}")
        print(f"use it with:  trove --db '{status.url}' index PATH   (or set TROVE_DB)")
    return EXIT_OK


def cmd_stop(args, _library) -> int:
    stopped = _server(args).stop()
    print("stopped" if stopped else "not running")
    return EXIT_OK


def cmd_status(args, _library) -> int:
    status = _server(args).status()
    if args.json:
        print(json.dumps({**status.__dict__, "url": _redacted(status.url)}, indent=2))
    elif status.running:
        print(f"running: PostgreSQL {status.version} on {status.listen}:{status.port} (data: {status.data})")
        print(f"library URL: {_redacted(status.url)}  (`trove server start` prints it in full)")
    else:
        print(f"not running (data: {status.data})")
    return EXIT_OK if status.running else EXIT_ERROR


def _redacted(url: str) -> str:
    from desktop_app.core.store.postgres.connect import redact

    return redact(url)
