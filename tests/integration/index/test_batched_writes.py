"""The keyword phase writes many small files per transaction, each file still all-or-nothing (a SAVEPOINT)."""

from __future__ import annotations

from desktop_app.core.errors import ExtractionError
from desktop_app.core.index import indexer as indexer_module
from desktop_app.core.index.indexer import BATCH_FILES
from desktop_app.core.store.sqlite.keyword import pending as pending_keywords


def notes(folder, n: int) -> None:
    folder.mkdir()
    for i in range(n):
        (folder / f"note{i:03d}.txt").write_text(f"a note about the echidna number n{i} " * 12, encoding="utf-8")


def commits_during(lib, fn) -> tuple[object, int]:
    """fn() and how many COMMITs the store's write connection ran meanwhile."""
    seen: list[str] = []
    lib.store._conn.set_trace_callback(seen.append)
    try:
        out = fn()
    finally:
        lib.store._conn.set_trace_callback(None)
    return out, sum(1 for s in seen if s.strip().upper() == "COMMIT")


def test_small_files_share_transactions_and_all_get_their_chunks(make_library, tmp_path):
    notes(tmp_path / "docs", 300)
    lib = make_library()
    lib.embed_worker.wake = lambda: None  # the keyword phase alone
    lib.add_folder(tmp_path / "docs")
    report, commits = commits_during(lib, lambda: lib.sync(wait=False))
    assert report.indexed == 300 and report.failed == 0
    assert 300 // BATCH_FILES <= commits < 300 // 4, commits  # one per batch, plus the run's own bookkeeping
    assert lib.store.counts().documents == 300 and lib.store.count_pending() == 300
    assert len(lib.search("n123", mode="keyword")) == 1


def test_a_file_that_fails_half_written_rolls_back_alone(make_library, tmp_path, monkeypatch):
    notes(tmp_path / "docs", 40)
    real = indexer_module.chunk_extracted

    def breaks_on_one(doc, config):
        chunks = list(real(doc, config))
        if "n17 " not in doc.text:
            return chunks

        def half():  # the first chunk is written, then the file "changes while it is read"
            yield chunks[0]
            raise ExtractionError("changed while it was read")

        return half()

    monkeypatch.setattr(indexer_module, "chunk_extracted", breaks_on_one)
    lib = make_library()
    lib.add_folder(tmp_path / "docs")
    report = lib.sync()
    assert report.indexed == 39 and report.failed == 1 and "note017.txt" in report.errors[0][0]
    bad = lib.store.document_by_path(str(tmp_path / "docs" / "note017.txt"))
    assert bad is not None and bad.status == "failed"
    assert lib.search("n17", mode="keyword") == []  # no half file: none of its chunks was kept
    assert all(len(lib.search(f"n{i}", mode="keyword")) == 1 for i in (0, 16, 18, 39))
    assert lib.store.counts().chunks == 39


def test_a_file_that_fails_after_its_keyword_rows_were_queued_leaves_none_of_them(make_library, tmp_path,
                                                                                   monkeypatch):
    # A batch queues its keyword rows until it commits (pending_keywords.py): a file whose SAVEPOINT rolls back
    # after its rows were queued must take them with it, and the files after it (which may reuse its chunk ids)
    # must keep theirs.
    notes(tmp_path / "docs", 40)
    real = pending_keywords.write_row

    def breaks_after_one(conn, chunk_id, fts_title, text, **kw):
        real(conn, chunk_id, fts_title, text, **kw)
        if "n17 " in text:
            raise ExtractionError("changed while it was read")

    monkeypatch.setattr(pending_keywords, "write_row", breaks_after_one)
    lib = make_library()
    lib.add_folder(tmp_path / "docs")
    report = lib.sync()
    assert report.indexed == 39 and report.failed == 1 and "note017.txt" in report.errors[0][0]
    assert lib.search("n17", mode="keyword") == []
    assert all(len(lib.search(f"n{i}", mode="keyword")) == 1 for i in (0, 16, 18, 39))
    with lib.store._read() as conn:  # one keyword row per chunk, no more
        fts = conn.execute("SELECT count(*) FROM chunks_fts").fetchone()[0]
        orphans = conn.execute("SELECT count(*) FROM chunks_fts WHERE rowid NOT IN (SELECT id FROM chunks)").fetchone()
    assert fts == lib.store.counts().chunks == 39 and orphans[0] == 0
