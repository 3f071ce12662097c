"""The task runner is the one way back to the UI thread: results and progress arrive there, in order."""

from __future__ import annotations

import sys
import threading

import PySide6
from PySide6.QtCore import QThread

from desktop_app.ui.tasks import TaskRunner


def test_progress_reaches_the_ui_thread_in_order_and_before_the_result(qtbot, qapp):
    runner = TaskRunner()
    seen: list = []
    worker_threads: list = []

    def work(report):
        worker_threads.append(threading.get_ident())
        for n in range(200):
            report(n)
        return "done"

    def on_progress(value) -> None:
        seen.append((value, QThread.currentThread() == qapp.thread()))

    with qtbot.waitSignal(runner.idle, timeout=10_000):
        runner.run(work, lambda result: seen.append((result, QThread.currentThread() == qapp.thread())),
                   lane="chat", on_progress=on_progress)
    runner.shutdown()
    assert worker_threads and worker_threads[0] != threading.get_ident()  # the work itself ran on a pool thread
    assert seen == [(n, True) for n in range(200)] + [("done", True)]


def test_a_task_without_on_progress_is_called_with_no_argument(qtbot):
    runner = TaskRunner()
    results: list = []
    with qtbot.waitSignal(runner.idle, timeout=10_000):
        runner.run(lambda: 42, results.append)
    runner.shutdown()
    assert results == [42]


def test_progress_after_shutdown_is_dropped(qtbot):
    """A window that closed gets no more callbacks: progress still in flight is ignored, like results."""
    runner = TaskRunner()
    started, release = threading.Event(), threading.Event()
    seen: list = []

    def work(report):
        started.set()
        release.wait(10)
        report("late")
        return "late result"

    runner.run(work, seen.append, lane="download", on_progress=seen.append)
    assert started.wait(10)
    release.set()
    runner.shutdown()  # waits for the worker, whose report and result are then queued behind it
    qtbot.wait(50)  # let the queued signals arrive
    assert seen == []


def test_shutdown_leaves_the_network_lane_behind_and_drops_its_result(qtbot):
    """A connection test against a dead server may hang until its timeout: closing the window does not wait."""
    runner = TaskRunner()
    started, release, done = threading.Event(), threading.Event(), threading.Event()
    seen: list = []

    def hang() -> str:
        started.set()
        release.wait(120)
        done.set()
        return "late"

    runner.run(hang, seen.append, lane="network")
    assert started.wait(10)
    assert runner.shutdown(timeout_ms=60_000) is True and not done.is_set()  # returned with the task still running
    release.set()
    with qtbot.waitSignal(runner.idle, timeout=10_000):
        pass
    assert seen == []


def test_the_qt_binding_keeps_its_references_across_emits(qtbot):
    """Every report and result is a signal emit. PySide6 6.12.0's emit returns True without taking a reference, so
    each call drops one, and the process aborts ("bool_dealloc") after a few thousand; pyproject.toml excludes it."""
    runner = TaskRunner()
    before = sys.getrefcount(True)
    for _ in range(1000):
        runner.idle.emit()
    leaked = before - sys.getrefcount(True)
    runner.shutdown()
    assert leaked < 100, f"{leaked} references to True lost in 1,000 emits (PySide6 {PySide6.__version__})"
