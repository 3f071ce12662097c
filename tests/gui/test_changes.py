"""Changes are announced as LibraryChanged events, and reloads coalesce: never two at once, one more after a burst."""

from __future__ import annotations

import threading

from desktop_app.ui.tasks import TaskRunner
from desktop_app.ui.window.changes import ChangeKind, Coalesced


class Gate:
    """Work that blocks until released, counting its runs (on the pool thread)."""

    def __init__(self, fail: bool = False) -> None:
        self.runs = 0
        self.started = threading.Event()
        self.release = threading.Event()
        self.fail = fail

    def __call__(self) -> int:
        self.runs += 1
        self.started.set()
        assert self.release.wait(10)
        if self.fail:
            raise OSError("the disk went away")
        return self.runs


def test_two_requests_while_running_give_exactly_one_more_run(qtbot):
    runner, gate, done = TaskRunner(), Gate(), []
    refresh = Coalesced(runner, gate, done.append, lambda exc: done.append(exc))
    refresh.request()
    assert gate.started.wait(10) and refresh.running
    refresh.request()
    refresh.request()  # both while the first runs: they ask for one more run, not two
    assert refresh.again
    gate.release.set()
    qtbot.waitUntil(lambda: len(done) == 2 and not refresh.running, timeout=10_000)
    qtbot.wait(100)  # anything else queued would arrive now
    runner.shutdown()
    assert gate.runs == 2 and done == [1, 2] and not refresh.again


def test_a_request_after_a_run_ended_starts_a_new_one(qtbot):
    runner, gate, done = TaskRunner(), Gate(), []
    gate.release.set()
    refresh = Coalesced(runner, gate, done.append, lambda exc: done.append(exc))
    refresh.request()
    qtbot.waitUntil(lambda: done == [1], timeout=10_000)
    refresh.request()
    qtbot.waitUntil(lambda: done == [1, 2], timeout=10_000)
    runner.shutdown()
    assert gate.runs == 2


def test_a_failed_run_reports_and_still_runs_the_one_requested_after_it(qtbot):
    runner, gate, failures, done = TaskRunner(), Gate(fail=True), [], []
    sync = Coalesced(runner, gate, done.append, failures.append, lane="index")
    sync.request()
    assert gate.started.wait(10)
    sync.request()
    gate.release.set()
    qtbot.waitUntil(lambda: len(failures) == 2 and not sync.running, timeout=10_000)
    runner.shutdown()
    assert gate.runs == 2 and done == [] and all(isinstance(f, OSError) for f in failures)


def test_a_shut_runner_leaves_nothing_running(qtbot):
    runner = TaskRunner()
    runner.shutdown()
    refresh = Coalesced(runner, lambda: 1, print, print)
    refresh.request()
    assert not refresh.running


def settle(qtbot, window) -> None:
    """Wait until the window's start-up work is over: no task in flight, no reload waiting on its timer."""
    qtbot.waitUntil(lambda: window.tasks.pending() == 0 and not window._refresh_timer.isActive(), timeout=10_000)


def test_the_window_reloads_once_more_after_a_burst_of_changes(qtbot, window):
    settle(qtbot, window)
    reloads = []
    window.refreshed.connect(lambda folders, stats: reloads.append(stats))
    for kind in (ChangeKind.FOLDERS, ChangeKind.MEMORY, ChangeKind.FOLDERS):  # the first runs, the others wait
        window.events.announce(kind)
    qtbot.waitUntil(lambda: len(reloads) == 2 and window.tasks.pending() == 0, timeout=10_000)
    qtbot.wait(400)  # past REFRESH_MS: no stray reload follows
    assert len(reloads) == 2


def test_settings_changes_reach_the_chat_pane_not_the_folder_reload(qtbot, window, monkeypatch):
    settle(qtbot, window)
    models, reloads = [], []
    monkeypatch.setattr(window.chat_pane, "refresh_model", lambda: models.append(1))
    window.refreshed.connect(lambda folders, stats: reloads.append(stats))
    window.events.announce(ChangeKind.SETTINGS)
    qtbot.wait(400)
    assert models == [1] and reloads == []
