"""`trove migrate`'s copy: an embedded library into a server library, with everything derived from its files."""

from __future__ import annotations

import numpy as np

from desktop_app.core.ingest.chunking import Span
from desktop_app.core.store.copy import copy_library
from desktop_app.core.store.postgres import PostgresStore
from desktop_app.core.store.rows import MessageRow, NewChunk, NewDocument, NewPart, OcrCounts, OcrPageRef
from desktop_app.core.store.sqlite import SQLiteStore
from tests.integration.store.conftest import DIM
from tests.integration.store.test_store_protocol import chunks, doc, embed_all


def _library(tmp_path) -> tuple[SQLiteStore, str]:
    source = SQLiteStore(tmp_path / "library.db")
    source.ensure_embedding_model("test-model", DIM)
    folder = source.add_folder(str(tmp_path / "docs"))
    root = folder.path
    source.write_document(doc(folder.id, root + "/notes.txt"), chunks("harbour notes", "tide tables"))
    inner = NewDocument(folder_id=folder.id, title="Re: charts", type="eml", metadata={"from": "ann"})
    source.write_document(doc(folder.id, root + "/mail.mbox", type_="mbox"), [],
                          parts=[NewPart("1", "message 1", inner, tuple(chunks("the chart is attached"))),
                                 NewPart("2", "chart.pdf · message 1", inner, reason="encrypted")])
    scan = root + "/scan.pdf"
    source.write_document(doc(folder.id, scan, type_="pdf"), chunks("typed cover", page=1),
                          ocr_pages=[OcrPageRef(2), OcrPageRef(3), OcrPageRef(4)])
    embed_all(source)
    first, second, _ = source.pending_ocr(10)
    source.store_ocr_page(first, [NewChunk(Span(0, 13, "scanned chart"), 2, "p. 2", ocr=True)], text="scanned chart",
                          confidence=0.8, reason="")
    source.store_ocr_page(second, [], text="", confidence=0.0, reason="blank page")
    source.record_failure(doc(folder.id, root + "/broken.docx"), "not a zip file")
    chat = source.create_chat("charts", 1.0)
    source.add_messages(chat, [MessageRow(0, chat, "user", "where is the chart?", created_at=2.0)], "", 3.0)
    return source, root


def test_a_library_is_copied_whole_and_a_second_run_skips_what_is_there(tmp_path, pg_url):
    source, root = _library(tmp_path)
    target = PostgresStore(pg_url, machine="desk-copy")
    try:
        report = copy_library(source, target)
        assert report.counts_match, (report.source, report.target)
        assert (report.copied, report.skipped, report.chats) == (6, 0, 1)  # 4 files, 2 documents inside one
        assert target.counts() == source.counts() and target.counts().ocr_pending == 1
        assert target.ocr_counts() == source.ocr_counts() == OcrCounts(pending=1, done=1, failed=1)
        assert [(t.page, t.text) for t in target.pending_ocr(10)] == [(4, None)]
        assert sorted(target.failures(), key=str) == sorted(source.failures(), key=str)
        assert target.ocr_failures() == source.ocr_failures()
        assert list(target.documents_under(target.folders()[0].id)) == sorted(source.documents_under(1))

        cid = target.keyword_candidates("attached", 5)[0][0]
        row = target.chunk_rows([cid])[cid]
        assert (row.path, row.container, row.part_label, row.metadata) == (
            root + "/mail.mbox#1", root + "/mail.mbox", "message 1", {"from": "ann"})
        cid = target.keyword_candidates("scanned", 5)[0][0]
        row = target.chunk_rows([cid])[cid]
        assert (row.page, row.label, row.ocr) == (2, "p. 2", True)

        assert target.count_pending() == source.count_pending() == 1  # the OCR chunk; the rest brought vectors
        stored = {s.doc.path: s for s in source.stored_documents(0, 10)}
        vector = stored[root + "/notes.txt"].chunks[1].vectors[0]
        hit = target.dense_candidates(vector, 1)[0]
        assert target.chunk_rows([hit[0]])[hit[0]].text == "tide tables" and np.isclose(hit[1], 1.0, atol=1e-5)
        assert [m.content for m in target.chat_messages(target.list_chats()[0].id)] == ["where is the chart?"]

        again = copy_library(source, target)
        assert (again.copied, again.skipped, again.chats) == (0, 6, 0) and again.counts_match
    finally:
        target.close()
        source.close()
