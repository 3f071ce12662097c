"""Folder states under live sync: offline and back, paused and resumed, removed; polling fallback; rescans."""

from __future__ import annotations

import errno
import os

from watchdog.observers import Observer
from watchdog.observers.polling import PollingObserver

from desktop_app.core.settings import Settings
from tests.integration.watch.conftest import doc_paths, wait_until


def test_folder_renamed_away_and_back_goes_offline_then_active_never_purged(watched, tmp_path):
    for i in range(3):
        (watched.docs / f"f{i}.txt").write_text(f"the gerenuk number {i}", encoding="utf-8")
    wait_until(lambda: len(watched.keyword("gerenuk")) == 3, message="three files")
    away = tmp_path / "docs-away"
    os.rename(watched.docs, away)
    wait_until(lambda: watched.folder_state() == "offline", message="offline")
    assert len(watched.keyword("gerenuk")) == 3  # still searchable while offline
    assert any("offline" in n.message for n in watched.notices)
    (away / "f0.txt").unlink()  # changes while away are caught up when it returns
    os.rename(away, watched.docs)
    wait_until(lambda: watched.folder_state() == "active", message="active again")
    wait_until(lambda: len(watched.keyword("gerenuk")) == 2, message="the file deleted while away to be gone")
    assert any("back online" in n.message for n in watched.notices)
    (watched.docs / "after.txt").write_text("a gerenuk after the return", encoding="utf-8")
    wait_until(lambda: len(watched.keyword("gerenuk")) == 3, message="live again after the return")


def test_deleting_the_last_file_applies_and_the_folder_stays_active(watched):
    only = watched.docs / "only.txt"
    only.write_text("a solitary saola", encoding="utf-8")
    watched.wait_keyword("saola", ["only.txt"])
    only.unlink()
    watched.wait_keyword("saola", [])
    assert watched.watcher.wait_idle(15)
    assert watched.folder_state() == "active"


def test_paused_folder_remembers_events_and_applies_them_on_resume(watched):
    keep = watched.docs / "keep.txt"
    keep.write_text("an old tarsier", encoding="utf-8")
    watched.wait_keyword("tarsier", ["keep.txt"])
    watched.watcher.pause(watched.docs)
    wait_until(lambda: watched.folder_state() == "paused", message="paused")
    (watched.docs / "fresh.txt").write_text("a fresh tarsier", encoding="utf-8")
    keep.rename(watched.docs / "kept.txt")
    # no work while paused: both operations are held, nothing changed in the index
    wait_until(lambda: sum(s.held for s in watched.watcher.status()) >= 2, message="held operations")
    assert watched.keyword("tarsier") == ["keep.txt"]
    watched.watcher.resume(watched.docs)
    watched.wait_keyword("tarsier", ["fresh.txt", "kept.txt"])
    assert len(doc_paths(watched.lib)) == 2


def test_removing_a_watched_folder_purges_it_and_stops_watching(watched, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    watched.lib.add_folder(other)
    (other / "o.txt").write_text("the other civet", encoding="utf-8")
    (watched.docs / "d.txt").write_text("the docs civet", encoding="utf-8")
    wait_until(lambda: len(watched.keyword("civet")) == 2, message="both folders indexed")
    assert watched.lib.remove_folder(other) == 1
    wait_until(lambda: [s.path for s in watched.watcher.status()] == [str(watched.docs)], message="unwatched")
    (other / "o2.txt").write_text("another civet, not watched", encoding="utf-8")
    (watched.docs / "d2.txt").write_text("a second docs civet", encoding="utf-8")
    watched.wait_keyword("civet", ["d.txt", "d2.txt"])


class FullInotify(Observer):
    """The native observer, failing to start the way watchdog reports a full inotify watch table."""

    def start(self):
        raise OSError(errno.ENOSPC, "inotify watch limit reached")


def test_watch_limit_falls_back_to_polling_and_says_so_once(make_watched):
    w = make_watched(native_factory=FullInotify, poll_seconds=0.2, check_seconds=0.2)
    (w.docs / "polled.txt").write_text("found by polling: the fossa", encoding="utf-8")
    w.wait_keyword("fossa", ["polled.txt"])
    (w.docs / "polled.txt").unlink()
    w.wait_keyword("fossa", [])
    statuses = w.watcher.status()
    assert statuses[0].polling and statuses[0].watching
    told = [n for n in w.notices if "instant change notifications" in n.message]
    assert len(told) == 1
    assert "limit" in told[0].message and told[0].path == str(w.docs)


class DeafObserver(PollingObserver):
    """An observer that never reports anything in a test's lifetime: events dropped by the OS."""

    def __init__(self):
        super().__init__(timeout=3600)


def test_periodic_rescan_catches_changes_the_observer_missed(make_watched):
    w = make_watched(Settings(embedder="hash", debounce_seconds=0.2, rescan_minutes=0.01), native_factory=DeafObserver)
    (w.docs / "missed.txt").write_text("an unnoticed binturong", encoding="utf-8")
    w.wait_keyword("binturong", ["missed.txt"])


def test_startup_reconcile_catches_changes_made_while_closed(tmp_path, make_library):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "stays.txt").write_text("an unchanged kinkajou", encoding="utf-8")
    (docs / "edited.txt").write_text("an old kinkajou", encoding="utf-8")
    (docs / "deleted.txt").write_text("a doomed kinkajou", encoding="utf-8")
    lib = make_library()
    lib.add_folder(docs)
    lib.sync()
    lib.close()
    (docs / "edited.txt").write_text("an edited olingo", encoding="utf-8")
    (docs / "deleted.txt").unlink()
    (docs / "added.txt").write_text("an added olingo", encoding="utf-8")
    lib = make_library()
    watcher = lib.start_watching()
    assert watcher.wait_idle(15)
    assert sorted(os.path.basename(r.source) for r in lib.search("olingo", mode="keyword")) == [
        "added.txt",
        "edited.txt",
    ]
    assert [os.path.basename(r.source) for r in lib.search("kinkajou", mode="keyword")] == ["stays.txt"]
    lib.close()
    assert not watcher.running
