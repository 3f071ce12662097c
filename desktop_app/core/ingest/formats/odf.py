"""OpenDocument (odfdo): text documents as paragraphs, presentations a page per slide, spreadsheets as row blocks.

Spreadsheet rows and cells are read from the XML elements, not through odfdo's table API, because that API
expands "repeated" rows: LibreOffice writes a million empty trailing rows as one element repeated 1048000 times.
"""

from __future__ import annotations

import io
from collections.abc import Iterator

from desktop_app.core.errors import ExtractionError
from desktop_app.core.ingest.extract_rows import Extracted, PageBuilder
from desktop_app.core.ingest.formats.sheets import Row, add_sheet
from desktop_app.core.ingest.safezip import open_checked_zip, read_member
from desktop_app.core.ingest.xmlguard import harden_lxml

_PARAGRAPHS = ".//text:h|.//text:p"
_MAX_REPEAT = 50  # identical repeated rows or cells add nothing to search past a few
_NAMES = {"odt": "ODT", "ods": "ODS", "odp": "ODP"}


def extract_odf(data: bytes, fallback_title: str, kind: str) -> Extracted:
    """Extract an .odt, .ods or .odp (`kind`); raises ExtractionError with a reason."""
    document = _open(data, _NAMES[kind])
    try:
        body = document.body
        if kind == "ods":
            builder = PageBuilder()
            for table in body.get_tables():
                add_sheet(builder, _table_rows(table), table.name)
            result = builder.build("", kind)
        elif kind == "odp":
            builder = PageBuilder()
            for number, page in enumerate(body.get_draw_pages(), start=1):
                builder.add(_paragraph_text(page, "\n"), f"slide {number}", number=number)
            result = builder.build("", kind)
        else:
            result = Extracted(_paragraph_text(body, "\n\n"), "", kind)
        title = (document.meta.title or "").strip()
    except ExtractionError:
        raise
    except Exception as exc:
        raise ExtractionError(f"corrupt or unreadable {_NAMES[kind]} ({type(exc).__name__}: {str(exc)[:200]})") from exc
    return Extracted(result.text, title or fallback_title, kind, result.pages)


def extract_odt(data: bytes, fallback_title: str) -> Extracted:
    """An OpenDocument text: its paragraphs."""
    return extract_odf(data, fallback_title, "odt")


def extract_ods(data: bytes, fallback_title: str) -> Extracted:
    """An OpenDocument spreadsheet: blocks of rows per sheet."""
    return extract_odf(data, fallback_title, "ods")


def extract_odp(data: bytes, fallback_title: str) -> Extracted:
    """An OpenDocument presentation: a page per slide."""
    return extract_odf(data, fallback_title, "odp")


def _open(data: bytes, what: str):
    from odfdo import Document

    archive = open_checked_zip(data, what)
    try:
        manifest = read_member(archive, "META-INF/manifest.xml", 4 * 1024 * 1024)
    except KeyError:
        manifest = b""
    finally:
        archive.close()
    if b"encryption-data" in manifest:
        raise ExtractionError(f"encrypted {what} (needs a password)")
    harden_lxml()  # odfdo parses with lxml's default parser
    try:
        return Document(io.BytesIO(data))
    except Exception as exc:
        raise ExtractionError(f"corrupt or unreadable {what} ({type(exc).__name__}: {str(exc)[:200]})") from exc


def _paragraph_text(element, separator: str) -> str:
    texts = (p.text_recursive for p in element.get_elements(_PARAGRAPHS))
    return separator.join(t for t in texts if t and t.strip())


def _table_rows(table) -> Iterator[Row]:
    number = 0
    for row in table.get_elements(".//table:table-row"):
        repeated = row.repeated or 1
        cells = _row_cells(row)
        if not any(c.strip() for c in cells):
            number += repeated
            continue
        for _ in range(min(repeated, _MAX_REPEAT)):
            number += 1
            yield number, cells
        number += max(0, repeated - _MAX_REPEAT)


def _row_cells(row) -> list[str]:
    cells: list[str] = []
    for cell in row.get_elements("table:table-cell|table:covered-table-cell"):
        text = "\n".join(p.text_recursive for p in cell.get_elements("text:p"))
        cells.extend([text] * min(cell.repeated or 1, _MAX_REPEAT if text.strip() else 1))
    return cells
