"""`trove backup [FILE]` and `trove restore FILE`: one compressed file holding the library, and putting it back."""

from __future__ import annotations

import argparse
import os
import sys

from desktop_app.cli.common import EXIT_OK, EXIT_USAGE
from desktop_app.core.pathnames import display_path


def add_backup_commands(subparsers: argparse._SubParsersAction) -> None:
    """Register `backup` and `restore`."""
    p = subparsers.add_parser("backup", help="write a compressed backup of the library (safe while it is in use)")
    p.add_argument("file", nargs="?", metavar="FILE",
                   help="the backup file, or a folder for a dated name (default: trove-backup-<date>.tar.gz here)")
    p.set_defaults(func=cmd_backup)
    p = subparsers.add_parser("restore", help="put a backup in place of the library (the current one is kept aside)")
    p.add_argument("file", metavar="FILE", help="a file written by `trove backup`")
    p.set_defaults(func=cmd_restore, needs_library=False)  # a damaged or newer library must not stop a restore


def cmd_backup(args, library) -> int:
    report = library.backups.backup(args.file)
    counts = report.manifest.counts
    print(f"backed up {counts['folders']} folder(s), {counts['documents']} documents, {counts['chunks']} chunks, "
          f"{counts['chats']} chats (schema {report.manifest.schema_version}) to {display_path(report.path)} "
          f"({report.bytes / 1e6:.1f} MB)")
    return EXIT_OK


def cmd_restore(args, _library) -> int:
    from desktop_app.core.backup import restore_library
    from desktop_app.core.library import SETTINGS_NAME
    from desktop_app.core.paths import resolve_home
    from desktop_app.core.settings import read_settings
    from desktop_app.core.store import is_server_url

    home = resolve_home(args.home)
    settings, _ = read_settings(home / SETTINGS_NAME)
    if is_server_url(args.db or os.environ.get("TROVE_DB") or settings.server_url):
        print("trove: restore puts back a library file on this computer; this library is on a server, which its "
              "administrator restores", file=sys.stderr)
        return EXIT_USAGE
    report = restore_library(home, args.file)
    counts = report.manifest.counts
    print(f"restored {counts['folders']} folder(s), {counts['documents']} documents, {counts['chunks']} chunks, "
          f"{counts['chats']} chats from the backup Trove {report.manifest.trove_version} made on "
          f"{report.manifest.created_at} into {display_path(home)}")
    if report.kept_aside is not None:
        print(f"the library it replaced is kept (not deleted) in {display_path(report.kept_aside)}")
    return EXIT_OK
