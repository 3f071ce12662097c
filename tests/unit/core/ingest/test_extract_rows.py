"""Labelled pages, flattening a file of several documents, and merging OCR text back."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from desktop_app.core.ingest.extract_rows import Extracted, Extraction, PageBuilder, flatten, with_page_text


@given(st.lists(st.text(max_size=40), max_size=12))
def test_page_spans_hold_each_page_text(texts):
    builder = PageBuilder()
    for text in texts:
        builder.add(text, "x")
    doc = builder.build("t", "pdf")
    assert [doc.page_text(p) for p in doc.pages] == [t.strip() for t in texts]
    assert [p.number for p in doc.pages] == list(range(1, len(texts) + 1))


def test_flatten_labels_pages_by_where_they_came_from():
    pdf = PageBuilder()
    pdf.add("first")
    pdf.add("second page word")
    parts = Extraction((
        Extracted("Subject: hi\n\nbody", "hi", "email", part="3", label="message 3"),
        Extracted(pdf.build("r", "pdf").text, "r", "pdf", pdf.build("r", "pdf").pages, part="3/r.pdf",
                  label="message 3 · r.pdf"),
    ))
    doc = flatten(parts, "email")
    assert [p.label for p in doc.pages] == ["message 3", "message 3 · r.pdf · p. 1", "message 3 · r.pdf · p. 2"]
    assert doc.page_text(doc.pages[2]) == "second page word"
    assert doc.title == "hi" and doc.type == "email"


def test_with_page_text_fills_ocr_pages_and_keeps_the_rest():
    builder = PageBuilder()
    builder.add("text layer")
    builder.add("", needs_ocr=True)
    doc = with_page_text(builder.build("t", "pdf"), {2: "read by ocr"})
    assert [doc.page_text(p) for p in doc.pages] == ["text layer", "read by ocr"]
    assert [(p.ocr, p.needs_ocr) for p in doc.pages] == [(False, False), (True, False)]
    assert doc.pages_needing_ocr == ()
