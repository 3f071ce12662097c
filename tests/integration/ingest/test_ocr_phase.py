"""The OCR phase through the Library: scanned pages become searchable after the keyword phase, with their page
cited and an `ocr` mark; the rest of the folder is searchable before OCR ends; unreadable pages get a reason."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from desktop_app.core.library import Library
from desktop_app.core.settings import Settings
from tests.support import sample_docs as sd
from tests.support.helpers import assert_consistent, write_pdf


@pytest.fixture
def scan(tmp_path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    text_pdf = write_pdf(tmp_path / "t.pdf", ["page one text", "page two mentions the pangolin"])
    sd.write_scanned_pdf(docs / "scan.pdf", text_pdf)
    (docs / "notes.md").write_text("# Notes\n\nThe aardvark digs at night.", encoding="utf-8")
    return docs


class ScriptedOcr:
    """Reads page N as the text it was told, and waits for `release` before it reads anything."""

    def __init__(self, pages: dict[int, str]) -> None:
        self.pages = pages
        self.release = threading.Event()
        self.reading = threading.Event()  # set once a page is being read
        self.calls: list[int] = []

    def __call__(self, data: bytes, doc_type: str, page: int) -> tuple[str, float, str]:
        assert doc_type == "pdf" and data.startswith(b"%PDF")
        self.reading.set()
        self.release.wait(30)
        self.calls.append(page)
        text = self.pages.get(page, "")
        return text, 0.9, "" if text else "OCR found no text on this page"


def test_scanned_pages_are_read_after_the_keyword_phase_and_cited(tmp_path, scan):
    reader = ScriptedOcr({2: "The pangolin sleeps in a burrow."})
    with Library(tmp_path / "home", settings=Settings(embedder="hash"), ocr_read=reader) as lib:
        lib.add_folder(scan)
        report = lib.sync(wait=False)
        assert report.indexed == 2 and report.failed == 0  # the scan waits for OCR; it is not "empty"
        # the rest of the folder is searchable while OCR has not read a page yet
        assert [Path(r.source).name for r in lib.search("aardvark", mode="keyword")] == ["notes.md"]
        assert lib.search("pangolin", mode="keyword") == [] and lib.stats()["ocr"]["pages_pending"] == 2
        reader.release.set()
        assert lib.wait_idle(60)
        [hit] = lib.search("pangolin", mode="keyword")
        assert Path(hit.source).name == "scan.pdf" and hit.metadata["page"] == 2 and hit.metadata["ocr"] is True
        stats = lib.stats()
        assert stats["ocr"] == {"pages_pending": 0, "pages_done": 1, "pages_failed": 1, "error": None}
        assert {"path": f"{scan / 'scan.pdf'} (p. 1)", "reason": "OCR found no text on this page"} in stats["failures"]
        assert stats["chunks_embedded"] == stats["chunks"]  # OCR'd text got vectors too
        assert sorted(reader.calls) == [1, 2]
    assert_consistent(tmp_path / "home" / "library.db")


def test_an_unchanged_scan_is_never_read_twice_even_after_a_reindex(tmp_path, scan):
    reader = ScriptedOcr({1: "first page", 2: "The pangolin sleeps."})
    reader.release.set()
    with Library(tmp_path / "home", settings=Settings(embedder="hash"), ocr_read=reader) as lib:
        lib.add_folder(scan)
        lib.sync(wait=True)
        assert sorted(reader.calls) == [1, 2]
        lib.update_settings(chunk_size=50, chunk_overlap=5)
        lib.reindex(wait=True)  # re-chunks the OCR text it already has
        assert sorted(reader.calls) == [1, 2]
        assert [r.metadata["page"] for r in lib.search("pangolin", mode="keyword")] == [2]
        (scan / "scan.pdf").write_bytes((scan / "scan.pdf").read_bytes() + b"\n%edited\n")
        lib.sync(wait=True)  # a changed file is read again
        assert sorted(reader.calls) == [1, 1, 2, 2]


def test_with_ocr_off_a_scan_is_listed_with_a_reason(tmp_path, scan):
    with Library(tmp_path / "home", settings=Settings(embedder="hash", ocr_enabled=False)) as lib:
        lib.add_folder(scan)
        report = lib.sync(wait=True)
        assert [reason for _, reason in report.errors] == ["scanned pages only, and OCR is off"]


def test_real_ocr_reads_page_two_of_a_scanned_pdf(tmp_path, scan):
    """The bundled RapidOCR models, end to end: the word on page 2 is found and page 2 is cited."""
    with Library(tmp_path / "home", settings=Settings(embedder="hash")) as lib:
        lib.add_folder(scan)
        lib.sync(wait=True)
        hits = lib.search("pangolin", mode="keyword")
        assert hits and hits[0].metadata["page"] == 2 and hits[0].metadata["ocr"] is True
        assert lib.stats()["ocr"]["pages_done"] == 2


def test_close_reports_a_page_still_being_read_and_keeps_it_pending(tmp_path, scan):
    """An OCR step that will not end (inside onnxruntime, in real life): close() waits `timeout`, says False and
    leaves the store open; the page is read on the next start, nothing lost."""
    reader = ScriptedOcr({2: "The pangolin sleeps in a burrow."})
    lib = Library(tmp_path / "home", settings=Settings(embedder="hash"), ocr_read=reader)
    lib.add_folder(scan)
    lib.sync(wait=False)
    assert lib.stats()["ocr"]["pages_pending"] == 2
    assert reader.reading.wait(30)
    assert lib.close(timeout=0.2) is False  # the reader is blocked on `release`
    assert lib.close() is False  # a second call answers the same without waiting
    reader.release.set()
    lib.ocr_worker.stop(30)
    assert lib.close() is True  # the thread ended: closing again says so
    lib.store.close()
    with Library(tmp_path / "home", settings=Settings(embedder="hash"), ocr_read=reader) as again:
        again.sync()
        assert again.wait_idle(60)
        [hit] = again.search("pangolin", mode="keyword")
        assert hit.metadata["page"] == 2 and again.stats()["ocr"]["pages_pending"] == 0


def test_close_of_an_idle_library_says_every_phase_stopped(tmp_path, scan):
    reader = ScriptedOcr({2: "The pangolin sleeps in a burrow."})
    reader.release.set()
    lib = Library(tmp_path / "home", settings=Settings(embedder="hash"), ocr_read=reader)
    lib.add_folder(scan)
    lib.sync(wait=False)
    assert lib.wait_idle(60)
    assert lib.close(timeout=0.2) is True and lib.close() is True
