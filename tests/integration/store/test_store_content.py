"""The Store protocol on both engines, continued: keyword search in every script, languages, path scopes, documents
inside files, the OCR queue, the keyword index rebuild, streamed chunks, and names and text that no database takes
as they are. Every test runs on SQLite and on a real PostgreSQL (the `store` fixture)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from desktop_app.core import text as tp
from desktop_app.core.ingest.chunking import Span
from desktop_app.core.store.rows import (
    DocStatus,
    DocumentMove,
    Filters,
    MessageRow,
    NewChunk,
    NewDocument,
    NewPart,
    OcrCounts,
    OcrPageRef,
)
from tests.integration.store.test_store_protocol import chunks, doc, embed_all, unit

# ---- every script through the same text pipeline -----------------------------------------------------------------

SCRIPTS = {
    "th.txt": "ระบบค้นหาข้อมูลในห้องสมุด",
    "ja.txt": "東京の図書館で本を検索する",
    "zh.txt": "这个图书馆的中文书很多",
    "ar.txt": "المكتبات العامة في المدينة",
    "ru.txt": "Книги и библиотеки города",
    "en.txt": "error code E1234 in x86_64 builds of the library",
}


@pytest.fixture
def scripts(store, folder):
    for name, text in SCRIPTS.items():
        store.write_document(doc(folder.id, f"{folder.path}/{name}", title="note"), chunks(text))
    embed_all(store)
    return folder


def names(store, hits) -> set[str]:
    rows = store.chunk_rows([c for c, _ in hits])
    return {Path(rows[c].path).name for c, _ in hits}


@pytest.mark.parametrize("query, found", [
    ("ค้นหา", "th.txt"), ("ห้องสมุด ", "th.txt"), ("สมุ", "th.txt"),  # ICU words; the typed word is a prefix
    ("検索", "ja.txt"), ("図書館", "ja.txt"), ("本", "ja.txt"),  # Japanese words and bigrams, a lone Han prefix
    ("图书馆", "zh.txt"), ("中文", "zh.txt"),
    ("المكتبة", "ar.txt"), ("مدينة ", "ar.txt"),  # Arabic light stems: المكتبات, المدينة
    ("библиотеки ", "ru.txt"), ("библиот", "ru.txt"),
    ("E1234 ", "en.txt"), ("x86_64 ", "en.txt"), ("libraries ", "en.txt"),  # exact codes, Porter stems
])
def test_every_script_is_found_by_its_words(store, scripts, query, found):
    assert names(store, store.keyword_candidates(query, 10)) == {found} and store.counts(scripts.id).chunks == 6


def test_languages_are_counted_and_filter_both_sides(store, scripts):
    assert dict(store.languages()) == {"th": 1, "ja": 1, "zh": 1, "ar": 1, "cyrl": 1, "en": 1}
    thai = Filters(folder_ids=(scripts.id,), langs=("th",))
    assert names(store, store.keyword_candidates("note", 10, filters=thai)) == {"th.txt"}  # the title is in all
    assert names(store, store.dense_candidates(unit(1), 10, filters=Filters(langs=("ar", "en")))) == {"ar.txt",
                                                                                                       "en.txt"}
    cid = store.keyword_candidates("ค้นหา", 5)[0][0]
    assert store.chunk_rows([cid])[cid].lang == "th"


# ---- path scopes ---------------------------------------------------------------------------------------------------


def _part(folder_id: int, n: int, text: str = "", reason: str = "") -> NewPart:
    inner = NewDocument(folder_id=folder_id, title=f"Subject {n}", type="eml", metadata={"from": "ann"})
    return NewPart(str(n), f"message {n}", inner, tuple(chunks(text)) if text else (), reason)


def test_a_path_scope_is_a_file_a_folder_above_it_or_the_file_a_part_is_in(store, folder):
    root = folder.path
    for rel in ("sub/a.txt", "sub/deeper/b.txt", "subway.txt", "sub_x/c.txt"):
        store.write_document(doc(folder.id, f"{root}/{rel}"), chunks(f"note {Path(rel).stem}"))
    mbox = f"{root}/mail.mbox"
    store.write_document(doc(folder.id, mbox, type_="mbox"), [],
                         parts=[_part(folder.id, 1, "note one"), _part(folder.id, 2, "note two")])
    embed_all(store)

    def scoped(*paths: str) -> set[str]:
        return names(store, store.keyword_candidates("note", 20, filters=Filters(paths=paths)))

    assert scoped(f"{root}/sub") == scoped(f"{root}/sub/") == {"a.txt", "b.txt"}  # not subway.txt, not sub_x
    assert scoped(f"{root}/subway.txt") == {"subway.txt"}
    assert scoped(mbox) == {"mail.mbox#1", "mail.mbox#2"} and scoped(f"{mbox}#2") == {"mail.mbox#2"}
    assert scoped(f"{root}/sub/deeper", f"{root}/subway.txt") == {"b.txt", "subway.txt"}
    assert scoped(f"{root}/nowhere") == set()
    dense = store.dense_candidates(unit(3), 10, filters=Filters(paths=(f"{root}/sub",)))
    assert names(store, dense) == {"a.txt", "b.txt"} and all(-1.0 <= s <= 1.0 for _, s in dense)
    assert store.dense_candidates(unit(3), 10, filters=Filters(paths=(f"{root}/nowhere",))) == []


# ---- documents inside files ----------------------------------------------------------------------------------------


def test_documents_inside_a_file_are_written_moved_and_deleted_with_it(store, folder):
    mbox = folder.path + "/mail.mbox"
    doc_id = store.write_document(doc(folder.id, mbox, type_="mbox"), chunks("the mailbox itself"),
                                  parts=[_part(folder.id, 1, "first message about harbours"),
                                         _part(folder.id, 2, reason="encrypted attachment")])
    assert list(store.documents_under(folder.id)) == [mbox]  # parts are not files to sync
    assert store.documents_below(folder.path + "/") == [store.document_by_path(mbox)]
    first = store.document_by_path(mbox + "#1")
    assert (first.status, first.content_hash, first.folder_id) == (DocStatus.INDEXED, "d1", folder.id)
    assert store.document_by_path(mbox + "#2").status == DocStatus.FAILED
    assert (mbox + "#2", "encrypted attachment") in [(f.path, f.reason) for f in store.failures()]
    cid = store.keyword_candidates("harbours", 5)[0][0]
    row = store.chunk_rows([cid])[cid]
    assert (row.path, row.container, row.part_label, row.title, row.metadata) == (
        mbox + "#1", mbox, "message 1", "Subject 1", {"from": "ann"})
    assert store.document_chunks(mbox + "#1") == [(None, "first message about harbours")]
    counts = store.counts(folder.id)
    assert (counts.documents, counts.failed, counts.chunks) == (2, 1, 2)

    embed_all(store)  # rewritten without message 2; message 1 is unchanged and keeps its vectors
    store.write_document(doc(folder.id, mbox, digest="d2", type_="mbox"), chunks("the mailbox itself"),
                         parts=[_part(folder.id, 1, "first message about harbours")])
    assert store.document_by_path(mbox + "#2") is None and store.count_pending() == 0
    assert store.document_by_path(mbox + "#1").content_hash == "d2"

    moved = folder.path + "/archive/old.mbox"
    assert store.move_documents([DocumentMove(doc_id=doc_id, folder_id=folder.id, path=moved, size=1, mtime_ns=1)]) == 1
    assert store.document_by_path(mbox + "#1") is None
    cid = store.keyword_candidates("harbours", 5)[0][0]
    row = store.chunk_rows([cid])[cid]
    assert (row.path, row.container) == (moved + "#1", moved)

    store.record_failure(doc(folder.id, moved, digest="d3"), "locked")
    assert store.document_by_path(moved + "#1") is None and store.keyword_candidates("harbours", 5) == []
    store.write_document(doc(folder.id, moved, digest="d4"), [], parts=[_part(folder.id, 1, "harbours again")])
    assert store.delete_document(store.document_by_path(moved).id) is True
    assert store.counts().documents == 0 and store.keyword_candidates("harbours", 5) == []
    store.write_document(doc(folder.id, moved, digest="d5"), [], parts=[_part(folder.id, 1, "harbours again")])
    assert store.delete_under(folder.path + "/archive") == 2 and store.counts() == store.counts(folder.id)
    assert store.counts().documents == 0


# ---- the OCR queue -------------------------------------------------------------------------------------------------


def test_pages_without_text_wait_for_ocr_and_take_its_chunks(store, folder):
    path = folder.path + "/scan.pdf"
    doc_id = store.write_document(doc(folder.id, path, type_="pdf"), chunks("typed page one", page=1),
                                  ocr_pages=[OcrPageRef(2), OcrPageRef(3, "plate 3")])
    assert store.ocr_counts() == OcrCounts(pending=2)
    assert store.counts().ocr_pending == store.counts(folder.id).ocr_pending == 2
    tasks = store.pending_ocr(10)
    assert [(t.document_id, t.page, t.label, t.path, t.type, t.file_hash, t.text) for t in tasks] == [
        (doc_id, 2, "", path, "pdf", "d1", None), (doc_id, 3, "plate 3", path, "pdf", "d1", None)]
    assert store.pending_ocr(1) == tasks[:1] and store.pending_ocr(10, after=(doc_id, 2)) == tasks[1:]

    read = [NewChunk(Span(0, 21, "scanned harbour chart"), 2, "p. 2", ocr=True)]
    assert store.store_ocr_page(tasks[0], read, text="scanned harbour chart", confidence=0.9, reason="") is True
    assert store.store_ocr_page(tasks[0], read, text="again", confidence=0.9, reason="") is False  # not pending
    assert store.store_ocr_page(tasks[1], [], text="", confidence=0.0, reason="no text found") is True
    assert store.ocr_counts() == OcrCounts(pending=0, done=1, failed=1) and store.counts().ocr_pending == 0
    assert [(f.path, f.reason) for f in store.ocr_failures()] == [(f"{path} (plate 3)", "no text found")]
    cid = store.keyword_candidates("harbour", 5)[0][0]
    row = store.chunk_rows([cid])[cid]
    assert (row.page, row.label, row.ocr, row.ordinal) == (2, "p. 2", True, 1)
    assert store.counts().chunks == 2
    assert store.document_chunks(path) == [(1, "typed page one"), (2, "scanned harbour chart")]
    assert store.document_chunks(folder.path + "/none.pdf") == []

    # the same file written again (a reindex): what OCR read comes back to be re-chunked; a failed page stays so
    store.write_document(doc(folder.id, path, type_="pdf"), chunks("typed page one", page=1),
                         ocr_pages=[OcrPageRef(2), OcrPageRef(3, "plate 3")])
    again = store.pending_ocr(10)
    assert [(t.page, t.text) for t in again] == [(2, "scanned harbour chart")]
    assert store.ocr_counts() == OcrCounts(pending=1, failed=1) and store.keyword_candidates("harbour", 5) == []

    # a changed file: every page is read anew, and a task for the old file is refused
    store.write_document(doc(folder.id, path, digest="d2", type_="pdf"), chunks("typed page one", page=1),
                         ocr_pages=[OcrPageRef(2), OcrPageRef(3, "plate 3")])
    assert [(t.page, t.text, t.file_hash) for t in store.pending_ocr(10)] == [(2, None, "d2"), (3, None, "d2")]
    assert store.store_ocr_page(again[0], read, text="stale", confidence=1.0, reason="") is False
    store.record_failure(doc(folder.id, path, digest="d3", type_="pdf"), "damaged")
    assert store.ocr_counts() == OcrCounts() and store.pending_ocr(10) == []


# ---- the keyword index ---------------------------------------------------------------------------------------------


def test_a_keyword_index_of_another_pipeline_version_is_rebuilt_in_resumable_batches(store, folder):
    for i in range(5):
        store.write_document(doc(folder.id, f"{folder.path}/{i}.txt"), chunks(f"harbour chart {i}"))
    assert store.keyword_rebuild_pending() == 0 and store.rebuild_keywords(10) == 0
    store.set_meta("fts_tokenizer", "0:an-older-pipeline")
    assert store.keyword_rebuild_pending() == 5
    assert store.rebuild_keywords(2) == 3 and store.keyword_rebuild_pending() == 3
    assert store.rebuild_keywords(2) == 1
    assert store.rebuild_keywords(10) == 0 and store.keyword_rebuild_pending() == 0
    assert store.get_meta("fts_tokenizer") == tp.tokenizer_fingerprint() and store.get_meta("fts_rebuilt_to") is None
    assert len(store.keyword_candidates("harbour", 10)) == 5 and [n for _, n in store.languages()] == [5]


# ---- streamed chunks -----------------------------------------------------------------------------------------------


def test_chunks_may_stream_they_are_counted_and_a_broken_stream_keeps_nothing(store, folder):
    path = folder.path + "/big.txt"
    texts = [f"part {i} of a long text" for i in range(600)]
    doc_id = store.write_document(doc(folder.id, path), (c for c in chunks(*texts)))
    assert store.counts().chunks == 600 and store.count_pending() == 600
    assert [t for _, t in store.document_chunks(path)] == texts

    def broken():
        yield from chunks(*[f"new {i}" for i in range(300)])
        raise OSError("the file went away")

    with pytest.raises(OSError):
        store.write_document(doc(folder.id, path, digest="d2"), broken())
    row = store.document_by_path(path)
    assert (row.id, row.content_hash) == (doc_id, "d1") and store.counts().chunks == 600


# ---- names and text no database takes as they are ------------------------------------------------------------------


def test_undecodable_names_and_nul_characters_round_trip(store, tmp_path):
    root = os.fsdecode(os.fsencode(tmp_path) + b"/caf\xe9")  # a folder name that is not UTF-8: a lone surrogate
    folder = store.add_folder(root)
    assert [f.path for f in store.folders()] == [root] and store.folder_ids([root]) == (folder.id,)
    path = root + "/r\udcfdsum\U0010fffd.txt"  # an undecodable byte, and the escape character itself
    store.write_document(doc(folder.id, path, title="r\udcfdsum"), chunks("nul\x00 inside harbour \ud800 text"))
    assert list(store.documents_under(folder.id)) == [path] and store.document_by_path(path).status == "indexed"
    assert [d.path for d in store.documents_below(root + "/")] == [path]
    cid = store.keyword_candidates("harbour", 5, filters=Filters(paths=(root,)))[0][0]
    row = store.chunk_rows([cid])[cid]
    assert row.path == path and row.title == "r\udcfdsum"
    assert row.text.replace("\x00", "") == "nul inside harbour \ud800 text"  # PostgreSQL cannot keep the NUL
    store.record_failure(doc(folder.id, root + "/bad\udcff.pdf"), "broken\x00 file")
    assert [(f.path, f.reason.replace("\x00", "")) for f in store.failures()] == [(root + "/bad\udcff.pdf",
                                                                                   "broken file")]
    chat = store.create_chat("about caf\udce9\x00", 1.0)
    store.add_messages(chat, [MessageRow(0, chat, "assistant", "see [1]\x00", ({"n": 1, "path": path},))], "", 2.0)
    [message] = store.chat_messages(chat)
    assert message.citations == ({"n": 1, "path": path},) and message.content.replace("\x00", "") == "see [1]"
    assert store.list_chats()[0].title.replace("\x00", "") == "about caf\udce9"
    assert store.delete_under(root) == 2 and store.counts(folder.id).failed == 0
