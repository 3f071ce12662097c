"""`trove repair [--force]`: check the library database; move a damaged one aside and rebuild the index.
`trove repair --rollback`: put back the snapshot kept before the last upgrade of the library's schema."""

from __future__ import annotations

import argparse
import os
import sys

from desktop_app.cli.common import EXIT_ERROR, EXIT_OK, EXIT_USAGE
from desktop_app.core.pathnames import display_path


def add_repair_commands(subparsers: argparse._SubParsersAction) -> None:
    """Register `trove repair`."""
    p = subparsers.add_parser("repair", help="check the library database; move a damaged one aside and rebuild")
    p.add_argument("--force", action="store_true", help="rebuild even when the check finds nothing wrong")
    p.add_argument("--rollback", action="store_true",
                   help="return to the copy kept before the last schema upgrade (the upgraded file is kept aside)")
    p.set_defaults(func=cmd_repair, needs_library=False)


def cmd_repair(args, _library) -> int:
    """Check, and when needed move aside, re-create with the same folders, and re-index."""
    from desktop_app.core.library import SETTINGS_NAME, Library
    from desktop_app.core.paths import resolve_home
    from desktop_app.core.settings import read_settings
    from desktop_app.core.store import is_server_url
    from desktop_app.core.store.sqlite.backup.repair import repair_library, restore_folders

    settings, _ = read_settings(resolve_home(args.home) / SETTINGS_NAME)
    server = args.db or os.environ.get("TROVE_DB") or settings.server_url
    if is_server_url(server):  # rebuilding would re-index this machine's folders into the server, not repair it
        print("trove: repair rebuilds the library file on this computer; this library is on a server, whose "
              "database its PostgreSQL looks after", file=sys.stderr)
        return EXIT_USAGE
    if args.rollback:
        return roll_back_upgrade(resolve_home(args.home) / "library.db")
    report = repair_library(args.home, force=args.force)
    if report.moved_to is None:
        print(f"the library database is fine (integrity check: {report.check}); nothing to do"
              if not report.damaged else "no library database here yet; nothing to do")
        return EXIT_OK
    print(f"the library database was {'damaged: ' + report.check if report.damaged else 'rebuilt on request'}")
    print(f"moved it aside (kept, not deleted): {display_path(report.moved_to)}")
    with Library(home=args.home) as library:
        missing = restore_folders(library, report.folders)
        for path in missing:
            print(f"  offline (not found now, kept): {display_path(path)}")
        if not report.folders:
            print("no folder list could be read from it: add your folders again with `trove index PATH`",
                  file=sys.stderr)
            return EXIT_ERROR
        result = library.sync(wait=True)
        print(f"re-indexed {len(report.folders) - len(missing)} folder(s): {result.indexed} files, "
              f"{result.failed} failed")
    return EXIT_OK


def roll_back_upgrade(db_path) -> int:
    """Put the pre-upgrade snapshot back in place; say where the upgraded file went and what opens it."""
    from desktop_app.core.store.sqlite.backup.upgrade_snapshot import roll_back

    done = roll_back(db_path)
    snap = done.snapshot
    print(f"rolled back to the copy kept before the upgrade from schema {snap.from_schema} to {snap.to_schema} "
          f"({snap.taken_at}{'' if snap.migrated else ', an upgrade that did not finish'})")
    print(f"the upgraded library is kept (not deleted): {display_path(done.kept_as)}")
    print(f"open it with the Trove that wrote schema {snap.from_schema}: this one would upgrade it again")
    return EXIT_OK
