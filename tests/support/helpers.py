"""Small builders for test inputs: PDFs (real, via fpdf2), DOCX, folders of text."""

from __future__ import annotations

from pathlib import Path


def write_pdf(path: Path, pages: list[str], *, password: str | None = None) -> Path:
    """A real PDF with one page per string (encrypted with a user password if given)."""
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_font("Helvetica", size=12)
    for text in pages:
        pdf.add_page()
        pdf.multi_cell(0, 8, text)
    if password:
        pdf.set_encryption(owner_password="owner-" + password, user_password=password)
    pdf.output(str(path))
    return path


def write_docx(path: Path, paragraphs: list[str], title: str = "") -> Path:
    import docx

    document = docx.Document()
    if title:
        document.core_properties.title = title
    for text in paragraphs:
        document.add_paragraph(text)
    document.save(str(path))
    return path


def index_consistency(db_path: Path) -> dict:
    """Cross-table counts that must agree in a consistent index."""
    from desktop_app.core.embed.base import MAX_WINDOWS as VECTORS_PER_CHUNK
    from desktop_app.core.store.sqlite.connect import connect

    conn = connect(db_path, readonly=True)
    try:
        # one read transaction, so every count comes from the same snapshot: a phase still running beside the
        # test (the semantic worker) can commit between two autocommit SELECTs and make consistent tables disagree
        conn.execute("BEGIN")
        out = {
            "integrity": conn.execute("PRAGMA integrity_check").fetchone()[0],
            "chunks": conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0],
            "declared_chunks": conn.execute("SELECT COALESCE(SUM(chunk_count), 0) FROM documents").fetchone()[0],
            "fts_rows": conn.execute("SELECT COUNT(*) FROM chunks_fts").fetchone()[0],
            # vector rowid = chunk id * VECTORS_PER_CHUNK + window: count the chunks that have vectors
            "vectors": conn.execute(f"SELECT COUNT(DISTINCT rowid / {VECTORS_PER_CHUNK}) FROM chunks_vec").fetchone()[
                0
            ],
            "vector_rows": conn.execute("SELECT COUNT(*) FROM chunks_vec").fetchone()[0],
            "orphan_vectors": conn.execute(
                f"SELECT COUNT(*) FROM chunks_vec WHERE rowid / {VECTORS_PER_CHUNK} NOT IN (SELECT id FROM chunks)"
            ).fetchone()[0],
            "embedded_flags": conn.execute("SELECT COUNT(*) FROM chunks WHERE embedded = 1").fetchone()[0],
            "orphan_chunks": conn.execute(
                "SELECT COUNT(*) FROM chunks WHERE document_id NOT IN (SELECT id FROM documents)"
            ).fetchone()[0],
            # the counts the triggers keep per folder and type (migration 011), against a scan of the documents
            "kept_counts": conn.execute(
                "SELECT folder_id, type, documents, failed, chunks FROM doc_counts WHERE documents OR failed OR chunks "
                "ORDER BY folder_id, type").fetchall(),
            "scanned_counts": conn.execute(
                "SELECT folder_id, type, SUM(status = 'indexed'), SUM(status = 'failed'), SUM(chunk_count) "
                "FROM documents GROUP BY folder_id, type "
                "HAVING SUM(status = 'indexed') OR SUM(status = 'failed') OR SUM(chunk_count) "
                "ORDER BY folder_id, type").fetchall(),
            "kept_langs": conn.execute("SELECT lang, chunks FROM lang_counts WHERE chunks ORDER BY lang").fetchall(),
            "scanned_langs": conn.execute("SELECT lang, COUNT(*) FROM chunks GROUP BY lang ORDER BY lang").fetchall(),
        }
        conn.execute("COMMIT")
    finally:
        conn.close()
    return out


def assert_consistent(db_path: Path) -> dict:
    c = index_consistency(db_path)
    assert c["integrity"] == "ok"
    assert c["chunks"] == c["declared_chunks"] == c["fts_rows"]
    assert c["orphan_vectors"] == 0 and c["orphan_chunks"] == 0
    assert c["vectors"] == c["embedded_flags"]
    assert [tuple(r) for r in c["kept_counts"]] == [tuple(r) for r in c["scanned_counts"]]
    assert [tuple(r) for r in c["kept_langs"]] == [tuple(r) for r in c["scanned_langs"]]
    return c


def query_db(db_path: Path, sql: str, args: tuple = ()) -> list[tuple]:
    """Rows of one read-only query against a library database (tests look inside; the app never does)."""
    from desktop_app.core.store.sqlite.connect import connect

    conn = connect(db_path, readonly=True)
    try:
        return [tuple(r) for r in conn.execute(sql, args)]
    finally:
        conn.close()


def kill_9_when_flagged(target, args: tuple, flag: Path, timeout: float = 120.0) -> None:
    """Run `target(*args)` in a spawned child and SIGKILL it once it has written `flag` (it then hangs, mid-write)."""
    import multiprocessing as mp
    import os
    import signal
    import time

    child = mp.get_context("spawn").Process(target=target, args=args)
    child.start()
    deadline = time.monotonic() + timeout
    while not flag.exists() and time.monotonic() < deadline and child.is_alive():
        time.sleep(0.05)
    assert flag.exists(), "the child never reached the point to be killed at"
    os.kill(child.pid, signal.SIGKILL)
    child.join(10)
    assert child.exitcode == -signal.SIGKILL
