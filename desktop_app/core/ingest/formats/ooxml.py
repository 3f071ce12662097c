"""Office Open XML: Word (python-docx), PowerPoint (python-pptx, a slide per page), Excel (openpyxl, row blocks).

Each file's zip is checked first (safezip): sizes, ratios, entity declarations, and a password-protected file,
which is an OLE container rather than a zip, gets its own reason.
"""

from __future__ import annotations

import datetime as dt
import io
from collections.abc import Iterator

from desktop_app.core.errors import ExtractionError
from desktop_app.core.ingest.extract_rows import Extracted, PageBuilder
from desktop_app.core.ingest.formats.sheets import Row, add_sheet
from desktop_app.core.ingest.safezip import check_zip


def extract_docx(data: bytes, fallback_title: str) -> Extracted:
    """Paragraphs, then each table's rows (cells joined by " | "); the core-properties title."""
    import docx

    check_zip(data, "DOCX")
    try:
        document = docx.Document(io.BytesIO(data))
    except Exception as exc:  # python-docx raises KeyError/ValueError/lxml errors for damaged parts
        raise ExtractionError(f"corrupt or unreadable DOCX ({type(exc).__name__}: {str(exc)[:200]})") from exc
    paragraphs = [p.text for p in document.paragraphs]
    for table in document.tables:
        for row in table.rows:
            paragraphs.append(" | ".join(cell.text for cell in row.cells))
    text = "\n\n".join(p for p in paragraphs if p.strip())
    title = (document.core_properties.title or "").strip()
    return Extracted(text, title or fallback_title, "docx")


def extract_pptx(data: bytes, fallback_title: str) -> Extracted:
    """One page per slide ("slide 3"): its shapes' text (groups and tables included) and its speaker notes."""
    import pptx

    check_zip(data, "PPTX")
    try:
        presentation = pptx.Presentation(io.BytesIO(data))
        builder = PageBuilder()
        first_title = ""
        for number, slide in enumerate(presentation.slides, start=1):
            texts = list(_shape_texts(slide.shapes))
            if slide.has_notes_slide and slide.notes_slide.notes_text_frame is not None:
                texts.append(slide.notes_slide.notes_text_frame.text)
            builder.add("\n".join(t for t in texts if t.strip()), f"slide {number}", number=number)
            if not first_title and slide.shapes.title is not None:
                first_title = slide.shapes.title.text.strip()
        title = (presentation.core_properties.title or "").strip() or first_title
    except ExtractionError:
        raise
    except Exception as exc:
        raise ExtractionError(f"corrupt or unreadable PPTX ({type(exc).__name__}: {str(exc)[:200]})") from exc
    return builder.build(title or fallback_title, "pptx")


def _shape_texts(shapes) -> Iterator[str]:
    for shape in shapes:
        if getattr(shape, "shape_type", None) is not None and hasattr(shape, "shapes"):  # a group
            yield from _shape_texts(shape.shapes)
        if getattr(shape, "has_text_frame", False) and shape.has_text_frame:
            yield shape.text_frame.text
        if getattr(shape, "has_table", False) and shape.has_table:
            for row in shape.table.rows:
                yield " | ".join(cell.text for cell in row.cells)


def extract_xlsx(data: bytes, fallback_title: str) -> Extracted:
    """Each worksheet as blocks of rows with its header row on top ("sheet Budget rows 2-41"); cached values."""
    import openpyxl

    check_zip(data, "XLSX")
    try:
        workbook = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except Exception as exc:
        raise ExtractionError(f"corrupt or unreadable XLSX ({type(exc).__name__}: {str(exc)[:200]})") from exc
    try:
        builder = PageBuilder()
        for sheet in workbook.worksheets:
            add_sheet(builder, _xlsx_rows(sheet), sheet.title)
        title = (workbook.properties.title or "").strip()
    except Exception as exc:
        raise ExtractionError(f"corrupt or unreadable XLSX ({type(exc).__name__}: {str(exc)[:200]})") from exc
    finally:
        workbook.close()
    return builder.build(title or fallback_title, "xlsx")


def _xlsx_rows(sheet) -> Iterator[Row]:
    for cells in sheet.iter_rows():
        values = [cell_text(getattr(c, "value", None)) for c in cells]
        number = next((c.row for c in cells if getattr(c, "row", None)), None)
        if number is not None:
            yield number, values


def cell_text(value: object) -> str:
    """A cell's value as a person reads it: 12 not 12.0, dates without a midnight time."""
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, dt.datetime) and value.time() == dt.time():
        return value.date().isoformat()
    if isinstance(value, (dt.date, dt.time)):
        return value.isoformat()
    return str(value)
