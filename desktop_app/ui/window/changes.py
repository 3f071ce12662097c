"""What changed in the library, as an event, and the one coalescing runner that reloads after a change.

Anki's way (aqt/operations: an operation says what it changed and the screens refresh from that): whoever changes
the library announces `LibraryChanged(kind)` on the window's LibraryEvents (ui/window/library_events.py), and each pane
that shows that kind subscribes. A reload is a `Coalesced` task: never two at once, and a request while one runs
makes it run exactly once more afterwards, so the last change is always shown and a burst costs one extra run.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from desktop_app.ui.tasks import Lane, TaskRunner


class ChangeKind(StrEnum):
    """What a change touched, by what the window shows of it."""

    DOCUMENTS = "documents"  # indexing added, changed or removed documents: counts, stats, suggested questions
    FOLDERS = "folders"  # a folder was added, removed, paused, shared, or went offline: the folder list
    MEMORY = "memory"  # remembered facts changed (an answer, the Memory panel): the search pane's memory scope
    SETTINGS = "settings"  # settings or the default chat model changed: the chat pane's model line


@dataclass(frozen=True)
class LibraryChanged:
    """One announced change."""

    kind: ChangeKind


class Coalesced:
    """A piece of background work that never runs twice at once; requests while it runs make it run once more.

    `request()` starts `work` on the task runner's `lane` unless it is running; then it only notes that another run
    is wanted, and however many requests came, exactly one more run follows the current one (after its `on_done`
    or `on_error`, which run first).
    """

    def __init__(self, tasks: TaskRunner, work: Callable[[], Any], on_done: Callable[[Any], None],
                 on_error: Callable[[BaseException], None], *, lane: Lane | str = Lane.IO) -> None:
        self._tasks, self._work, self._lane = tasks, work, Lane(lane)
        self._on_done, self._on_error = on_done, on_error
        self._running = self._again = False

    @property
    def running(self) -> bool:
        """Whether a run is queued or in progress."""
        return self._running

    @property
    def again(self) -> bool:
        """Whether another run will follow the current one."""
        return self._again

    def request(self) -> None:
        """Run now, or once more after the run in progress."""
        if self._running:
            self._again = True
            return
        self._running = True
        if not self._tasks.run(self._work, self._done, self._failed, lane=self._lane):
            self._running = False  # the runner is shut down: nothing will run, nothing is pending

    def _done(self, result: Any) -> None:
        self._running = False
        self._on_done(result)
        self._follow()

    def _failed(self, exc: BaseException) -> None:
        self._running = False
        self._on_error(exc)
        self._follow()

    def _follow(self) -> None:
        if self._again:
            self._again = False
            self.request()
