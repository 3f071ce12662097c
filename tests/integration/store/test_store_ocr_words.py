"""OCR's word boxes in the Store, on SQLite and on a real PostgreSQL: kept with a page's OCR text, read back by file
and page for the viewer, kept when an unchanged file is re-chunked, dropped when the file changes, and copied with
the library."""

from __future__ import annotations

from desktop_app.core.ingest.chunking import Span
from desktop_app.core.ocr.words import OcrWord, decode_words, encode_words
from desktop_app.core.store.copy import copy_library
from desktop_app.core.store.postgres import PostgresStore
from desktop_app.core.store.rows import NewChunk, OcrPageRef
from desktop_app.core.store.sqlite import SQLiteStore
from tests.integration.store.conftest import DIM
from tests.integration.store.test_store_protocol import chunks, doc

WORDS = encode_words([OcrWord("scanned", 0.1, 0.1, 0.3, 0.15), OcrWord("harbour", 0.32, 0.1, 0.5, 0.15),
                      OcrWord("chart", 0.52, 0.1, 0.66, 0.15)])
READ = [NewChunk(Span(0, 21, "scanned harbour chart"), 2, "p. 2", ocr=True)]


def write_scan(store, folder, digest: str = "d1") -> str:
    path = folder.path + "/scan.pdf"
    store.write_document(doc(folder.id, path, digest=digest, type_="pdf"), chunks("typed page one", page=1),
                         ocr_pages=[OcrPageRef(2), OcrPageRef(3)])
    return path


def test_a_pages_words_are_kept_with_its_text_until_the_file_changes(store, folder):
    path = write_scan(store, folder)
    page_two, page_three = store.pending_ocr(10)
    assert store.ocr_words(path, 2) is None  # not read yet
    assert store.store_ocr_page(page_two, READ, text="scanned harbour chart", confidence=0.9, reason="", words=WORDS)
    assert store.store_ocr_page(page_three, [], text="", confidence=0.0, reason="no text found")
    assert [w.text for w in decode_words(store.ocr_words(path, 2))] == ["scanned", "harbour", "chart"]
    assert store.ocr_words(path, 3) is None and store.ocr_words(path, 4) is None
    assert store.ocr_words(folder.path + "/other.pdf", 2) is None

    write_scan(store, folder)  # a reindex of the unchanged file: its read page is re-chunked, its words kept
    (again,) = store.pending_ocr(10)
    assert again.text == "scanned harbour chart" and store.ocr_words(path, 2) is None  # pending: not shown
    assert store.store_ocr_page(again, READ, text=again.text, confidence=1.0, reason="")  # no words: keep them
    assert store.ocr_words(path, 2) == WORDS

    write_scan(store, folder, digest="d2")  # the file changed: its pages are read anew, the old words are gone
    assert [t.text for t in store.pending_ocr(10)] == [None, None] and store.ocr_words(path, 2) is None


def test_a_copied_library_keeps_its_pages_words(tmp_path, pg_url):
    source = SQLiteStore(tmp_path / "library.db")
    source.ensure_embedding_model("test-model", DIM)
    folder = source.add_folder(str(tmp_path / "docs"))
    path = write_scan(source, folder)
    page_two, _ = source.pending_ocr(10)
    source.store_ocr_page(page_two, READ, text="scanned harbour chart", confidence=0.9, reason="", words=WORDS)
    target = PostgresStore(pg_url, machine="desk-copy")
    try:
        assert copy_library(source, target).counts_match
        assert target.ocr_words(path, 2) == WORDS and target.ocr_words(path, 3) is None
    finally:
        target.close()
        source.close()
