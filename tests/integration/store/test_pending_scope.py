"""The pending-chunks query leaves out the documents the semantic phase skips, on both engines."""

from __future__ import annotations

from desktop_app.core.store.rows import ChunkVectors
from tests.integration.store.test_store_protocol import chunks, doc, unit


def test_pending_chunks_and_their_count_leave_out_skipped_documents(store, folder):
    log = store.write_document(doc(folder.id, folder.path + "/big.log"), chunks("l1", "l2", "l3"))
    note = store.write_document(doc(folder.id, folder.path + "/note.txt"), chunks("n1", "n2"))
    other = store.write_document(doc(folder.id, folder.path + "/other.txt"), chunks("o1"))
    assert store.count_pending() == 6 and store.count_pending(skip_documents=()) == 6
    assert store.count_pending(skip_documents={log}) == 3 and store.count_pending(skip_documents={log, other}) == 2
    assert [p.text for p in store.pending_chunks(10, skip_documents={log})] == ["n1", "n2", "o1"]
    assert [p.text for p in store.pending_chunks(1, skip_documents=[log])] == ["n1"]  # the limit counts kept rows
    first = store.pending_chunks(10)[0]
    assert [p.text for p in store.pending_chunks(10, after_id=first.id, skip_documents={note})] == ["l2", "l3", "o1"]
    assert store.pending_chunks(10, document_id=log, skip_documents={log}) == []
    assert [p.text for p in store.pending_chunks(10, document_id=note, skip_documents={log})] == ["n1", "n2"]
    kept = store.pending_chunks(10, skip_documents={log})
    assert store.store_vectors(ChunkVectors(p.id, p.text_hash, unit(p.id)) for p in kept) == 3
    assert store.pending_chunks(10, skip_documents={log}) == [] and store.count_pending(skip_documents={log}) == 0
    assert [p.text for p in store.pending_chunks(10)] == ["l1", "l2", "l3"]  # skipped, not dropped
