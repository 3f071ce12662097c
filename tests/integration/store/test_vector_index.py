"""The SQLite engine's side vector index (core/store/side/vector_index.py, fed by core/store/sqlite/side.py) on
real sqlite-vec.

Small libraries (600 chunks of 32 dimensions) with the size threshold lowered, so the index is used; every
answer is compared with exact cosine search over the same vectors in numpy. Where the index answers, the scores
must be the exact ones, best first, and the chunks nearly all of the exact top k: the sketch's candidates are an
approximation (with a small candidate share they can miss one of the exact top k), so those tests ask for
recall (a broken sketch scores near k/N), not identity; the exact paths (vec0, every allowed row scored) must
match exactly."""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from desktop_app.core.ingest.chunking import Span
from desktop_app.core.store.rows import Filters, NewChunk, NewDocument
from desktop_app.core.store.side import vector_index as vi
from desktop_app.core.store.sqlite import SQLiteStore
from desktop_app.core.store.sqlite import side as sqlite_side
from tests.support.helpers import kill_9_when_flagged

DIM = 32
N = 600


def vectors(n: int, seed: int = 0) -> np.ndarray:
    v = np.random.default_rng(seed).normal(size=(n, DIM)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def make_library(path: Path, mat: np.ndarray, folders: int = 3) -> tuple[SQLiteStore, dict[int, int], list[int]]:
    """A library of one-chunk documents dealt round-robin into `folders`; (store, chunk id -> row, folder ids)."""
    store = SQLiteStore(path)
    store.ensure_embedding_model("test-model", DIM)
    fids = [store.add_folder(f"/lib/f{i}").id for i in range(folders)]
    for i, vec in enumerate(mat):
        fid = fids[i % folders]
        text = f"chunk {i}"
        store.write_document(NewDocument(folder_id=fid, path=f"/lib/f{i % folders}/{i}.txt", title=str(i), type="txt",
                                         size=1, mtime_ns=1, digest=str(i)),
                             [NewChunk(Span(0, len(text), text), None, vectors=vec[None, :])])
    rows = {int(cid): int(text.split()[1])
            for cid, text in store._read(lambda c: c.execute("SELECT id, text FROM chunks").fetchall())}
    return store, rows, fids


def exact(mat: np.ndarray, rows: dict[int, int], q: np.ndarray, k: int, allowed=None) -> list[int]:
    ids = [c for c in rows if allowed is None or c in allowed]
    sims = np.array([mat[rows[c]] @ q for c in ids])
    return [ids[i] for i in np.argsort(-sims)[:k]]


def assert_near_exact(got: list[tuple[int, float]], mat: np.ndarray, rows: dict[int, int], q: np.ndarray,
                      k: int, min_recall: float) -> None:
    """The graph's answer: k chunks with their exact cosines, best first, holding most of the exact top k."""
    assert len(got) == k
    assert all(abs(s - float(mat[rows[c]] @ q)) < 1e-5 for c, s in got)  # exact scores, not int8 ones
    assert [s for _, s in got] == sorted((s for _, s in got), reverse=True)
    recall = len({c for c, _ in got} & set(exact(mat, rows, q, k))) / k
    assert recall >= min_recall, f"recall@{k} {recall:.2f}"


def built(store: SQLiteStore, q: np.ndarray) -> list[tuple[int, float]]:
    """A search that starts the rebuild, then waits for it; returns the first (exact, vec0) answer."""
    first = store.dense_candidates(q, 10)
    store.__dict__["_vector_index"].wait(60)
    return first


@pytest.fixture(autouse=True)
def small_threshold(monkeypatch):
    monkeypatch.setattr(vi, "MIN_VECTORS", 100)
    monkeypatch.setattr(vi, "REBUILD_QUIET", 0.0)


@pytest.fixture
def library(tmp_path):
    mat = vectors(N)
    store, rows, fids = make_library(tmp_path / "library.db", mat)
    yield store, mat, rows, fids
    store.close()


def test_results_equal_exact_search_and_the_index_is_used(library, caplog, monkeypatch):
    store, mat, rows, _ = library
    monkeypatch.setattr(vi, "MIN_CANDIDATES", N // 2)  # half the library scored: approximate, as at scale
    queries = vectors(20, seed=7)
    with caplog.at_level(logging.WARNING):
        built(store, queries[0])
    assert "missing" in caplog.text and vi.index_path(store.path).exists()
    assert store.__dict__["_vector_index"]._index is not None
    recalls = []
    for q in queries:
        got = store.dense_candidates(q, 30)
        assert_near_exact(got, mat, rows, q, 30, min_recall=0.8)
        recalls.append(len({c for c, _ in got} & set(exact(mat, rows, q, 30))) / 30)
    assert np.mean(recalls) >= 0.9, recalls


def test_filters_return_k_from_the_allowed_chunks(library, monkeypatch):
    store, mat, rows, fids = library
    built(store, vectors(1, seed=3)[0])
    in_folder = {int(r[0]) for r in store._read(lambda c: c.execute(
        "SELECT c.id FROM chunks c JOIN documents d ON d.id = c.document_id WHERE d.folder_id = ?",
        (fids[1],)).fetchall())}
    for q in vectors(5, seed=11):
        got = [c for c, _ in store.dense_candidates(q, 30, filters=Filters(folder_ids=(fids[1],)))]
        assert got == exact(mat, rows, q, 30, in_folder)
    monkeypatch.setattr(vi, "MIN_CANDIDATES", 40)  # the sketch's share of a folder: its nearest 40 rows only
    monkeypatch.setattr(vi, "RESCORE", 20)
    for q in vectors(5, seed=12):
        got = store.dense_candidates(q, 30, filters=Filters(folder_ids=(fids[1],)))
        assert len(got) == 30 and {c for c, _ in got} <= in_folder  # still k, all allowed, exactly scored
        assert all(abs(s - float(mat[rows[c]] @ q)) < 1e-5 for c, s in got)
    few = sorted(in_folder)[:7]  # a filter allowing fewer than k: every one of them, in exact order
    got = [c for c, _ in store.dense_candidates(mat[0], 30, filters=Filters(paths=tuple(
        f"/lib/f1/{rows[c]}.txt" for c in few)))]
    assert got == exact(mat, rows, mat[0], 30, set(few))


def test_a_stale_index_is_rebuilt_and_search_stays_exact_meanwhile(library, caplog):
    store, mat, rows, fids = library
    built(store, mat[0])
    new = vectors(1, seed=99)[0]
    text = "the new one"
    store.write_document(NewDocument(folder_id=fids[0], path="/lib/f0/new.txt", title="new", type="txt", size=1,
                                     mtime_ns=1, digest="new"),
                         [NewChunk(Span(0, len(text), text), None, vectors=new[None, :])])
    with caplog.at_level(logging.WARNING):
        first = store.dense_candidates(new, 10)  # vec0 answers while the index is rebuilt
    assert "stale" in caplog.text
    new_id = int(store._read(lambda c: c.execute("SELECT id FROM chunks WHERE text = ?", (text,)).fetchone()[0]))
    assert first[0][0] == new_id
    store.__dict__["_vector_index"].wait(60)
    assert store.dense_candidates(new, 10)[0][0] == new_id
    assert store.__dict__["_vector_index"]._generation == sqlite_side.vector_generation(store._conn)


@pytest.mark.parametrize("harm, reason", [
    (lambda b: b[:-100] + bytes(100 * [7]), "damaged (checksum)"),
    (lambda b: b[:8] + (99).to_bytes(4, "little") + b[12:], "another version"),
    (lambda b: b[:10], "damaged (short header)"),
    (lambda b: b[:-100], "damaged (wrong length)"),
    (lambda b: b[:5000] + bytes(4 * [0xFF]) + b[5004:], "damaged (checksum)"),  # a float in the matrix
    (lambda b: b[:-N * DIM - 100] + bytes(100 * [1]) + b[-N * DIM:], "damaged (checksum)"),  # the sketch
    (lambda b: b"NOTMAGIC" + b[8:], "not a vector index"),
])
def test_a_damaged_or_other_version_file_is_rebuilt_with_a_notice(tmp_path, caplog, harm, reason):
    mat = vectors(N)
    store, rows, _ = make_library(tmp_path / "library.db", mat)
    built(store, mat[0])
    store.close()
    path = vi.index_path(tmp_path / "library.db")
    path.write_bytes(harm(path.read_bytes()))
    store = SQLiteStore(tmp_path / "library.db")
    q = vectors(1, seed=5)[0]
    with caplog.at_level(logging.WARNING):
        assert [c for c, _ in built(store, q)] == exact(mat, rows, q, 10)
    assert reason in caplog.text
    assert vi.read_index(path, DIM, sqlite_side.vector_generation(store._conn))[0] is not None  # rebuilt whole
    assert_near_exact(store.dense_candidates(q, 10), mat, rows, q, 10, min_recall=0.8)
    store.close()


def _write_and_hang(db: str, flag: str) -> None:
    """Child process: build the index, stopping for good after the header and first block are on disk."""
    def hang(fh, block):
        fh.write(block[: len(block) // 2])
        fh.flush()
        Path(flag).write_text("writing")
        time.sleep(600)

    vi.write_block = hang
    vi.build_index(vi.index_path(Path(db)), DIM, lambda: sqlite_side.database_vectors(Path(db), DIM))


@pytest.mark.parametrize("had_index", [False, True])
def test_kill_9_while_writing_leaves_search_correct(tmp_path, had_index):
    mat = vectors(N)
    db = tmp_path / "library.db"
    store, rows, _ = make_library(db, mat)
    q = vectors(1, seed=21)[0]
    if had_index:
        built(store, q)
    before = vi.index_path(db).read_bytes() if had_index else None
    flag = tmp_path / "flag"
    kill_9_when_flagged(_write_and_hang, (str(db), str(flag)), flag)
    assert list(tmp_path.glob("library.db.vectors.tmp-*"))  # the half-written file is there, under its own name
    if had_index:
        assert vi.index_path(db).read_bytes() == before  # the old file untouched
    else:
        assert not vi.index_path(db).exists()
    store.close()
    store = SQLiteStore(db)
    first = built(store, q)  # the old file answers when there was one (the sketch), else vec0 (exact)
    if had_index:
        assert_near_exact(first, mat, rows, q, 10, min_recall=0.8)
    else:
        assert [c for c, _ in first] == exact(mat, rows, q, 10)
    assert_near_exact(store.dense_candidates(q, 10), mat, rows, q, 10, min_recall=0.8)
    assert store.__dict__["_vector_index"]._index is not None
    store.close()


def test_a_filters_allowed_rows_are_remembered_for_the_last_few_filters(library, monkeypatch):
    store, mat, rows, fids = library
    built(store, mat[0])
    loaded = store.__dict__["_vector_index"]._index
    asked = []
    made = loaded.mask
    monkeypatch.setattr(loaded, "mask", lambda f, ids: made(f, lambda: asked.append(f) or ids()))
    one = Filters(folder_ids=(fids[0],))
    for _ in range(3):
        store.dense_candidates(mat[1], 5, filters=one)
    assert asked == [one]  # the same filter while typing: its rows are looked up once
    for f in [Filters(folder_ids=(fid,), types=(t,)) for fid in fids for t in ("txt", "md")]:
        store.dense_candidates(mat[1], 5, filters=f)
    assert len(loaded._masks) == vi.MASKS and one not in loaded._masks  # the oldest forgotten
    from desktop_app.core.store.sqlite import allowed, search

    monkeypatch.setattr(search, "EXACT_SCOPE", 10)  # a wide paths scope: answered through the index
    paths = Filters(paths=("/lib/f1",))
    got = [store.dense_candidates(mat[1], 5, filters=paths) for _ in range(2)]
    generation = allowed.doc_generation(store._reader())
    assert asked[-1] == (paths, generation) and asked.count(asked[-1]) == 1  # a path filter's rows: read once
    assert got[0] == got[1] and len(got[0]) == 5
    doc = store._read(lambda c: c.execute("SELECT id FROM documents WHERE path LIKE '/lib/f1/%'").fetchone()[0])
    store.set_document_facts(doc, "2024-01-01", ("moved",))  # a document changed: the rows are read again
    store.dense_candidates(mat[1], 5, filters=paths)
    assert asked[-1] == (paths, generation + 1)


def test_no_rebuild_while_vectors_are_still_being_written(library, monkeypatch):
    store, mat, rows, fids = library
    monkeypatch.setattr(vi, "REBUILD_QUIET", 3600.0)  # writes a moment ago: the quiet period has not passed
    q = vectors(1, seed=4)[0]
    for _ in range(3):
        assert [c for c, _ in store.dense_candidates(q, 10)] == exact(mat, rows, q, 10)  # vec0, exact
    vix = store.__dict__["_vector_index"]
    assert vix._thread is None and not vi.index_path(store.path).exists()
    monkeypatch.setattr(vi, "REBUILD_QUIET", 0.0)  # quiet now: the next query starts the build
    built(store, q)
    assert vix._index is not None and len(vix._index) == N


def test_rescoring_reads_the_files_own_float32_rows(library):
    store, mat, rows, _ = library
    built(store, mat[0])
    loaded = store.__dict__["_vector_index"]._index
    chunk_of_row = {row: cid for cid, row in rows.items()}
    keys = np.array([chunk_of_row[r] * vi.MAX_WINDOWS for r in (5, 17, 300)] + [10**9], dtype=np.uint64)
    positions = loaded.positions(keys)
    assert positions[-1] == -1 and (positions[:3] >= 0).all()  # a key the index lacks is not found
    assert np.array_equal(loaded.rows(positions[:3]), mat[[5, 17, 300]])  # bit for bit what chunks_vec holds
    assert loaded.words.shape == (1, N)  # 32 dimensions: one 64-bit word each
    assert loaded.lead.shape == (N, DIM) and loaded.tail.shape == (N, 0)  # fewer than LEAD: all of them lead


def test_only_the_sketchs_nearest_rows_are_scored(library, monkeypatch):
    store, mat, rows, _ = library
    built(store, mat[0])
    loaded = store.__dict__["_vector_index"]._index
    monkeypatch.setattr(vi, "MIN_CANDIDATES", 30)
    q = mat[42]  # a stored vector: its sketch is its own, at distance 0, and it is its own best match
    ham = loaded.distances(q)
    chunk_of_row = {row: cid for cid, row in rows.items()}
    assert ham[loaded.positions(np.array([chunk_of_row[42] * vi.MAX_WINDOWS], dtype=np.uint64))[0]] == 0
    got = store.dense_candidates(q, 5)
    assert got[0][0] == chunk_of_row[42] and abs(got[0][1] - 1.0) < 1e-5
    cut = np.sort(ham)[29]  # the 30 nearest by sketch, and every row tied with the 30th
    near = set(np.flatnonzero(ham <= cut).tolist())
    assert {int(loaded.positions(np.array([c * vi.MAX_WINDOWS], dtype=np.uint64))[0]) for c, _ in got} <= near
    assert len(near) < N // 2  # the sketch did leave rows out, so the check above could fail


@pytest.fixture
def split_codes(monkeypatch):
    monkeypatch.setattr(vi, "LEAD", 12)  # 32 dimensions: the codes of 12 leading axes, then of 20 others


def in_file_order(loaded: vi.Loaded, mat: np.ndarray, rows: dict[int, int]) -> np.ndarray:
    return mat[[rows[int(k) // vi.MAX_WINDOWS] for k in loaded.keys]]


@pytest.mark.usefixtures("split_codes")
def test_codes_are_the_vectors_on_their_principal_axes_at_each_axis_scale(library):
    store, mat, rows, _ = library
    built(store, mat[0])
    loaded = store.__dict__["_vector_index"]._index
    assert loaded.lead.shape == (N, 12) and loaded.tail.shape == (N, DIM - 12)
    assert np.allclose(loaded.axes.T @ loaded.axes, np.eye(DIM), atol=1e-5)  # a rotation: dot products kept
    projected = (in_file_order(loaded, mat, rows) - loaded.mean) @ loaded.axes
    assert (np.diff(projected.var(axis=0)) <= 1e-6).all()  # the widest axes first (all 600 are the sample)
    codes = np.hstack([loaded.lead, loaded.tail]).astype(np.float64)
    assert np.abs(codes - np.clip(projected * loaded.scales, -127, 127)).max() <= 0.5 + 1e-3
    assert np.abs(codes).max(axis=0).min() >= 100  # each axis's own scale: the narrow ones use the range too
    for q in vectors(5, seed=21):  # a code's score: its vector's projection on the query, less the mean's
        want = (in_file_order(loaded, mat, rows) - loaded.mean) @ q
        assert np.abs(codes @ loaded.weights(q) - want).max() < 0.02


@pytest.mark.usefixtures("split_codes")
def test_candidates_are_scored_on_the_leading_axes_then_the_best_of_them_on_all(library, monkeypatch):
    store, mat, rows, _ = library
    built(store, mat[0])
    loaded = store.__dict__["_vector_index"]._index
    monkeypatch.setattr(vi, "MIN_CANDIDATES", 300)
    monkeypatch.setattr(vi, "KEEP", 40)
    pruned = partial = 0
    for q in vectors(8, seed=23):
        found = loaded.candidates(q)
        w = loaded.weights(q)
        lead = loaded.lead[found].astype(np.float32) @ w[:12]
        kept = found[np.argsort(-lead)[:40]]
        full = loaded.lead[kept].astype(np.float32) @ w[:12] + loaded.tail[kept].astype(np.float32) @ w[12:]
        want = set(kept[np.argsort(-full)[:10]].tolist())
        assert set(loaded.nearest(q, 10).tolist()) == want
        everyone = np.hstack([loaded.lead[found], loaded.tail[found]]).astype(np.float32) @ w
        pruned += want != set(found[np.argsort(-everyone)[:10]].tolist())  # the pruning left a top-10 row out
        partial += want != set(found[np.argsort(-lead)[:10]].tolist())  # the trailing axes changed the top 10
    assert pruned and partial  # both stages matter on these queries, so the check above could fail
    for q in vectors(6, seed=29):  # and the answer is still nearly the exact one
        assert_near_exact(store.dense_candidates(q, 10), mat, rows, q, 10, 0.7)


@pytest.mark.usefixtures("split_codes")
def test_code_scores_equal_the_widened_codes_dot_the_weights_in_every_block_and_thread(library, monkeypatch):
    store, mat, _, _ = library
    built(store, mat[0])
    loaded = store.__dict__["_vector_index"]._index
    monkeypatch.setattr(vi, "SCORE_BLOCK", 64)  # 550 rows: eight full blocks and a short one reuse the buffers
    rows = np.sort(np.random.default_rng(3).choice(N, 550, replace=False))
    weights = [loaded.weights(q) for q in vectors(4, seed=11)]
    parts = [(loaded.lead, slice(0, 12)), (loaded.tail, slice(12, DIM))]
    want = [[codes[rows].astype(np.float32) @ w[cols] for codes, cols in parts] for w in weights]
    got: dict[int, list[np.ndarray]] = {}

    def score(i: int) -> None:
        got[i] = [loaded.code_scores(codes, rows, weights[i][cols]) for codes, cols in parts]

    threads = [threading.Thread(target=score, args=(i,)) for i in range(len(weights))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    score(0)  # this thread's buffers too, once another thread's were made
    for i in range(len(weights)):
        for g, w in zip(got[i], want[i], strict=True):
            assert np.allclose(g, w, rtol=1e-5, atol=1e-4), i
    assert not np.allclose(got[0][0], got[1][0])  # the queries differ: each thread's scores are its own query's


def test_a_small_library_has_no_side_file(tmp_path, monkeypatch):
    monkeypatch.setattr(vi, "MIN_VECTORS", 10_000)
    mat = vectors(50)
    store, rows, _ = make_library(tmp_path / "library.db", mat)
    q = vectors(1, seed=2)[0]
    assert [c for c, _ in store.dense_candidates(q, 10)] == exact(mat, rows, q, 10)
    assert not vi.index_path(tmp_path / "library.db").exists()
    store.close()
