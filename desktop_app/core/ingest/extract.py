"""Turn one file into plain text with labelled pages. Failures carry a reason for the user.

`extract(path, data)` gives one document per file (what today's store keeps); `extract_many(path, data)` gives
every document a file holds (a mailbox's messages, an e-mail's attachments), each with its part path.
"""

from __future__ import annotations

from pathlib import Path, PurePath

from desktop_app.core.errors import ExtractionError
from desktop_app.core.ingest.extract_rows import Extracted, Extraction, FailedPart, Page, flatten
from desktop_app.core.ingest.filetypes import FormatRegistry, file_type
from desktop_app.core.ingest.html_text import html_to_text
from desktop_app.core.ingest.sniff import refuse_binary, refuse_wrong_format
from desktop_app.core.log import get_logger
from desktop_app.core.text.titles import index_title, title_from_path

log = get_logger("ingest")

__all__ = ["Extracted", "Extraction", "FailedPart", "Page", "extract", "extract_many",
           "extract_part", "html_to_text", "index_title", "title_from_path"]


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
    return mail.extract_eml(refuse_binary(raw), fallback, extract_part)


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
        return mail.extract_eml(refuse_binary(data), title_from_path(path), extract_part)
    raise ExtractionError("a mailbox inside a message is not read")


def _extract_bytes(name: str, raw: bytes, kind: str) -> Extracted:
    """The format's registered reader (core/ingest/filetypes.py); readers get bytes, never a path, so attachments
    go the same way as files."""
    fmt = FormatRegistry.get(kind)
    if fmt is None:
        raise ExtractionError("unsupported file type")
    path = PurePath(name)
    refuse_wrong_format(raw, fmt)
    return FormatRegistry.reader(kind, path.suffix.lower())(raw, title_from_path(path))
