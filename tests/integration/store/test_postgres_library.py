"""A whole Library on a server library: the paths main's features take on SQLite (every script, mailboxes with
their attachments, the OCR phase, a reindex) end to end on PostgreSQL, through the indexer and the workers."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_app.core.library import Library
from desktop_app.core.settings import Settings
from tests.integration.ingest.test_library_formats import write_report_mailbox
from tests.integration.ingest.test_ocr_phase import ScriptedOcr
from tests.support import sample_docs as sd
from tests.support.helpers import write_pdf
from tests.support.pg_server import assert_server_consistent
from tests.unit.core.text.test_search_scripts import DOCS


@pytest.fixture
def server_library(pg_url, tmp_path, monkeypatch):
    """Libraries on the test's server database (one machine), closed at the end."""
    monkeypatch.setenv("TROVE_MACHINE_ID", "desk-lib")
    made = []

    def factory(**kwargs):
        lib = Library(tmp_path / "home", settings=Settings(embedder="hash"), db=pg_url, **kwargs)
        made.append(lib)
        return lib

    yield factory
    for lib in made:
        lib.close()


@pytest.mark.parametrize(("query", "doc", "word"), [
    ("ถาวร", "memory-th", "ถาวร"), ("文档存储", "zh", "文档存储"), ("日本 ", "ja", "日本"),
    ("도서관 ", "ko", "도서관"), ("احمد", "ar", "وأحمد"), ("الْمَكْتَبَةُ", "ar", "المكتبة"),
])
def test_a_word_in_each_script_is_found_and_highlighted(server_library, tmp_path, query, doc, word):
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, (title, text) in DOCS.items():
        (docs / f"{name}.txt").write_text(f"{title}\n\n{text}", encoding="utf-8")
    lib = server_library()
    lib.add_folder(docs)
    lib.sync(wait=True)
    hit = lib.search(query, mode="keyword", top_k=3)[0]
    assert Path(hit.source).stem == doc and word in [hit.content[a:b] for a, b in hit.metadata["highlights"]]
    assert {"th", "zh", "ja", "ko", "ar", "en"} <= set(dict(lib.store.languages()))
    hits = lib.search("Memory", mode="keyword", langs=["th"])
    assert hits and {Path(h.source).stem for h in hits} == {"memory-th"}
    assert lib.stats()["keyword_rebuild_pending"] == 0


def test_a_mailbox_is_one_document_per_message_and_attachment(server_library, pg_url, tmp_path):
    docs = tmp_path / "docs"
    box = write_report_mailbox(docs, tmp_path)
    lib = server_library()
    lib.add_folder(docs)
    lib.sync()
    [hit] = lib.search("ocelot", mode="keyword")
    assert hit.source == str(box) and hit.metadata["page"] == 2
    assert hit.metadata["label"] == "message 2 · report.pdf · p. 2"
    assert hit.metadata["part_path"] == f"{box}#2/report.pdf"
    [message] = lib.search("noon", mode="keyword")
    assert message.metadata["title"] == "Lunch" and message.metadata["label"] == "message 1"
    failures = {f["path"]: f["reason"] for f in lib.stats()["failures"]}
    assert failures == {f"{box}#2/tool.exe": "attachment type not read (.exe)"}
    assert lib.stats()["documents"] == 4
    assert [r.source for r in lib.search("ocelot", paths=[box])] == [str(box)]  # ask about this file
    target = docs / "sub" / "box.mbox"
    target.parent.mkdir()
    box.rename(target)
    assert lib.move_path(box, target).moved == 1
    [hit] = lib.search("ocelot", mode="keyword")
    assert hit.source == str(target) and hit.metadata["part_path"] == f"{target}#2/report.pdf"
    target.unlink()
    lib.sync()
    assert lib.stats()["documents"] == 0 and lib.search("noon", mode="keyword") == []
    assert_server_consistent(pg_url)


def test_scanned_pages_are_read_by_the_ocr_phase_and_never_twice(server_library, tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    sd.write_scanned_pdf(docs / "scan.pdf", write_pdf(tmp_path / "t.pdf", ["page one", "the pangolin page"]))
    reader = ScriptedOcr({2: "The pangolin sleeps in a burrow."})
    reader.release.set()
    lib = server_library(ocr_read=reader)
    lib.add_folder(docs)
    lib.sync(wait=True)
    [hit] = lib.search("pangolin", mode="keyword")
    assert Path(hit.source).name == "scan.pdf" and hit.metadata["page"] == 2 and hit.metadata["ocr"] is True
    stats = lib.stats()
    assert stats["ocr"] == {"pages_pending": 0, "pages_done": 1, "pages_failed": 1, "error": None}
    assert {"path": f"{docs / 'scan.pdf'} (p. 1)", "reason": "OCR found no text on this page"} in stats["failures"]
    assert stats["chunks_embedded"] == stats["chunks"]
    lib.update_settings(chunk_size=50, chunk_overlap=5)
    lib.reindex(wait=True)  # re-chunks the OCR text it already has
    assert sorted(reader.calls) == [1, 2]
    assert [r.metadata["page"] for r in lib.search("pangolin", mode="keyword")] == [2]
