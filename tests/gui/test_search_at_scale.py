"""Search as you type on a library big enough for the side vector index (docs/search-scale.md): the window keeps
its 20 ms heartbeat while every keystroke searches, and only the last query's results are shown.

The library is 24,000 chunks written through the store (the hash embedder's real vectors, a real FTS5 and
sqlite-vec), so the test builds in seconds; the side index (an IVF file beside the database) is built before the
window opens, and the test checks that the typed queries were answered through it."""

from __future__ import annotations

import random

import pytest

from desktop_app.core.index.upgrades import CHUNKER_VERSION
from desktop_app.core.ingest.chunking import Span
from desktop_app.core.settings import Settings
from desktop_app.core.store.rows import NewChunk, NewDocument
from desktop_app.core.store.side import keyword_index as ki
from desktop_app.core.store.side import vector_index as vi
from desktop_app.ui.heartbeat import Heartbeat

DOCUMENTS, CHUNKS_PER_DOCUMENT = 240, 100
MAX_STALL_MS = 200  # as tests/gui/test_responsiveness.py: "never frozen", measured by bench/ui_latency.py
WORDS = ("glacier moraine basalt fjord tundra violin rosin sonata coral reef lagoon compiler parser lexer "
         "kernel module orbit comet nebula quasar harvest orchard cider barley").split()


@pytest.fixture
def settings() -> Settings:
    return Settings(embedder="hash")


@pytest.fixture
def big(library, tmp_path, monkeypatch):
    """The library holding DOCUMENTS x CHUNKS_PER_DOCUMENT chunks, both side indexes built and loaded (the keyword
    one too: left to its 30 s quiet period it would be built in the middle of the test on a slow machine, and the
    typed query and the test's own would be ranked by different keyword indexes)."""
    monkeypatch.setattr(vi, "REBUILD_QUIET", 0.0)
    monkeypatch.setattr(ki, "REBUILD_QUIET", 0.0)
    store, rng = library.store, random.Random(7)
    folder = tmp_path / "big"
    folder.mkdir()
    fid = store.add_folder(str(folder)).id
    store.set_meta("chunker", str(CHUNKER_VERSION))  # as the indexer leaves it: the window's startup sync keeps them
    for d in range(DOCUMENTS):
        texts = [" ".join(rng.choice(WORDS) for _ in range(12)) + f" note{d}x{c}" for c in range(CHUNKS_PER_DOCUMENT)]
        vectors = library.embedder.embed(texts)
        path = folder / f"notes{d:03d}.txt"
        path.write_text("\n\n".join(texts), encoding="utf-8")
        stat = path.stat()
        store.write_document(
            NewDocument(folder_id=fid, path=str(path), title=path.stem, type="txt", size=stat.st_size,
                        mtime_ns=stat.st_mtime_ns, digest=f"d{d}"),
            [NewChunk(Span(0, len(t), t), None, vectors=vectors[i : i + 1]) for i, t in enumerate(texts)])
    assert store.counts().chunks >= max(vi.MIN_VECTORS, ki.MIN_CHUNKS)
    library.search("glacier", mode="hybrid")  # starts both side index builds
    for name in ("_vector_index", "_keyword_index"):
        store.__dict__[name].wait(120)
        assert store.__dict__[name]._index is not None, f"the {name[1:]} was not built"
    return library


def test_typing_on_a_large_library_never_blocks_and_shows_the_last_query(qtbot, big, make_window):
    window = make_window(big)
    window.show()
    qtbot.waitExposed(window)
    panel = window.search_panel
    index = big.store.__dict__["_vector_index"]._index
    used = []
    nearest = index.nearest
    index.nearest = lambda *a, **k: used.append(1) or nearest(*a, **k)  # count queries the side index answers
    beat = Heartbeat(20)
    beat.start()
    panel.query.setFocus()
    final = "violin rosin sonata"
    shown: list[str] = []
    panel.results_shown.connect(lambda q, n: shown.append(q))
    for word in ("glacier moraine", "coral", "compiler parser"):
        qtbot.keyClicks(panel.query, word, delay=15)  # a key every 15 ms: typing, with searches in flight
        qtbot.wait(120)
        panel.query.clear()
    with qtbot.waitSignal(panel.results_shown, timeout=30_000, check_params_cb=lambda q, n: q == final):
        qtbot.keyClicks(panel.query, final, delay=15)
    qtbot.waitUntil(lambda: window.tasks.pending() == 0, timeout=30_000)
    qtbot.wait(200)  # any late answer to an older query would arrive now
    beat.stop()
    stats = beat.summary()
    print("heartbeat", stats, "shown", shown, "stale dropped", panel.stale_dropped)
    assert shown[-1] == final
    assert panel.query.text() == final
    results = panel.model.results()
    assert results, "the last query found nothing"
    expected = big.search(final, **panel.search_kwargs())
    assert big.store.counts().chunks == DOCUMENTS * CHUNKS_PER_DOCUMENT, "the library changed under the test"
    ids = [r.metadata["chunk_id"] for r in results]
    assert ids == [r.metadata["chunk_id"] for r in expected]  # the last query's results, not an older one's
    assert used, "the typed queries were not answered through the side index"
    assert stats["ticks"] > 20
    assert stats["max_stall_ms"] < MAX_STALL_MS, stats
