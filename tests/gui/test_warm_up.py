"""Warming up: an empty library never loads the embedding model; the first time it has folders, one semantic
search (the real one, on the search lane) loads it; the heap is frozen once the window is built and once after the
first answer, not after every answer."""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from desktop_app.ui import heap
from desktop_app.ui.tasks import TaskRunner
from desktop_app.ui.warm_up import WarmUp


class Answers(QObject):
    answer_finished = Signal(object)


def test_one_semantic_search_once_there_are_folders_and_one_freeze_per_heavy_load(qtbot, library, monkeypatch):
    frozen: list[str] = []
    monkeypatch.setattr(heap, "freeze_long_lived", lambda reason: frozen.append(reason) or 0)
    searches: list[dict] = []
    real_search = library.search

    def recording(query, **kw):
        searches.append({"query": query, **kw})
        return real_search(query, **kw)
    library.search = recording
    tasks, answers = TaskRunner(), Answers()
    warm = WarmUp(library, tasks, answers.answer_finished)
    warm.on_folders([])  # an empty library: nothing to warm up for
    assert not warm.searched and tasks.pending() == 0
    with qtbot.waitSignal(tasks.idle, timeout=30_000):
        warm.on_folders(["/somewhere"])
    warm.on_folders(["/somewhere"])
    assert searches == [{"query": "warm up", "top_k": 1, "mode": "semantic"}] and tasks.pending() == 0
    answers.answer_finished.emit(object())
    answers.answer_finished.emit(object())
    assert frozen == ["window built", "embedding model loaded", "chat model loaded"]
    tasks.shutdown()
