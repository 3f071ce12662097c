"""Extraction under a per-file budget of time and memory, in a worker process that can be killed.

Parsers of PDF, DOCX and HTML run pure-Python and C code on whatever a file holds: one 320 KB PDF whose
content stream inflates to 300 MB kept pdfminer busy for hours at 2.7 GB, a 1.5 MB DOCX asked lxml for
1.6 GB. Neither can be interrupted from inside (a single C call, a single page), so the parser runs in one
long-lived worker process (started on first use, shared by every Library of this process), and the worker is
treated as a boundary: a parser bug that runs an attacker's code gets no more than the worker has.

* what it sees: an allow-listed environment (no TROVE_DB, API keys, passwords, tokens, PG*: confine.py), and
  the file as a descriptor the parent opened (O_NOFOLLOW, regular files only), never a path to re-resolve;
* what it can do: on Linux no new sockets and no ptrace (a seccomp filter, confine.forbid_network); with
  Landlock (kernel 5.13+) it reads only what Python and the parsers load from and writes only its own temp
  folder (confine.confine_filesystem), so the team password file, settings, the library and the indexed
  folders are out of its reach; without Landlock one log line says so;
* what comes back: JSON of plain fields (wire.py), never a pickle the parent would have to trust;
* time: the parent waits `seconds` for the answer, then kills the worker (a new one starts for the next
  file) and the file fails with "took longer than 60 s to read";
* memory: where the platform has RLIMIT_AS (Linux) the worker's address space is capped at what it uses idle
  plus the budget, so an allocation past it raises MemoryError inside the worker; on every platform the
  parent also polls the worker's resident size (psutil) while it waits and kills it past idle + budget:
  "needed more than 1 GB" either way;
* decompression: a zip-based file whose members declare more than the memory budget in total is refused
  before any XML is parsed; text longer than sandbox_worker.MAX_TEXT_CHARS is refused.

The child's side is sandbox_worker.py. bench/extract_budget.py measures the cost per file against extraction
in the same process.
"""

from __future__ import annotations

import _socket
import atexit
import base64
import contextlib
import os
import queue
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil

from desktop_app.core.errors import ExtractionError
from desktop_app.core.ingest import wire
from desktop_app.core.ingest.confine import worker_environment
from desktop_app.core.ingest.extract_rows import Extracted, Extraction
from desktop_app.core.ingest.safe_read import open_regular
from desktop_app.core.ingest.sandbox_worker import TEMP_PREFIX, WORKER_FLAG
from desktop_app.core.log import get_logger

log = get_logger("ingest")

STARTUP_SECONDS = 120.0  # the first start imports the parsers; a slow, shared machine gets time for that
POLL_SECONDS = 0.1  # how often the parent looks at the worker's resident size while it waits
_ROOT = Path(__file__).resolve().parents[3]  # the folder holding desktop_app (a source checkout or site-packages)


@dataclass(frozen=True)
class Budget:
    """What one file may cost to read."""

    seconds: float = 60.0
    memory_mb: int = 1024

    def memory_text(self) -> str:
        return f"{self.memory_mb / 1024:g} GB" if self.memory_mb % 1024 == 0 else f"{self.memory_mb} MB"


def over_time(budget: Budget) -> str:
    return f"took longer than {budget.seconds:g} s to read"


def over_memory(budget: Budget) -> str:
    return f"needed more than {budget.memory_text()} of memory to read"


class _OverMemory(Exception):
    pass


def worker_command(channel: str) -> list[str]:
    """How to start the worker: the frozen app with its flag, or this Python isolated from PYTHON* variables."""
    if getattr(sys, "frozen", False):
        return [sys.executable, WORKER_FLAG, channel]
    code = (f"import sys; sys.path.insert(0, {str(_ROOT)!r}); "
            "from desktop_app.core.ingest.sandbox_worker import main; main()")
    return [sys.executable, "-I", "-c", code, channel]


class _SocketReader:
    """read(n) over a socket (the parent side of the pair is a bare _socket.socket: see _Worker)."""

    def __init__(self, sock: Any) -> None:
        self.sock = sock

    def read(self, size: int) -> bytes:
        return bytes(self.sock.recv(min(size, 1 << 20)))


_told: list[str] = []  # the missing confinement is said once per process


def _say_unconfined(filesystem: str) -> None:
    if sys.platform == "linux" and not filesystem and not _told:
        _told.append("landlock")
        log.warning("this kernel has no Landlock: the document reader cannot be kept out of your files (it still "
                    "has no network and cannot trace this app); see docs/team-library.md")


class _Worker:
    def __init__(self) -> None:
        fd, self.errlog = tempfile.mkstemp(prefix="trove-extract-", suffix=".log")
        self.tmpdir = tempfile.mkdtemp(prefix=TEMP_PREFIX)  # the one folder the worker may write in
        environment = {**worker_environment(), "TMPDIR": self.tmpdir}
        errors = os.fdopen(fd, "wb")
        self.sock: Any = None
        try:
            if os.name == "posix":
                # A local socket pair (the only way to hand a descriptor over), made with the C module so that a
                # process whose socket.socket is replaced to forbid the network (tests/reliability/
                # test_sockets_blocked.py) still has its IPC; it is AF_UNIX, never a network socket.
                self.sock, child = _socket.socketpair(_socket.AF_UNIX, _socket.SOCK_STREAM)
                try:
                    self.process = subprocess.Popen(
                        worker_command(f"fd:{child.fileno()}"), env=environment, stdin=subprocess.DEVNULL,
                        stdout=errors, stderr=errors, pass_fds=(child.fileno(),), close_fds=True)
                finally:
                    child.close()
                stream: Any = _SocketReader(self.sock)
            else:  # Windows: the child's stdin/stdout pipes carry the messages
                self.process = subprocess.Popen(worker_command("stdio"), env=environment,
                                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errors)
                stream = self.process.stdout
        finally:
            errors.close()
        self.answers: queue.Queue[dict[str, Any] | None] = queue.Queue()
        threading.Thread(target=self._read, args=(stream,), name="trove-extract-replies", daemon=True).start()
        ready = self._wait(STARTUP_SECONDS, 0)
        if ready is None or ready.get("status") != "ready":
            log.warning("the extraction worker did not start (exit %s): %s", self.process.poll(), self.last_words())
            self.kill()
            raise ExtractionError("the document reader did not start")
        self.network_blocked = ready.get("network_blocked") is True
        self.filesystem = str(ready.get("filesystem") or "")
        _say_unconfined(self.filesystem)
        self.idle_rss = self._rss()

    def _read(self, stream: Any) -> None:
        try:
            while True:
                self.answers.put(wire.read_frame(stream))
        except (EOFError, OSError, ValueError) as exc:
            log.debug("extraction worker channel closed: %s", exc)
            self.answers.put(None)

    def send(self, message: dict[str, Any], fd: int | None = None) -> None:
        frame = wire.encode(message)
        if self.sock is not None:
            socket.send_fds(self.sock, [frame], [fd] if fd is not None else [])
        else:
            stdin = self.process.stdin
            assert stdin is not None
            stdin.write(frame)
            stdin.flush()

    def _wait(self, seconds: float, rss_cap: int) -> dict[str, Any] | None:
        """The next answer (None if the worker died), queue.Empty after `seconds`, _OverMemory past `rss_cap`."""
        deadline = time.monotonic() + seconds
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise queue.Empty
            try:
                return self.answers.get(timeout=min(left, POLL_SECONDS))
            except queue.Empty:
                if rss_cap and self._rss() > rss_cap:
                    raise _OverMemory from None

    def ask(self, message: dict[str, Any], fd: int | None, seconds: float, rss_budget: int) -> dict[str, Any] | None:
        self.send(message, fd)
        return self._wait(seconds, self.idle_rss + rss_budget if rss_budget else 0)

    def _rss(self) -> int:
        try:
            return int(psutil.Process(self.process.pid).memory_info().rss)
        except (psutil.Error, OSError):
            return 0

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(10)
        for stream in (self.sock, self.process.stdin, self.process.stdout):
            with contextlib.suppress(OSError):
                if stream is not None:
                    stream.close()
        with contextlib.suppress(OSError):
            os.unlink(self.errlog)
        shutil.rmtree(self.tmpdir, ignore_errors=True)

    def last_words(self) -> bytes:
        """The end of what the worker wrote to its stderr (read before kill() removes it)."""
        try:
            with open(self.errlog, "rb") as fh:
                fh.seek(max(0, os.fstat(fh.fileno()).st_size - 8192))
                return fh.read()
        except OSError:
            return b""

    def ran_out_of_memory(self) -> bool:
        """Whether the worker's last words were about memory."""
        tail = self.last_words()
        return b"MemoryError" in tail or b"out of memory" in tail


class ExtractionSandbox:
    """Runs `extract()` in a worker process under a Budget. Thread-safe (one file at a time).

    `cap_address_space=False` leaves out RLIMIT_AS, so only the resident-size polling that every platform has
    enforces the memory budget (what macOS and Windows get; the tests use it to check that polling alone holds).
    """

    def __init__(self, *, cap_address_space: bool = True) -> None:
        self._lock = threading.Lock()
        self._worker: _Worker | None = None
        self._cap_address_space = cap_address_space

    def extract(self, path: Path, budget: Budget) -> tuple[Extracted, Extraction]:
        """The file's extraction and the documents inside it, or ExtractionError with the reason (over time, over
        memory, unreadable)."""
        memory = budget.memory_mb * 2**20
        request = {"op": "extract", "name": path.name, "memory": memory, "cap_address_space": self._cap_address_space}
        with open_regular(path) as fh, self._lock:
            if os.name != "posix":
                request["path"] = os.fspath(path)
            answer = self._ask(request, fh.fileno(), budget, memory)
        status = answer.get("status")
        if status == "ok":
            try:
                return wire.extraction_from_plain(answer.get("extraction"))
            except wire.WireError as exc:
                self.close()
                raise ExtractionError(f"the document reader sent back something unreadable ({exc})") from None
        if status == "memory":
            self.close()
            raise ExtractionError(over_memory(budget))
        return self._failed(answer)

    def render_page(self, data: bytes, doc_type: str, page: int, budget: Budget) -> Any:
        """Page `page` of a PDF or image file (its bytes) as an RGB PIL image, rendered in the worker under
        `budget`. Raises ExtractionError with the reason. The parent only checks sizes and copies pixels."""
        from PIL import Image

        from desktop_app.core.ingest.page_images import MAX_IMAGE_PIXELS, MAX_RENDER_PIXELS

        if os.name != "posix":  # no descriptor passing over Windows pipes yet: rendered here, as before
            from desktop_app.core.ingest.extract_rows import Page
            from desktop_app.core.ingest.page_images import page_image

            return page_image(data, doc_type, Page(page, 0, 0, needs_ocr=True))
        memory = budget.memory_mb * 2**20
        request = {"op": "render", "type": doc_type, "page": page, "memory": memory,
                   "cap_address_space": self._cap_address_space}
        with tempfile.TemporaryFile() as copy, self._lock:  # the very bytes the caller hashed, not the path again
            copy.write(data)
            copy.flush()
            answer = self._ask(request, copy.fileno(), budget, memory)
        if answer.get("status") == "memory":
            self.close()
            raise ExtractionError(over_memory(budget))
        if answer.get("status") != "ok":
            return self._failed(answer)
        width, height, pixels = answer.get("width"), answer.get("height"), answer.get("pixels")
        limit = max(MAX_IMAGE_PIXELS, MAX_RENDER_PIXELS)
        if not (isinstance(width, int) and isinstance(height, int) and isinstance(pixels, str)
                and 0 < width * height <= limit and len(pixels) == 4 * ((3 * width * height + 2) // 3)):
            self.close()
            raise ExtractionError("the document reader sent back a page image of the wrong size")
        return Image.frombytes("RGB", (width, height), base64.b64decode(pixels))

    def probe(self, tries: dict[str, Any] | None = None) -> dict[str, Any]:
        """What the worker can see and do (its environment's names, whether it could open a socket, how it is
        confined, and the outcome of each of `tries`: sandbox_worker.probe)."""
        with self._lock:
            answer = self._ask({"op": "probe", "tries": tries or {}}, None, Budget(seconds=STARTUP_SECONDS), 0)
        probe = answer.get("probe")
        if not isinstance(probe, dict):
            raise ExtractionError("the document reader did not answer the probe")
        assert self._worker is not None
        return {**probe, "network_blocked": self._worker.network_blocked, "filesystem": self._worker.filesystem}

    def _ask(self, request: dict[str, Any], fd: int | None, budget: Budget, memory: int) -> dict[str, Any]:
        worker = self._worker = self._worker or _Worker()
        try:
            answer = worker.ask(request, fd, budget.seconds, memory)
        except queue.Empty:
            self._discard()
            raise ExtractionError(over_time(budget)) from None
        except _OverMemory:
            self._discard()
            raise ExtractionError(over_memory(budget)) from None
        except OSError:
            answer = None  # died before or while reading the request
        if answer is None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                worker.process.wait(5)
            # PDFium (and other C++ parsers) abort() without a word when an allocation fails under the cap
            out_of_memory = worker.ran_out_of_memory() or worker.process.returncode == -signal.SIGABRT
            code = self._discard()
            if out_of_memory:
                raise ExtractionError(over_memory(budget))
            raise ExtractionError(f"the document reader crashed on this file (exit {code})")
        return answer

    @staticmethod
    def _failed(answer: dict[str, Any]) -> Any:
        reason = answer.get("reason")
        raise ExtractionError(reason if isinstance(reason, str) else "the document reader failed on this file")

    def _discard(self) -> int | None:
        worker, self._worker = self._worker, None
        if worker is None:
            return None
        worker.kill()
        return worker.process.returncode

    def close(self) -> None:
        """Stop the worker (a later extract() starts a new one)."""
        with self._lock:
            self._discard()


_shared: ExtractionSandbox | None = None
_shared_lock = threading.Lock()


def shared_sandbox() -> ExtractionSandbox:
    """The process's sandbox (its worker starts on the first file that needs it and stops at exit)."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = ExtractionSandbox()
            atexit.register(_shared.close)
        return _shared
