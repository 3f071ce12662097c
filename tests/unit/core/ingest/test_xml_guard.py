"""XML entity bombs are refused after decoding, in every format that parses XML, however the prolog is dressed."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from desktop_app.core.errors import ExtractionError
from desktop_app.core.ingest.extract import extract
from desktop_app.core.ingest.xmlguard import harden_lxml, prolog_refusal, xml_encoding
from tests.support.helpers import write_docx

LAUGHS = ('<!DOCTYPE lolz [<!ENTITY lol "lol">'
          + "".join(f'<!ENTITY lol{i} "{("&lol%s;" % (i - 1 or "")) * 10}">' for i in range(1, 10))
          + "]>")


def utf16_bomb(root: str) -> bytes:
    return (f'<?xml version="1.0" encoding="UTF-16"?>{LAUGHS}<{root}>&lol9;</{root.split()[0]}>').encode("utf-16")


def utf16_without_bom(root: str) -> bytes:
    return (f'<?xml version="1.0" encoding="UTF-16"?>{LAUGHS}<{root}>&lol9;</{root.split()[0]}>').encode("utf-16-le")


def late_doctype(root: str) -> bytes:
    comments = "".join(f"<!-- padding comment {i:05d} {'x' * 60} -->\n" for i in range(1200))  # ~100 KB
    return f'<?xml version="1.0" encoding="UTF-8"?>\n{comments}{LAUGHS}<{root}>&lol9;</{root.split()[0]}>'.encode()


BOMBS = [utf16_bomb, utf16_without_bom, late_doctype]


def _docx(path: Path) -> Path:
    return write_docx(path, ["a plain paragraph"])


def _pptx(path: Path) -> Path:
    import pptx

    pptx.Presentation().save(str(path))
    return path


def _xlsx(path: Path) -> Path:
    import openpyxl

    book = openpyxl.Workbook()
    book.active["A1"] = "cell"
    book.save(path)
    return path


def _odt(path: Path) -> Path:
    from odfdo import Document, Paragraph

    doc = Document("text")
    doc.body.append(Paragraph("an odt paragraph"))
    doc.save(path)
    return path


def _epub(path: Path) -> Path:
    from ebooklib import epub

    book = epub.EpubBook()
    book.set_identifier("id1")
    book.set_title("A book")
    chapter = epub.EpubHtml(title="One", file_name="chap.xhtml", content="<h1>One</h1><p>chapter text</p>")
    book.add_item(chapter)
    book.toc = [chapter]
    book.spine = [chapter]
    book.add_item(epub.EpubNcx())
    book.add_item(epub.EpubNav())
    epub.write_epub(str(path), book)
    return path


# format -> (writer, the member replaced by the bomb, its root element)
OOXML = "http://schemas.openxmlformats.org"
ODF = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
FORMATS = {
    "docx": (_docx, "word/document.xml", f'w:document xmlns:w="{OOXML}/wordprocessingml/2006/main"'),
    "pptx": (_pptx, "ppt/presentation.xml", f'p:presentation xmlns:p="{OOXML}/presentationml/2006/main"'),
    "xlsx": (_xlsx, "xl/workbook.xml", f'workbook xmlns="{OOXML}/spreadsheetml/2006/main"'),
    "odt": (_odt, "content.xml", f'office:document-content xmlns:office="{ODF}"'),
    "epub": (_epub, "EPUB/chap.xhtml", 'html xmlns="http://www.w3.org/1999/xhtml"'),
}


def with_member(path: Path, name: str, data: bytes) -> Path:
    """`path` rewritten with member `name` replaced by `data`."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(path) as source, zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as target:
        names = source.namelist()
        assert name in names, names
        for info in source.infolist():
            target.writestr(info, data if info.filename == name else source.read(info))
    path.write_bytes(buffer.getvalue())
    return path


@pytest.mark.parametrize("kind", sorted(FORMATS))
def test_a_plain_file_of_each_format_still_reads(tmp_path, kind):
    writer, _member, _root = FORMATS[kind]
    assert extract(writer(tmp_path / f"plain.{kind}")).type == kind


@pytest.mark.parametrize("bomb", BOMBS, ids=lambda b: b.__name__)
@pytest.mark.parametrize("kind", sorted(FORMATS))
def test_an_entity_bomb_is_refused_in_each_format(tmp_path, kind, bomb):
    writer, member, root = FORMATS[kind]
    path = with_member(writer(tmp_path / f"bomb.{kind}"), member, bomb(root))
    with pytest.raises(ExtractionError, match="declares entities"):
        extract(path)


def test_the_prolog_is_read_in_its_encoding():
    assert xml_encoding(b"\xff\xfe<\x00?\x00") == "utf-16-le"
    assert xml_encoding(b"<\x00?\x00x\x00") == "utf-16-le"
    assert xml_encoding(b"\x00<\x00?") == "utf-16-be"
    assert xml_encoding(b'<?xml version="1.0" encoding="ISO-8859-1"?>') == "iso8859-1"
    assert xml_encoding(b'<?xml version="1.0" encoding="us-ascii"?>') == "ascii"
    assert xml_encoding(b'<?xml version="1.0" encoding="UTF-7"?>') is None
    assert xml_encoding(b'<?xml version="1.0" encoding="no-such-codec"?>') is None


def test_what_is_not_a_bomb_passes_and_a_prolog_that_never_ends_does_not():
    xhtml = (b'<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.1//EN" '
             b'"http://www.w3.org/TR/xhtml11/DTD/xhtml11.dtd">\n<!-- <!ENTITY in a comment> is text -->'
             b'<html><body>&amp;</body></html>')
    assert prolog_refusal([xhtml]) == ""
    assert prolog_refusal(['<?xml version="1.0"?><a>text</a>'.encode("utf-16")]) == ""
    endless = (b"<!-- " + b"x" * 65536 + b" -->" for _ in range(40))
    assert "before its first element" in prolog_refusal(endless)
    assert "encoding that cannot be checked" in prolog_refusal([b'<?xml version="1.0" encoding="UTF-7"?><a/>'])


def test_lxmls_default_parser_resolves_no_entities_once_hardened():
    from lxml import etree

    harden_lxml()
    root = etree.fromstring(b'<!DOCTYPE a [<!ENTITY e "expanded">]><a>&e;</a>')
    assert "expanded" not in etree.tostring(root).decode()


def test_html_entities_declared_in_a_doctype_are_not_expanded(tmp_path):
    page = tmp_path / "bomb.html"
    page.write_text(f"<html>{LAUGHS}<body><p>before &lol9; after</p></body></html>")
    text = extract(page).text
    assert "lollol" not in text and "before" in text
