"""`trove saved list | add | rename | remove`, and the query of `trove search --saved NAME`: saved searches."""

from __future__ import annotations

import argparse
import json
import sys

from desktop_app.cli.common import EXIT_OK
from desktop_app.core.pathnames import display_path


def add_saved_commands(sub: argparse._SubParsersAction) -> None:
    """Register `saved` and its actions."""
    p = sub.add_parser("saved", help="searches kept under a name (run one with `trove search --saved NAME`)")
    actions = p.add_subparsers(dest="saved_action", metavar="ACTION", required=True)
    a = actions.add_parser("list", help="the saved searches, with their queries")
    a.add_argument("--json", action="store_true")
    a.set_defaults(func=cmd_saved_list)
    a = actions.add_parser("add", help="save a query (words and filters, as `trove search` takes it) under a name")
    a.add_argument("name")
    a.add_argument("query")
    a.add_argument("--replace", action="store_true", help="replace the saved search of that name")
    a.set_defaults(func=cmd_saved_add)
    a = actions.add_parser("rename", help="give a saved search another name")
    a.add_argument("name")
    a.add_argument("new_name")
    a.set_defaults(func=cmd_saved_rename)
    a = actions.add_parser("remove", help="forget a saved search")
    a.add_argument("name")
    a.set_defaults(func=cmd_saved_remove)


def searched_query(args: argparse.Namespace, library) -> str | None:
    """What `trove search` searches: the saved search's query (`--saved`), with any typed words after it; the
    typed query alone; None when neither was given."""
    typed = (args.query or "").strip()
    if not getattr(args, "saved", None):
        return typed or None
    saved = library.saved.get(args.saved).query
    return f"{saved} {typed}" if typed else saved


def cmd_saved_list(args, library) -> int:
    searches = library.saved.searches()
    if args.json:
        print(json.dumps([{"name": s.name, "query": s.query} for s in searches], indent=2, ensure_ascii=False))
        return EXIT_OK
    if not searches:
        print("no saved searches (save one: trove saved add NAME QUERY)")
    width = max((len(s.name) for s in searches), default=0)
    for s in searches:
        print(f"{display_path(s.name):<{width}}  {display_path(s.query)}")
    return EXIT_OK


def cmd_saved_add(args, library) -> int:
    saved = library.saved.save(args.name, args.query, replace=args.replace)
    print(f"saved “{display_path(saved.name)}”: {display_path(saved.query)}")
    return EXIT_OK


def cmd_saved_rename(args, library) -> int:
    saved = library.saved.rename(args.name, args.new_name)
    print(f"renamed to “{display_path(saved.name)}”")
    return EXIT_OK


def cmd_saved_remove(args, library) -> int:
    gone = library.saved.remove(args.name)
    print(f"removed “{display_path(gone.name)}”", file=sys.stdout)
    return EXIT_OK
