"""PDF text through PDFium on real PDFs: page numbers, titles, encryption, and pages flagged for OCR."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_app.core.errors import ExtractionError
from desktop_app.core.ingest.extract import extract
from tests.support import sample_docs as sd
from tests.support.helpers import write_pdf


def test_pages_and_text(tmp_path):
    doc = extract(write_pdf(tmp_path / "r.pdf", ["intro page", "the quokka is on page two", "end"]))
    assert doc.type == "pdf" and [p.number for p in doc.pages] == [1, 2, 3]
    assert "quokka" in doc.page_text(doc.pages[1])
    assert not any(p.needs_ocr for p in doc.pages)


def test_same_words_as_pdfplumber(tmp_path):
    import pdfplumber

    texts = ["Retrieval augmented generation over local files, with citations and page numbers. " * 8,
             "A second page: hybrid search fuses keyword and semantic candidates by rank. " * 8]
    path = write_pdf(tmp_path / "r.pdf", texts)
    with pdfplumber.open(path) as pdf:
        plumber = [set((p.extract_text() or "").split()) for p in pdf.pages]
    ours = extract(path)
    for page, words in zip(ours.pages, plumber):
        assert set(ours.page_text(page).split()) == words


def test_encrypted_pdf_needs_a_password(tmp_path):
    with pytest.raises(ExtractionError, match=r"^encrypted PDF \(needs a password\)$"):
        extract(write_pdf(tmp_path / "s.pdf", ["classified"], password="hunter2"))


def test_truncated_pdf_is_corrupt(tmp_path):
    good = write_pdf(tmp_path / "g.pdf", ["fine"])
    bad = tmp_path / "t.pdf"
    bad.write_bytes(good.read_bytes()[:300])
    with pytest.raises(ExtractionError, match="corrupt or unreadable PDF"):
        extract(bad)


def test_scanned_pages_are_flagged_for_ocr_not_refused(tmp_path):
    text_pdf = write_pdf(tmp_path / "t.pdf", ["page one", "page two mentions the pangolin"])
    doc = extract(sd.write_scanned_pdf(tmp_path / "scan.pdf", text_pdf))
    assert doc.text.strip() == ""
    assert [(p.number, p.needs_ocr) for p in doc.pages] == [(1, True), (2, True)]


def test_blank_page_is_not_flagged(tmp_path):
    doc = extract(write_pdf(tmp_path / "b.pdf", ["words here", ""]))
    assert [p.needs_ocr for p in doc.pages] == [False, False]



DATA = Path(__file__).resolve().parents[2] / "data" / "pdf"  # real PDFs, CC-BY-SA-4.0 (see LICENSE.md there)


def test_right_to_left_pages_keep_logical_order():
    """PDFium gives this Arabic word in visual order; the page is re-read with pdfplumber, which keeps it."""
    doc = extract(DATA / "habibi.pdf")
    assert doc.text.split() == ["حَبيبي", "habibi", "حَبيبي"]


def test_two_columns_are_read_one_after_the_other():
    doc = extract(DATA / "multicolumn.pdf")
    first = doc.page_text(doc.pages[0])
    # the abstract (left column) is whole, not interleaved with the right column's lines
    assert "This is a sample document with two columns filled\nwith Lorem Ipsum text." in first
