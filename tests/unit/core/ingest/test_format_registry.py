"""Each format is registered once (kind, suffixes, badge, display name, cost class, reader, magic); the tables are
its views and extraction asks it which reader reads a file."""

from __future__ import annotations

import ast
import inspect
import subprocess
import sys
from dataclasses import replace
from pathlib import Path, PurePath

import pytest

from desktop_app.core.errors import ExtractionError
from desktop_app.core.index.indexer import cost_order
from desktop_app.core.ingest import extract as extract_module
from desktop_app.core.ingest.discover import Found
from desktop_app.core.ingest.extract import extract, extract_part
from desktop_app.core.ingest.extract_rows import Extracted
from desktop_app.core.ingest.filetypes import (
    DOCUMENT_TYPES,
    FORMAT_TYPES,
    Format,
    FormatRegistry,
    cost_class,
    file_type,
)


def test_every_registered_suffix_reads_as_its_kind():
    for fmt in FormatRegistry.all():
        assert fmt.badge and fmt.name and fmt.suffixes, fmt.kind
        for suffix in fmt.suffixes:
            assert file_type(PurePath(f"a{suffix}")) == fmt.kind == FormatRegistry.kind_of_suffix(suffix), suffix
    assert DOCUMENT_TYPES == tuple(f.kind for f in FormatRegistry.all())
    assert set(FORMAT_TYPES.values()) | {"html", "markdown", "text", "code"} == set(DOCUMENT_TYPES)


def test_a_suffix_belongs_to_one_format():
    with pytest.raises(ValueError, match=r"\.pdf"):
        FormatRegistry.register(Format(kind="pdf-copy", suffixes=(".pdf",), badge="P", name="P"))
    assert FormatRegistry.get("pdf-copy") is None


def test_cost_classes_order_the_keyword_phase():
    kinds = ("text", "markdown", "code", "html", "docx", "email", "pdf")
    assert [cost_class(k) for k in kinds] == [0, 0, 0, 0, 1, 1, 2]
    assert cost_class("not-a-kind") == 1
    found = [Found(Path(n), size, 0) for n, size in (("b.pdf", 1), ("a.docx", 5), ("c.md", 9), ("d.txt", 2))]
    assert [f.path.name for f in sorted(found, key=cost_order)] == ["d.txt", "c.md", "a.docx", "b.pdf"]


def _tagged(raw: bytes, fallback_title: str) -> Extracted:
    """A stand-in reader registered by a test: what it returns shows that extraction asked the registry."""
    return Extracted(f"tagged {len(raw)} bytes", fallback_title, "rtf")


def test_every_format_but_mail_names_a_reader_of_bytes_and_a_title():
    for fmt in FormatRegistry.all():
        if fmt.kind == "email":  # a container: extract_many reads its messages and attachments
            assert not fmt.reader and not fmt.suffix_readers
            with pytest.raises(LookupError):
                FormatRegistry.reader("email")
            continue
        for suffix in ("", *fmt.suffixes):
            reader = FormatRegistry.reader(fmt.kind, suffix)
            params = inspect.signature(reader).parameters.values()  # (bytes, fallback title)
            assert [p.kind for p in params] == [inspect.Parameter.POSITIONAL_OR_KEYWORD] * 2, (fmt.kind, suffix)
    assert FormatRegistry.reader("csv", ".tsv") is not FormatRegistry.reader("csv", ".csv")
    with pytest.raises(LookupError):
        FormatRegistry.reader("not-a-kind")


def test_extraction_reads_each_file_with_the_reader_its_format_registers(tmp_path, monkeypatch):
    rtf = FormatRegistry.get("rtf")
    assert rtf is not None
    monkeypatch.setitem(FormatRegistry._formats, "rtf", replace(rtf, reader=f"{__name__}:{_tagged.__name__}"))
    path = tmp_path / "field_notes.rtf"
    path.write_bytes(b"{\\rtf1 hello}")
    assert extract(path) == Extracted("tagged 13 bytes", "field notes", "rtf")
    assert extract_part("memo.rtf", b"{\\rtf1}").documents == (Extracted("tagged 7 bytes", "memo", "rtf"),)


def test_a_tsv_is_split_on_tabs_and_a_csv_on_its_sniffed_delimiter(tmp_path):
    rows = b"name\tnote\nada\tone, two, three\nbob\tfour, five, six\n"
    (tmp_path / "a.tsv").write_bytes(rows)
    (tmp_path / "a.csv").write_bytes(rows.replace(b"\t", b";"))
    assert "one, two, three" in extract(tmp_path / "a.tsv").text
    assert "one, two, three" in extract(tmp_path / "a.csv").text


@pytest.mark.parametrize(("name", "data", "reason"), [
    ("a.docx", b"\x89PNG\r\n\x1a\n....", "not a DOCX file: it is a PNG image (wrong extension)"),
    ("a.xlsm", b"just words", "not a XLSX file (not a zip archive; wrong extension or damaged)"),
    ("a.epub", b"%PDF-1.7", "not a EPUB file: it is a PDF (wrong extension)"),
    ("a.pdf", b"{\\rtf1 x}", "not a PDF file: it is an RTF document (wrong extension)"),
    ("a.pdf", b"no header at all", "not a PDF file (no %PDF header; wrong extension or damaged)"),
    ("a.md", b"PK\x03\x04\x00\x00\x00\x00", "binary file (contains NUL bytes; it looks like a zip archive)"),
    ("a.txt", b"\x01\x00\x00\x00\x02\x00", "binary file (contains NUL bytes)"),
])
def test_a_file_that_is_plainly_another_format_is_refused_with_the_same_reason(tmp_path, name, data, reason):
    (tmp_path / name).write_bytes(data)
    with pytest.raises(ExtractionError) as caught:
        extract(tmp_path / name)
    assert str(caught.value) == reason


def test_extract_names_no_format_but_the_mail_container():
    """Which format reads a file is the registry's answer: extract.py compares no kind but e-mail's (its messages
    and attachments are documents of their own), so a new format is one registration."""
    tree = ast.parse(Path(extract_module.__file__).read_text(encoding="utf-8"))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, ast.Module | ast.FunctionDef | ast.ClassDef) and node.body
                  and isinstance(node.body[0], ast.Expr)}
    named = {node.value for node in ast.walk(tree) if isinstance(node, ast.Constant) and id(node) not in docstrings
             and node.value in DOCUMENT_TYPES}
    assert named == {"email"}


def test_importing_the_registry_loads_no_parser():
    """The window imports the registry for its badges; readers are imported when a file of theirs is read."""
    probe = ("import sys, desktop_app.core.ingest.filetypes\n"
             "print(sorted(m for m in sys.modules if m.startswith('desktop_app.core.ingest.formats')"
             " or m.split('.')[0] in {'pypdfium2', 'pdfplumber', 'PIL', 'docx', 'pptx', 'openpyxl', 'odfdo',"
             " 'ebooklib', 'lxml', 'extract_msg'}))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).parents[4])
    assert out.stdout.strip() == "[]", out.stdout
