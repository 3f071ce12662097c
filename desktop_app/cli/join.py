"""`trove join [INVITE]`: use a team library from this computer (docs/team-library.md); `--print-url` shows the
stored connection, password included, for psql or pg_dump."""

from __future__ import annotations

import argparse
import sys

from desktop_app.cli.common import EXIT_ERROR, EXIT_OK, EXIT_USAGE


def add_join_commands(subparsers: argparse._SubParsersAction) -> None:
    """Register `join`."""
    q = subparsers.add_parser("join", help="join a team library with an invite from `trove server invite`")
    q.add_argument("invite", nargs="?", help="the invite (trove1:…); without it (or '-') it is read from standard "
                                             "input, without echo on a terminal, so it stays out of the command line")
    q.add_argument("--print-url", action="store_true",
                   help="print the stored library URL with its password (for psql / pg_dump) and exit")
    q.set_defaults(func=cmd_join, needs_library=False)


def cmd_join(args, _library) -> int:
    from desktop_app.core.paths import resolve_home
    from desktop_app.core.server import joining

    home = resolve_home(args.home)
    if args.print_url:
        return _print_url(home)
    text = args.invite if args.invite not in (None, "-") else _read_invite()
    if not text.strip():
        print("trove: join needs an invite (`trove join` and paste it, or `trove join INVITE`)", file=sys.stderr)
        return EXIT_USAGE
    joined = joining.join(home, text)
    before = joining.remember(home, joined.url)
    print(f"joined {joined.database} on {joined.host}:{joined.port} as {joined.person} (TLS, pinned certificate)")
    print(f"the server's CA fingerprint: {joined.ca_fingerprint} (the same as `trove server status` shows there)")
    if before and before != joined.url:
        print(f"this computer's library was {_redact(before)} until now", file=sys.stderr)
    print("index a folder into it: trove index PATH   (trove join --print-url: the URL for psql / pg_dump)")
    return EXIT_OK


def _read_invite() -> str:
    """The invite from standard input: asked for without echo on a terminal (it is a credential), else read."""
    if sys.stdin.isatty():
        import getpass

        return getpass.getpass("Paste the invite (trove1:…): ")
    return sys.stdin.read()


def _print_url(home) -> int:
    from desktop_app.core.server.joining import url_with_password
    from desktop_app.core.settings import read_settings
    from desktop_app.core.store import is_server_url

    settings, _problems = read_settings(home / "settings.json")
    if not is_server_url(settings.server_url):
        print("trove: this computer has not joined a team library (`trove join INVITE`)", file=sys.stderr)
        return EXIT_ERROR
    print(url_with_password(settings.server_url))
    return EXIT_OK


def _redact(url: str) -> str:
    from desktop_app.core.redact import redact

    return redact(url)
