"""Migrations named by their functions (simonw/llm's `@migration`): the order is the file's, the id and the
recorded name come from `def m010_what_it_does(conn)`, and a gap or a repeat is refused when the module loads.

    registry = MigrationRegistry()

    @registry
    def m001_core(conn): ...

    MIGRATIONS = registry.entries        # [(1, "core", m001_core), ...]

Each engine keeps its own registry and runner (the SQL differs); tests/unit/core/store/test_migration_ids.py keeps a
checksum of every migration's body, so a released migration is never edited, only followed by a new one.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from desktop_app.core.errors import BugError

_NAME = re.compile(r"^m(\d{3})_([a-z0-9_]+)$")
Fn = Callable[..., Any]


class MigrationRegistry:
    """The ordered, contiguous list of one engine's migrations, filled by decorating them."""

    def __init__(self) -> None:
        self.entries: list[tuple[int, str, Fn]] = []

    def __call__(self, fn: Fn) -> Fn:
        found = _NAME.match(fn.__name__)
        if not found:
            raise BugError(f"a migration is named m<3 digits>_<what it does>, not {fn.__name__!r}")
        mid, name = int(found.group(1)), found.group(2)
        if mid != len(self.entries) + 1:
            raise BugError(f"migration {fn.__name__} comes after {len(self.entries)}: ids are contiguous, in order")
        self.entries.append((mid, name, fn))
        return fn

    @property
    def version(self) -> int:
        """The id of the last migration: the schema version this code writes."""
        return self.entries[-1][0]
