"""Getting the heavy models ready without the person waiting or the window stalling: the embedding model loads
before the first keystroke, and what a model leaves alive is exempted from garbage collection (heap.py)."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QObject

from desktop_app.core.log import get_logger
from desktop_app.ui import heap
from desktop_app.ui.tasks import TaskRunner

log = get_logger("ui")


class WarmUp(QObject):
    """Warms the window's library up once it has something to search, and freezes the heap after each heavy load.

    `answer_finished` is the chat pane's signal: after the first answer the chat model is loaded for good."""

    def __init__(self, library, tasks: TaskRunner, answer_finished, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.library = library
        self.tasks = tasks
        self.searched = False
        self._answer_finished = answer_finished
        answer_finished.connect(self.on_first_answer)
        heap.freeze_long_lived("window built")

    def on_folders(self, folders: Sequence) -> None:
        """The library's folders were (re)read: the first time there are some, load the embedding model."""
        if not self.searched and folders:
            self.warm_up_search()

    def warm_up_search(self) -> None:
        """Load the embedding model now, with one throwaway semantic search, so the first keystroke does not wait
        for it; with the garbage collector paused, so loading it does not stall the window (see heap.py).
        Only once the library has folders: an empty library should not load the model at all."""
        self.searched = True
        search = self.library.search

        def warm_up():
            with heap.collector_paused("embedding model loaded"):
                return search("warm up", top_k=1, mode="semantic")
        self.tasks.run(warm_up, None, lambda exc: log.info("search warm-up failed: %s", exc), lane="search")

    def on_first_answer(self, _answer) -> None:
        """The chat model is loaded now: its Python objects are here to stay."""
        self._answer_finished.disconnect(self.on_first_answer)
        heap.freeze_long_lived("chat model loaded")
