"""Semantic and hybrid search with the real all-MiniLM-L6-v2 model and the real sqlite-vec index."""

import subprocess
import sys
from pathlib import Path

import numpy as np

from desktop_app.core.embed.base import HashEmbedder
from desktop_app.core.library import Library
from desktop_app.core.settings import Settings
from tests.support.helpers import assert_consistent

DOCS = {
    "cats.txt": "Cats are small domesticated felines that purr and hunt mice.",
    "cars.txt": "The engine of an automobile burns fuel to turn the wheels.",
    "cooking.txt": "Simmer the tomato sauce slowly with garlic and basil.",
}


def make_docs(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in DOCS.items():
        (docs / name).write_text(text, encoding="utf-8")
    return docs


def test_minilm_vectors_are_normalised_and_meaningful(minilm):
    vecs = minilm.embed(["a kitten", "a young cat", "tax law"])
    assert vecs.shape == (3, 384) and vecs.dtype == np.float32
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-4)
    assert vecs[0] @ vecs[1] > vecs[0] @ vecs[2] + 0.2


def test_semantic_search_finds_meaning_without_shared_words(tmp_path, minilm):
    docs = make_docs(tmp_path)
    with Library(tmp_path / "home", settings=Settings(), embedder=minilm) as lib:
        lib.add_folder(docs)
        lib.sync()
        assert lib.search("kitty", mode="keyword") == []
        semantic = lib.search("kitty", mode="semantic", top_k=1)
        assert Path(semantic[0].source).name == "cats.txt"
        assert 0 < semantic[0].score <= 1
        hybrid = lib.search("vehicle motor", mode="hybrid", top_k=3)
        assert Path(hybrid[0].source).name == "cars.txt"
        assert lib.stats()["chunks_embedded"] == 3


def test_sync_without_wait_is_keyword_searchable_first(tmp_path, minilm):
    docs = make_docs(tmp_path)
    with Library(tmp_path / "home", settings=Settings(), embedder=minilm) as lib:
        lib.add_folder(docs)
        lib.sync(wait=False)
        assert [Path(r.source).name for r in lib.search("garlic", mode="keyword")] == ["cooking.txt"]
        assert lib.wait_for_embeddings(timeout=120)
        assert Path(lib.search("italian food", mode="semantic", top_k=1)[0].source).name == "cooking.txt"


def test_edit_and_delete_leave_no_stale_vectors(make_library, tmp_path):
    docs = make_docs(tmp_path)
    lib = make_library()
    lib.add_folder(docs)
    lib.sync()
    assert assert_consistent(lib.db_path)["vectors"] == 3
    (docs / "cats.txt").write_text("Dogs bark loudly at the mailman.", encoding="utf-8")
    import os
    import time

    os.utime(docs / "cats.txt", ns=(time.time_ns(), time.time_ns() + 5_000_000_000))
    lib.sync()
    top = lib.search("purr mice felines", mode="semantic", top_k=3)
    assert all(Path(r.source).name != "cats.txt" for r in top)  # old vector is gone
    (docs / "cars.txt").unlink()
    lib.sync()
    c = assert_consistent(lib.db_path)
    assert c["vectors"] == 2 and c["chunks"] == 2


def test_changing_the_model_reembeds_and_never_mixes(tmp_path):
    docs = make_docs(tmp_path)
    home = tmp_path / "home"
    with Library(home, settings=Settings(embedder="hash")) as lib:
        lib.add_folder(docs)
        lib.sync()
    small = HashEmbedder(dim=64)
    with Library(home, settings=Settings(embedder="hash"), embedder=small) as lib:
        assert assert_consistent(lib.db_path)["vectors"] == 0  # old-model vectors dropped at open
        report = lib.sync()
        assert report.indexed == 0  # nothing re-extracted: only re-embedded
        c = assert_consistent(lib.db_path)
        assert c["vectors"] == 3
        from desktop_app.core.store.sqlite.connect import connect

        conn = connect(lib.db_path, readonly=True)
        dims = {len(blob) // 4 for (blob,) in conn.execute("SELECT embedding FROM chunks_vec")}
        model = conn.execute("SELECT value FROM meta WHERE key = 'embed_model'").fetchone()[0]
        conn.close()
        assert dims == {64} and model == small.model_id
        assert Path(lib.search("felines purr", mode="semantic", top_k=1)[0].source).name == "cats.txt"


def test_importing_core_does_not_import_torch_or_qt():
    code = (
        "import sys, desktop_app.core, desktop_app.core.library, desktop_app.core.memory\n"
        "print(sorted(m for m in ('torch', 'sentence_transformers', 'llama_cpp', 'PySide6') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_keyword_search_and_stats_do_not_load_the_model(tmp_path):
    docs = make_docs(tmp_path)
    code = (
        "import sys\nfrom desktop_app.core.library import Library\nfrom desktop_app.core.settings import Settings\n"
        f"lib = Library({str(tmp_path / 'home')!r}, settings=Settings(embedder='hash'))\n"
        f"lib.add_folder({str(docs)!r}); lib.sync(); lib.close()\n"
        f"lib = Library({str(tmp_path / 'home')!r})\n"
        "assert lib.search('garlic', mode='keyword'); assert lib.stats()['chunks_embedded'] == 0\n"
        "lib.search('garlic', mode='hybrid'); lib.close()\n"
        "print('torch' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


def test_search_never_waits_for_the_writer(make_library, tmp_path):
    import threading

    docs = make_docs(tmp_path)
    lib = make_library()
    lib.add_folder(docs)
    lib.sync()
    holding, release = threading.Event(), threading.Event()

    class Rollback(Exception):
        pass

    def delete_and_wait(conn):  # inside an open IMMEDIATE transaction: uncommitted deletes
        conn.execute("DELETE FROM chunks")
        holding.set()
        release.wait(30)
        raise Rollback  # nothing of it must ever be visible

    def hold_write_transaction():
        try:
            lib.store._write(delete_and_wait)
        except Rollback:
            pass

    t = threading.Thread(target=hold_write_transaction)
    t.start()
    try:
        assert holding.wait(10)
        for mode in ("keyword", "semantic", "hybrid"):
            assert [Path(r.source).name for r in lib.search("garlic basil", mode=mode, top_k=1)] == ["cooking.txt"]
    finally:
        release.set()
        t.join(10)


def long_chunk_text() -> str:
    filler = " ".join(
        f"The quarterly budget review covered spreadsheet line {i} and accounting totals." for i in range(40)
    )
    return filler + "\n\nAt the very end: molten lava poured from the erupting volcano down the mountainside."


def test_minilm_embeds_long_texts_window_by_window(minilm):
    text = long_chunk_text()
    windows = minilm.windows(text)
    assert len(windows) >= 2 and "volcano" in windows[-1] and "volcano" not in windows[0]
    (vecs,) = minilm.embed_passages([text])
    assert vecs.shape == (len(windows), 384)
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-4)
    assert minilm.embed_passages(["short"])[0].shape == (1, 384)


def test_the_tail_of_a_long_chunk_is_semantically_searchable(tmp_path, minilm):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "report.txt").write_text(long_chunk_text(), encoding="utf-8")
    (docs / "other.txt").write_text("Notes about gardening, tomatoes and watering the lawn.", encoding="utf-8")
    with Library(tmp_path / "home", settings=Settings(), embedder=minilm) as lib:
        lib.add_folder(docs)
        lib.sync()
        assert lib.stats()["chunks"] == 2  # the report is one chunk, longer than MiniLM's 256-token window
        c = assert_consistent(lib.db_path)
        assert c["vector_rows"] > c["vectors"] == 2
        hit = lib.search("magma flowing out of a mountain eruption", mode="semantic", top_k=1)[0]
        assert Path(hit.source).name == "report.txt"
        # re-chunking the same text keeps every window's vector: nothing is embedded again
        lib.reindex(wait=False)
        assert assert_consistent(lib.db_path)["vector_rows"] == c["vector_rows"]
        assert lib.stats()["chunks_embedded"] == 2
