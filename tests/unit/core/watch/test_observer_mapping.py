"""How raw watchdog events map onto debouncer calls, and the observer's fallback to polling."""

from __future__ import annotations

import errno

from watchdog.events import (
    DirCreatedEvent,
    DirModifiedEvent,
    DirMovedEvent,
    FileClosedEvent,
    FileClosedNoWriteEvent,
    FileCreatedEvent,
    FileDeletedEvent,
    FileMovedEvent,
    FileOpenedEvent,
)
from watchdog.observers import Observer

from desktop_app.core.settings import DEFAULT_EXCLUDES
from desktop_app.core.watch.observer import FolderEventHandler, FolderObserver, PathFilter


class Sink:
    def __init__(self):
        self.calls = []

    def changed(self, path, is_dir=False):
        self.calls.append(("changed", path, is_dir))

    def moved(self, src, dest, is_dir=False):
        self.calls.append(("moved", src, dest, is_dir))


def handle(*events):
    sink = Sink()
    handler = FolderEventHandler(PathFilter("/r", DEFAULT_EXCLUDES), sink)
    for event in events:
        handler.dispatch(event)
    return sink.calls


def test_content_events_become_changes_and_noise_is_dropped():
    assert handle(FileCreatedEvent("/r/a.txt"), FileClosedEvent("/r/a.txt"), FileDeletedEvent("/r/a.txt")) == [
        ("changed", "/r/a.txt", False)] * 3
    assert handle(FileOpenedEvent("/r/a.txt"), FileClosedNoWriteEvent("/r/a.txt"), DirModifiedEvent("/r")) == []


def test_excluded_names_and_what_is_inside_hidden_folders_are_ignored():
    assert handle(FileCreatedEvent("/r/node_modules/x.md"), FileCreatedEvent("/r/node_modules/x.xyz"),
                  DirCreatedEvent("/r/.git"), FileCreatedEvent("/r/.cache/a.txt"), FileCreatedEvent("/r/.cache/.b"),
                  FileCreatedEvent("/elsewhere/a.txt"), DirCreatedEvent("/r")) == []
    assert handle(DirCreatedEvent("/r/notes")) == [("changed", "/r/notes", True)]


def test_hidden_and_unknown_types_are_changes_the_ledger_lists():
    """A sync lists them as not read; the watcher brings them up to date the same way (listed, or forgotten)."""
    assert handle(FileCreatedEvent("/r/.hidden.txt"), FileCreatedEvent("/r/photo.xyz"),
                  DirCreatedEvent("/r/.cache"), FileDeletedEvent("/r/sub/old.xyz")) == [
        ("changed", "/r/.hidden.txt", False), ("changed", "/r/photo.xyz", False), ("changed", "/r/.cache", True),
        ("changed", "/r/sub/old.xyz", False)]


def test_moves_depend_on_which_end_we_care_about():
    assert handle(FileMovedEvent("/r/a.txt", "/r/b.txt")) == [("moved", "/r/a.txt", "/r/b.txt", False)]
    # an end Trove does not read is no move: each end is brought up to date (read, listed or forgotten) on its own
    assert handle(FileMovedEvent("/r/.goutputstream-X", "/r/a.txt")) == [("changed", "/r/.goutputstream-X", False),
                                                                         ("changed", "/r/a.txt", False)]
    assert handle(FileMovedEvent("/r/a.txt", "/r/a.txt~")) == [("changed", "/r/a.txt", False),
                                                               ("changed", "/r/a.txt~", False)]
    assert handle(DirMovedEvent("/r/x", "/r/.x")) == [("changed", "/r/x", True), ("changed", "/r/.x", True)]
    assert handle(FileMovedEvent("/r/a.txt", "/r/node_modules/a.txt")) == [("changed", "/r/a.txt", False)]
    assert handle(DirMovedEvent("/r/x", "/r/y")) == [("moved", "/r/x", "/r/y", True)]
    assert handle(FileMovedEvent("/r/x/a.txt", "/r/y/a.txt", is_synthetic=True)) == []


class Full(Observer):
    def start(self):
        raise OSError(errno.ENOSPC, "inotify watch limit reached")


def test_observer_falls_back_to_polling_when_the_watch_limit_is_hit(tmp_path):
    obs = FolderObserver(str(tmp_path), FolderEventHandler(PathFilter(str(tmp_path), ()), Sink()),
                         poll_seconds=0.1, native_factory=Full)
    try:
        status = obs.start()
        assert status.polling and "limit" in status.reason
        assert obs.alive()
    finally:
        obs.stop()
    assert not obs.alive()


def test_native_observer_is_used_when_it_starts(tmp_path):
    obs = FolderObserver(str(tmp_path), FolderEventHandler(PathFilter(str(tmp_path), ()), Sink()))
    try:
        assert obs.start().polling is False and obs.alive()
    finally:
        obs.stop()
