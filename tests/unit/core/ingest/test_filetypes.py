"""File types of the new formats."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_app.core.ingest.filetypes import file_type


@pytest.mark.parametrize(("name", "kind"), [
    ("a.epub", "epub"), ("a.odt", "odt"), ("a.ods", "ods"), ("a.odp", "odp"), ("a.pptx", "pptx"),
    ("a.xlsx", "xlsx"), ("a.csv", "csv"), ("a.tsv", "csv"), ("a.rtf", "rtf"), ("a.eml", "email"),
    ("a.mbox", "email"), ("a.msg", "email"), ("a.ipynb", "notebook"), ("a.PNG", "image"), ("a.jpeg", "image"),
    ("a.tiff", "image"), ("a.webp", "image"), ("a.gif", None), ("a.xls", None), ("a.PDF", "pdf"),
    ("a.xlsm", "xlsx"), ("a.docm", None),
])
def test_file_types(name, kind):
    assert file_type(Path(name)) == kind


def test_document_types_lists_every_type_file_type_returns():
    from desktop_app.core.ingest.filetypes import DOCUMENT_TYPES, FORMAT_TYPES

    assert set(FORMAT_TYPES.values()) | {"html", "markdown", "text", "code"} == set(DOCUMENT_TYPES)
