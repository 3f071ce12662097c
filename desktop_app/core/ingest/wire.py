"""What the extraction worker and its parent say to each other: length-prefixed JSON, never pickle.

A parser runs on hostile bytes, so the worker is treated as compromised: the parent only ever decodes JSON from
it and rebuilds Extracted/Extraction from plain fields of checked types (`extraction_from_plain` raises
WireError on anything else). A frame is an 8-byte big-endian length and that many bytes of UTF-8 JSON.
"""

from __future__ import annotations

import json
import struct
from typing import Any, BinaryIO

from desktop_app.core.ingest.extract_rows import Extracted, Extraction, FailedPart, Page

HEADER = struct.Struct(">Q")
MAX_FRAME = 1 << 31  # 50 million characters of text (sandbox_worker.MAX_TEXT_CHARS) fit, with room for escapes


class WireError(ValueError):
    """A frame that is not what the protocol allows (treated like a crashed worker)."""


def encode(message: dict[str, Any]) -> bytes:
    body = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")
    return HEADER.pack(len(body)) + body


def read_frame(stream: BinaryIO) -> dict[str, Any]:
    """The next message on `stream`; EOFError when the other side is gone, WireError when it is not a message."""
    head = _read_exactly(stream, HEADER.size)
    (length,) = HEADER.unpack(head)
    if length > MAX_FRAME:
        raise WireError(f"frame of {length} bytes")
    return decode(_read_exactly(stream, length))


def decode(body: bytes) -> dict[str, Any]:
    try:
        message = json.loads(body.decode("utf-8", "surrogatepass"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise WireError(f"not JSON ({exc})") from exc
    if not isinstance(message, dict):
        raise WireError("not an object")
    return message


def _read_exactly(stream: BinaryIO, size: int) -> bytes:
    parts: list[bytes] = []
    while size:
        chunk = stream.read(size)
        if not chunk:
            raise EOFError("the other side closed the channel")
        parts.append(chunk)
        size -= len(chunk)
    return b"".join(parts)


# ---- Extracted <-> plain data ---------------------------------------------------------------------------


def extracted_to_plain(doc: Extracted) -> dict[str, Any]:
    return {"text": doc.text, "title": doc.title, "type": doc.type, "part": doc.part, "label": doc.label,
            "meta": [list(pair) for pair in doc.meta],
            "pages": [[p.number, p.start, p.end, p.label, p.needs_ocr, p.ocr] for p in doc.pages]}


def extraction_to_plain(doc: Extracted, inner: Extraction) -> dict[str, Any]:
    return {"doc": extracted_to_plain(doc), "documents": [extracted_to_plain(d) for d in inner.documents],
            "failed": [[f.part, f.name, f.reason] for f in inner.failed]}


def extraction_from_plain(plain: Any) -> tuple[Extracted, Extraction]:
    """The (own document, inner documents) the worker sent, or WireError if any field has the wrong shape."""
    if not isinstance(plain, dict):
        raise WireError("extraction is not an object")
    failed = tuple(FailedPart(*_strs(item, 3)) for item in _list(plain.get("failed")))
    documents = tuple(extracted_from_plain(d) for d in _list(plain.get("documents")))
    return extracted_from_plain(plain.get("doc")), Extraction(documents, failed)


def extracted_from_plain(plain: Any) -> Extracted:
    if not isinstance(plain, dict):
        raise WireError("document is not an object")
    text, title, type_, part, label = (_str(plain.get(k)) for k in ("text", "title", "type", "part", "label"))
    meta = tuple(_pair(item) for item in _list(plain.get("meta")))
    pages = tuple(_page(item) for item in _list(plain.get("pages")))
    return Extracted(text, title, type_, pages, meta, part, label)


def _page(item: Any) -> Page:
    fields = _list(item)
    if len(fields) != 6:
        raise WireError("page has the wrong number of fields")
    number, start, end = (_int(v) for v in fields[:3])
    return Page(number, start, end, _str(fields[3]), _bool(fields[4]), _bool(fields[5]))


def _pair(item: Any) -> tuple[str, str]:
    key, value = _strs(item, 2)
    return key, value


def _strs(item: Any, count: int) -> list[str]:
    values = _list(item)
    if len(values) != count:
        raise WireError(f"expected {count} fields")
    return [_str(v) for v in values]


def _list(value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise WireError("expected a list")
    return value


def _str(value: Any) -> str:
    if not isinstance(value, str):
        raise WireError("expected a string")
    return value


def _int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise WireError("expected an integer")
    return value


def _bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise WireError("expected true or false")
    return value
