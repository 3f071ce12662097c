"""Turn one file into plain text with labelled pages. Failures carry a reason for the user.

`extract(path, data)` gives one document per file (what today's store keeps); `extract_many(path, data)` gives
every document a file holds (a mailbox's messages, an e-mail's attachments), each with its part path.
"""

from __future__ import annotations

from pathlib import Path, PurePath

from desktop_app.core.errors import ExtractionError
from desktop_app.core.ingest.extracted import Extracted, Extraction, FailedPart, Page, flatten
from desktop_app.core.ingest.filetypes import file_type
from desktop_app.core.ingest.plaintext import (
    first_line_title,
    html_to_text,
    index_title,
    markdown_title,
    title_from_path,
)
from desktop_app.core.log import get_logger
from desktop_app.core.text.decode import decode_text, looks_binary

log = get_logger("ingest")

__all__ = ["Extracted", "Extraction", "FailedPart", "Page", "extract", "extract_many",
           "extract_part", "html_to_text", "index_title", "title_from_path"]

_ZIP_KINDS = {"docx": "DOCX", "pptx": "PPTX", "xlsx": "XLSX", "odt": "ODT", "ods": "ODS", "odp": "ODP",
              "epub": "EPUB"}
_MAGIC = ((b"%PDF", "a PDF"), (b"PK\x03\x04", "a zip archive"), (b"\xd0\xcf\x11\xe0", "an OLE (old Office) file"),
          (b"\x89PNG", "a PNG image"), (b"\xff\xd8\xff", "a JPEG image"), (b"{\\rtf", "an RTF document"),
          (b"GIF8", "a GIF image"), (b"\x7fELF", "a program"), (b"MZ", "a program"))


def extract(path: Path, data: bytes | None = None) -> Extracted:
    """Extract `path` (whose bytes may be passed in to avoid a second read) as one document. A file holding
    several (a mailbox, an e-mail with attachments) is flattened: each inner document's pages become labelled
    pages ("message 3", "message 3 · report.pdf · p. 2"). Raises ExtractionError."""
    kind = file_type(path)
    if kind is None:
        raise ExtractionError("unsupported file type")
    if kind == "email":
        return flatten(extract_many(path, data), kind)
    raw = data if data is not None else path.read_bytes()
    return _extract_bytes(path.name, raw, kind)


def extract_many(path: Path, data: bytes | None = None, *, mailbox_at: Path | None = None) -> Extraction:
    """Every document `path` holds: the file's own (part "") or, for a mailbox, one per message (part "3"),
    plus attachments (part "3/report.pdf", or "report.pdf" in an .eml). Raises ExtractionError when the file
    itself is unreadable; unreadable attachments are listed in `failed`. An .mbox is read from `mailbox_at`
    when given (the sandbox worker's /dev/fd/N: the file the parent opened, not the path again)."""
    from desktop_app.core.ingest.formats import mail

    kind = file_type(path)
    if kind is None:
        raise ExtractionError("unsupported file type")
    if kind != "email":
        return Extraction((extract(path, data),))
    suffix = path.suffix.lower()
    fallback = title_from_path(path)
    if suffix == ".mbox":
        return mail.extract_mbox(mailbox_at or path, fallback, extract_part)
    raw = data if data is not None else path.read_bytes()
    if suffix == ".msg":
        return mail.extract_msg_file(raw, fallback, extract_part)
    return mail.extract_eml(_refuse_binary(raw), fallback, extract_part)


def extract_with_parts(path: Path, data: bytes | None = None, *,
                       mailbox_at: Path | None = None) -> tuple[Extracted, Extraction]:
    """A file's own document, and the documents inside it (a mailbox's messages, attachments) when it holds some.
    Raises ExtractionError."""
    if file_type(path) != "email":
        return extract(path, data), Extraction(())
    found = extract_many(path, data, mailbox_at=mailbox_at)
    own = next((d for d in found.documents if not d.part), None)
    inner = Extraction(tuple(d for d in found.documents if d.part), found.failed)
    return own or Extracted("", title_from_path(path), "email"), inner


def extract_part(name: str, data: bytes) -> Extraction:
    """An attachment, from its file name and bytes (its type from the name's extension)."""
    from desktop_app.core.ingest.formats import mail

    path = PurePath(name)
    kind = file_type(path)
    if kind is None:
        raise ExtractionError(f"attachment type not read ({path.suffix or 'no extension'})")
    if kind != "email":
        return Extraction((_extract_bytes(name, data, kind),))
    if path.suffix.lower() == ".msg":
        return mail.extract_msg_file(data, title_from_path(path), extract_part)
    if path.suffix.lower() == ".eml":
        return mail.extract_eml(_refuse_binary(data), title_from_path(path), extract_part)
    raise ExtractionError("a mailbox inside a message is not read")


def _extract_bytes(name: str, raw: bytes, kind: str) -> Extracted:
    """Dispatch by type; the libraries get bytes, never a path, so attachments go the same way as files."""
    from desktop_app.core.ingest.formats import epub, image, notebook, odf, ooxml, pdf, rtf, sheets

    fallback = title_from_path(PurePath(name))
    _refuse_wrong_format(raw, kind)
    if kind == "pdf":
        return pdf.extract_pdf(raw, fallback)
    if kind == "image":
        return image.extract_image(raw, fallback)
    readers = {"docx": ooxml.extract_docx, "pptx": ooxml.extract_pptx, "xlsx": ooxml.extract_xlsx,
               "epub": epub.extract_epub, "rtf": rtf.extract_rtf, "notebook": notebook.extract_notebook}
    if kind in readers:
        return readers[kind](raw, fallback)
    if kind in ("odt", "ods", "odp"):
        return odf.extract_odf(raw, fallback, kind)
    text = decode_text(_refuse_binary(raw))
    if kind == "csv":
        return sheets.extract_csv(text, fallback, PurePath(name).suffix.lower())
    if kind == "html":
        title, body = html_to_text(text)
        return Extracted(body, title or fallback, kind)
    if kind == "markdown":
        return Extracted(text, markdown_title(text) or fallback, kind)
    if kind == "text":
        return Extracted(text, first_line_title(text) or fallback, kind)
    return Extracted(text, fallback, kind)


def _refuse_binary(raw: bytes) -> bytes:
    """`raw` itself, unless it is binary (NUL bytes near the start of what is not UTF-16/32)."""
    if looks_binary(raw):
        what = _looks_like(raw)
        raise ExtractionError(f"binary file (contains NUL bytes{'; it looks like ' + what if what else ''})")
    return raw


def _refuse_wrong_format(raw: bytes, kind: str) -> None:
    """A file whose bytes are plainly another format than its extension says gets a reason saying so."""
    if kind in _ZIP_KINDS and not raw.startswith((b"PK\x03\x04", b"\xd0\xcf\x11\xe0")):
        found = _looks_like(raw)
        if found:
            raise ExtractionError(f"not a {_ZIP_KINDS[kind]} file: it is {found} (wrong extension)")
        raise ExtractionError(f"not a {_ZIP_KINDS[kind]} file (not a zip archive; wrong extension or damaged)")
    if kind == "pdf" and b"%PDF" not in raw[:1024]:
        found = _looks_like(raw)
        raise ExtractionError(f"not a PDF file: it is {found} (wrong extension)" if found
                              else "not a PDF file (no %PDF header; wrong extension or damaged)")


def _looks_like(raw: bytes) -> str:
    head = raw[:16].lstrip()
    return next((what for magic, what in _MAGIC if head.startswith(magic)), "")
