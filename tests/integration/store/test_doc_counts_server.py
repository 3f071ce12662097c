"""The PostgreSQL engine's kept counts (migration 008): after any mix of writes they equal a scan, a person's counts
hold only the folders they may see, and the folder panel's reads touch no document or chunk heap."""

from __future__ import annotations

import random

import numpy as np
import psycopg
import pytest

from desktop_app.core.store.postgres import PostgresStore
from desktop_app.core.store.rows import ChunkVectors, Share
from tests.integration.store.test_doc_counts import kept, random_step, some_chunks
from tests.integration.store.test_store_protocol import doc, unit
from tests.support.people import connect, person_url
from tests.support.pg_server import server_consistency

DIM = 8


def scanned(url: str, folder_id: int | None = None) -> tuple[int, int, int, int]:
    where = f"WHERE d.folder_id = {int(folder_id)}" if folder_id is not None else ""
    with psycopg.connect(url) as conn:
        docs, failed = conn.execute("SELECT count(*) FILTER (WHERE status = 'indexed'), count(*) FILTER (WHERE "
                                    f"status = 'failed') FROM documents d {where}").fetchone()
        chunks, embedded = conn.execute("SELECT count(*), count(*) FILTER (WHERE c.embedded) FROM chunks c "
                                        f"JOIN documents d ON d.id = c.document_id {where}").fetchone()
    return int(docs), int(failed), int(chunks), int(embedded)


def grouped(url: str, sql: str) -> dict[str, int]:
    with psycopg.connect(url) as conn:
        return {str(k): int(n) for k, n in conn.execute(sql).fetchall()}


@pytest.fixture
def server_store(pg_url):
    """The administrator's store on a fresh library."""
    store = PostgresStore(pg_url, machine="desk-counts")
    store.ensure_embedding_model("test-model", DIM)
    yield store
    store.close()


@pytest.mark.parametrize("seed", range(3))
def test_kept_counts_equal_a_scan_after_any_mix_of_writes(server_store, pg_url, tmp_path, seed):
    rng, store = random.Random(seed), server_store
    folders = [store.add_folder(str(tmp_path / f"f{i}")) for i in range(3)]
    paths: dict[str, int] = {}
    for step in range(45):
        paths = random_step(store, rng, step, folders, paths)
        assert kept(store) == scanned(pg_url), step
        for f in folders:
            assert kept(store, f.id) == scanned(pg_url, f.id), (step, f.path)
    assert dict(store.formats()) == grouped(
        pg_url, "SELECT type, count(*) FROM documents WHERE status = 'indexed' AND type <> '' GROUP BY type")
    assert dict(store.languages()) == grouped(
        pg_url, "SELECT lang, count(*) FROM chunks WHERE lang <> '' GROUP BY lang")
    assert sorted(f.path for f in store.failures()) == sorted(grouped(
        pg_url, "SELECT path, 1 FROM documents WHERE status = 'failed'"))
    checked = server_consistency(pg_url)  # the check every server reliability test ends with
    assert checked["kept_counts_off"] == checked["kept_languages_off"] == 0, checked


def test_a_person_counts_only_the_folders_they_may_see(pg_server, pg_url, tmp_path):
    admin = PostgresStore(pg_url, machine="server-desk")
    admin.ensure_embedding_model("test-model", DIM)
    admin.close()
    alice = PostgresStore(person_url(pg_server, pg_url, "alice"), machine="alice-desk")
    bob = PostgresStore(person_url(pg_server, pg_url, "bob"), machine="bob-desk")
    try:
        private = alice.add_folder(str(tmp_path / "private"), Share("private"))
        team = alice.add_folder(str(tmp_path / "team"), Share("team"))
        for folder, n in ((private, 3), (team, 1)):
            alice.write_document(doc(folder.id, f"{folder.path}/a.md", type_="md"), some_chunks(random.Random(n), n))
        alice.record_failure(doc(private.id, f"{private.path}/b.pdf", type_="pdf"), "encrypted")
        assert kept(alice) == (2, 1, 4, 0) and kept(bob) == (1, 0, 1, 0)
        assert kept(bob, private.id) == (0, 0, 0, 0)
        assert bob.formats() == [("md", 1)] and sum(n for _, n in bob.languages()) == 1 and bob.failures() == []
        with connect(person_url(pg_server, pg_url, "bob")) as conn:  # nor by SQL of his own, nor can he write them
            assert conn.execute("SELECT folder_id FROM doc_counts").fetchall() == [(team.id,)]
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute("UPDATE doc_counts SET documents = 0")
        alice.set_folder_share(private.id, Share("people", ("bob",)))
        assert kept(bob) == (2, 1, 4, 0)
    finally:
        alice.close()
        bob.close()


class Spy:
    """A connection that records the statements run through it (and runs them)."""

    def __init__(self, conn: psycopg.Connection, seen: list) -> None:
        self.conn, self.seen = conn, seen

    def execute(self, sql, args=None, **kwargs):
        self.seen.append((sql, args))
        return self.conn.execute(sql, args, **kwargs)


def test_the_folder_panel_reads_no_document_or_chunk_heap(server_store, pg_url, tmp_path):
    store = server_store
    folder = store.add_folder(str(tmp_path / "docs"))
    for i in range(40):
        store.write_document(doc(folder.id, f"{folder.path}/d{i}.txt"), some_chunks(random.Random(i), 3))
    store.store_vectors(ChunkVectors(c.id, c.text_hash, unit(c.id)) for c in store.pending_chunks(200))
    seen: list = []
    read = store._read
    store._read = lambda work: read(lambda conn: work(Spy(conn, seen)))  # type: ignore[method-assign]
    assert kept(store) == (40, 0, 120, 120) and kept(store, folder.id) == (40, 0, 120, 120)
    assert store.formats() == [("txt", 40)] and sum(n for _, n in store.languages()) == 120
    store._read = read  # type: ignore[method-assign]
    assert len(seen) >= 8
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE")
        conn.execute("SET enable_seqscan = off")  # the plan a big library gets, not a tiny one's
        for sql, args in seen:
            plan = "\n".join(r[0] for r in conn.execute("EXPLAIN " + sql, args))
            touched = {t for t in ("documents", "chunks ") if f" on {t}" in plan.lower()}
            # only what waits: chunks through chunks_pending; OCR pages through ocr_pages_pending, then their documents
            assert not touched or ("chunks_pending" in plan and "documents" not in touched) or \
                "ocr_pages" in sql, (sql, plan)


def test_vectors_stored_leave_the_languages_as_they_were(server_store, tmp_path):
    store = server_store
    folder = store.add_folder(str(tmp_path / "docs"))
    store.write_document(doc(folder.id, f"{folder.path}/a.txt"), some_chunks(random.Random(3), 4))
    before = store.languages()
    vector = np.ones((1, DIM), np.float32)
    store.store_vectors(ChunkVectors(p.id, p.text_hash, vector) for p in store.pending_chunks(10))
    assert store.languages() == before and kept(store)[3] == 4
