"""The extraction worker's side: what runs inside the child process that ExtractionSandbox starts and kills.

It serves (path, memory budget) requests over a pipe, one at a time, under an address-space cap, and answers
("ok", (Extracted, Extraction)) | ("failed", reason) | ("memory", None): the file's own document and the
documents inside it (a mailbox's messages, attachments). Its stderr goes to a file the parent reads.
"""

from __future__ import annotations

import logging
import os
import stat
import zipfile
from dataclasses import replace
from multiprocessing.connection import Connection
from pathlib import Path

from desktop_app.core.errors import ExtractionError
from desktop_app.core.ingest.extract import extract_with_parts
from desktop_app.core.ingest.extracted import Extracted, Extraction
from desktop_app.core.ingest.filetypes import file_type
from desktop_app.core.ingest.readtext import as_utf8, looks_binary, open_regular
from desktop_app.core.log import get_logger
from desktop_app.core.pathnames import clean_text

log = get_logger("ingest")

MAX_TEXT_CHARS = 50_000_000
MAX_ARCHIVE_MEMBERS = 50_000


def worker_main(requests: Connection, replies: Connection, errlog: str) -> None:
    """Serve (path, memory bytes) requests until the parent closes the pipe.

    The worker's stderr goes to `errlog`: a parser's warnings, or Python's own "Fatal Python error" when an
    allocation fails where no MemoryError can be raised, are read by the parent, never shown to the person.
    """
    fd = os.open(errlog, os.O_WRONLY | os.O_APPEND)
    os.dup2(fd, 2)
    os.close(fd)
    logging.getLogger().setLevel(logging.ERROR)  # pdfminer's warnings about damaged files are not for stderr
    _import_parsers()
    base = _address_space()
    replies.send(("ready", None))
    while True:
        try:
            path, memory_bytes = requests.recv()
        except (EOFError, OSError):
            return
        _limit_memory(base + memory_bytes if base else 0)
        status, payload = _serve_one(Path(path), memory_bytes)
        try:
            replies.send((status, payload))
        except (OSError, ValueError):
            return
        if status == "memory":
            return  # the heap may stay huge after a MemoryError: a fresh worker takes the next file


def _import_parsers() -> None:
    """Load the parsers before measuring the idle size, so the budget is what a file costs, not the imports."""
    for name in ("pdfplumber", "docx"):
        try:
            __import__(name)
        except ImportError:
            pass


def _serve_one(path: Path, memory_bytes: int) -> tuple[str, object]:
    try:
        check_regular(path)
        check_archive(path, memory_bytes)
        doc, inner = extract_with_parts(path, _markup_as_utf8(path))
        chars = len(doc.text) + sum(len(d.text) for d in inner.documents)
        if chars > MAX_TEXT_CHARS:
            raise ExtractionError(f"too much text ({chars / 1e6:.0f} million characters; "
                                  f"the limit is {MAX_TEXT_CHARS / 1e6:.0f} million)")
        return "ok", (_clean(doc), Extraction(tuple(_clean(d) for d in inner.documents), inner.failed))
    except MemoryError:
        return "memory", None
    except RecursionError:
        return "failed", "too deeply nested to read"
    except ExtractionError as exc:
        return ("memory", None) if _caused_by(exc, MemoryError) else ("failed", str(exc))
    except Exception as exc:  # a bug in a parser: the file fails with the reason, the worker goes on
        return "failed", f"could not be read ({type(exc).__name__}: {str(exc)[:200]})"


def _clean(doc: Extracted) -> Extracted:
    """Text that is valid Unicode (a broken PDF font map can yield lone surrogates)."""
    return replace(doc, text=clean_text(doc.text), title=clean_text(doc.title))


def _markup_as_utf8(path: Path) -> bytes | None:
    """HTML's bytes re-encoded as UTF-8 with readtext's encoding guess (UTF-16 without BOM, Windows-1252)."""
    if file_type(path) != "html":
        return None
    with open_regular(path) as fh:
        raw = fh.read()
    return raw if looks_binary(raw) else as_utf8(raw)


def _caused_by(exc: BaseException, kind: type) -> bool:
    seen: BaseException | None = exc
    for _ in range(10):
        if seen is None:
            return False
        if isinstance(seen, kind) or any(isinstance(a, kind) for a in getattr(seen, "args", ())):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _address_space() -> int:
    """This process's virtual size in bytes (0 where it cannot be read or limited)."""
    try:
        import resource  # noqa: F401 - only to know the platform can limit it
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (ImportError, OSError, ValueError):
        return 0


def _limit_memory(limit: int) -> None:
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (limit or resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    except (ImportError, ValueError, OSError) as exc:
        log.debug("cannot limit memory: %s", exc)


def check_regular(path: Path) -> None:
    """Refuse a path that is no longer a regular file (replaced by a link or a FIFO since it was listed)."""
    try:
        mode = os.lstat(path).st_mode
    except OSError as exc:
        raise ExtractionError(f"cannot read: {exc.strerror or exc}") from exc
    if not stat.S_ISREG(mode):
        raise ExtractionError("not a regular file any more")


def check_archive(path: Path, memory_bytes: int) -> None:
    """A zip whose members declare more than the memory budget in total is refused before it is parsed."""
    with open(path, "rb") as fh:
        if fh.read(4) != b"PK\x03\x04":
            return
    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError):
        return  # the format's own reader says what is wrong with it
    if len(members) > MAX_ARCHIVE_MEMBERS:
        raise ExtractionError(f"archive has {len(members)} parts (the limit is {MAX_ARCHIVE_MEMBERS})")
    total = sum(m.file_size for m in members)
    if memory_bytes and total > memory_bytes:
        raise ExtractionError(f"archive would inflate to {total / 1e9:.1f} GB "
                              f"(more than the {memory_bytes / 2**30:g} GB a file may use)")
