"""Store.write_batch on both engines: the writes inside commit together, each all-or-nothing on its own."""

from __future__ import annotations

import pytest

from desktop_app.core.errors import ExtractionError
from desktop_app.core.store.rows import DocumentMove, NewChunk
from tests.integration.store.test_store_protocol import chunks, doc


def broken_after_one(first: NewChunk):
    """Chunks that fail half-way (a streamed file that went bad while it was read)."""
    yield first
    raise ExtractionError("the file changed while it was read")


def test_a_failed_write_in_a_batch_rolls_back_alone(store, folder):
    store.write_document(doc(folder.id, folder.path + "/b.txt"), chunks("b old"))
    with store.write_batch():
        a = store.write_document(doc(folder.id, folder.path + "/a.txt"), chunks("a1", "a2"))
        with pytest.raises(ExtractionError):
            store.write_document(doc(folder.id, folder.path + "/b.txt", digest="2"),
                                 broken_after_one(chunks("b new")[0]))
        store.record_failure(doc(folder.id, folder.path + "/c.pdf"), "bad")
        with store.write_batch():  # nested: part of the outer batch
            store.write_document(doc(folder.id, folder.path + "/d.txt"), chunks("d1"))
    known = store.documents_under(folder.id)
    assert sorted(p.rsplit("/", 1)[-1] for p in known) == ["a.txt", "b.txt", "c.pdf", "d.txt"]
    assert known[folder.path + "/b.txt"].content_hash == "d1"  # the failed rewrite left the old one whole
    assert [p.text for p in store.pending_chunks(10, document_id=a)] == ["a1", "a2"]
    assert sorted(p.text for p in store.pending_chunks(10)) == ["a1", "a2", "b old", "d1"]
    assert store.counts().chunks == 4


def test_an_exception_out_of_a_batch_keeps_the_whole_writes_before_it(store, folder):
    store.write_document(doc(folder.id, folder.path + "/kept.txt"), chunks("kept"))
    with pytest.raises(RuntimeError), store.write_batch():
        store.write_document(doc(folder.id, folder.path + "/x.txt"), chunks("x1", "x2"))
        raise RuntimeError("the run stopped")
    known = store.documents_under(folder.id)
    assert folder.path + "/kept.txt" in known
    x = known.get(folder.path + "/x.txt")  # the writes before the exception are kept, each whole
    assert x is not None and len(store.pending_chunks(10, document_id=x.id)) == 2
    assert store.counts().chunks == 3


def test_a_batch_that_sqlite_rolled_back_itself_raises_the_cause(tmp_path):
    """On a full disk or an I/O error SQLite may roll the whole transaction back on its own: the batch then has
    nothing to commit, and the cause (one line) comes out, not "cannot commit - no transaction is active"."""
    from desktop_app.core.errors import DiskFullError
    from desktop_app.core.store.sqlite import SQLiteStore

    store = SQLiteStore(tmp_path / "library.db")
    try:
        folder = store.add_folder(str(tmp_path / "docs"))
        with pytest.raises(DiskFullError), store.write_batch():
            store.write_document(doc(folder.id, folder.path + "/x.txt"), chunks("x1"))
            store._conn.execute("ROLLBACK")  # what SQLite does itself after SQLITE_FULL in some statements
            raise DiskFullError("The disk holding the library is full; free some space and try again")
        assert store.documents_under(folder.id) == {}  # rolled back whole, never half
        store.write_document(doc(folder.id, folder.path + "/y.txt"), chunks("y1"))  # and the store still writes
        assert list(store.documents_under(folder.id)) == [folder.path + "/y.txt"]
    finally:
        store.close()


def test_keyword_rows_rewritten_moved_and_deleted_within_one_batch_end_as_the_last_write_left_them(store, folder):
    # SQLite queues a batch's keyword rows until it commits: a file written twice keeps only its last text (its new
    # chunk may reuse the old one's id), a deleted one none, a moved one its new title.
    with store.write_batch():
        store.write_document(doc(folder.id, folder.path + "/a.txt"), chunks("walrus tusks"))
        store.write_document(doc(folder.id, folder.path + "/a.txt", digest="2"), chunks("narwhal tusks"))
        b = store.write_document(doc(folder.id, folder.path + "/b.txt"), chunks("dugong grass"))
        store.delete_document(b)
        c = store.write_document(doc(folder.id, folder.path + "/c.txt"), chunks("manatee river"))
        store.move_documents([DocumentMove(doc_id=c, folder_id=folder.id, path=folder.path + "/sirenia.txt",
                                           size=10, mtime_ns=1)])
    assert store.keyword_candidates("walrus", 5) == [] and store.keyword_candidates("dugong", 5) == []
    assert len(store.keyword_candidates("narwhal", 5)) == 1 and len(store.keyword_candidates("tusks", 5)) == 1
    assert len(store.keyword_candidates("sirenia", 5)) == 1 and len(store.keyword_candidates("manatee", 5)) == 1
    assert store.counts().chunks == 2


def test_new_files_queued_in_a_batch_get_the_ids_returned_and_stay_in_order_with_other_writes(store, folder):
    # SQLite queues a batch's new files and inserts them together (pending_documents.py): every other write of
    # the batch must see them first, and each id write_document returned must be its row's.
    p = folder.path
    store.write_document(doc(folder.id, p + "/old.txt"), chunks("old words here"))
    with store.write_batch():
        ids = {"a": store.write_document(doc(folder.id, p + "/a.txt"), chunks("alpha one", "alpha two"))}
        ids["b"] = store.write_document(doc(folder.id, p + "/b.txt"), chunks("bravo"))
        store.write_document(doc(folder.id, p + "/old.txt", digest="d2"), chunks("old rewritten"))  # not new
        ids["c"] = store.write_document(doc(folder.id, p + "/c.txt"), chunks("charlie"))
        ids["a2"] = store.write_document(doc(folder.id, p + "/a.txt", digest="d3"), chunks("alpha again"))
        store.record_failure(doc(folder.id, p + "/bad.pdf"), "bad")
        ids["d"] = store.write_document(doc(folder.id, p + "/d.txt"), chunks("delta"))
        assert store.delete_document(ids["b"])
        ids["e"] = store.write_document(doc(folder.id, p + "/e.txt"), chunks("echo"))
    known = store.documents_under(folder.id)
    assert sorted(k.rsplit("/", 1)[-1] for k in known) == ["a.txt", "bad.pdf", "c.txt", "d.txt", "e.txt", "old.txt"]
    for name in ("c", "d", "e"):
        assert known[f"{p}/{name}.txt"].id == ids[name]
    assert ids["a2"] == ids["a"] == known[p + "/a.txt"].id  # the rewrite of a file queued earlier kept its row
    rows = {name: store.pending_chunks(10, document_id=ids[name]) for name in ("a", "c", "d", "e")}
    assert {name: [c.text for c in r] for name, r in rows.items()} == {
        "a": ["alpha again"], "c": ["charlie"], "d": ["delta"], "e": ["echo"]}
    assert store.counts().chunks == 5
    for word, name in (("charlie", "c"), ("delta", "d"), ("echo", "e"), ("again", "a")):
        assert [cid for cid, _ in store.keyword_candidates(word, 5)] == [rows[name][0].id]
    for gone in ("bravo", "two"):
        assert store.keyword_candidates(gone, 5) == []
