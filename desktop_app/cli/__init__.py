"""`trove`: thin commands over the Library facade. Errors become one-line messages and exit codes.

Exit status: 0 success, 1 a known error (message on stderr, no traceback), 2 a usage error.
One module per command group: library (index, search, stats, folders, remove, gui), chat (ask, chats),
watch, models, repair, saved (saved searches), backup (backup, restore), server (a team library's PostgreSQL),
join (a desktop joins one), migrate and mcp (serve the library to AI apps);
`common` holds the exit codes and `progress` the progress printer.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from desktop_app import __version__
from desktop_app.cli.backup import add_backup_commands
from desktop_app.cli.chat import add_chat_commands
from desktop_app.cli.common import EXIT_ERROR, EXIT_INTERRUPTED, open_library
from desktop_app.cli.files import add_files_commands
from desktop_app.cli.join import add_join_commands
from desktop_app.cli.library import add_library_commands
from desktop_app.cli.mcp import add_mcp_commands
from desktop_app.cli.memory import add_memory_commands
from desktop_app.cli.migrate import add_migrate_commands
from desktop_app.cli.models import add_model_commands
from desktop_app.cli.repair import add_repair_commands
from desktop_app.cli.saved import add_saved_commands
from desktop_app.cli.server import add_server_commands
from desktop_app.cli.watch import add_watch_commands
from desktop_app.core.errors import KnownError
from desktop_app.core.log import configure as configure_logging

COMMAND_GROUPS = (add_library_commands, add_chat_commands, add_watch_commands, add_model_commands,
                  add_repair_commands, add_server_commands, add_join_commands, add_migrate_commands,
                  add_memory_commands, add_backup_commands, add_mcp_commands, add_files_commands, add_saved_commands)


def build_parser() -> argparse.ArgumentParser:
    """The `trove` argument parser with every command group."""
    parser = argparse.ArgumentParser(prog="trove", description="Trove: a local-first knowledge base for your folders.")
    parser.add_argument("--home", metavar="DIR", help="library folder (default: $TROVE_HOME or the user data dir)")
    parser.add_argument("--db", metavar="URL",
                        help="a postgresql:// library server (default: $TROVE_DB, else the embedded library)")
    parser.add_argument("--version", action="version", version=f"trove {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log what happens to stderr")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for register in COMMAND_GROUPS:
        register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one `trove` command; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    configure_logging(verbose=args.verbose)  # redacted like the window's log (core/log.py)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    for stream in (sys.stdout, sys.stderr):  # a file name with undecodable bytes prints as \udcff, never crashes
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    library = None
    try:
        if getattr(args, "needs_library", True):
            library = open_library(args)
            for problem in library.settings_problems:
                print(f"trove: {problem}", file=sys.stderr)
            if notice := getattr(library.store, "journal_notice", ""):  # on a network drive (sqlite/network_drive.py)
                print(f"trove: {notice}", file=sys.stderr)
        code = int(args.func(args, library))
        if library is not None and library.read_only:  # after the answer: a refused write says so in its own line
            print(f"trove: {library.read_only}", file=sys.stderr)
        return code
    except KnownError as exc:  # the store engines translate the environment's failures where they happen
        print(f"trove: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("trove: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    finally:
        if library is not None:
            try:
                library.close()
            except KnownError as exc:
                print(f"trove: {exc}", file=sys.stderr)
