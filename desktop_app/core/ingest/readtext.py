"""Reading files safely, and plain text in a bounded amount of memory.

* `read_source` opens only regular files (O_NOFOLLOW | O_NONBLOCK, then fstat: a FIFO, socket or device
  that appeared since discovery is refused, never read or waited on) and hashes them a block at a time;
  it keeps the bytes only when asked and the file is at most WHOLE_FILE_MAX.
* `decode_text` guesses an encoding the way a person would expect: BOMs, UTF-16 without a BOM (NUL bytes
  in every other place), UTF-8, then detection that prefers Windows-1252 for sparse accented Latin text
  ("naïve" used to come back as "naďve").
* `StreamedText` decodes a big text file incrementally and hands segments to `chunk_stream`: memory holds
  one segment (SEGMENT_BYTES) and two chunks, whatever the file's size.
"""

from __future__ import annotations

import codecs
import errno
import hashlib
import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from desktop_app.core.errors import ExtractionError
from desktop_app.core.ingest.chunking import ChunkConfig, Span, chunk_stream
from desktop_app.core.ingest.extract import extract
from desktop_app.core.log import get_logger

log = get_logger("ingest")

WHOLE_FILE_MAX = 8 * 2**20  # text files larger than this are streamed
SEGMENT_BYTES = 2**20
SNIFF_BYTES = 8192
_O_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
# Windows-1252 characters (beyond ASCII) that sparse Western European text is made of.
_WESTERN = re.compile("[\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u00ff\u00a0\u00a1\u00a3\u00a7\u00a9\u00ab\u00ae\u00b0"
                      "\u00b7\u00bb\u00bf\u0152\u0153\u0160\u0161\u0178\u017d\u017e\u2013\u2014\u2018-\u201e"
                      "\u2022\u2026\u20ac]")


@dataclass(frozen=True)
class Source:
    """A regular file that was read: its size, content hash and (when kept) bytes."""

    path: Path
    size: int
    digest: str
    data: bytes | None


def open_regular(path: Path) -> BinaryIO:
    """Open a regular file for reading without following a final symlink or blocking on a FIFO."""
    try:
        fd = os.open(path, _O_FLAGS)
    except OSError as exc:
        raise ExtractionError(_open_reason(exc)) from exc
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise ExtractionError(f"not a regular file ({kind_of(mode)})")
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _open_reason(exc: OSError) -> str:
    if exc.errno == errno.ELOOP:
        return "is a symbolic link (links are followed only to places inside the library)"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    if exc.errno == errno.ENAMETOOLONG:
        return "path too long to open"
    return f"cannot read: {exc.strerror or exc}"


def kind_of(mode: int) -> str:
    """'a FIFO', 'a socket', 'a device', … for a file mode that is not a regular file."""
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISDIR(mode):
        return "a folder"
    return "not a file"


def read_source(path: Path, *, keep: bool) -> Source:
    """Hash a regular file a block at a time; keep its bytes if `keep` and it is at most WHOLE_FILE_MAX."""
    hasher = hashlib.blake2b(digest_size=20)
    parts: list[bytes] = []
    size = 0
    with open_regular(path) as fh:
        while block := fh.read(SEGMENT_BYTES):
            hasher.update(block)
            size += len(block)
            if keep and size <= WHOLE_FILE_MAX:
                parts.append(block)
            else:
                parts.clear()
    return Source(path, size, hasher.hexdigest(), b"".join(parts) if keep and size <= WHOLE_FILE_MAX else None)


# ---- encodings ------------------------------------------------------------------------------------------


def sniff_encoding(head: bytes) -> str | None:
    """An encoding the first bytes prove (a BOM, or UTF-16's pattern of NULs), else None."""
    if head.startswith(codecs.BOM_UTF8):
        return "utf-8-sig"
    if head.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):
        return "utf-32"
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16"
    sample = head[: SNIFF_BYTES & ~1]
    if len(sample) >= 8:
        even, odd = sample[0::2].count(0) / (len(sample) / 2), sample[1::2].count(0) / (len(sample) / 2)
        if odd > 0.4 and even < 0.02:
            return "utf-16-le"
        if even > 0.4 and odd < 0.02:
            return "utf-16-be"
    return None


def looks_binary(head: bytes) -> bool:
    """NUL bytes near the start of a file that is not UTF-16/32: a binary, whatever its name says."""
    return b"\x00" in head[:SNIFF_BYTES] and sniff_encoding(head) is None


def choose_encoding(raw: bytes) -> str:
    """The encoding to read `raw` (a whole file or its first segment) with."""
    proven = sniff_encoding(raw)
    if proven:
        return proven
    try:
        raw.decode("utf-8")
        return "utf-8"
    except UnicodeDecodeError as exc:
        if exc.start >= len(raw) - 3 and exc.reason.startswith("unexpected end"):
            return "utf-8"  # a segment cut inside a character
    return _detected(raw)


def _detected(raw: bytes) -> str:
    """Sparse accented Latin is Windows-1252 (detectors guess Central European code pages for short French);
    anything else is what charset-normalizer says, or UTF-8 with replacement characters."""
    if _mostly_utf8(raw):
        return "utf-8"
    if _sparse_western(raw):
        return "cp1252"
    try:
        from charset_normalizer import from_bytes

        best = from_bytes(raw[:200_000]).best()
        if best is not None and best.encoding and best.encoding != "ascii":
            return best.encoding
    except Exception as exc:  # detection is best effort
        log.debug("charset detection failed: %s", exc)
    return "utf-8"


def _mostly_utf8(raw: bytes) -> bool:
    """Valid UTF-8 characters outnumber the stray bytes (a UTF-8 file with a few broken bytes)."""
    text = raw[:200_000].decode("utf-8", "replace")
    bad = text.count("\ufffd")
    good = sum(1 for c in text if ord(c) >= 0x80) - bad
    return good > 0 and bad <= good


def _sparse_western(raw: bytes) -> bool:
    """Mostly ASCII with a few bytes that Windows-1252 reads as accented letters and typography."""
    high = sum(1 for b in raw[:200_000] if b >= 0x80)
    if high == 0 or high > len(raw[:200_000]) * 0.5:
        return False
    text = raw[:200_000].decode("cp1252", "replace")
    odd = [c for c in text if ord(c) >= 0x80]
    return all(_WESTERN.match(c) for c in odd)


def decode_text(raw: bytes) -> str:
    """Text of a whole file (undecodable bytes become U+FFFD)."""
    return raw.decode(choose_encoding(raw), "replace")


def as_utf8(raw: bytes) -> bytes:
    """The same text as UTF-8 without a BOM (what extract() decodes unambiguously)."""
    encoding = choose_encoding(raw)
    if encoding == "utf-8":
        return raw
    return raw.decode(encoding, "replace").encode("utf-8", "surrogatepass")


# ---- text documents -------------------------------------------------------------------------------------


def text_document(path: Path, data: bytes):
    """A small text, Markdown or code file as extract() sees it, after the encoding has been settled."""
    if looks_binary(data):
        raise ExtractionError("binary file (contains NUL bytes)")
    return extract(path, as_utf8(data))


@dataclass(frozen=True)
class StreamedText:
    """A text file too big to hold: its title and type now, its chunks as they are read."""

    path: Path
    title: str
    type: str
    encoding: str

    @classmethod
    def open(cls, path: Path) -> StreamedText:
        """Read the first segment: refuse a binary, settle the encoding, take the title."""
        with open_regular(path) as fh:
            head = fh.read(SEGMENT_BYTES)
        if looks_binary(head):
            raise ExtractionError("binary file (contains NUL bytes)")
        encoding = choose_encoding(head)
        first = extract(path, head.decode(encoding, "replace").encode("utf-8", "surrogatepass"))
        return cls(path, first.title, first.type, encoding)

    def segments(self) -> Iterator[str]:
        """The decoded text, a segment at a time."""
        decoder = codecs.getincrementaldecoder(self.encoding)("replace")
        with open_regular(self.path) as fh:
            while block := fh.read(SEGMENT_BYTES):
                yield decoder.decode(block)
        yield decoder.decode(b"", final=True)

    def spans(self, config: ChunkConfig) -> Iterator[Span]:
        """The chunks, in order, as `chunk_spans` would cut the whole text."""
        return chunk_stream(self.segments(), config)
