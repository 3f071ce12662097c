"""A desktop's side indexes of a team library (store/postgres/side.py, store/side/copies.py), on the real
server: built from what the role may read, current while nothing it sees changes, stale (the server's plans
answer) when anything it sees is written or a folder is shown or hidden, and every candidate re-read through
row-level security."""

from __future__ import annotations

import logging
import uuid
from pathlib import Path

import numpy as np
import pytest

from desktop_app.core.store.postgres import PostgresStore, side
from desktop_app.core.store.postgres.access import roles
from desktop_app.core.store.postgres.connect import ServerAuthError
from desktop_app.core.store.postgres.search import SearchSQL
from desktop_app.core.store.rows import ChunkVectors, Filters, NewChunk, Share, Span
from desktop_app.core.store.side import copies
from desktop_app.core.store.side import keyword_index as ki
from desktop_app.core.store.side import vector_index as vi
from desktop_app.core.store.sqlite import SQLiteStore
from desktop_app.core.store.sqlite.keyword import bm25 as fts5_bm25
from tests.integration.store.test_keyword_index import QUERIES, chunk_texts
from tests.integration.store.test_store_protocol import doc
from tests.support.people import person_url

DIM = 16
N = 120


@pytest.fixture(autouse=True)
def small_threshold(monkeypatch):
    monkeypatch.setattr(ki, "MIN_CHUNKS", 10)
    monkeypatch.setattr(ki, "REBUILD_QUIET", 0.0)
    monkeypatch.setattr(vi, "MIN_VECTORS", 10)
    monkeypatch.setattr(vi, "REBUILD_QUIET", 0.0)


def vector(i: int) -> np.ndarray:
    v = np.random.default_rng(i).normal(size=DIM).astype(np.float32)
    return v / np.linalg.norm(v)


def fill(store, folders, texts: list[str], first: int = 0) -> None:
    """One document per text, dealt over `folders`; each chunk's vector is vector(its text's number)."""
    for i, text in enumerate(texts, start=first):
        folder = folders[i % len(folders)]
        store.write_document(doc(folder.id, f"{folder.path}/{i}.txt", digest=str(i)),
                             [NewChunk(Span(0, len(text), text), None)])
    number = {text: i for i, text in enumerate(texts, start=first)}
    store.store_vectors(ChunkVectors(p.id, p.text_hash, vector(number[p.text]))
                        for p in store.pending_chunks(10_000))


def built(store) -> None:
    """Ask once (a missing index starts its build), wait for the build, so the next search is the side's."""
    store.keyword_candidates("warm", 1)
    store.dense_candidates(vector(0), 1)
    for name in ("_side_keywords", "_keyword_index", "_side_vectors", "_vector_index"):
        if name in store.__dict__:
            store.__dict__[name].wait(120)


def texts_of(store, hits) -> list[tuple[str, float]]:
    rows = store.chunk_rows([cid for cid, _ in hits])
    return [(rows[cid].text, round(score, 4)) for cid, score in hits]


def server_plans_refused(monkeypatch) -> None:
    """Fail if the server's own keyword or vector plan is asked: the side indexes must answer."""
    def refuse(*a, **k):
        raise AssertionError("the server's plan was used")
    monkeypatch.setattr(SearchSQL, "_nearest_windows", refuse)
    monkeypatch.setattr(SearchSQL, "_slice_exact", refuse)
    monkeypatch.setattr("desktop_app.core.store.postgres.keywords.tsquery_groups", refuse)


@pytest.fixture
def admin(pg_url, tmp_path):
    store = PostgresStore(pg_url, machine="side-admin", side_dir=tmp_path / "admin-side")
    store.ensure_embedding_model("test-model", DIM)
    yield store
    store.close()


def test_the_team_library_is_searched_from_this_desktops_copy_as_the_embedded_engine_searches(
        admin, tmp_path, monkeypatch, caplog):
    texts = chunk_texts(N)
    folders = [admin.add_folder(str(tmp_path / f"f{i}")) for i in range(3)]
    fill(admin, folders, texts)
    local = SQLiteStore(tmp_path / "library.db")
    local.ensure_embedding_model("test-model", DIM)
    fill(local, [local.add_folder(str(tmp_path / f"f{i}")) for i in range(3)], texts)
    with caplog.at_level(logging.WARNING):
        built(admin)
        built(local)
    assert "keyword index library.keywords is missing" in caplog.text
    assert (admin.side_dir is not None and len(list(admin.side_dir.glob("team-*/library.vectors"))) == 1)
    server_plans_refused(monkeypatch)
    # The embedded engine's side index proposes by the same tantivy BM25 as the copy; only SQLite then ranks its
    # candidates again by FTS5's bm25() (fts5_bm25.py, which needs FTS5's averages record): compared before that.
    monkeypatch.setattr(fts5_bm25, "table_stats", lambda conn: None)
    for q in QUERIES:  # the same tokens, the same BM25: the same chunks with the same scores
        assert texts_of(admin, admin.keyword_candidates(q, 10)) == texts_of(local, local.keyword_candidates(q, 10))
    mat = np.stack([vector(i) for i in range(N)])
    for seed in range(5):
        query = vector(1000 + seed)
        exact = [texts[i] for i in np.argsort(-(mat @ query))[:5]]
        assert [t for t, _ in texts_of(admin, admin.dense_candidates(query, 5))] == exact
        one = Filters(folder_ids=(folders[1].id,))
        in_folder = [i for i in np.argsort(-(mat @ query)) if i % 3 == 1][:5]
        got = texts_of(admin, admin.dense_candidates(query, 5, filters=one))
        assert [t for t, _ in got] == [texts[i] for i in in_folder]
    local.close()


def test_a_person_s_copy_holds_only_what_they_may_read_and_goes_stale_when_that_changes(
        pg_server, pg_url, admin, tmp_path, monkeypatch):
    alice = PostgresStore(person_url(pg_server, pg_url, "alice"), machine="side-alice")
    bob = PostgresStore(person_url(pg_server, pg_url, "bob"), machine="side-bob", side_dir=tmp_path / "bob-side")
    try:
        texts = chunk_texts(N)
        private = alice.add_folder(str(tmp_path / "private"), Share("private"))
        team = alice.add_folder(str(tmp_path / "team"), Share("team"))
        fill(alice, [private, team], texts)
        team_texts = set(texts[1::2])
        built(bob)
        index = bob.__dict__["_side_keywords"]._index
        assert index is not None and index.rows == len(team_texts)  # nothing of the private folder on bob's disk
        before = bob._read(side.generations)
        fill(alice, [private], ["krill in the private folder"], first=N)
        assert bob._read(side.generations) == before  # a write bob cannot see moves nothing of his
        with monkeypatch.context() as m:
            server_plans_refused(m)
            hits = bob.keyword_candidates("cell receptor", 20)
            assert hits and {t for t, _ in texts_of(bob, hits)} <= team_texts
        alice.set_folder_share(team.id, Share("private"))  # hidden from bob after his copy was built
        assert bob._read(side.generations) != before
        assert bob.keyword_candidates("cell receptor", 20) == []  # the server's plan: nothing he may read
        assert bob.dense_candidates(vector(3), 5) == []
    finally:
        alice.close()
        bob.close()


def test_candidates_are_re_read_through_row_level_security(admin, tmp_path):
    folder = admin.add_folder(str(tmp_path / "f"))
    fill(admin, [folder], chunk_texts(N)[:20])
    ids = [int(r[0]) for r in admin._read(lambda c: c.execute("SELECT id FROM chunks ORDER BY id").fetchall())]
    gone = max(ids) + 1000
    answer = [(ids[0], 0.9), (gone, 0.8), (ids[1], 0.7)]
    assert admin._read(lambda c: side.checked(c, lambda n: answer[:n], 2)) == [(ids[0], 0.9), (ids[1], 0.7)]
    many_gone = [(gone + i, 1.0 - i / 100) for i in range(side.SLACK + 1)] + [(ids[0], 0.1)]
    assert admin._read(lambda c: side.checked(c, lambda n: many_gone[:n], 2)) is None  # the server answers


def test_a_damaged_or_foreign_copy_is_rebuilt_with_a_notice(admin, pg_url, tmp_path, caplog):
    folders = [admin.add_folder(str(tmp_path / "f"))]
    fill(admin, folders, chunk_texts(N)[:40])
    built(admin)
    where = next(Path(admin.side_dir or "").glob("team-*"))
    (where / "library.keywords" / "current.json").write_text("{not json")
    with open(where / "library.vectors", "r+b") as fh:
        fh.seek(vi._DATA + 8)
        fh.write(b"\xff" * 8)
    again = PostgresStore(pg_url, machine="side-admin", side_dir=admin.side_dir)
    try:
        with caplog.at_level(logging.WARNING):
            built(again)
        assert "library.keywords is damaged" in caplog.text and "library.vectors is damaged" in caplog.text
        assert again.__dict__["_side_keywords"]._index is not None
        assert again.__dict__["_side_vectors"]._index is not None
    finally:
        again.close()


def side_files(where: Path) -> set[str]:
    return {p.name for p in where.iterdir()} - {copies.COVERED}


def test_an_unshared_folder_s_copy_leaves_the_person_s_disk_at_the_next_search(
        pg_server, pg_url, admin, tmp_path, caplog):
    alice = PostgresStore(person_url(pg_server, pg_url, "alice"), machine="side-alice")
    bob = PostgresStore(person_url(pg_server, pg_url, "bob"), machine="side-bob", side_dir=tmp_path / "bob-side")
    try:
        texts = chunk_texts(N)
        kept = alice.add_folder(str(tmp_path / "kept"), Share("team"))
        hidden = alice.add_folder(str(tmp_path / "hidden"), Share("team"))
        fill(alice, [kept, hidden], texts)
        built(bob)
        where = next(Path(bob.side_dir or "").glob("team-*"))
        assert {"library.keywords", "library.vectors"} <= side_files(where)
        assert copies.covered(where) == {kept.id, hidden.id}
        alice.set_folder_share(hidden.id, Share("private"))
        with caplog.at_level(logging.INFO):
            bob.keyword_candidates("cell receptor", 5)  # the next search: the copy is gone before anything answers
        assert "no longer readable here" in caplog.text
        # both files went; the keyword search has started the keyword index's rebuild from what bob may read now
        assert "library.vectors" not in side_files(where)
        assert copies.covered(where) == {kept.id}
        built(bob)  # the kept folder alone
        assert bob.__dict__["_side_keywords"]._index.rows == len(texts[0::2])
        assert copies.covered(where) == {kept.id}
        alice.set_folder_share(kept.id, Share("private"))
        bob.dense_candidates(vector(3), 5)
        assert side_files(where) == set() and copies.covered(where) == set()
    finally:
        alice.close()
        bob.close()


def test_a_revoked_person_s_copy_is_deleted_when_the_server_refuses_them(pg_server, pg_url, admin, tmp_path):
    name = f"side_gone_{uuid.uuid4().hex[:8]}"  # revoking is for good: a person of this test alone
    url = person_url(pg_server, pg_url, name)
    fill(admin, [admin.add_folder(str(tmp_path / "team"), Share("team"))], chunk_texts(N)[:40])
    person = PostgresStore(url, machine=f"m-{name}", side_dir=tmp_path / "person-side")
    try:
        built(person)
    finally:
        person.close()
    where = next((tmp_path / "person-side").glob("team-*"))
    assert "library.vectors" in side_files(where)
    with pg_server.admin() as conn:
        roles.revoke_person(conn, name)
    with pytest.raises(ServerAuthError, match="no longer lets this person sign in"):
        PostgresStore(url, machine=f"m-{name}", side_dir=tmp_path / "person-side")
    assert not where.exists()
    other = tmp_path / "person-side" / "team-unrelated"  # another library's copy stays
    other.mkdir()
    with pytest.raises(ServerAuthError):
        PostgresStore(url, machine=f"m-{name}", side_dir=tmp_path / "person-side")
    assert other.exists()
