"""A bug anywhere (a slot, a thread, a background task) becomes an error Notice whose details can be copied;
a KnownError from a task stays its one line."""

from __future__ import annotations

import sys
import threading

import pytest
from PySide6.QtWidgets import QApplication

from desktop_app.core.errors import DatabaseLockedError
from desktop_app.core.events import Notice
from desktop_app.ui import crash
from desktop_app.ui.tasks import TaskRunner
from desktop_app.ui.window.notices_view import NoticesView


@pytest.fixture
def posted(qapp):
    notices: list[Notice] = []
    undo = crash.install_crash_notices(notices.append)
    yield notices
    undo()


def _raise_in_a_slot() -> None:
    try:
        raise ValueError("a broken invariant at postgresql://bob:hunter2@db.example/lib")
    except ValueError:
        sys.excepthook(*sys.exc_info())


@pytest.mark.logs_errors
def test_an_uncaught_exception_is_a_notice_with_details_and_no_password(qtbot, posted, logged_errors):
    _raise_in_a_slot()
    qtbot.waitUntil(lambda: len(posted) == 1)
    notice = posted[0]
    assert notice.level == "error" and "ValueError" in notice.message and "Copy details" in notice.message
    assert "Traceback" in notice.details and "_raise_in_a_slot" in notice.details
    assert "hunter2" not in notice.details + notice.message and "bob:***@db.example" in notice.details
    assert any("uncaught exception" in r.getMessage() for r in logged_errors)  # the log file gets it too


@pytest.mark.logs_errors
def test_a_thread_that_dies_is_a_notice_on_the_ui_thread(qtbot, posted, logged_errors):
    seen_on: list[bool] = []
    crash._reporter.crashed.connect(lambda _n: seen_on.append(threading.current_thread() is threading.main_thread()))

    def die() -> None:
        raise RuntimeError("a worker died")

    thread = threading.Thread(target=die, name="worker-x")
    thread.start()
    thread.join()
    qtbot.waitUntil(lambda: len(posted) == 1)
    assert "RuntimeError: a worker died" in posted[0].message and "worker-x" in logged_errors[0].getMessage()
    assert seen_on == [True]


@pytest.mark.logs_errors
def test_a_task_bug_is_a_crash_notice_and_a_known_error_its_line(qtbot, posted, logged_errors):
    runner = TaskRunner()
    failed: list[str] = []
    runner.task_failed.connect(lambda message, _exc: failed.append(message))

    def locked() -> None:
        raise DatabaseLockedError("The library database is locked by another program; try again shortly.")

    def bug() -> None:
        raise KeyError("missing")

    runner.run(locked)
    runner.run(bug)
    qtbot.waitUntil(lambda: len(failed) == 1 and len(posted) == 1)
    assert failed == ["The library database is locked by another program; try again shortly."]
    assert "KeyError" in posted[0].message and "Traceback" in posted[0].details
    runner.shutdown()


@pytest.mark.logs_errors
def test_without_the_hooks_a_task_bug_is_still_a_line(qtbot, logged_errors):
    runner = TaskRunner()
    failed: list[str] = []
    runner.task_failed.connect(lambda message, _exc: failed.append(message))
    runner.run(lambda: {}["missing"])
    qtbot.waitUntil(lambda: len(failed) == 1)
    assert failed == ["KeyError: 'missing'"]
    runner.shutdown()


def test_copy_details_copies_a_crash_report_and_only_a_crash_report(qtbot):
    view = NoticesView()
    qtbot.addWidget(view)
    view.add(Notice("warning", "a folder is offline", path="/data/docs"))
    assert not view.copy_details.isEnabled()
    view.add(Notice("error", "Trove hit an unexpected error", details="Traceback: the report"))
    assert view.copy_details.isEnabled()
    view.copy_details.click()
    assert QApplication.clipboard().text() == "Traceback: the report"
    view.list.setCurrentRow(1)  # the offline folder
    assert not view.copy_details.isEnabled()


def test_a_lane_is_a_closed_set(qtbot):
    from desktop_app.ui.tasks import LANES, Lane

    runner = TaskRunner()
    done: list[int] = []
    runner.run(lambda: 1, done.append, lane="search")  # the string is the member
    runner.run(lambda: 2, done.append, lane=Lane.RERANK)
    qtbot.waitUntil(lambda: sorted(done) == [1, 2])
    with pytest.raises(ValueError, match="'serach'"):
        runner.run(lambda: 3, lane="serach")
    assert set(LANES) == set(Lane)
    runner.shutdown()
