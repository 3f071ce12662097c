"""k results from a thin slice: a person who sees a small part of a server library (and the administrator asking
for a small folder, or for chunks of many windows) still gets k results in keyword, semantic and hybrid search.

The real PostgreSQL with pgvector's HNSW index; the vectors are made here (deterministic, 8 dimensions) so the
geometry is known: Alice's private chunks sit right around the query, the team folder's further off. The scan's
budget (hnsw.max_scan_tuples) is set low for the database, so the iterative scan ends inside Alice's windows,
as it does at 20,000 tuples in a big library, and the planner is steered to the HNSW index where a big library's
would take it (a 552-row table is otherwise sorted whole). A filtered search of a small folder is planned from
the folder's documents (an exact sort); it must give k results either way.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import numpy as np
import psycopg
import pytest
from pgvector.psycopg import register_vector

from desktop_app.core.embed.base import MAX_WINDOWS
from desktop_app.core.ingest.chunking import Span
from desktop_app.core.search.service import search_store
from desktop_app.core.store.postgres import PostgresStore
from desktop_app.core.store.postgres.search import dense_sql
from desktop_app.core.store.rows import Filters, NewChunk, NewDocument, Share
from tests.support.people import person_url

DIM = 8
NEAR, TEAM = 60, 12  # Alice's private chunks (MAX_WINDOWS windows each), the team folder's (one window each)
MODES = ("keyword", "semantic", "hybrid")


def unit(v: np.ndarray) -> np.ndarray:
    return (v / np.linalg.norm(v, axis=-1, keepdims=True)).astype(np.float32)


QUERY = unit(np.eye(DIM, dtype=np.float32)[0])


class QueryVector:
    """The query's vector, whatever the text (a deterministic embedder beside the real server)."""

    model_id, dim = "test-model", DIM

    def embed(self, texts):
        return np.stack([QUERY for _ in texts])


def write(store: PostgresStore, folder, name: str, text: str, vectors: np.ndarray) -> None:
    path = Path(folder.path) / name
    store.write_document(NewDocument(folder_id=folder.id, path=str(path), title=path.stem, type="txt", size=len(text),
                                     mtime_ns=1, digest=f"h-{name}"),
                         [NewChunk(Span(0, len(text), text), None, vectors=vectors)])


@pytest.fixture
def library(pg_server, pg_url, tmp_path):
    """Alice's private folder of NEAR chunks, each MAX_WINDOWS windows close to the query and to each other; the
    team folder of TEAM chunks further from it (cosine about 0.6); Bob sees only the team folder."""
    alice_url, bob_url = (person_url(pg_server, pg_url, n) for n in ("alice", "bob"))
    admin = PostgresStore(pg_url, machine="server-desk")
    admin.ensure_embedding_model("test-model", DIM)
    admin.close()
    rng = np.random.default_rng(7)
    alice = PostgresStore(alice_url, machine="desk-alice")
    private = alice.add_folder(str(tmp_path / "alice-private"), Share("private"))
    team = alice.add_folder(str(tmp_path / "team"), Share("team"))
    for i in range(NEAR):
        centre = QUERY + 0.3 * rng.normal(size=DIM)
        windows = unit(centre + 0.01 * rng.normal(size=(MAX_WINDOWS, DIM)))
        write(alice, private, f"near-{i}.txt", f"harbour pilots tides report {i} of the private desk", windows)
    for i in range(TEAM):
        off = np.eye(DIM, dtype=np.float32)[1 + i % (DIM - 1)]
        write(alice, team, f"team-{i}.txt", f"harbour pilots weekly note {i} for the team",
              unit(QUERY + 1.3 * off + 0.05 * rng.normal(size=DIM))[None, :])
    alice.close()
    name = urlsplit(pg_url).path.lstrip("/")
    with pg_server.admin() as conn:  # new sessions: at most 40 index tuples per scan, and the HNSW index where a
        conn.execute(f'ALTER DATABASE "{name}" SET hnsw.max_scan_tuples = 40')  # big library's planner takes it
        conn.execute(f'ALTER DATABASE "{name}" SET enable_seqscan = off')  # (not a sort of a 552-row table)
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("DROP INDEX chunk_vectors_folder")  # nor the sort of one folder's rows: 12 are cheaper there
    return {"admin": pg_url, "bob": bob_url, "private": private.id, "team": team.id}


def folders_of(store: PostgresStore, hits) -> set[int]:
    rows = store.chunk_rows([cid for cid, _ in hits])
    return {rows[cid].folder_id for cid, _ in hits}


def test_bobs_hnsw_scan_alone_ends_short_of_k_here(library):
    """The situation the engine must handle: the index scan, iterating past Alice's windows, stops at its budget
    with fewer of Bob's windows than asked for (2 of 80 here)."""
    with psycopg.connect(library["bob"], autocommit=True) as conn:
        register_vector(conn)
        conn.execute("SET hnsw.iterative_scan = relaxed_order")
        plan = " ".join(r[0] for r in conn.execute("EXPLAIN " + dense_sql(), {"v": QUERY, "k": 80}))
        assert "chunk_vectors_hnsw" in plan
        assert len(conn.execute(dense_sql(), {"v": QUERY, "k": 80}).fetchall()) < 10


def test_the_administrator_gets_k_chunks_of_many_windows(library):
    admin = PostgresStore(library["admin"], machine="server-desk")
    try:
        hits = admin.dense_candidates(QUERY, 20)  # 40 windows would be only 5 chunks' worth
        assert len(hits) == 20 and len({cid for cid, _ in hits}) == 20
        assert [s for _, s in hits] == sorted((s for _, s in hits), reverse=True)
        assert folders_of(admin, hits) == {library["private"]}
    finally:
        admin.close()


@pytest.mark.parametrize("who", ["admin", "bob"])
def test_a_thin_folder_gives_k_nearest_chunks_when_the_scan_ends_early(library, who):
    store = PostgresStore(library[who], machine="server-desk" if who == "admin" else "desk-bob")
    try:
        hits = store.dense_candidates(QUERY, 10, filters=Filters(folder_ids=(library["team"],)))
        assert len(hits) == 10 and folders_of(store, hits) == {library["team"]}
        every = store.dense_candidates(QUERY, 50, filters=Filters(folder_ids=(library["team"],)))
        assert len(every) == TEAM and hits == every[:10]  # the exact ten nearest, not any ten
    finally:
        store.close()


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("filtered", [False, True])
def test_bob_who_sees_a_thin_slice_gets_k_results_in_every_mode(library, mode, filtered):
    bob = PostgresStore(library["bob"], machine="desk-bob")
    try:
        filters = Filters(folder_ids=(library["team"],)) if filtered else None
        results = search_store(bob, "harbour pilots", embedder=QueryVector(), mode=mode, top_k=10, filters=filters)
        assert len(results) == 10
        assert {r.metadata["folder_id"] for r in results} == {library["team"]}
    finally:
        bob.close()
