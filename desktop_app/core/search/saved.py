"""Saved searches: a query (its words and its filters, in the query language) kept under a name, per library.

They live in `saved-searches.json` in the library's home, beside its settings: a handful of short strings that the
window's list, `trove search --saved NAME` and `trove saved …` read. A saved search is its text, nothing parsed,
so it runs as typed against whatever the library holds when it runs (a relative `last month` moves with the
calendar) and never goes stale when the parser learns more. Names are matched ignoring case, kept as typed.

The file is written atomically (a crash leaves the old file); a file that is not a list of searches is refused
with its path in the message and never overwritten, so what the person saved is not lost.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from desktop_app.core.errors import KnownError
from desktop_app.core.pathnames import clean_text
from desktop_app.core.types import RetrievalResult

FILE_NAME = "saved-searches.json"
MAX_NAME_CHARS = 100
_lock = threading.Lock()  # one read-modify-write at a time in this process (the window and its tasks)


class SavedSearchError(KnownError):
    """A saved search that does not exist, a name taken or empty, or a file that cannot be read."""


@dataclass(frozen=True)
class SavedSearch:
    """A query kept under a name."""

    name: str
    query: str


def clean_name(name: str) -> str:
    """A name as kept: white space runs as one space, trimmed; refused when empty or too long."""
    name = " ".join(clean_text(name or "").split())
    if not name:
        raise SavedSearchError("A saved search needs a name.")
    if len(name) > MAX_NAME_CHARS:
        raise SavedSearchError(f"A saved search's name is at most {MAX_NAME_CHARS} characters.")
    return name


class SavedSearchFile:
    """The JSON file of a library's saved searches: read whole, written whole and atomically."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def read(self) -> list[SavedSearch]:
        try:
            raw = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise SavedSearchError(f"Cannot read the saved searches in {self.path}: {exc.strerror or exc}") from exc
        try:
            rows = json.loads(raw)
            return [SavedSearch(str(r["name"]), str(r["query"])) for r in rows]
        except (ValueError, TypeError, KeyError) as exc:
            raise SavedSearchError(f"The saved searches in {self.path} are damaged (not a list of names and "
                                   "queries); fix or move the file") from exc

    def write(self, searches: list[SavedSearch]) -> None:
        tmp = self.path.with_name(self.path.name + ".tmp")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_text(json.dumps([{"name": s.name, "query": s.query} for s in searches], indent=2,
                                      ensure_ascii=False), encoding="utf-8")
            os.replace(tmp, self.path)
        except OSError as exc:
            with contextlib.suppress(OSError):
                tmp.unlink()
            raise SavedSearchError(f"Cannot save the searches in {self.path}: {exc.strerror or exc}") from exc


class LibrarySavedSearches:
    """A library's saved searches (`library.saved`): list (`searches`), save, rename, remove, run."""

    def __init__(self, library: Any) -> None:
        self._library = library
        self._file = SavedSearchFile(Path(library.home) / FILE_NAME)

    def searches(self) -> list[SavedSearch]:
        """Every saved search, in the order they were saved."""
        return self._file.read()

    def get(self, name: str) -> SavedSearch:
        """The saved search called `name` (ignoring case); SavedSearchError when there is none."""
        found = _find(self._file.read(), clean_name(name))
        if found is None:
            raise SavedSearchError(f"No saved search called “{clean_name(name)}”.")
        return found

    def save(self, name: str, query: str, *, replace: bool = False) -> SavedSearch:
        """Keep `query` under `name`; a name already used is refused unless `replace` (it keeps its name)."""
        saved = SavedSearch(clean_name(name), clean_text(query or "").strip())
        if not saved.query:
            raise SavedSearchError("A saved search needs a query.")
        with _lock:
            searches = self._file.read()
            old = _find(searches, saved.name)
            if old is not None and not replace:
                raise SavedSearchError(f"There is already a saved search called “{old.name}”.")
            if old is not None:  # replaced under the name it had: renaming is its own step
                saved = SavedSearch(old.name, saved.query)
            searches = [saved if s is old else s for s in searches] if old else [*searches, saved]
            self._file.write(searches)
        return saved

    def rename(self, name: str, new_name: str) -> SavedSearch:
        """Give a saved search another name (refused when another one has it)."""
        new_name = clean_name(new_name)
        with _lock:
            searches = self._file.read()
            old = _find(searches, clean_name(name))
            if old is None:
                raise SavedSearchError(f"No saved search called “{clean_name(name)}”.")
            taken = _find(searches, new_name)
            if taken is not None and taken is not old:
                raise SavedSearchError(f"There is already a saved search called “{taken.name}”.")
            renamed = SavedSearch(new_name, old.query)
            self._file.write([renamed if s is old else s for s in searches])
        return renamed

    def remove(self, name: str) -> SavedSearch:
        """Forget a saved search; returns it (SavedSearchError when there is none)."""
        with _lock:
            searches = self._file.read()
            old = _find(searches, clean_name(name))
            if old is None:
                raise SavedSearchError(f"No saved search called “{clean_name(name)}”.")
            self._file.write([s for s in searches if s is not old])
        return old

    def run(self, name: str, top_k: int = 10, mode: str = "hybrid", **kwargs: Any) -> list[RetrievalResult]:
        """The results of a saved search now (Library.search of its query)."""
        return self._library.search(self.get(name).query, top_k, mode, **kwargs)


def _find(searches: list[SavedSearch], name: str) -> SavedSearch | None:
    folded = name.casefold()
    return next((s for s in searches if s.name.casefold() == folded), None)
