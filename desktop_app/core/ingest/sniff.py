"""What a file's first bytes say it is, for the reasons a refused file is given ("binary file …; it looks like a
PDF", "not a DOCX file: it is a PNG image (wrong extension)"). Whether bytes are text is decided by
core/text/decode.py (`looks_binary`); this module only names what they look like instead."""

from __future__ import annotations

from typing import TYPE_CHECKING

from desktop_app.core.errors import ExtractionError
from desktop_app.core.text.decode import decode_text, looks_binary

if TYPE_CHECKING:
    from desktop_app.core.ingest.filetypes import Format

_MAGIC = ((b"%PDF", "a PDF"), (b"PK\x03\x04", "a zip archive"), (b"\xd0\xcf\x11\xe0", "an OLE (old Office) file"),
          (b"\x89PNG", "a PNG image"), (b"\xff\xd8\xff", "a JPEG image"), (b"{\\rtf", "an RTF document"),
          (b"GIF8", "a GIF image"), (b"\x7fELF", "a program"), (b"MZ", "a program"))


def looks_like(raw: bytes) -> str:
    """What `raw` plainly is ("a PDF", "a zip archive", …), or "" when its first bytes say nothing."""
    head = raw[:16].lstrip()
    return next((what for magic, what in _MAGIC if head.startswith(magic)), "")


def refuse_binary(raw: bytes) -> bytes:
    """`raw` itself, unless it is binary (NUL bytes near the start of what is not UTF-16/32)."""
    if looks_binary(raw):
        what = looks_like(raw)
        raise ExtractionError(f"binary file (contains NUL bytes{'; it looks like ' + what if what else ''})")
    return raw


def text_of(raw: bytes) -> str:
    """The text of a file read as text: refused when binary, else decoded the one way every format decodes."""
    return decode_text(refuse_binary(raw))


def refuse_wrong_format(raw: bytes, fmt: Format) -> None:
    """A file whose bytes are plainly another format than its extension says gets a reason saying so."""
    if fmt.magic is None or fmt.magic.found_in(raw):
        return
    label, found = fmt.kind.upper(), looks_like(raw)
    if found:
        raise ExtractionError(f"not a {label} file: it is {found} (wrong extension)")
    raise ExtractionError(f"not a {label} file ({fmt.magic.missing}; wrong extension or damaged)")
