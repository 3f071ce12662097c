"""Check a zip-based document (DOCX, XLSX, PPTX, ODF, EPUB) before any library inflates it.

Python's `zipfile` never returns more than a member's declared size (a member that inflates further fails its
CRC check), so bounding the declared sizes and ratios bounds what every reader built on `zipfile` can inflate.
XML members are also refused when they declare entities: no office format needs them, and the "billion laughs"
attack needs them (libxml2 and expat limit amplification too; this gives the user a plain reason). The check
decodes each member's prolog first and reads it to its root element however long it is (xmlguard.py), so
neither a UTF-16 member nor a DOCTYPE after 64 KB of comments gets past it.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass

from desktop_app.core.errors import ExtractionError
from desktop_app.core.ingest.xmlguard import prolog_refusal

OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_ENCRYPTED_PACKAGE = "EncryptedPackage".encode("utf-16-le")  # the stream's name in the OLE directory
_XML_SUFFIXES = (".xml", ".rels", ".xhtml", ".html", ".htm", ".opf", ".ncx", ".svg")
_XML_BLOCK = 64 * 1024
_MIB = 1024 * 1024


@dataclass(frozen=True)
class ZipLimits:
    """What a document's zip may hold. Small members may compress any amount (a run of spaces does)."""

    max_members: int = 20_000
    max_total: int = 1024 * _MIB
    max_member: int = 512 * _MIB
    max_ratio: float = 200.0
    ratio_floor: int = 4 * _MIB


DEFAULT_LIMITS = ZipLimits()


def open_checked_zip(data: bytes, what: str, limits: ZipLimits = DEFAULT_LIMITS) -> zipfile.ZipFile:
    """`data` opened as a zip, after its members' declared sizes, ratios and XML prologs are checked.

    `what` names the format in reasons ("DOCX"). Raises ExtractionError with the reason a file is refused.
    """
    if data.startswith(OLE_MAGIC):
        # OOXML saved with a password is an OLE container holding an "EncryptedPackage" stream, not a zip
        if _ENCRYPTED_PACKAGE in data:
            raise ExtractionError(f"encrypted {what} (needs a password)")
        raise ExtractionError(f"not a {what} file: it is an old binary Office file (wrong extension)")
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError) as exc:
        raise ExtractionError(f"corrupt or truncated {what} (not a readable zip: {exc})") from exc
    refusal = size_refusal(infos, limits)
    if refusal:
        raise ExtractionError(f"refused {what}: {refusal}")
    refusal = entity_refusal(archive)
    if refusal:
        raise ExtractionError(f"refused {what}: {refusal}")
    return archive


def check_zip(data: bytes, what: str, limits: ZipLimits = DEFAULT_LIMITS) -> None:
    """Raise ExtractionError unless `data` is a zip that is safe to hand to a library."""
    open_checked_zip(data, what, limits).close()


def size_refusal(infos: list[zipfile.ZipInfo], limits: ZipLimits = DEFAULT_LIMITS) -> str:
    """Why these members are a zip bomb ("" when they are not). Pure: looks at declared sizes only."""
    if len(infos) > limits.max_members:
        return f"too many zip members ({len(infos)}; the limit is {limits.max_members})"
    total = 0
    for info in infos:
        size, packed = info.file_size, max(info.compress_size, 1)
        if size > limits.max_member:
            return f"zip member {info.filename!r} inflates to {size / _MIB:.0f} MiB (zip bomb?)"
        if size > limits.ratio_floor and size / packed > limits.max_ratio:
            return f"zip member {info.filename!r} has a compression ratio of {size / packed:.0f}:1 (zip bomb?)"
        total += size
        if total > limits.max_total:
            return f"zip inflates to more than {limits.max_total / _MIB:.0f} MiB (zip bomb?)"
    return ""


def entity_refusal(archive: zipfile.ZipFile) -> str:
    """Why an XML member is refused ("" when none is): it declares entities in its prolog (after decoding), its
    prolog never ends, or its encoding cannot be checked."""
    for info in archive.infolist():
        if info.is_dir() or not info.filename.lower().endswith(_XML_SUFFIXES):
            continue
        reason = prolog_refusal(_blocks(archive, info))
        if reason:
            return f"XML member {info.filename!r} {reason}"
    return ""


def _blocks(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> Iterator[bytes]:
    """A member's bytes a block at a time (read only as far as the caller asks)."""
    try:
        with archive.open(info) as stream:
            while block := stream.read(_XML_BLOCK):
                yield block
    except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError, RuntimeError) as exc:
        raise ExtractionError(f"corrupt zip member {info.filename!r} ({exc})") from exc


def read_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo | str, limit: int, *, whole: bool = True) -> bytes:
    """Up to `limit` bytes of a member. With `whole`, a member longer than `limit` is refused instead."""
    try:
        with archive.open(info) as stream:
            data = stream.read(limit + 1 if whole else limit)
    except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError, RuntimeError) as exc:
        name = info if isinstance(info, str) else info.filename
        raise ExtractionError(f"corrupt zip member {name!r} ({exc})") from exc
    if whole and len(data) > limit:
        name = info if isinstance(info, str) else info.filename
        raise ExtractionError(f"zip member {name!r} is larger than {limit / _MIB:.0f} MiB")
    return data
