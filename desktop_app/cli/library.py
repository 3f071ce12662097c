"""`trove index | search | stats | folders | remove | gui`: the library commands."""

from __future__ import annotations

import argparse
import json
import sys

from desktop_app.cli.common import EXIT_ERROR, EXIT_OK, add_paths, open_library
from desktop_app.cli.progress import ProgressPrinter


def add_library_commands(sub: argparse._SubParsersAction) -> None:
    """Register index, search, stats, folders, remove and gui."""

    p = sub.add_parser("index", help="add folders or files to the library and index them")
    p.add_argument("paths", nargs="+", metavar="PATH")
    p.add_argument("--chunk-size", type=int, help="words per chunk (saved as a setting)")
    p.add_argument("--chunk-overlap", type=int, help="words repeated between chunks (saved as a setting)")
    p.add_argument("--no-wait", action="store_true", help="return once files are keyword-searchable")
    p.add_argument("--json", action="store_true", help="print a JSON summary")
    p.set_defaults(func=cmd_index)

    p = sub.add_parser("search", help="search the library")
    p.add_argument("query")
    p.add_argument("-k", type=int, default=10, help="how many results (default 10)")
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


def cmd_index(args, library) -> int:
    changes = {}
    if args.chunk_size is not None:
        changes["chunk_size"] = args.chunk_size
    if args.chunk_overlap is not None:
        changes["chunk_overlap"] = args.chunk_overlap
    if changes:
        library.update_settings(**changes)
    add_paths(library, args.paths)
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
        print(
            f"indexed {report.indexed}, unchanged {report.unchanged}, moved {report.moved}, removed {report.removed}, "
            f"failed {report.failed} files; {report.chunks} chunks in {report.seconds:.2f}s"
        )
        for path, reason in report.errors:
            print(f"  failed: {path}: {reason}")
        for path in report.offline:
            print(f"  offline: {path}")
    if not args.no_wait and library.embed_worker.error:
        print(
            f"trove: files are keyword-searchable, but semantic indexing failed: {library.embed_worker.error}",
            file=sys.stderr,
        )
        return EXIT_ERROR
    return EXIT_OK


def cmd_search(args, library) -> int:
    results = library.search(args.query, top_k=args.k, mode=args.mode, group_by_document=args.documents)
    if args.json:
        print(json.dumps([r.to_dict() for r in results], indent=2, ensure_ascii=False))
        return EXIT_OK
    if not results:
        print("no results")
    for i, r in enumerate(results, start=1):
        page = r.metadata.get("page")
        where = f"{r.source}" + (f" (p. {page})" if page else "")
        snippet = " ".join(r.content.split())[:200]
        print(f"{i:>2}. {where}  [{r.score:.3f}]\n    {snippet}")
    return EXIT_OK


def cmd_stats(args, library) -> int:
    stats = library.stats()
    if args.json:
        print(json.dumps(stats, indent=2))
        return EXIT_OK
    print(f"library: {stats['home']}")
    engine = stats["engine"]
    machine = library.store.machine_id
    print(f"engine: {engine['name']} {engine['version']} ({engine['location']})"
          + (f"  this machine: {machine}" if machine else ""))
    print(
        f"documents: {stats['documents']}  failed: {stats['failed']}  chunks: {stats['chunks']} "
        f"(with vectors: {stats['chunks_embedded']})  database: {stats['database_bytes'] / 1e6:.1f} MB"
    )
    for f in stats["folders"]:
        print(f"  [{f['state']}] {f['path']}: {f['documents']} documents, {f['failed']} failed, {f['chunks']} chunks")
    if stats["failures"]:
        print("failed files:")
        for item in stats["failures"]:
            print(f"  {item['path']}: {item['reason']}")
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
        print(f"[{f.state}] {f.path}  ({f.documents} documents, {f.failed} failed)")
    return EXIT_OK


def cmd_remove(args, library) -> int:
    n = library.remove_folder(args.path)
    print(f"removed {args.path} ({n} documents)")
    return EXIT_OK


def cmd_gui(args, _library) -> int:
    from desktop_app.ui.app import run_gui

    if args.paths:  # "Open with Trove" from a file manager: add, then the window syncs and watches them
        with open_library(args) as library:
            add_paths(library, args.paths)

    return run_gui(home=args.home, sample=args.sample, screenshot=args.screenshot, query=args.query, ask=args.ask,
                   db=args.db)
