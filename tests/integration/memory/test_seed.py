"""The seed memory API (desktop_app/core/memory/seed.py): every registry backend through the seed's own examples."""

import pytest

from desktop_app.core import MemoryBackend, MemoryRegistry, RetrievalResult
from desktop_app.core.embed.base import HashEmbedder

CORPUS = [
    ("Hello world", "test.txt"),
    ("Cats purr and chase mice around the house.", "cats.md"),
    ("The stock market fell sharply on Tuesday.", "news.txt"),
]


def fill(backend):
    return [backend.store(text, source=src, metadata={"n": i}) for i, (text, src) in enumerate(CORPUS)]


def test_seed_example_works_as_written(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    backend = MemoryRegistry.create("sqlite", db_path="./memory.db")
    backend.store("Hello world", source="test.txt")
    results = backend.retrieve("hello")
    assert isinstance(results[0], RetrievalResult)
    assert (results[0].content, results[0].source) == ("Hello world", "test.txt")
    assert (tmp_path / "memory.db").exists()


@pytest.mark.parametrize("key,kwargs", [
    ("sqlite", {}),
    ("bm25", {}),
    ("dense", {"embedder": HashEmbedder()}),
    ("hybrid", {"embedder": HashEmbedder()}),
])
def test_every_backend_stores_retrieves_deletes_clears(key, kwargs):
    backend = MemoryRegistry.create(key, **kwargs)
    assert isinstance(backend, MemoryBackend)
    ids = fill(backend)
    top = backend.retrieve("cats purr", top_k=2)
    assert top[0].source == "cats.md" and top[0].metadata["n"] == 1
    assert top[0].metadata["doc_id"] == ids[1]
    assert all(a.score >= b.score for a, b in zip(top, top[1:]))
    assert backend.delete(ids[1]) is True
    assert backend.delete(ids[1]) is False
    assert all(r.source != "cats.md" for r in backend.retrieve("cats purr", top_k=3))
    backend.clear()
    assert backend.retrieve("stock market") == []


def test_sqlite_and_dense_persist_in_their_file(tmp_path):
    for key, kw in (("sqlite", {}), ("dense", {"embedder": HashEmbedder()})):
        path = tmp_path / f"{key}.db"
        first = MemoryRegistry.create(key, db_path=path, **kw)
        doc_id = first.store("Persistent memories survive restarts", source="p.txt")
        first.close()
        again = MemoryRegistry.create(key, db_path=path, **kw)
        hit = again.retrieve("persistent memories", top_k=1)[0]
        assert (hit.source, hit.metadata["doc_id"]) == ("p.txt", doc_id)


def test_hybrid_of_explicit_parts_fuses_both(tmp_path):
    sparse = MemoryRegistry.create("bm25")
    dense = MemoryRegistry.create("dense", embedder=HashEmbedder())
    hybrid = MemoryRegistry.create("hybrid", sparse=sparse, dense=dense, k=60, sparse_weight=1.0, dense_weight=0.5)
    fill(hybrid)
    hits = hybrid.retrieve("stock market Tuesday", top_k=2)
    assert hits[0].source == "news.txt"
    assert hits[0].score == pytest.approx(1 / 61 + 0.5 / 61)


def test_dense_backend_with_the_real_model(minilm):
    dense = MemoryRegistry.create("dense", embedder=minilm)
    fill(dense)
    assert dense.retrieve("kittens", top_k=1)[0].source == "cats.md"


def test_register_a_custom_backend():
    @MemoryRegistry.register("echo-test")
    class Echo(MemoryBackend):
        def store(self, content, *, source="", metadata=None):
            self.last = (content, source)
            return "1"

        def retrieve(self, query, *, top_k=5, **kw):
            return [RetrievalResult(self.last[0], 1.0, self.last[1], {})]

        def delete(self, doc_id):
            return doc_id == "1"

        def clear(self):
            self.last = None

    backend = MemoryRegistry.create("echo-test")
    backend.store("x", source="y")
    assert backend.retrieve("anything")[0].source == "y"
    assert "echo-test" in MemoryRegistry.available()
    with pytest.raises(TypeError):
        MemoryRegistry.register("bad")(object)
    with pytest.raises(KeyError, match="no memory backend"):
        MemoryRegistry.create("nope")
