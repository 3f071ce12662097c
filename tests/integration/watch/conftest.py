"""Fixtures for live-sync tests: a watched temp folder with the real watchdog, SQLite and sqlite-vec."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from desktop_app.core.library import Library
from desktop_app.core.settings import Settings
from tests.support.helpers import query_db

TIMEOUT = 15.0  # generous: other test runs share the two cores


def wait_until(condition, timeout: float = TIMEOUT, interval: float = 0.05, message: str = "condition"):
    """Poll `condition` until it returns something truthy; fail the test after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f}s waiting for {message}")
        time.sleep(interval)


def names(results) -> list[str]:
    return [Path(r.source).name for r in results]


def doc_paths(lib: Library) -> list[str]:
    """Every document path in the index (duplicates would show twice)."""
    return [r[0] for r in query_db(lib.db_path, "SELECT path FROM documents ORDER BY path")]


class Watched:
    """A library folder being watched: `docs` (the folder), `lib`, `watcher`, `notices` and helpers."""

    def __init__(self, tmp_path: Path, settings: Settings, embedder=None, **watcher_kwargs) -> None:
        self.docs = tmp_path / "docs"
        self.docs.mkdir(exist_ok=True)
        self.lib = Library(tmp_path / "home", settings=settings, embedder=embedder)
        self.events: list = []
        self.lib.subscribe(self.events.append)
        self.lib.add_folder(self.docs)
        self.watcher = self.lib.start_watching(**watcher_kwargs)
        assert self.watcher.wait_idle(TIMEOUT), "startup reconcile did not finish"

    @property
    def notices(self):
        from desktop_app.core.events import Notice

        return [e for e in self.events if isinstance(e, Notice)]

    def keyword(self, word: str) -> list[str]:
        return names(self.lib.search(word, mode="keyword"))

    def wait_keyword(self, word: str, expected: list[str]) -> None:
        wait_until(lambda: sorted(self.keyword(word)) == sorted(expected), message=f"{word!r} -> {expected}")

    def folder_state(self) -> str:
        return self.lib.folders()[0].state

    def close(self) -> None:
        self.watcher.stop()
        assert not self.watcher.running
        self.lib.close()


@pytest.fixture
def watched(tmp_path):
    """A watched folder with the hash embedder and a 0.2 s debounce."""
    w = Watched(tmp_path, Settings(embedder="hash", debounce_seconds=0.2))
    yield w
    w.close()


@pytest.fixture
def make_watched(tmp_path):
    """Build a Watched with custom settings or observer options; closed at the end."""
    made = []

    def factory(settings: Settings | None = None, **kwargs) -> Watched:
        w = Watched(tmp_path, settings or Settings(embedder="hash", debounce_seconds=0.2), **kwargs)
        made.append(w)
        return w

    yield factory
    for w in made:
        w.close()
