"""Reading files safely, and plain text in a bounded amount of memory.

* `read_source` opens only regular files (O_NOFOLLOW | O_NONBLOCK, then fstat: a FIFO, socket or device
  that appeared since discovery is refused, never read or waited on) and hashes them a block at a time;
  it keeps the bytes only when asked and the file is at most WHOLE_FILE_MAX.
* the encoding is settled by `core/text/decode.py`, the one decoder every format uses.
* `StreamedText` decodes a big text file incrementally and hands segments to `chunk_stream`: memory holds
  one segment (SEGMENT_BYTES) and two chunks, whatever the file's size.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from desktop_app.core.errors import ExtractionError
from desktop_app.core.ingest.chunking import ChunkConfig, Span, chunk_stream
from desktop_app.core.ingest.extract import extract
from desktop_app.core.text.decode import choose_encoding, incremental_decoder, looks_binary

WHOLE_FILE_MAX = 8 * 2**20  # text files larger than this are streamed
SEGMENT_BYTES = 2**20
_O_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)


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


# ---- text documents -------------------------------------------------------------------------------------


def text_document(path: Path, data: bytes):
    """A small text, Markdown or code file as extract() sees it, after the encoding has been settled."""
    if looks_binary(data):
        raise ExtractionError("binary file (contains NUL bytes)")
    return extract(path, data)


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
        first = extract(path, head)  # decoded as a whole file's first segment is: choose_encoding(head)
        return cls(path, first.title, first.type, choose_encoding(head))

    def segments(self) -> Iterator[str]:
        """The decoded text, a segment at a time."""
        decoder = incremental_decoder(self.encoding)
        with open_regular(self.path) as fh:
            while block := fh.read(SEGMENT_BYTES):
                yield decoder.decode(block)
        yield decoder.decode(b"", final=True)

    def spans(self, config: ChunkConfig) -> Iterator[Span]:
        """The chunks, in order, as `chunk_spans` would cut the whole text."""
        return chunk_stream(self.segments(), config)
