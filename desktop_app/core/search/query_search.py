"""A search in the query language: the typed query's filters go to the store, its phrases and exclusions are
checked on the passages found, and enough candidates are read that `top_k` results still come back.

Filters that the store holds (folders, types, languages, paths, dates, tags) narrow the candidates inside the
engine, as the filters menu's always have; phrases and exclusions are checked on each passage's text afterwards
(BM25 ranks by the phrase's words already), reading deeper while checks drop results.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import os
from collections.abc import Callable, Iterable

from desktop_app.core.search.query_language import ParsedQuery
from desktop_app.core.store.rows import Filters
from desktop_app.core.types import RetrievalResult

MAX_DEPTH = 2000  # passages read at most for one page of checked results (phrases, exclusions)
Plain = Callable[[str, int, bool, "Filters | None"], list[RetrievalResult]]


def query_filters(parsed: ParsedQuery, base: Filters | None) -> Filters | None:
    """The menu's filters (`base`) narrowed by the typed query's; None when neither filters anything."""
    base = base or Filters()
    path_has = list(base.path_has)
    if parsed.folders:  # a folder anywhere on the path: the library folder's own name or a folder inside it
        path_has.append(tuple(_folder_part(f) for f in parsed.folders))
    if parsed.files:
        path_has.append(tuple(f.casefold() for f in parsed.files))
    start, end = parsed.dates.start, parsed.dates.end
    if start and end and start >= end:
        end = start  # an empty range: nothing matches (never an error)
    ends = [day for day in (base.date_to, _iso(end)) if day]  # "" is open: the earliest given end closes it
    made = dataclasses.replace(
        base, types=_narrow(base.types, parsed.types), langs=_narrow(base.langs, parsed.langs),
        path_has=tuple(path_has), tags=tuple(dict.fromkeys((*base.tags, *(t.casefold() for t in parsed.tags)))),
        date_from=max(base.date_from, _iso(start)), date_to=min(ends) if ends else "")
    return made or None


def _folder_part(name: str) -> str:
    name = name.strip().rstrip("/\\").casefold()
    return name + os.sep if os.path.isabs(name) else os.sep + name + os.sep


def _narrow(menu: tuple[str, ...], typed: tuple[str, ...]) -> tuple[str, ...]:
    """Both the menu's and the typed choices: what both allow (the typed ones alone when the menu has none)."""
    if not menu or not typed:
        return menu or typed
    both = tuple(v for v in typed if v in menu)
    return both or ("\x00none",)  # nothing is both: a value no document has


def _iso(day: dt.date | None) -> str:
    return day.isoformat() if day else ""


def checked_search(parsed: ParsedQuery, top_k: int, group_by_document: bool, filters: Filters | None,
                   plain: Plain) -> list[RetrievalResult]:
    """`plain(text, k, group, filters)` searched for the parsed query's free text; with phrases or exclusions, ever
    deeper (up to MAX_DEPTH) until `top_k` passages pass the checks or the candidates run out."""
    if top_k <= 0 or not (parsed.free_text.strip() or filters):
        return []  # a query of filters only lists what they allow (`plain` of no words)
    if not parsed.checks_text:
        return plain(parsed.free_text, top_k, group_by_document, filters)
    depth = max(4 * top_k, 50)
    while True:
        found = plain(parsed.free_text, depth, False, filters)
        kept = _first(_passing(found, parsed), top_k, group_by_document)
        if len(kept) >= top_k or len(found) < depth or depth >= MAX_DEPTH:
            return kept
        depth = min(depth * 4, MAX_DEPTH)


def _passing(results: Iterable[RetrievalResult], parsed: ParsedQuery) -> list[RetrievalResult]:
    return [r for r in results if parsed.accepts(r.content)]


def _first(results: list[RetrievalResult], top_k: int, group_by_document: bool) -> list[RetrievalResult]:
    out: list[RetrievalResult] = []
    seen: set[object] = set()
    for r in results:
        doc = r.metadata.get("document_id")
        if group_by_document:
            if doc in seen:
                continue
            seen.add(doc)
        out.append(r)
        if len(out) >= top_k:
            break
    return out

