"""`trove files`: the library ledger — every file Trove knows, its state and why (what the window's ledger lists);
`trove open PASSAGE_ID`: a passage (a search or ask result's passage_id) shown in its document's text, or its
file handed to the system's viewer."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path

from desktop_app.cli.common import EXIT_ERROR, EXIT_OK
from desktop_app.core.library_tools import refusal
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
    p = subparsers.add_parser("open", help="show a passage (a passage_id from search or ask) in its document")
    p.add_argument("passage_id", type=int, metavar="PASSAGE_ID")
    p.add_argument("--quote", default="", metavar="TEXT", help="a stretch of the passage to mark")
    p.add_argument("--around", type=int, default=400, metavar="CHARS", help="text shown either side (default 400)")
    p.add_argument("--system", action="store_true", help="open the file in the system's viewer instead")
    p.add_argument("--json", action="store_true", help="the passage, its place and the text around it as JSON")
    p.set_defaults(func=cmd_open)


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
                          "failed": counts.failed, "not_read": counts.not_read,
                          "files": [_json_row(r) for r in rows]}, indent=2, ensure_ascii=False))
        return EXIT_OK
    print(f"documents: {counts.documents}  failed: {counts.failed}  not read: {counts.not_read}  ("
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


def cmd_open(args, library) -> int:
    passage = library.viewer.passage(args.passage_id, args.quote)
    if passage is None:
        print(f"trove: no passage {args.passage_id} (its file changed or was removed; search again)", file=sys.stderr)
        return EXIT_ERROR
    if args.system:
        return open_in_system_viewer(library, passage.path)
    around = max(args.around, 0)
    before = max(passage.start - around, 0)
    after = min(passage.end + around, len(passage.text))
    if args.json:
        print(json.dumps({"passage_id": args.passage_id, "path": passage.path, "page": passage.page,
                          "type": passage.type, "passage": passage.text[passage.start:passage.end],
                          "quote": passage.text[passage.quote_start:passage.quote_end] if passage.quote_start >= 0
                          else "", "before": passage.text[before:passage.start],
                          "after": passage.text[passage.end:after]}, indent=2, ensure_ascii=False))
        return EXIT_OK
    where = f"  (p. {passage.page})" if passage.page is not None else ""
    print(display_path(passage.path) + where)
    text = passage.text
    marked = (text[passage.start:passage.quote_start] + "»" + text[passage.quote_start:passage.quote_end] + "«"
              + text[passage.quote_end:passage.end]) if passage.start <= passage.quote_start else \
        text[passage.start:passage.end]
    print(("…" if before else "") + display_text(text[before:passage.start]) + "[[" + display_text(marked) + "]]"
          + display_text(text[passage.end:after]) + ("…" if after < len(text) else ""))
    return EXIT_OK


def display_text(text: str) -> str:
    """Document text for a terminal: control characters (escape sequences) shown, not obeyed; lines kept."""
    return "\n".join(display_path(line) for line in text.split("\n"))


def open_in_system_viewer(library, path: str) -> int:
    """Hand a file of this computer's library folders to the system's handler for its type."""
    reason = refusal(path, [f.path for f in library.folders()])
    if reason is not None:
        print(f"trove: {reason}", file=sys.stderr)
        return EXIT_ERROR
    if sys.platform == "win32":
        os.startfile(path)  # type: ignore[attr-defined]  # noqa: S606 -- a checked path, the documented way
    else:
        subprocess.Popen(["open" if sys.platform == "darwin" else "xdg-open", path], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, start_new_session=True)
    print(f"opened {display_path(path)}")
    return EXIT_OK
