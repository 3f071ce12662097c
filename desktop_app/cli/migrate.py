"""`trove migrate --to postgresql://…`: copy this (embedded) library into a server library."""

from __future__ import annotations

import argparse
import json
import sys

from desktop_app.cli.common import EXIT_ERROR, EXIT_OK, EXIT_USAGE


def add_migrate_commands(subparsers: argparse._SubParsersAction) -> None:
    """Register `migrate`."""
    p = subparsers.add_parser("migrate", help="copy this library (documents, vectors, folders, chats) to a server")
    p.add_argument("--to", required=True, metavar="URL", help="the postgresql:// library to copy into")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_migrate)


def cmd_migrate(args, library) -> int:
    from desktop_app.core.redact import redact
    from desktop_app.core.store import is_server_url, open_store
    from desktop_app.core.store.copy import copy_library

    if not is_server_url(args.to):
        print("trove: --to takes a postgresql:// URL", file=sys.stderr)
        return EXIT_USAGE
    target = open_store(args.to)
    try:
        def progress(done: int, total: int) -> None:
            if not args.json:
                print(f"\rcopied {done}/{total} documents", end="", file=sys.stderr, flush=True)

        report = copy_library(library.store, target, progress=progress)
    finally:
        target.close()
    if not args.json:
        print(file=sys.stderr)
    src, dst = report.source, report.target
    if args.json:
        print(json.dumps({"copied": report.copied, "skipped": report.skipped, "chunks": report.chunks,
                          "chats": report.chats, "seconds": round(report.seconds, 2),
                          "source": src.__dict__, "target": dst.__dict__, "counts_match": report.counts_match}))
    else:
        print(f"copied {report.copied} documents ({report.chunks} chunks, vectors included), {report.skipped} "
              f"already there, {report.chats} chats to {redact(args.to)} in {report.seconds:.1f}s")
        print(f"check: documents {src.documents}/{dst.documents}, failed {src.failed}/{dst.failed}, "
              f"chunks {src.chunks}/{dst.chunks}, with vectors {src.embedded}/{dst.embedded} (here/server)")
    if not report.counts_match:
        print("trove: the server's counts differ from this library's; run `trove migrate` again to finish",
              file=sys.stderr)
        return EXIT_ERROR
    return EXIT_OK
