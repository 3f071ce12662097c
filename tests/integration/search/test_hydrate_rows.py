"""hydrate reads the stored rows of about the top k ranked chunks, not of every candidate both sides found, on the
real SQLite engine: the results are those of reading every row first, a chunk deleted after the ranking is
skipped (the next one read), and one result per document walks as far down the ranking as it must."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_app.core.ingest.chunking import Span
from desktop_app.core.search import service
from desktop_app.core.search.service import hydrate
from desktop_app.core.store.rows import NewChunk, NewDocument
from desktop_app.core.store.sqlite import SQLiteStore
from desktop_app.core.text import build_query

DOCS = 20
CHUNKS = 3  # per document


@pytest.fixture
def store(tmp_path: Path):
    store = SQLiteStore(tmp_path / "library.db")
    fid = store.add_folder("/lib").id
    for d in range(DOCS):
        chunks, at = [], 0
        for c in range(CHUNKS):
            text = f"document {d} part {c} about lighthouses"
            chunks.append(NewChunk(Span(at, at + len(text), text), None))
            at += len(text) + 1
        store.write_document(NewDocument(folder_id=fid, path=f"/lib/{d}.txt", title=str(d), type="txt", size=1,
                                         mtime_ns=1, digest=str(d)), chunks)
    yield store
    store.close()


def ranking(store: SQLiteStore) -> list[tuple[int, float]]:
    """Every chunk, ranked by id: a document's chunks next to each other, as a document's best passages often are."""
    ids = sorted(int(r[0]) for r in store._read(lambda c: c.execute("SELECT id FROM chunks").fetchall()))
    return [(cid, 1.0 - i / 100) for i, cid in enumerate(ids)]


def counting(store: SQLiteStore, monkeypatch) -> list[int]:
    """Each id chunk_rows is asked for, in order."""
    asked: list[int] = []
    real = store.chunk_rows

    def chunk_rows(ids):
        asked.extend(ids)
        return real(ids)

    monkeypatch.setattr(store, "chunk_rows", chunk_rows)
    return asked


def every_row_first(store: SQLiteStore, ranked, top_k: int, group: bool) -> list[tuple[str, int]]:
    """What hydrate returned when it read all ranked rows at once: (text, chunk id) per result."""
    rows = store.chunk_rows([cid for cid, _ in ranked])
    out, seen = [], set()
    for cid, _ in ranked:
        r = rows.get(cid)
        if r is None or (group and r.document_id in seen):
            continue
        seen.add(r.document_id)
        out.append((r.text, cid))
        if len(out) == top_k:
            break
    return out


def shown(results) -> list[tuple[str, int]]:
    return [(r.content, r.metadata["chunk_id"]) for r in results]


def hydrated(store: SQLiteStore, monkeypatch, group: bool, ranked: list[tuple[int, float]]):
    """hydrate's top 10 of `ranked`, checked against reading every row first; (results, ids read)."""
    want = every_row_first(store, ranked, 10, group)
    asked = counting(store, monkeypatch)
    got = hydrate(store, ranked, 10, build_query("lighthouses"), group)
    assert shown(got) == want
    return got, asked


def test_the_top_k_and_a_few_more_rows_are_read_not_every_candidate(store, monkeypatch):
    ranked = ranking(store)
    got, asked = hydrated(store, monkeypatch, False, ranked)
    assert asked == [cid for cid, _ in ranked[: 10 + service.ROWS_AHEAD]]  # 15 of 60 rows read
    assert all(r.metadata["highlights"] for r in got)  # "lighthouses" is marked in every result


def test_a_chunk_deleted_since_the_ranking_is_skipped_and_the_next_rows_read(store, monkeypatch):
    ranked = ranking(store)
    for doc in (1, 2, 3, 4):  # 12 chunks among the first 15 are gone
        store.delete_document(store.document_by_path(f"/lib/{doc}.txt").id)
    got, asked = hydrated(store, monkeypatch, False, ranked)
    assert len(got) == 10
    assert len(asked) == len(set(asked)) == 15 + 30  # the first batch, then one twice its size; no row read twice


def test_one_result_per_document_walks_down_the_ranking(store, monkeypatch):
    got, asked = hydrated(store, monkeypatch, True, ranking(store))
    assert len({r.metadata["document_id"] for r in got}) == 10
    assert len(asked) == len(set(asked)) == 15 + 30  # the 10th document starts at the 28th: in the second batch
