"""Store.document_titles on both engines (the `store` fixture runs each test on SQLite and PostgreSQL)."""

from __future__ import annotations

from tests.integration.store.test_store_protocol import chunks, doc


def test_titles_by_id_and_gone_ids_left_out(store, folder):
    store.write_document(doc(folder.id, folder.path + "/a.txt", title="The Solar System"), chunks("planets"))
    store.write_document(doc(folder.id, folder.path + "/b.txt", title=""), chunks("bread"))
    rows = store.documents_under(folder.id)
    a, b = rows[folder.path + "/a.txt"].id, rows[folder.path + "/b.txt"].id
    assert store.document_titles([a, b, 10**9]) == {a: "The Solar System", b: "b"}
    assert store.document_titles([]) == {}
    store.delete_document(a)
    assert store.document_titles([a, b]) == {b: "b"}
