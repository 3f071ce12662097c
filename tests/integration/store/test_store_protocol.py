"""The Store protocol, one suite for both engines (the `store` fixture runs each test on SQLite and PostgreSQL)."""

from __future__ import annotations

import inspect
from pathlib import Path

import numpy as np
import pytest

from desktop_app.core.ingest.chunking import Span
from desktop_app.core.store.base import Store
from desktop_app.core.store.rows import (
    ChunkVectors,
    DocStatus,
    DocumentMove,
    Filters,
    FolderState,
    MessageRow,
    NewChunk,
    NewDocument,
)
from tests.integration.store.conftest import DIM


def unit(seed: int, windows: int | None = None) -> np.ndarray:
    """A deterministic unit vector (or a (windows, DIM) matrix of them)."""
    rng = np.random.default_rng(seed)
    shape = (windows, DIM) if windows else (DIM,)
    v = rng.normal(size=shape).astype(np.float32)
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def chunks(*texts: str, page: int | None = None) -> list[NewChunk]:
    out, pos = [], 0
    for t in texts:
        out.append(NewChunk(Span(pos, pos + len(t), t), page))
        pos += len(t) + 1
    return out


def doc(folder_id: int, path: str, *, digest: str = "d1", title: str = "", type_: str = "txt", size: int = 10,
        mtime: int = 1, metadata=None) -> NewDocument:
    return NewDocument(folder_id=folder_id, path=path, title=title or Path(path).stem, type=type_, size=size,
                       mtime_ns=mtime, digest=digest, metadata=metadata)


def embed_all(store) -> int:
    pending = store.pending_chunks(1000)
    return store.store_vectors(ChunkVectors(p.id, p.text_hash, unit(p.id)) for p in pending)


# ---- the engine ------------------------------------------------------------------------------------------------


def test_it_is_a_store_and_says_which_engine(store):
    assert isinstance(store, Store)
    info = store.info()
    assert info.engine in ("sqlite", "postgresql") and info.version and info.location
    assert ":***@" in info.location if info.engine == "postgresql" else info.location.endswith("library.db")
    assert info.size_bytes > 0


def test_meta_round_trips_and_none_removes(store):
    assert store.get_meta("k") is None and store.get_meta("k", "dflt") == "dflt"
    store.set_meta("k", "v1")
    store.set_meta("k", "v2")
    assert store.get_meta("k") == "v2"
    store.set_meta("k", None)
    assert store.get_meta("k") is None


def test_a_new_embedding_model_drops_every_vector(store, folder):
    store.write_document(doc(folder.id, folder.path + "/a.txt"), chunks("alpha text"))
    assert embed_all(store) == 1 and store.has_vectors()
    assert store.ensure_embedding_model("test-model", DIM) is False
    assert store.ensure_embedding_model("other-model", 4) is True
    assert not store.has_vectors() and store.count_pending() == 1
    p = store.pending_chunks(10)[0]
    assert store.store_vectors([ChunkVectors(p.id, p.text_hash, np.ones(4, np.float32) / 2)]) == 1


def test_close_twice_is_fine(store):
    store.close()
    store.close()


# ---- folders ---------------------------------------------------------------------------------------------------


def test_folders_add_once_list_and_change_state(store, tmp_path):
    a = store.add_folder(str(tmp_path / "a"))
    assert store.add_folder(str(tmp_path / "a")).id == a.id
    b = store.add_folder(str(tmp_path / "b"))
    assert [f.path for f in store.folders()] == [a.path, b.path]
    assert a.state == FolderState.ACTIVE and a.machine_id == store.machine_id
    store.set_folder_state(a.id, FolderState.PAUSED)
    store.mark_scanned(a.id, 123.5)
    got = store.folder(a.id)
    assert got.state == FolderState.PAUSED and got.last_scan == 123.5
    assert store.folder(999_999) is None
    assert store.folder_ids([a.path, "/nowhere"]) == (a.id,) and store.folder_ids([]) == ()
    assert {f.id for f in store.all_folders()} == {a.id, b.id}


def test_delete_folder_purges_its_documents(store, folder, tmp_path):
    other = store.add_folder(str(tmp_path / "other"))
    store.write_document(doc(folder.id, folder.path + "/a.txt"), chunks("one", "two"))
    store.record_failure(doc(folder.id, folder.path + "/b.pdf"), "broken")
    store.write_document(doc(other.id, other.path + "/c.txt"), chunks("three"))
    embed_all(store)
    assert store.folder_has_documents(folder.id)
    assert store.delete_folder(folder.id) == 2
    assert store.folder(folder.id) is None and not store.folder_has_documents(folder.id)
    assert store.counts() == store.counts(other.id)
    assert store.counts().chunks == 1 and store.counts().embedded == 1


def test_counts_per_folder_and_library(store, folder, tmp_path):
    other = store.add_folder(str(tmp_path / "other"))
    store.write_document(doc(folder.id, folder.path + "/a.txt"), chunks("one", "two"))
    store.record_failure(doc(folder.id, folder.path + "/b.pdf"), "broken")
    store.write_document(doc(other.id, other.path + "/c.txt"), chunks("three"))
    embed_all(store)
    c = store.counts(folder.id)
    assert (c.documents, c.failed, c.chunks, c.embedded) == (1, 1, 2, 2)
    t = store.counts()
    assert (t.documents, t.failed, t.chunks, t.embedded) == (2, 1, 3, 3)


def test_leases_are_always_ours_on_one_machine(store, folder):
    assert store.claim_folder(folder.id) is True
    assert store.claim_folder(folder.id) is True
    assert store.folder_holder(folder.id) in (None, store.machine_id)
    store.release_folder(folder.id)
    assert store.folder_holder(folder.id) is None
    assert isinstance(store.machine_id, str)


# ---- documents -------------------------------------------------------------------------------------------------


def test_write_then_read_back(store, folder):
    path = folder.path + "/notes/a.txt"
    doc_id = store.write_document(doc(folder.id, path, digest="h1", size=5, mtime=7, metadata={"k": [1]}),
                                  chunks("hello world", "second part", page=3))
    row = store.document_by_path(path)
    assert (row.id, row.folder_id, row.size, row.mtime_ns, row.content_hash, row.status) == (
        doc_id, folder.id, 5, 7, "h1", DocStatus.INDEXED)
    assert store.documents_under(folder.id) == {path: row}
    assert store.documents_under(folder.id, folder.path + "/notes/") == {path: row}
    assert store.documents_under(folder.id, folder.path + "/other/") == {}
    assert store.documents_below(folder.path + "/notes/") == [row]
    assert store.document_by_path(folder.path + "/none.txt") is None


def test_rewriting_a_document_keeps_vectors_of_unchanged_chunk_texts(store, folder):
    path = folder.path + "/a.txt"
    store.write_document(doc(folder.id, path), chunks("kept text", "old text"))
    embed_all(store)
    before = store.stored_documents(0, 10)[0].chunks[0].vectors
    doc_id = store.write_document(doc(folder.id, path, digest="h2"), chunks("kept text", "new text"))
    assert store.document_by_path(path).id == doc_id and store.document_by_path(path).content_hash == "h2"
    assert [p.text for p in store.pending_chunks(10)] == ["new text"]
    after = store.stored_documents(0, 10)[0].chunks[0].vectors
    np.testing.assert_allclose(before, after)
    assert len(store.keyword_candidates("kept", 5)) == 1  # the old chunk is gone, its vectors live on in the new one


def test_given_vectors_are_stored_with_the_chunks(store, folder):
    vecs = unit(5, windows=2)
    store.write_document(doc(folder.id, folder.path + "/a.txt"),
                         [NewChunk(Span(0, 4, "copy"), None, vectors=vecs), NewChunk(Span(5, 9, "more"), 2)])
    assert store.count_pending() == 1
    stored = store.stored_documents(0, 10)[0]
    np.testing.assert_allclose(stored.chunks[0].vectors, vecs, rtol=1e-6)
    assert stored.chunks[1].vectors is None and stored.chunks[1].page == 2
    assert store.dense_candidates(vecs[1], 5)[0][0] == store.keyword_candidates("copy", 5)[0][0]


def test_failures_are_recorded_and_replace_chunks(store, folder):
    path = folder.path + "/bad.pdf"
    store.write_document(doc(folder.id, path), chunks("was fine"))
    store.record_failure(doc(folder.id, path, digest="h9"), "encrypted")
    row = store.document_by_path(path)
    assert row.status == DocStatus.FAILED and row.content_hash == "h9"
    assert [(f.path, f.reason) for f in store.failures()] == [(path, "encrypted")]
    assert store.keyword_candidates("fine", 5) == [] and store.counts().chunks == 0
    store.record_failure(doc(folder.id, folder.path + "/new.pdf"), "empty")
    assert len(store.failures()) == 2


def test_touch_and_forget_content_hashes(store, folder):
    doc_id = store.write_document(doc(folder.id, folder.path + "/a.txt"), chunks("text"))
    store.touch_document(doc_id, 99, 1234)
    row = store.document_by_path(folder.path + "/a.txt")
    assert (row.size, row.mtime_ns) == (99, 1234)
    store.forget_content_hashes()
    row = store.document_by_path(folder.path + "/a.txt")
    assert (row.mtime_ns, row.content_hash) == (-1, "")


def test_move_keeps_chunks_and_vectors_and_replaces_a_target(store, folder):
    src, dest = folder.path + "/old name.txt", folder.path + "/sub/new name.txt"
    doc_id = store.write_document(doc(folder.id, src, title="old name"), chunks("moving text"))
    store.write_document(doc(folder.id, dest), chunks("was at the target"))
    embed_all(store)
    move = DocumentMove(doc_id=doc_id, folder_id=folder.id, path=dest, size=11, mtime_ns=22)
    assert store.move_documents([move]) == 1
    assert store.document_by_path(src) is None
    row = store.document_by_path(dest)
    assert (row.id, row.size, row.mtime_ns) == (doc_id, 11, 22)
    hits = store.keyword_candidates("moving", 5)
    assert len(hits) == 1 and store.chunk_rows([hits[0][0]])[hits[0][0]].title == "new name"
    assert store.keyword_candidates("target", 5) == [] and store.count_pending() == 0
    assert store.move_documents([DocumentMove(doc_id=999_999, folder_id=folder.id, path=dest, size=1, mtime_ns=1)]) == 0


def test_delete_document_and_delete_under(store, folder):
    a = store.write_document(doc(folder.id, folder.path + "/a.txt"), chunks("aaa"))
    store.write_document(doc(folder.id, folder.path + "/sub/b.txt"), chunks("bbb"))
    store.write_document(doc(folder.id, folder.path + "/sub/deeper/c.txt"), chunks("ccc"))
    store.write_document(doc(folder.id, folder.path + "/subway.txt"), chunks("ddd"))
    assert store.delete_document(a) is True and store.delete_document(a) is False
    assert store.delete_under(folder.path + "/sub") == 2
    assert sorted(store.documents_under(folder.id)) == [folder.path + "/subway.txt"]


def test_stored_documents_pages_through_everything(store, folder):
    for i in range(5):
        store.write_document(doc(folder.id, f"{folder.path}/{i}.txt", metadata={"i": i}), chunks(f"text {i}"))
    store.record_failure(doc(folder.id, folder.path + "/x.pdf"), "bad")
    first = store.stored_documents(0, 4)
    rest = store.stored_documents(first[-1].id, 4)
    assert len(first) == 4 and len(rest) == 2 and store.stored_documents(rest[-1].id, 4) == []
    assert first[2].doc.metadata == {"i": 2} and first[2].chunks[0].span.text == "text 2"
    assert rest[-1].status == DocStatus.FAILED and rest[-1].error == "bad" and rest[-1].chunks == ()


# ---- vectors ---------------------------------------------------------------------------------------------------


def test_pending_chunks_page_in_id_order_and_by_document(store, folder):
    d1 = store.write_document(doc(folder.id, folder.path + "/a.txt"), chunks("a1", "a2", "a3"))
    store.write_document(doc(folder.id, folder.path + "/b.txt"), chunks("b1"))
    assert store.count_pending() == 4 and not store.has_vectors()
    page = store.pending_chunks(2)
    assert [p.text for p in page] == ["a1", "a2"]
    assert [p.text for p in store.pending_chunks(10, after_id=page[-1].id)] == ["a3", "b1"]
    assert [p.text for p in store.pending_chunks(10, document_id=d1)] == ["a1", "a2", "a3"]


def test_vectors_for_a_replaced_chunk_are_not_stored(store, folder):
    path = folder.path + "/a.txt"
    store.write_document(doc(folder.id, path), chunks("first"))
    stale = store.pending_chunks(10)[0]
    store.write_document(doc(folder.id, path, digest="2"), chunks("second"))
    assert store.store_vectors([ChunkVectors(stale.id, stale.text_hash, unit(1))]) == 0
    fresh = store.pending_chunks(10)[0]
    assert store.store_vectors([ChunkVectors(fresh.id, fresh.text_hash, unit(1, windows=3))]) == 1
    assert store.store_vectors([ChunkVectors(fresh.id, fresh.text_hash, unit(2))]) == 1  # re-embedding replaces
    assert store.count_pending() == 0 and store.has_vectors() and store.store_vectors([]) == 0
    assert len(store.stored_documents(0, 1)[0].chunks[0].vectors) == 1


# ---- search ----------------------------------------------------------------------------------------------------


@pytest.fixture
def corpus(store, folder, tmp_path):
    other = store.add_folder(str(tmp_path / "other"))
    ids = {}
    ids["fusion"] = store.write_document(doc(folder.id, folder.path + "/fusion.md", type_="md", title="Rank fusion"),
                                         chunks("reciprocal rank fusion combines rankings"))
    ids["bread"] = store.write_document(doc(folder.id, folder.path + "/bread.txt"),
                                        chunks("sourdough bread needs a starter", "generation of bread"))
    ids["trains"] = store.write_document(doc(other.id, other.path + "/trains.txt"),
                                         chunks("night trains cross europe"))
    embed_all(store)
    return {"folder": folder, "other": other, "ids": ids}


def _paths(store, hits):
    rows = store.chunk_rows([c for c, _ in hits])
    return [Path(rows[c].path).name for c, _ in hits]


def test_keyword_candidates_rank_and_stem(store, corpus):
    hits = store.keyword_candidates("bread starter", 10)
    assert _paths(store, hits)[0] == "bread.txt" and hits[0][1] >= hits[-1][1]
    assert _paths(store, store.keyword_candidates("rankings", 10)) == ["fusion.md"]  # stemmed: rank/ranking
    assert _paths(store, store.keyword_candidates("fusion", 10)) == ["fusion.md"]


def test_keyword_title_counts_more_than_text(store, corpus):
    store.write_document(doc(corpus["folder"].id, corpus["folder"].path + "/zzz.txt", title="Europe"),
                         chunks("a note about travel in europe"))
    hits = store.keyword_candidates("europe", 10, title_weight=3.0)
    assert _paths(store, hits)[0] == "zzz.txt"


def test_the_word_being_typed_matches_as_a_prefix(store, corpus):
    assert _paths(store, store.keyword_candidates("sourd", 10)) == ["bread.txt"]
    assert _paths(store, store.keyword_candidates("starte", 10)) == ["bread.txt"]
    assert store.keyword_candidates("sourd ", 10) == []  # a finished word is not a prefix


@pytest.mark.parametrize("text", ["", "   ", "AND OR NOT", '"unbalanced', "(((", "a:*", "NEAR(x y)", "col:value",
                                  "'; DROP TABLE chunks; --", "\\", "\x00", "\ud800", "日本語", "*", "^start", "-"])
def test_keyword_search_never_raises(store, corpus, text):
    hits = store.keyword_candidates(text, 2)
    assert len(hits) <= 2 and [s for _, s in hits] == sorted((s for _, s in hits), reverse=True)
    # the tables are intact after it: every document is still there and still found
    assert store.counts().documents == 3
    assert set(_paths(store, store.keyword_candidates("bread", 10))) == {"bread.txt"}


def test_filters_restrict_both_sides(store, corpus):
    only_other = Filters(folder_ids=(corpus["other"].id,))
    assert _paths(store, store.keyword_candidates("trains bread", 10, filters=only_other)) == ["trains.txt"]
    only_md = Filters(types=("md",))
    assert set(_paths(store, store.dense_candidates(unit(1), 10, filters=only_md))) == {"fusion.md"}
    assert store.keyword_candidates("bread", 10, filters=Filters(folder_ids=(-1,))) == []


def test_a_filter_gets_k_keyword_results_from_a_common_word(store, folder, tmp_path):
    """A word in most chunks is left out of PostgreSQL's match (COMMON_SHARE) while the rest finds k rows; when a
    filter leaves fewer than k rows holding the rest, the common word's rows fill the k places (as on SQLite)."""
    other = store.add_folder(str(tmp_path / "other"))
    for i in range(200):
        where = other if i < 8 else folder  # the rare word only in `other`: 8 of 200 chunks, 4 %
        text = f"harbour note {i}" + (" lighthouse" if i < 8 else "")
        store.write_document(doc(where.id, f"{where.path}/n{i:03d}.txt", digest=f"h{i}"), chunks(text))
    if store.info().engine == "postgresql":
        store._write(lambda conn: conn.execute("ANALYZE chunks"))  # the statistics COMMON_SHARE reads
        store.__dict__.pop("_shares", None)
        shares = store._term_shares()
        assert shares.get("harbour", 0) > 0.5 and shares.get("lighthous", 0) <= 0.05  # the case under test
    unfiltered = _paths(store, store.keyword_candidates("lighthouse harbour", 5))
    assert len(unfiltered) == 5 and all(int(p[1:4]) < 8 for p in unfiltered)  # the rare word's rows rank first
    in_folder = store.keyword_candidates("lighthouse harbour", 5, filters=Filters(folder_ids=(folder.id,)))
    assert len(in_folder) == 5 and all(int(p[1:4]) >= 8 for p in _paths(store, in_folder))


def test_dense_candidates_find_the_nearest_chunk_with_cosine_scores(store, corpus):
    target = store.pending_chunks(1)  # nothing pending now; look the vector up through an exported document
    assert target == []
    stored = store.stored_documents(0, 10)
    chunk_vec = stored[1].chunks[1].vectors[0]
    hits = store.dense_candidates(chunk_vec, 3)
    assert len(hits) == 3 and hits[0][1] == pytest.approx(1.0, abs=1e-5)
    assert store.chunk_rows([hits[0][0]])[hits[0][0]].text == "generation of bread"
    assert all(-1.0 <= s <= 1.0 for _, s in hits) and hits[0][1] >= hits[1][1] >= hits[2][1]
    assert store.dense_candidates(chunk_vec, 0) == []


def test_chunk_rows_carry_documents_and_skip_missing_ids(store, corpus):
    cid = store.keyword_candidates("trains", 5)[0][0]
    rows = store.chunk_rows([cid, 999_999])
    row = rows[cid]
    assert list(rows) == [cid]
    assert (row.text, row.ordinal, row.start, row.title, row.type, row.folder_id) == (
        "night trains cross europe", 0, 0, "trains", "txt", corpus["other"].id)
    assert row.path.endswith("trains.txt") and row.document_id == corpus["ids"]["trains"]
    assert row.machine_id == store.machine_id and store.chunk_rows([]) == {}


# ---- chats -----------------------------------------------------------------------------------------------------


def test_chats_round_trip(store):
    first = store.create_chat("", 1.0)
    second = store.create_chat("named", 2.0)
    assert store.chat_exists(first) and not store.chat_exists(999_999)
    store.add_messages(first, [
        MessageRow(0, first, "user", "question?", created_at=3.0),
        MessageRow(0, first, "assistant", "answer [1]", ({"n": 1, "path": "/a"},), ({"text": "p", "page": 2},), 4.0),
    ], "question?", 5.0)
    chats = store.list_chats()
    assert [c.id for c in chats] == [first, second]
    assert (chats[0].title, chats[0].message_count, chats[0].updated_at) == ("question?", 2, 5.0)
    msgs = store.chat_messages(first)
    assert [m.role for m in msgs] == ["user", "assistant"]
    assert msgs[1].citations == ({"n": 1, "path": "/a"},) and msgs[1].passages == ({"text": "p", "page": 2},)
    assert msgs[0].created_at == 3.0
    assert store.delete_chat(first) is True and store.delete_chat(first) is False
    assert store.chat_messages(first) == [] and [c.id for c in store.list_chats()] == [second]


# ---- the suite covers the whole protocol -----------------------------------------------------------------------


def test_document_titles_by_id_and_gone_ids_left_out(store, folder):
    store.write_document(doc(folder.id, folder.path + "/a.txt", title="The Solar System"), chunks("planets"))
    store.write_document(doc(folder.id, folder.path + "/b.txt", title=""), chunks("bread"))
    rows = store.documents_under(folder.id)
    a, b = rows[folder.path + "/a.txt"].id, rows[folder.path + "/b.txt"].id
    assert store.document_titles([a, b, 10**9]) == {a: "The Solar System", b: "b"}
    assert store.document_titles([]) == {}
    store.delete_document(a)
    assert store.document_titles([a, b]) == {b: "b"}


def test_every_protocol_method_is_exercised_here():
    members = {n for n, _ in inspect.getmembers(Store) if not n.startswith("_")}
    source = "".join(p.read_text(encoding="utf-8") for p in Path(__file__).parent.glob("test_store_*.py"))
    missing = sorted(m for m in members if f".{m}" not in source)
    assert missing == []
