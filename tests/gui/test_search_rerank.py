"""The search pane's Rerank toggle: plain results first, the reranked order replaces them on its own lane, and a
slow rerank never holds up the next keystroke's search."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Sequence

import pytest

from desktop_app.ui.tasks import LANES
from tests.gui.gui_helpers import make_corpus, search


class LatestFirst:
    """A deterministic, deliberately slow reranker: "Document N" scores N (the corpus's later files first); it
    waits on `gate` before answering."""

    name = "latest-first"
    floor = 0.0

    def __init__(self) -> None:
        self.gate = threading.Event()
        self.calls = 0

    def score(self, query: str, texts: Sequence[str]) -> list[float]:
        self.calls += 1
        self.gate.wait(10)
        return [float(re.search(r"Document (\d+)", t).group(1)) for t in texts]


@pytest.fixture
def reranking(qtbot, window, tmp_path):
    folder = make_corpus(tmp_path / "corpus", 30)
    scorer = LatestFirst()
    window.library.searcher.reranker = lambda: scorer
    window.folders_panel.add_paths([str(folder)])
    qtbot.waitUntil(lambda: len(window.library.search("sourdough", top_k=30)) >= 3 and not window.syncing,
                    timeout=60_000)
    return window, scorer


def test_toggling_rerank_reorders_the_list_after_the_plain_results(qtbot, reranking):
    window, scorer = reranking
    panel = window.search_panel
    plain = [r.source for r in search(qtbot, window, "sourdough crumb")]
    assert len(plain) >= 3 and scorer.calls == 0  # a keystroke's search never asks the reranker

    with qtbot.waitSignal(panel.reranked, timeout=10_000):
        panel.rerank.setChecked(True)
        assert panel.model.rowCount() == len(plain)  # the plain list stays up while the rerank runs
        scorer.gate.set()
    reranked = panel.model.results()
    assert all("rerank_score" in r.metadata for r in reranked) and [r.source for r in reranked] != plain
    # the order is the library's reranked search (the reranker's score interpolated with the search's: SEARCH_MIX)
    again = window.library.search("sourdough crumb", **{**panel.search_kwargs(), "rerank": True})
    assert [r.source for r in reranked] == [r.source for r in again]
    assert "reranked" in panel.summary.text()

    with qtbot.waitSignal(panel.results_shown, timeout=10_000):
        panel.rerank.setChecked(False)  # off: the plain order comes back
    assert [r.source for r in panel.model.results()] == plain


def test_a_slow_rerank_does_not_block_the_next_search(qtbot, reranking):
    window, scorer = reranking
    panel = window.search_panel
    assert LANES["rerank"] == 1 and LANES["search"] == 2  # the rerank has a lane of its own
    panel.rerank.setChecked(True)
    search(qtbot, window, "sourdough crumb")  # plain results shown; the rerank now waits on the gate
    qtbot.waitUntil(lambda: scorer.calls == 1, timeout=10_000)

    t0 = time.perf_counter()
    newer = search(qtbot, window, "glacier moraine")  # answered while the first rerank is still running
    assert newer and time.perf_counter() - t0 < 9 and not scorer.gate.is_set()
    assert all("glacier" in r.content for r in newer)

    dropped = panel.stale_dropped
    with qtbot.waitSignal(panel.reranked, timeout=10_000,
                          check_params_cb=lambda q, _n: q == "glacier moraine"):
        scorer.gate.set()  # both reranks finish: the old one is dropped, the newer one is shown
    qtbot.waitUntil(lambda: window.tasks.pending() == 0, timeout=10_000)
    assert panel.stale_dropped == dropped + 1
    assert all("glacier" in r.content for r in panel.model.results())
