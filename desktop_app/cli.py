"""`trove`: thin commands over the Library facade. Errors become one-line messages and exit codes.

Exit status: 0 success, 1 a known error (message on stderr, no traceback), 2 a usage error.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Callable, Sequence

from desktop_app import __version__
from desktop_app.core.errors import KnownError
from desktop_app.core.pathnames import display_path

EXIT_OK, EXIT_ERROR, EXIT_USAGE = 0, 1, 2
MAX_K = 10_000


def result_count(text: str) -> int:
    """`-k`: a whole number of results from 1 to MAX_K (argparse turns the ValueError into a usage line)."""
    k = int(text)
    if not 1 <= k <= MAX_K:
        raise argparse.ArgumentTypeError(f"must be between 1 and {MAX_K}, not {k}")
    return k


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="trove", description="Trove: a local-first knowledge base for your folders.")
    parser.add_argument("--home", metavar="DIR", help="library folder (default: $TROVE_HOME or the user data dir)")
    parser.add_argument("--version", action="version", version=f"trove {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log what happens to stderr")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    p = sub.add_parser("index", help="add folders or files to the library and index them")
    p.add_argument("paths", nargs="+", metavar="PATH")
    p.add_argument("--chunk-size", type=int, help="words per chunk (saved as a setting)")
    p.add_argument("--chunk-overlap", type=int, help="words repeated between chunks (saved as a setting)")
    p.add_argument("--no-wait", action="store_true", help="return once files are keyword-searchable")
    p.add_argument("--json", action="store_true", help="print a JSON summary")
    p.set_defaults(func=cmd_index)

    p = sub.add_parser("search", help="search the library")
    p.add_argument("query")
    p.add_argument("-k", type=result_count, default=10, help=f"how many results (1 to {MAX_K}, default 10)")
    p.add_argument("--mode", choices=("hybrid", "keyword", "semantic"), default="hybrid")
    p.add_argument("--documents", action="store_true", help="one result per document")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_search)

    p = sub.add_parser("stats", help="what is indexed, and what failed and why")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_stats)

    p = sub.add_parser("folders", help="list library folders")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_folders)

    p = sub.add_parser("remove", help="remove a folder and everything indexed from it")
    p.add_argument("path")
    p.set_defaults(func=cmd_remove)

    p = sub.add_parser("gui", help="open the Trove window")
    p.add_argument("paths", nargs="*", metavar="PATH", help="folders (or files) to add to the library first")
    p.add_argument("--sample", action="store_true", help="open a library of the bundled sample documents")
    p.add_argument("--screenshot", metavar="PNG", help="render the window to a PNG and exit")
    p.add_argument("--query", help="with --screenshot: type this search first")
    p.add_argument("--ask", help="with --screenshot: ask this question first")
    p.set_defaults(func=cmd_gui, needs_library=False)

    for register in _extensions():
        register(sub)
    return parser


def _extensions() -> list[Callable[[argparse._SubParsersAction], None]]:
    """Command groups that live in their own modules (chat, watch)."""
    found = []
    for module, name in (("desktop_app.cli_chat", "add_chat_commands"), ("desktop_app.cli_watch", "add_watch_commands"),
                         ("desktop_app.cli_repair", "add_repair_commands")):
        try:
            mod = __import__(module, fromlist=[name])
        except ModuleNotFoundError as exc:
            if exc.name != module:
                raise
            continue
        found.append(getattr(mod, name))
    return found


def open_library(args):
    """The Library for this command (imported here so `trove --help` stays fast)."""
    from desktop_app.core.library import Library

    return Library(home=args.home)


def cmd_index(args, library) -> int:
    changes = {}
    if args.chunk_size is not None:
        changes["chunk_size"] = args.chunk_size
    if args.chunk_overlap is not None:
        changes["chunk_overlap"] = args.chunk_overlap
    if changes:
        library.update_settings(**changes)
    _add_paths(library, args.paths)
    from desktop_app.cli_watch import ProgressPrinter

    printer = ProgressPrinter(sys.stderr, plain=False)  # a bar on a terminal for long runs; quiet otherwise
    unsubscribe = library.subscribe(printer)
    try:
        report = library.sync(wait=not args.no_wait)
    finally:
        printer.close()
        unsubscribe()
    summary = report.as_dict()
    summary["files_indexed"] = summary["indexed"]
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print(f"indexed {report.indexed}, unchanged {report.unchanged}, moved {report.moved}, removed {report.removed}, "
              f"failed {report.failed} files; {report.chunks} chunks in {report.seconds:.2f}s")
        for path, reason in report.errors:
            print(f"  failed: {display_path(path)}: {reason}")
        for path in report.offline:
            print(f"  offline: {display_path(path)}")
    if not args.no_wait and library.embed_worker.error:
        print(f"trove: files are keyword-searchable, but semantic indexing failed: {library.embed_worker.error}",
              file=sys.stderr)
        return EXIT_ERROR
    return EXIT_OK


def _add_paths(library, paths: Sequence[str]) -> None:
    """Add folders; a file adds the folder it is in (unless a library folder holds it already)."""
    from pathlib import Path

    for raw in paths:
        path = Path(raw).expanduser().resolve()
        if path.is_file():
            if library.folder_for_path(path) is None:
                library.add_folder(path.parent)
        else:
            library.add_folder(path)


def cmd_search(args, library) -> int:
    results = library.search(args.query, top_k=args.k, mode=args.mode, group_by_document=args.documents)
    if args.json:
        print(json.dumps([r.to_dict() for r in results], indent=2, ensure_ascii=False))
        return EXIT_OK
    if not results:
        print("no results")
    for i, r in enumerate(results, start=1):
        page = r.metadata.get("page")
        where = display_path(r.source) + (f" (p. {page})" if page else "")
        snippet = " ".join(r.content.split())[:200]
        print(f"{i:>2}. {where}  [{r.score:.3f}]\n    {snippet}")
    return EXIT_OK


def cmd_stats(args, library) -> int:
    stats = library.stats()
    if args.json:
        print(json.dumps(stats, indent=2))
        return EXIT_OK
    print(f"library: {stats['home']}")
    print(f"documents: {stats['documents']}  failed: {stats['failed']}  chunks: {stats['chunks']} "
          f"(with vectors: {stats['chunks_embedded']})  database: {stats['database_bytes'] / 1e6:.1f} MB")
    for f in stats["folders"]:
        print(f"  [{f['state']}] {display_path(f['path'])}: {f['documents']} documents, {f['failed']} failed, "
              f"{f['chunks']} chunks")
    if stats["failures"]:
        print("failed files:")
        for item in stats["failures"]:
            print(f"  {display_path(item['path'])}: {item['reason']}")  # one line, whatever the name holds
    if stats["embedding_error"]:
        print(f"semantic indexing: {stats['embedding_error']}")
    return EXIT_OK


def cmd_folders(args, library) -> int:
    folders = library.folders()
    if args.json:
        print(json.dumps([f.__dict__ for f in folders], indent=2))
    elif not folders:
        print("no folders yet: trove index PATH")
    for f in folders if not args.json else []:
        print(f"[{f.state}] {display_path(f.path)}  ({f.documents} documents, {f.failed} failed)")
    return EXIT_OK


def cmd_remove(args, library) -> int:
    n = library.remove_folder(args.path)
    print(f"removed {args.path} ({n} documents)")
    return EXIT_OK


def cmd_gui(args, _library) -> int:
    from desktop_app.ui.app import run_gui

    if args.paths:  # "Open with Trove" from a file manager: add, then the window syncs and watches them
        from desktop_app.core.library import Library

        with Library(home=args.home) as library:
            _add_paths(library, args.paths)

    return run_gui(home=args.home, sample=args.sample, screenshot=args.screenshot, query=args.query, ask=args.ask)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, stream=sys.stderr,
                        format="%(levelname)s %(name)s: %(message)s")
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
        return args.func(args, library)
    except KnownError as exc:
        print(f"trove: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except Exception as exc:  # a damaged database can fail in any query, not only where it is translated
        from desktop_app.core.db.connect import Error, translate_error

        if not isinstance(exc, Error) or not isinstance(translate_error(exc), KnownError):
            raise
        print(f"trove: {translate_error(exc)}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("trove: interrupted", file=sys.stderr)
        return 130
    finally:
        if library is not None:
            try:
                library.close()
            except KnownError as exc:
                print(f"trove: {exc}", file=sys.stderr)
