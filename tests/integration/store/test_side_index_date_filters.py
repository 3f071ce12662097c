"""Date and tag filters on the SQLite engine's side vector index (real sqlite-vec, a 600-chunk library with the
size thresholds lowered): a filter too wide to compare one by one is the side index's mask of the rows it allows,
read from the documents table on each query (dates and tags change without the vectors), so k results come
back, all allowed, exactly scored; a document's new date is seen by the next query."""

from __future__ import annotations

from desktop_app.core.store.rows import Filters
from desktop_app.core.store.side import vector_index as vi
from desktop_app.core.store.sqlite import search as sqlite_search
from tests.integration.store.test_vector_index import built, exact, make_library, vectors

N = 600


def test_date_and_tag_filters_return_k_from_the_allowed_chunks(tmp_path, monkeypatch):
    monkeypatch.setattr(vi, "MIN_VECTORS", 100)
    monkeypatch.setattr(vi, "REBUILD_QUIET", 0.0)
    monkeypatch.setattr(sqlite_search, "EXACT_SCOPE", 50)  # 200 allowed chunks: too many to compare one by one
    mat = vectors(N)
    store, rows, _ = make_library(tmp_path / "library.db", mat)
    doc_of = dict(store._read(lambda c: c.execute("SELECT id, document_id FROM chunks").fetchall()))
    march = {cid for cid, row in rows.items() if row % 3 == 0}
    for cid in march:
        store.set_document_facts(doc_of[cid], "2024-03-10", ("work",) if rows[cid] % 2 == 0 else ())
    built(store, vectors(1, seed=3)[0])
    assert store.__dict__["_vector_index"]._index is not None
    for q in vectors(5, seed=11):
        got = [c for c, _ in store.dense_candidates(q, 30, filters=Filters(date_from="2024-03-01",
                                                                          date_to="2024-04-01"))]
        assert got == exact(mat, rows, q, 30, march)
        tagged = {c for c in march if rows[c] % 2 == 0}
        assert [c for c, _ in store.dense_candidates(q, 30, filters=Filters(tags=("work",)))] == \
            exact(mat, rows, q, 30, tagged)
    moved = sorted(march)[0]
    store.set_document_facts(doc_of[moved], "2023-01-01", ())
    q = mat[rows[moved]]
    got = [c for c, _ in store.dense_candidates(q, 30, filters=Filters(date_from="2024-03-01"))]
    assert moved not in got and len(got) == 30  # the new date is seen at once (no remembered mask)
    store.close()
