"""`trove server start|stop|status|invite|users|revoke|rotate|migrate|backup`: a team library's PostgreSQL
server on this machine, without a DBA (docs/team-library.md)."""

from __future__ import annotations

import argparse
import json
import sys

from desktop_app.cli.common import EXIT_ERROR, EXIT_OK

WILDCARDS = ("0.0.0.0", "::", "*")


def add_server_commands(subparsers: argparse._SubParsersAction) -> None:
    """Register `server` and its subcommands."""
    p = subparsers.add_parser("server", help="run a PostgreSQL library server (for a team library)")
    sub = p.add_subparsers(dest="server_command", metavar="ACTION", required=True)

    q = _add(sub, "start", cmd_start, "initialise (first time) and start the server; prints the admin URL")
    q.add_argument("--listen", metavar="ADDR", default="127.0.0.1",
                   help="address(es) to listen on, comma-separated (default 127.0.0.1; 0.0.0.0 for all)")
    q.add_argument("--port", type=int, default=5432, help="TCP port (default 5432; 0 picks a free one)")
    q.add_argument("--allow", metavar="CIDR[,CIDR…]",
                   help="networks other machines may connect from, e.g. 192.168.1.0/24 (TLS + password only); "
                        "'none' for this machine only; default: the ones given last time (none at first)")
    _add(sub, "stop", cmd_stop, "stop the server")
    _add(sub, "status", cmd_status, "is it running, where, who may connect")
    q = _add(sub, "invite", cmd_invite, "add a person and print their one-time invite for `trove join`")
    _invite_args(q)
    q = _add(sub, "rotate", cmd_rotate, "a new invite for a person (their old password and sessions end)")
    _invite_args(q)
    q = _add(sub, "revoke", cmd_revoke, "take a person's access away now (their open sessions end)")
    q.add_argument("name")
    _add(sub, "users", cmd_users, "the people and whether they joined")
    q = _add(sub, "migrate", cmd_migrate, "bring a library's schema up to date (as the tables' owner)")
    q.add_argument("--database", default="trove")
    q = _add(sub, "backup", cmd_backup, "pg_dump a library to FILE (every row; pg_restore reads it)")
    q.add_argument("file")
    q.add_argument("--database", default="trove")


def _add(sub, name: str, func, text: str) -> argparse.ArgumentParser:
    q = sub.add_parser(name, help=text)
    q.add_argument("--data", metavar="DIR", help="where the server keeps its files (default: the user data dir)")
    q.add_argument("--json", action="store_true")
    q.set_defaults(func=func, needs_library=False)
    return q


def _invite_args(q: argparse.ArgumentParser) -> None:
    q.add_argument("name", help="the person (letters a-z, digits, _)")
    q.add_argument("--host", help="the name or address their desktop reaches this server at "
                                  "(default: the listen address, or this machine's name)")
    q.add_argument("--hours", type=float, default=24.0, help="how long the invite can be used (default 24)")
    q.add_argument("--database", default="trove")


def _server(args):
    from desktop_app.core.server.server import TroveServer

    return TroveServer(args.data)


def cmd_start(args, _library) -> int:
    from desktop_app.core.server.hba import parse_allow

    allow = None if args.allow is None else parse_allow(args.allow)
    status = _server(args).start(listen=args.listen, port=args.port, allow=allow)
    if args.json:
        print(json.dumps(status.__dict__, indent=2))
        return EXIT_OK
    print(f"PostgreSQL {status.version} is running with TLS on {status.listen}:{status.port} (data: {status.data})")
    print(f"CA fingerprint: {status.ca_fingerprint}")
    print("admits: this machine" + "".join(f", {n}" for n in status.allow) + " (TLS and a password only)")
    wildcard = any(a.strip() in WILDCARDS for a in status.listen.split(","))
    if not status.allow and (wildcard or status.listen not in ("127.0.0.1", "::1", "localhost")):
        print(f"note: other machines will be refused until you allow their network, e.g. "
              f"`trove server start --listen {status.listen} --allow 192.168.1.0/24`", file=sys.stderr)
    if status.allow:
        print(f"if desktops cannot reach it, let TCP port {status.port} in through this machine's firewall "
              f"(e.g. `sudo ufw allow from {status.allow[0]} to any port {status.port} proto tcp`)")
    print("add a person: trove server invite NAME   (they run `trove join` and paste it)")
    print(f"administrator URL (keep it private, it holds the password): {status.url}")
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
        print("admits: this machine" + "".join(f", {n}" for n in status.allow))
        print(f"CA fingerprint: {status.ca_fingerprint}")
        if not status.front:
            print("the TLS front is not running, so no network connection is served: `trove server start`",
                  file=sys.stderr)
        print(f"administrator URL: {_redacted(status.url)}  (`trove server start` prints it in full)")
    else:
        print(f"not running (data: {status.data})")
    return EXIT_OK if status.running else EXIT_ERROR


def cmd_invite(args, _library) -> int:
    text = _server(args).invite(args.name, host=args.host, hours=args.hours, database=args.database)
    return _print_invite(args, text)


def cmd_rotate(args, _library) -> int:
    text = _server(args).rotate(args.name, host=args.host, hours=args.hours, database=args.database)
    return _print_invite(args, text)


def _print_invite(args, text: str) -> int:
    if args.json:
        print(json.dumps({"person": args.name, "invite": text}))
        return EXIT_OK
    print(f"One-time invite for {args.name} (valid {args.hours:g} hours; give it to them privately):",
          file=sys.stderr)
    print(text)
    print("On their computer: `trove join` and paste it (or Settings → Library → Join with an invite)",
          file=sys.stderr)
    return EXIT_OK


def cmd_revoke(args, _library) -> int:
    _server(args).revoke(args.name)
    print(f"revoked {args.name}: they can no longer sign in, and their open sessions were ended")
    return EXIT_OK


def cmd_users(args, _library) -> int:
    people = _server(args).users()
    if args.json:
        print(json.dumps([{"name": n, "state": s, "sessions": c} for n, s, c in people], indent=2))
    elif not people:
        print("no people yet: trove server invite NAME")
    for name, state, sessions in people if not args.json else ():
        print(f"{name:<24} {state:<36} {sessions} open session(s)")
    return EXIT_OK


def cmd_migrate(args, _library) -> int:
    _server(args).migrate(args.database)
    print(f"the schema of {args.database} is up to date")
    return EXIT_OK


def cmd_backup(args, _library) -> int:
    from pathlib import Path

    path = _server(args).backup(Path(args.file), args.database)
    print(f"wrote {path} ({path.stat().st_size:,} bytes); restore with pg_restore")
    return EXIT_OK


def _redacted(url: str) -> str:
    from desktop_app.core.redact import redact

    return redact(url)
