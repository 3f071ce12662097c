"""The extraction worker's side: what runs inside the child process that ExtractionSandbox starts and kills.

The parent starts it (`python -I -c ...main()`, or the frozen app with --trove-extract-worker) with an
allow-listed environment (confine.worker_environment) and one end of a socket pair. It first forbids new
sockets (confine.forbid_network, Linux), then imports the parsers and serves requests one at a time:

* ("extract", file name, memory budget) with the file's open descriptor attached (SCM_RIGHTS): the parent
  opened it (no symlink followed, regular files only), so the worker never resolves a path that could have
  been swapped since discovery. Windows has no descriptor passing over pipes: there the path is sent and the
  worker opens it the same careful way;
* ("render", type, page) with the same descriptor: a PDF page (PDFium) or image frame (Pillow) as raw RGB
  pixels for OCR, so the renderers run on hostile bytes here, under the same budget, not in the parent;
* ("probe"): what the worker can see (its environment, whether a socket can be made), so a test (or a
  diagnostic) can check the boundary from inside.

Answers are plain JSON (wire.py): {"status": "ok", "extraction": …} | {"status": "failed", "reason": …} |
{"status": "memory"}. Its stdout and stderr go to a file the parent reads.
"""

from __future__ import annotations

import _socket
import base64
import contextlib
import logging
import os
import shutil
import socket
import stat
import sys
import sysconfig
import tempfile
import zipfile
from collections.abc import Iterator
from dataclasses import replace
from io import BytesIO
from pathlib import Path
from typing import Any, BinaryIO

from desktop_app.core.errors import ExtractionError
from desktop_app.core.ingest import confine, wire, xmlguard
from desktop_app.core.ingest.extract import extract_with_parts
from desktop_app.core.ingest.extract_rows import Extracted, Extraction
from desktop_app.core.ingest.filetypes import file_type
from desktop_app.core.ingest.safe_read import open_regular
from desktop_app.core.log import get_logger
from desktop_app.core.pathnames import clean_text

log = get_logger("ingest")

MAX_TEXT_CHARS = 50_000_000
MAX_ARCHIVE_MEMBERS = 50_000
WORKER_FLAG = "--trove-extract-worker"  # how a frozen app is told to be the worker (packaging/entry*.py)


class _Channel:
    """Requests in, answers out: a socket pair on POSIX (descriptors ride along), stdin/stdout on Windows."""

    def __init__(self, spec: str) -> None:
        self.sock: Any = None
        self.requests: BinaryIO = sys.stdin.buffer
        self._out: Any
        if spec.startswith("fd:"):
            self.sock = _socket.socket(fileno=int(spec[3:]))  # the C type, like the parent's end
            self._out = _SocketWriter(self.sock)
        else:
            self._out = os.fdopen(os.dup(1), "wb", buffering=0)
            os.dup2(2, 1)  # a parser's print() must not land in the answers

    def receive(self) -> tuple[dict[str, Any], int | None]:
        if self.sock is None:
            return wire.read_frame(self.requests), None
        head, fds, _flags, _addr = socket.recv_fds(self.sock, wire.HEADER.size, 1)
        if not head:
            raise EOFError("parent gone")
        rest = BytesIO(head + _read_more(self.sock, wire.HEADER.size - len(head)))
        (length,) = wire.HEADER.unpack(rest.read())
        return wire.decode(_read_more(self.sock, length)), (fds[0] if fds else None)

    def send(self, message: dict[str, Any]) -> None:
        self._out.write(wire.encode(message))


class _SocketWriter:
    def __init__(self, sock: Any) -> None:
        self.sock = sock

    def write(self, data: bytes) -> None:
        self.sock.sendall(data)


def _read_more(sock: Any, size: int) -> bytes:
    parts = []
    while size > 0:
        chunk = sock.recv(min(size, 1 << 20))
        if not chunk:
            raise EOFError("parent gone")
        parts.append(chunk)
        size -= len(chunk)
    return b"".join(parts)


def main(argv: list[str] | None = None) -> None:
    """Serve requests until the parent closes the channel. `argv`: ["fd:N"] (POSIX) or ["stdio"] (Windows)."""
    args = sys.argv[1:] if argv is None else argv
    network_blocked = confine.forbid_network()  # before any import can start a thread
    channel = _Channel(args[-1])
    logging.getLogger().setLevel(logging.ERROR)  # pdfminer's warnings about damaged files are not for stderr
    _import_parsers()
    _STARTED["initial_environ"] = _initial_environ()  # read before the process stops being dumpable
    filesystem = confine.confine_filesystem(*confinement()) if sys.platform == "linux" else ""
    base = _address_space()
    channel.send({"status": "ready", "network_blocked": network_blocked, "filesystem": filesystem})
    while True:
        try:
            request, fd = channel.receive()
        except (EOFError, OSError, wire.WireError):
            return
        answer = _answer(request, fd, base)
        try:
            channel.send(answer)
        except (OSError, ValueError):
            return
        if answer["status"] == "memory":
            return  # the heap may stay huge after a MemoryError: a fresh worker takes the next file


def _answer(request: dict[str, Any], fd: int | None, base: int) -> dict[str, Any]:
    if request.get("op") == "probe":
        return {"status": "ok", "probe": probe(request.get("tries"))}
    memory_bytes = int(request.get("memory", 0))
    if request.get("cap_address_space", True):
        _limit_memory(base + memory_bytes if base else 0)
    try:
        if fd is None:
            with open_regular(Path(str(request["path"]))) as fh:
                fd = os.dup(fh.fileno())
        if request.get("op") == "render":
            return _render(fd, str(request.get("type", "")), int(request.get("page", 0)))
        return _serve_one(str(request.get("name", "")), fd, memory_bytes)
    except ExtractionError as exc:
        return {"status": "failed", "reason": str(exc)}
    finally:
        if fd is not None:
            os.close(fd)


_STARTED: dict[str, list[str]] = {}
SYSTEM_READS = ("/usr", "/lib", "/lib64", "/lib32", "/etc/ld.so.cache", "/etc/localtime", "/etc/fonts",
                "/etc/mime.types", "/dev/null", "/dev/urandom", "/dev/zero")


def confinement() -> tuple[list[str], list[str]]:
    """(readable, writable) for confine.confine_filesystem: Python's own folders, the site-packages and this
    package (not the folder holding it: a source checkout holds more), shared libraries and fonts, this
    process's /proc entry; writable only the private temp folder the parent made for this worker (TMPDIR)."""
    package = str(Path(__file__).resolve().parents[2])  # desktop_app
    holder = str(Path(package).parent)
    readable = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, package,
                f"/proc/{os.getpid()}", *SYSTEM_READS}
    readable |= {p for p in sysconfig.get_paths().values() if p}
    readable |= {p for p in sys.path if p and os.path.isdir(p) and os.path.realpath(p) != holder}
    unpacked = getattr(sys, "_MEIPASS", None)  # a onefile app's unpacked folder
    if unpacked:
        readable.add(str(unpacked))
    if getattr(sys, "frozen", False):  # the app's executable sits beside _internal: platform.libc_ver() reads it
        readable.add(sys.executable)  # (pypdfium2 and the HTML reader ask; refused, every PDF and HTML file failed)
    tmp = os.environ.get("TMPDIR", "")
    writable = [tmp] if Path(tmp).name.startswith(TEMP_PREFIX) and os.path.isdir(tmp) else []
    tempfile.tempdir = tmp if writable else None
    return sorted(readable), writable


TEMP_PREFIX = "trove-extract-tmp-"


def _initial_environ() -> list[str]:
    try:
        with open("/proc/self/environ", "rb") as fh:
            return sorted(item.split(b"=", 1)[0].decode("utf-8", "replace") for item in fh.read().split(b"\0")
                          if item)
    except OSError:
        return []


def probe(tries: dict[str, Any] | None = None) -> dict[str, Any]:
    """What a parser running here could reach: the environment's names, whether a socket can be made, and
    what `tries` asks ({"read": [paths], "write": [paths], "ptrace_parent": bool}): each an outcome, "allowed"
    or the error ("[Errno 13] Permission denied")."""
    try:
        socket.socket(socket.AF_INET, socket.SOCK_STREAM).close()
        network = "a socket could be made"
    except OSError as exc:
        network = f"refused: {exc}"
    initial = _STARTED.get("initial_environ") or _initial_environ()
    found: dict[str, Any] = {"environ": sorted(os.environ), "initial_environ": initial, "network": network}
    tries = tries or {}
    found["read"] = {p: _outcome(lambda p=p: open(p, "rb").close()) for p in tries.get("read", [])}
    found["write"] = {p: _outcome(lambda p=p: open(p, "ab").close()) for p in tries.get("write", [])}
    if tries.get("ptrace_parent"):
        found["ptrace_parent"] = _outcome(_ptrace_parent)
    return found


def _outcome(attempt: Any) -> str:
    try:
        attempt()
    except OSError as exc:
        return f"[Errno {exc.errno}] {os.strerror(exc.errno or 0)}"
    return "allowed"


def _ptrace_parent() -> None:
    """PTRACE_ATTACH to the parent (then detach at once if it was let through), raising OSError when refused."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.ptrace.restype = ctypes.c_long
    libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
    parent = os.getppid()
    if libc.ptrace(16, parent, None, None) != 0:  # PTRACE_ATTACH
        errno = ctypes.get_errno()
        raise OSError(errno, os.strerror(errno))
    os.waitpid(parent, 0x40000000)  # __WALL; attached: the parent is stopped; let it go
    libc.ptrace(17, parent, None, None)  # PTRACE_DETACH


def _import_parsers() -> None:
    """Load the parsers before measuring the idle size, so the budget is what a file costs, not the imports."""
    for name in ("pdfplumber", "docx"):
        try:
            __import__(name)
        except ImportError:
            pass
    xmlguard.harden_lxml()


def _serve_one(name: str, fd: int, memory_bytes: int) -> dict[str, Any]:
    try:
        path = Path(name)
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ExtractionError("not a regular file any more")
        if file_type(path) == "email" and path.suffix.lower() == ".mbox":
            with _mailbox_copy(fd) as mailbox_at:
                doc, inner = extract_with_parts(path, None, mailbox_at=mailbox_at)
        else:
            data = _read_all(fd)
            check_archive(data, memory_bytes)
            doc, inner = extract_with_parts(path, data)
        chars = len(doc.text) + sum(len(d.text) for d in inner.documents)
        if chars > MAX_TEXT_CHARS:
            raise ExtractionError(f"too much text ({chars / 1e6:.0f} million characters; "
                                  f"the limit is {MAX_TEXT_CHARS / 1e6:.0f} million)")
        cleaned = Extraction(tuple(_clean(d) for d in inner.documents), inner.failed)
        return {"status": "ok", "extraction": wire.extraction_to_plain(_clean(doc), cleaned)}
    except MemoryError:
        return {"status": "memory"}
    except RecursionError:
        return {"status": "failed", "reason": "too deeply nested to read"}
    except ExtractionError as exc:
        return {"status": "memory"} if _caused_by(exc, MemoryError) else {"status": "failed", "reason": str(exc)}
    except Exception as exc:  # a bug in a parser: the file fails with the reason, the worker goes on
        return {"status": "failed", "reason": f"could not be read ({type(exc).__name__}: {str(exc)[:200]})"}


@contextlib.contextmanager
def _mailbox_copy(fd: int) -> Iterator[Path]:
    """A path the mailbox reader can open for the descriptor's file. Under Landlock /dev/fd/N is refused (a
    reopen is checked against the file's own folder, which the worker may not read), so the bytes are copied
    into the worker's own temp folder and removed after; unconfined, /dev/fd/N as before."""
    if tempfile.tempdir is None:
        yield Path(f"/dev/fd/{fd}")
        return
    os.lseek(fd, 0, os.SEEK_SET)
    handle, name = tempfile.mkstemp(suffix=".mbox")
    try:
        with os.fdopen(handle, "wb") as out, os.fdopen(os.dup(fd), "rb") as source:
            shutil.copyfileobj(source, out, 1 << 20)
        yield Path(name)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(name)


def _render(fd: int, doc_type: str, number: int) -> dict[str, Any]:
    """Page `number` of a PDF or image as raw RGB pixels (base64): PDFium and Pillow run here, not in the parent."""
    from desktop_app.core.ingest.extract_rows import Page
    from desktop_app.core.ingest.page_images import page_image

    try:
        image = page_image(_read_all(fd), doc_type, Page(number, 0, 0, needs_ocr=True))
        pixels = image.tobytes()
    except MemoryError:
        return {"status": "memory"}
    except ExtractionError as exc:
        return {"status": "memory"} if _caused_by(exc, MemoryError) else {"status": "failed", "reason": str(exc)}
    except Exception as exc:
        return {"status": "failed", "reason": f"could not render the page ({type(exc).__name__}: {str(exc)[:200]})"}
    return {"status": "ok", "width": image.width, "height": image.height,
            "pixels": base64.b64encode(pixels).decode("ascii")}


def _read_all(fd: int) -> bytes:
    os.lseek(fd, 0, os.SEEK_SET)
    with os.fdopen(os.dup(fd), "rb") as fh:
        return fh.read()


def _clean(doc: Extracted) -> Extracted:
    """Text that is valid Unicode (a broken PDF font map can yield lone surrogates)."""
    return replace(doc, text=clean_text(doc.text), title=clean_text(doc.title))


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


def check_archive(data: bytes, memory_bytes: int) -> None:
    """A zip whose members declare more than the memory budget in total is refused before it is parsed."""
    if not data.startswith(b"PK\x03\x04"):
        return
    try:
        with zipfile.ZipFile(BytesIO(data)) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError):
        return  # the format's own reader says what is wrong with it
    if len(members) > MAX_ARCHIVE_MEMBERS:
        raise ExtractionError(f"archive has {len(members)} parts (the limit is {MAX_ARCHIVE_MEMBERS})")
    total = sum(m.file_size for m in members)
    if memory_bytes and total > memory_bytes:
        raise ExtractionError(f"archive would inflate to {total / 1e9:.1f} GB "
                              f"(more than the {memory_bytes / 2**30:g} GB a file may use)")


if __name__ == "__main__":
    main()
