"""The counts `trove stats`, the status bar and the folder panel show are kept by triggers (SQLite migration 011):
after any mix of writes they equal a scan of the documents and chunks, and reading them reads no chunk."""

from __future__ import annotations

import random

import pytest

from desktop_app.core.errors import ExtractionError
from desktop_app.core.store.rows import ChunkVectors, DocumentMove, NewChunk, Span
from desktop_app.core.store.sqlite import SQLiteStore
from tests.integration.store.test_store_protocol import doc, unit
from tests.support.helpers import assert_consistent, query_db

DIM = 8


def scanned(db, folder_id=None):
    where = f"WHERE d.folder_id = {int(folder_id)}" if folder_id is not None else ""
    docs, failed = query_db(db, f"SELECT COALESCE(SUM(status = 'indexed'), 0), COALESCE(SUM(status = 'failed'), 0) "
                                f"FROM documents d {where}")[0]
    chunks, embedded = query_db(db, "SELECT COUNT(*), COALESCE(SUM(c.embedded = 1), 0) FROM chunks c "
                                    f"JOIN documents d ON d.id = c.document_id {where}")[0]
    return docs, failed, chunks, embedded


def kept(store, folder_id=None):
    c = store.counts(folder_id)
    return c.documents, c.failed, c.chunks, c.embedded


def some_chunks(rng, n):
    texts = ["the lighthouse keeper and the ships", "日本語の本を読みました", "x1 y2", "la maison et le jardin"]
    return [NewChunk(Span(i * 10, i * 10 + 9, f"{rng.choice(texts)} {i}"), None) for i in range(n)]


def broken(first):
    yield first
    raise ExtractionError("changed while it was read")


def random_step(store, rng: random.Random, step: int, folders: list, paths: dict[str, int]) -> dict[str, int]:
    """One write of a seeded mix: a document (listed or streamed chunks, sometimes beside a write that fails
    half-way in the same batch), a failure, a delete, a move across folders, vectors, or a folder removed.
    Returns the paths written so far (path -> document id)."""
    folder = rng.choice(folders)
    path = f"{folder.path}/doc{rng.randrange(15)}.{rng.choice(['txt', 'md', 'pdf'])}"
    action = rng.random()
    if action < 0.45:
        made = some_chunks(rng, rng.randrange(0, 4))  # a list, or streamed (its count follows the row)
        with store.write_batch():
            paths[path] = store.write_document(doc(folder.id, path, digest=str(step), type_=path[-3:]),
                                               made if rng.random() < 0.5 else iter(made))
            if rng.random() < 0.3:  # a write that fails half-way inside the batch changes nothing
                with pytest.raises(ExtractionError):
                    store.write_document(doc(folder.id, path + "x"), broken(some_chunks(rng, 1)[0]))
    elif action < 0.6:
        store.record_failure(doc(folder.id, path, digest=str(step), type_=path[-3:]), "bad")
        paths.pop(path, None)
    elif action < 0.75 and paths:
        store.delete_document(paths.pop(rng.choice(sorted(paths))))
    elif action < 0.85 and paths:
        src = rng.choice(sorted(paths))
        target = rng.choice(folders)
        dest = f"{target.path}/moved{step}.{src[-3:]}"
        store.move_documents([DocumentMove(doc_id=paths[src], folder_id=target.id, path=dest, size=1, mtime_ns=1)])
        paths[dest] = paths.pop(src)
    elif action < 0.95:
        pending = store.pending_chunks(rng.randrange(1, 6))
        store.store_vectors(ChunkVectors(p.id, p.text_hash, unit(p.id)) for p in pending)
    elif len(folders) > 1:
        gone = folders.pop(rng.randrange(len(folders)))
        store.delete_folder(gone.id)
        paths = {p: i for p, i in paths.items() if not p.startswith(gone.path + "/")}
    return paths


@pytest.mark.parametrize("seed", range(6))
def test_kept_counts_equal_a_scan_after_any_mix_of_writes(tmp_path, seed):
    rng = random.Random(seed)
    db = tmp_path / "library.db"
    store = SQLiteStore(db)
    store.ensure_embedding_model("test-model", DIM)
    folders = [store.add_folder(str(tmp_path / f"f{i}")) for i in range(3)]
    paths: dict[str, int] = {}
    try:
        for step in range(60):
            paths = random_step(store, rng, step, folders, paths)
            assert kept(store) == scanned(db), step
            for f in folders:
                assert kept(store, f.id) == scanned(db, f.id), (step, f.path)
        assert dict(store.formats()) == dict(query_db(
            db, "SELECT type, COUNT(*) FROM documents WHERE status = 'indexed' AND type != '' GROUP BY type"))
        assert dict(store.languages()) == dict(query_db(
            db, "SELECT lang, COUNT(*) FROM chunks WHERE lang != '' GROUP BY lang"))
        assert_consistent(db)
    finally:
        store.close()


def test_the_counts_are_read_without_scanning_documents_or_chunks(tmp_path):
    store = SQLiteStore(tmp_path / "library.db")
    try:
        folder = store.add_folder(str(tmp_path / "docs"))
        store.write_document(doc(folder.id, folder.path + "/a.txt"), some_chunks(random.Random(1), 3))
        seen: list[str] = []
        reader = store._reader()
        reader.set_trace_callback(seen.append)
        assert kept(store) == (1, 0, 3, 0) and kept(store, folder.id) == (1, 0, 3, 0)
        assert store.formats() == [("txt", 1)] and sum(n for _, n in store.languages()) <= 3
        reader.set_trace_callback(None)
        assert len(seen) >= 7
        for sql in seen:
            for row in reader.execute("EXPLAIN QUERY PLAN " + sql):
                step = str(row[3])
                if step.startswith("SCAN"):  # a whole scan only of the counts, or of what waits
                    small = step.startswith(("SCAN doc_counts", "SCAN lang_counts"))
                    assert small or "chunks_pending" in step or "ocr_pages_pending" in step, (sql, step)
    finally:
        store.close()
