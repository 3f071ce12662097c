"""`trove files`: the library ledger — every file Trove knows, its state and why (what the window's ledger lists)."""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict
from pathlib import Path

from desktop_app.cli.common import EXIT_OK
from desktop_app.core.pathnames import display_path
from desktop_app.core.store.ledger_rows import STATE_NAMES, FileState, LedgerQuery, LedgerRow, LedgerSort


def add_files_commands(subparsers: argparse._SubParsersAction) -> None:
    """Register `files`."""
    p = subparsers.add_parser("files", help="list every file the library knows with its state (and why it failed)")
    p.add_argument("--state", action="append", choices=[s.value for s in FileState], metavar="STATE",
                   help="only files in this state (repeatable): " + ", ".join(s.value for s in FileState))
    p.add_argument("--folder", metavar="DIR", help="only files in this folder (or below it)")
    p.add_argument("--type", metavar="TYPE", help="only documents of this type (pdf, md, docx, ...)")
    p.add_argument("--lang", metavar="CODE", help="only documents with text in this language (en, ar, ...)")
    p.add_argument("--sort", choices=[s.value for s in LedgerSort], default=LedgerSort.PATH.value)
    p.add_argument("--desc", action="store_true", help="sort in descending order")
    p.add_argument("--json", action="store_true", help="the counts and every row as JSON")
    p.set_defaults(func=cmd_files)


def query_of(args: argparse.Namespace) -> LedgerQuery:
    """The ledger query the command line asks for (a folder as typed, made absolute)."""
    folder = str(Path(args.folder).expanduser().resolve()) if args.folder else ""
    return LedgerQuery(folder=folder, states=tuple(FileState(s) for s in args.state or ()), type=args.type or "",
                       lang=args.lang or "", sort=LedgerSort(args.sort), descending=args.desc)


def cmd_files(args, library) -> int:
    query = query_of(args)
    counts = library.ledger.counts(query)
    rows = library.ledger.rows(query)
    if args.json:
        print(json.dumps({"counts": {str(s): n for s, n in counts.items()}, "documents": counts.documents,
                          "failed": counts.failed, "files": [_json_row(r) for r in rows]}, indent=2,
                         ensure_ascii=False))
        return EXIT_OK
    print(f"documents: {counts.documents}  failed: {counts.failed}  ("
          + ", ".join(f"{STATE_NAMES[s]} {n}" for s, n in counts.items() if n) + ")")
    for r in rows:
        where = display_path(r.path) + (f"  [{display_path(r.part_label)}]" if r.part_label else "")
        reason = f": {display_path(r.reason)}" if r.reason else ""  # one line, whatever the reason holds
        print(f"  {STATE_NAMES[r.state]:<19} {r.type or '-':<8} {where}{reason}")
    return EXIT_OK


def _json_row(row: LedgerRow) -> dict:
    out = asdict(row)
    out["state"] = str(row.state)
    return out
