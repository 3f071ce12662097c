"""`trove index | share | search | stats | folders | remove | gui`: the library commands."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from desktop_app.cli.common import EXIT_ERROR, EXIT_OK, EXIT_USAGE, MAX_K, add_paths, open_library, result_count
from desktop_app.cli.memory import search_memory
from desktop_app.cli.progress import ProgressPrinter
from desktop_app.cli.saved import searched_query
from desktop_app.core.chat.answer.context import place_text
from desktop_app.core.errors import FolderNotFoundError, KnownError
from desktop_app.core.pathnames import display_path
from desktop_app.core.shutdown import end_now
from desktop_app.core.store.rows import Share, parse_share
from desktop_app.core.text.language import LANGUAGE_NAMES
from desktop_app.core.types import SearchMode

STOP_SECONDS = 5.0  # --no-wait: how long a background phase gets to finish its step before the process ends


def add_library_commands(sub: argparse._SubParsersAction) -> None:
    """Register index, search, stats, folders, remove and gui."""

    p = sub.add_parser("index", help="add folders or files to the library and index them")
    p.add_argument("paths", nargs="+", metavar="PATH")
    p.add_argument("--chunk-size", type=int, help="words per chunk (saved as a setting)")
    p.add_argument("--chunk-overlap", type=int, help="words repeated between chunks (saved as a setting)")
    p.add_argument("--no-wait", action="store_true", help="return once files are keyword-searchable")
    p.add_argument("--json", action="store_true", help="print a JSON summary (with totals per phase)")
    p.add_argument("--share", type=share_arg, metavar="team|private|NAME,…",
                   help="who sees the folders in a team library (default: the library's setting, team)")
    p.add_argument("--json-events", action="store_true",
                   help="print one JSON object per progress event or notice on stdout (for scripts)")
    p.set_defaults(func=cmd_index)

    p = sub.add_parser("share", help="change who sees a folder of a team library")
    p.add_argument("path", nargs="?", metavar="PATH")
    p.add_argument("share", nargs="?", type=share_arg, metavar="team|private|NAME,…")
    p.add_argument("--default", type=share_arg, metavar="team|private",
                   help="the administrator's default for new folders")
    p.set_defaults(func=cmd_share)

    p = sub.add_parser("search", help="search the library")
    p.add_argument("query", nargs="?", default="",
                   help='words, "a phrase", -word, -"phrase", OR, type:pdf, folder:NAME, lang:th, tag:NAME, '
                        "file:NAME, after:2024-03, before:2024-05-01, date:2024, last month / this year")
    p.add_argument("--saved", metavar="NAME", help="run this saved search (`trove saved list`); words typed narrow it")
    p.add_argument("-k", type=result_count, default=10, help=f"how many results (1 to {MAX_K}, default 10)")
    p.add_argument("--mode", choices=tuple(SearchMode), default=SearchMode.HYBRID)
    p.add_argument("--documents", action="store_true", help="one result per document")
    p.add_argument("--type", action="append", metavar="TYPE", dest="types",
                   help="only this document type (pdf, docx, markdown, text, code, html, ...); repeatable")
    p.add_argument("--folder", action="append", metavar="PATH", dest="folders",
                   help="only this library folder; repeatable")
    p.add_argument("--lang", action="append", metavar="CODE", dest="langs",
                   help="only passages in this language (th, zh, ja, ko, ar, en, ...); repeatable")
    p.add_argument("--scope", choices=("documents", "memory", "all"), default="documents",
                   help="documents (default), memory (facts and past chats: see `trove memory`) or all")
    p.add_argument("--rerank", action=argparse.BooleanOptionalAction, default=None,
                   help="reorder the best candidates with the reranking model (slower; default: the "
                        "search_rerank setting)")
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

    _add_gui_command(sub)


def _add_gui_command(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("gui", help="open the Trove window")
    p.add_argument("paths", nargs="*", metavar="PATH", help="folders (or files) to add to the library first")
    p.add_argument("--sample", action="store_true", help="open a library of the bundled sample documents")
    p.add_argument("--screenshot", metavar="PNG", help="render the window to a PNG and exit")
    p.add_argument("--query", help="with --screenshot: type this search first")
    p.add_argument("--ask", help="with --screenshot: ask this question first")
    p.add_argument("--theme", choices=("system", "light", "dark"), default=None,
                   help="colours: the desktop's (system, the default; or TROVE_THEME), or Trove's light or dark")
    p.set_defaults(func=cmd_gui, needs_library=False)


def cmd_index(args, library) -> int:
    """Add PATHs and index them: the keyword phase, then (unless --no-wait) the vectors, with progress."""
    changes = {}
    if args.chunk_size is not None:
        changes["chunk_size"] = args.chunk_size
    if args.chunk_overlap is not None:
        changes["chunk_overlap"] = args.chunk_overlap
    if changes:
        library.update_settings(**changes)
    if args.share is None:
        add_paths(library, args.paths)
    else:
        add_shared(library, args.paths, args.share)
    # a bar per phase on a terminal (stderr), JSON lines with --json-events, quiet in a pipe otherwise
    printer = ProgressPrinter(sys.stdout if args.json_events else sys.stderr, json_events=args.json_events,
                              plain=False)
    unsubscribe = library.subscribe(printer)
    try:
        report = library.sync(wait=False)
        background_started = time.monotonic()
        if not args.no_wait:
            library.wait_idle()  # the OCR phase, then the vectors of everything
        background_seconds = time.monotonic() - background_started
    finally:
        printer.close()
        unsubscribe()
    stats = library.stats()
    phases = {"keyword": {"files": report.indexed, "chunks": report.chunks, "seconds": round(report.seconds, 3)},
              "ocr": stats["ocr"],
              "vectors": {"chunks_with_vectors": stats["chunks_embedded"],
                          "chunks_pending": stats["chunks"] - stats["chunks_embedded"]},
              "background": {"seconds": round(background_seconds, 3), "waited": not args.no_wait}}
    if args.json or args.json_events:
        summary = {**report.as_dict(), "files_indexed": report.indexed, "phases": phases}
        print(json.dumps({"kind": "summary", **summary} if args.json_events else summary,
                         indent=None if args.json_events else 2))
    else:
        print(f"indexed {report.indexed}, unchanged {report.unchanged}, moved {report.moved}, "
              f"removed {report.removed}, failed {report.failed} files; {report.chunks} chunks in "
              f"{report.seconds:.2f}s" + (f"; vectors for {stats['chunks_embedded']} of {stats['chunks']} chunks "
                                           f"after {background_seconds:.1f}s more" if not args.no_wait else ""))
        ocr = stats["ocr"]
        if ocr["pages_done"] or ocr["pages_failed"] or ocr["pages_pending"]:
            print(f"OCR: {ocr['pages_done']} pages read, {ocr['pages_failed']} unreadable, "
                  f"{ocr['pages_pending']} waiting")
        for path, reason in report.errors:
            print(f"  failed: {display_path(path)}: {display_path(reason)}")
        for path in report.offline:
            print(f"  offline: {display_path(path)}")
    if args.no_wait:
        return finish_without_waiting(library)
    if library.ocr_worker.error:
        print(f"trove: files are keyword-searchable, but the OCR phase stopped: {library.ocr_worker.error}",
              file=sys.stderr)
        return EXIT_ERROR
    if library.embed_worker.error:
        print(f"trove: files are keyword-searchable, but semantic indexing failed: {library.embed_worker.error}",
              file=sys.stderr)
        return EXIT_ERROR
    return EXIT_OK


def finish_without_waiting(library) -> int:
    """--no-wait: stop the OCR and vector phases after the step in flight (OCR writes no page after that), and end.

    A phase may be inside native code that cannot be interrupted (onnxruntime importing its models, building a
    session or reading a page: seconds, minutes on a busy machine); if one has not stopped within STOP_SECONDS
    the process ends without the interpreter's teardown, which would abort under it (core/shutdown.py)."""
    if not library.close(timeout=STOP_SECONDS):
        end_now(EXIT_OK)
    return EXIT_OK


def cmd_search(args, library) -> int:
    """Search and print results (or JSON)."""
    args.query = searched_query(args, library)
    if args.query is None:
        print("trove: search for what? Type a query, or --saved NAME (trove saved list)", file=sys.stderr)
        return EXIT_USAGE
    if getattr(args, "scope", "documents") != "documents":
        return search_memory(args, library)
    pending = library.store.keyword_rebuild_pending()
    if pending:
        print(f"trove: the keyword index is being rebuilt for this version of Trove ({pending} chunks left); "
              "results may be incomplete until `trove index` or the window finishes it.", file=sys.stderr)
    rerank = library.settings.search_rerank if args.rerank is None else args.rerank
    results = library.search(args.query, top_k=args.k, mode=args.mode, group_by_document=args.documents,
                             folders=args.folders, types=args.types, langs=args.langs, rerank=rerank)
    if args.json:
        print(json.dumps([r.to_dict() for r in results], indent=2, ensure_ascii=False))
        return EXIT_OK
    if not results:
        print("no results")
    for i, r in enumerate(results, start=1):
        place = place_text(r.metadata.get("label") or "", r.metadata.get("page"))
        mark = "  (OCR)" if r.metadata.get("ocr") else ""
        # Text another person's file holds: printed with its control characters shown, never sent to the
        # terminal (an escape sequence could rewrite the screen or the window's title).
        snippet = display_path(" ".join(r.content.split())[:200])
        rerank_score = r.metadata.get("rerank_score")
        scores = f"{r.score:.3f}" + (f" · rerank {rerank_score:.3f}" if rerank_score is not None else "")
        print(f"{i:>2}. {display_path(r.source)}" + (f" ({display_path(place)})" if place else "")
              + f"  [{scores}]{mark}\n    {snippet}")
    return EXIT_OK


def cmd_stats(args, library) -> int:
    """What is indexed where, in which languages, and what failed and why."""
    stats = library.stats()
    if args.json:
        print(json.dumps(stats, indent=2, ensure_ascii=False))
        return EXIT_OK
    engine = stats["engine"]
    machine = library.store.machine_id  # a team library: folders and leases are recorded per machine
    print(f"library: {stats['home']}  ({engine['name']} {engine['version']}: {engine['location']})"
          + (f"  this machine: {machine}" if machine else ""))
    print(f"documents: {stats['documents']}  failed: {stats['failed']}  chunks: {stats['chunks']} "
          f"(with vectors: {stats['chunks_embedded']})  database: {stats['database_bytes'] / 1e6:.1f} MB")
    if stats.get("not_read"):
        print(f"not read: {stats['not_read']} hidden or unsupported files (listed by `trove files --state skipped`)")
    if stats["languages"]:
        print("languages: " + ", ".join(f"{LANGUAGE_NAMES.get(code, code)} {n}" for code, n in stats["languages"]))
    if stats["dates"]["documents"]:
        dates = stats["dates"]
        print(f"dated documents: {dates['documents']} ({dates['from']} to {dates['to']}; others by modified day)")
    if stats["tags"]:
        print("tags: " + ", ".join(f"{display_path(tag)} {n}" for tag, n in stats["tags"]))
    if stats["keyword_rebuild_pending"]:
        print(f"keyword index: {stats['keyword_rebuild_pending']} chunks left to rebuild (trove index finishes it)")
    for f in stats["folders"]:
        print(f"  [{f['state']}] {display_path(f['path'])}: {f['documents']} documents, {f['failed']} failed, "
              f"{f['chunks']} chunks")
    if stats["failures"]:
        print("failed files:")
        for item in stats["failures"]:
            print(f"  {display_path(item['path'])}: {display_path(item['reason'])}")  # one line, whatever it holds
    ocr = stats["ocr"]
    if ocr["pages_pending"] or ocr["pages_done"] or ocr["pages_failed"]:
        print(f"OCR: {ocr['pages_done']} pages read, {ocr['pages_failed']} unreadable, {ocr['pages_pending']} waiting"
              + (f" ({display_path(ocr['error'])})" if ocr["error"] else ""))
    if stats["embedding_error"]:  # a library-wide notice any desktop of the library may have written
        print(f"semantic indexing: {display_path(stats['embedding_error'])}")
    return EXIT_OK


def share_arg(text: str) -> Share:
    """argparse's reading of team | private | NAME,… (a bad one is a usage error naming it)."""
    try:
        return parse_share(text)
    except KnownError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_shared(library, paths, share: Share) -> None:
    """Add folders seen by `share`; a folder already in the library (or holding the path) gets `share`."""
    for raw in paths:
        path = Path(raw).expanduser().resolve()
        folder = path.parent if path.is_file() else path
        if not folder.is_dir():
            raise FolderNotFoundError(f"Not a folder: {path}")
        existing = library.folder_for_path(folder)
        if existing is None:
            library.add_folder(folder, share)
        elif existing.share != share:
            info = library.share_folder(existing.path, share)
            print(f"{display_path(info.path)}: now seen by {describe_share(info.share)}")


def describe_share(share: Share) -> str:
    """Who sees a folder, in words."""
    if share.visibility == "private":
        return "you only"
    if share.visibility == "team":
        return "the whole team"
    return "you and " + ", ".join(share.people)


def cmd_share(args, library) -> int:
    """Change who sees a folder (its owner may), or with --default the library's default for new folders."""
    if args.default is not None:
        library.set_default_share(args.default)
        print(f"new folders are seen by {describe_share(args.default)} unless their owner says otherwise")
        return EXIT_OK
    if args.path is None or args.share is None:
        print("trove share: give PATH and team|private|NAME,… (or --default team|private)", file=sys.stderr)
        return EXIT_USAGE
    info = library.share_folder(args.path, args.share)
    print(f"{display_path(info.path)}: seen by {describe_share(info.share)}")
    return EXIT_OK


def cmd_folders(args, library) -> int:
    folders = library.folders()
    if args.json:
        print(json.dumps([f.__dict__ for f in folders], indent=2))
    elif not folders:
        print("no folders yet: trove index PATH")
    for f in folders if not args.json else []:
        seen = f" · {f.share}" if library.is_team_library else ""
        print(f"[{f.state}] {display_path(f.path)}  ({f.documents} documents, {f.failed} failed){seen}")
    return EXIT_OK


def cmd_remove(args, library) -> int:
    n = library.remove_folder(args.path)
    print(f"removed {display_path(args.path)} ({n} documents)")
    return EXIT_OK


def cmd_gui(args, _library) -> int:
    from desktop_app.ui.app import run_gui

    if args.paths:  # "Open with Trove" from a file manager: add, then the window syncs and watches them
        with open_library(args) as library:
            add_paths(library, args.paths)

    return run_gui(home=args.home, sample=args.sample, screenshot=args.screenshot, query=args.query, ask=args.ask,
                   db=args.db, theme=args.theme)
