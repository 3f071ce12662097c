"""`trove memory list | add | forget | search | off | on`: what Trove remembers about you (registered by cli.py)."""

from __future__ import annotations

import argparse
import json
import time

from desktop_app.cli.common import EXIT_ERROR, EXIT_OK, EXIT_USAGE, result_count

DAY = 86400.0


def add_memory_commands(subparsers: argparse._SubParsersAction) -> None:
    """Register `memory` and its subcommands."""
    p = subparsers.add_parser("memory", help="what Trove remembers about you: facts and past chats")
    sub = p.add_subparsers(dest="memory_command", metavar="ACTION", required=True)

    q = sub.add_parser("list", help="list remembered facts (newest first)")
    q.add_argument("--all", action="store_true", help="also outdated (corrected) and expired facts")
    q.add_argument("--json", action="store_true")
    q.set_defaults(func=cmd_list)

    q = sub.add_parser("add", help="remember a fact: KEY VALUE (a known key's other value corrects it)")
    q.add_argument("key")
    q.add_argument("value")
    q.add_argument("--category", default="", help="e.g. preference, work, person")
    q.add_argument("--expires", type=float, metavar="DAYS", help="forget it after this many days")
    q.set_defaults(func=cmd_add)

    q = sub.add_parser("forget", help="forget facts by id, key or a word of their key (every value they had), or "
                                      "everything with --all")
    q.add_argument("fact", nargs="?", metavar="KEY_OR_ID")
    q.add_argument("--all", action="store_true", help="forget every fact and all saved chat history")
    q.set_defaults(func=cmd_forget)

    q = sub.add_parser("search", help="search facts and past chats (and documents with --scope all)")
    q.add_argument("query")
    q.add_argument("-k", type=result_count, default=10, help="how many results (default 10)")
    q.add_argument("--scope", choices=("memory", "all", "documents"), default="memory")
    q.add_argument("--json", action="store_true")
    q.set_defaults(func=cmd_search)

    for name, on in (("off", False), ("on", True)):
        q = sub.add_parser(name, help=f"turn memory {name}" + (" (it stays stored, but no prompt or search uses it)"
                                                               if not on else ""))
        q.set_defaults(func=cmd_switch, on=on)


def cmd_list(args, library) -> int:
    """Print the facts, with age, confidence and source."""
    memory = library.memory
    facts = memory.list(include_outdated=args.all, include_expired=args.all)
    if args.json:
        print(json.dumps([f.__dict__ for f in facts], indent=2, ensure_ascii=False))
        return EXIT_OK
    if not memory.enabled:
        print("memory is off (`trove memory on` turns it back on)")
    if not facts:
        print("no facts remembered")
    now = time.time()
    for f in facts:
        days = int((now - f.updated_at) // DAY)
        marks = (" [outdated]" if f.outdated else "") + (" [expired]" if f.expired(now) else "")
        print(f"{f.id:>4}. {f.key} → {f.value}  ({round(f.confidence * 100)}%, {f.source}, "
              f"{'today' if days == 0 else f'{days}d ago'}){marks}")
    return EXIT_OK


def cmd_add(args, library) -> int:
    """Remember one fact; say whether it was new, known or a correction."""
    expires = time.time() + args.expires * DAY if args.expires else None
    change = library.memory.add(args.key, args.value, category=args.category, expires_at=expires)
    replaced = "; was " + ", ".join(f.value for f in change.replaced) if change.replaced else ""
    print(f"{change.action}: {change.fact.key} → {change.fact.value}{replaced}")
    return EXIT_OK


def cmd_forget(args, library) -> int:
    """Forget one fact (by id or key) or everything."""
    if args.all:
        gone = library.memory.forget_all()
        print(f"forgot every fact and all remembered chat history ({gone} item{'s' if gone != 1 else ''}); "
              "earlier chats will not be remembered again")
        return EXIT_OK
    if not args.fact:
        print("trove: say which fact to forget (a key or an id from `trove memory list`), or --all")
        return EXIT_USAGE
    found = library.memory.forget_matching(args.fact)
    if found.facts:
        print("forgot " + ", ".join(f"{f.key} → {f.value}" for f in found.facts))
        return EXIT_OK
    keys = ", ".join(found.keys) if found.keys else "none (no facts are remembered)"
    print(f"no remembered fact matches {args.fact!r}; the keys are: {keys}")
    return EXIT_ERROR


def cmd_search(args, library) -> int:
    """Search memory; every hit says where it came from."""
    return search_memory(args, library)


def search_memory(args, library) -> int:
    """Print memory hits for args.query / k / scope / json (also `trove search --scope memory|all`)."""
    hits = library.memory.search(args.query, top_k=args.k, scope=args.scope)
    if args.json:
        print(json.dumps([h.to_dict() for h in hits], indent=2, ensure_ascii=False))
        return EXIT_OK
    if not hits:
        print("no results" + ("" if library.memory.enabled else " (memory is off)"))
    for i, h in enumerate(hits, start=1):
        mark = f"  [outdated: now {h.provenance.get('superseded_by', '')}]" if h.outdated else ""
        print(f"{i:>2}. {h.kind}: {h.label()}  [{h.score:.3f}]{mark}\n    {' '.join(h.text.split())[:200]}")
    return EXIT_OK


def cmd_switch(args, library) -> int:
    """Turn memory on or off."""
    library.memory.set_enabled(args.on)
    print("memory is on" if args.on else "memory is off: no prompt or search uses it, and nothing new is saved")
    return EXIT_OK
