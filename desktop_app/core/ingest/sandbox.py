"""Extraction under a per-file budget of time and memory, in a worker process that can be killed.

Parsers of PDF, DOCX and HTML run pure-Python and C code on whatever a file holds: one 320 KB PDF whose
content stream inflates to 300 MB kept pdfminer busy for hours at 2.7 GB, a 1.5 MB DOCX asked lxml for
1.6 GB. Neither can be interrupted from inside (a single C call, a single page), so the parser runs in one
long-lived worker process (started on first use, shared by every Library of this process):

* time: the parent waits `seconds` for the answer, then kills the worker (a new one starts for the next
  file) and the file fails with "took longer than 60 s to read";
* memory: the worker's address space is capped at what it uses idle plus the budget (RLIMIT_AS, where the
  platform has it), so an allocation past it raises MemoryError inside the worker: "needed more than 1 GB";
* decompression: a zip-based file (DOCX and the other Office/EPUB formats) whose members declare more than
  the memory budget in total is refused before any XML is parsed (zipfile itself stops a member that
  inflates past its declared size; libxml2 and expat refuse entity amplification);
* text: a document whose text is longer than MAX_TEXT_CHARS is refused instead of being sent back whole.

The child's side is sandbox_worker.py.

The worker talks over two one-way pipes (no socket is ever made). A dead parent closes them, and the worker
exits. bench/extract_budget.py measures the cost per file against extraction in the same process.
"""

from __future__ import annotations

import atexit
import contextlib
import multiprocessing
import os
import signal
import sys
import tempfile
import threading
import types
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from desktop_app.core.errors import ExtractionError
from desktop_app.core.ingest.extracted import Extracted, Extraction
from desktop_app.core.ingest.sandbox_worker import worker_main
from desktop_app.core.log import get_logger

log = get_logger("ingest")

STARTUP_SECONDS = 120.0  # the first start imports the parsers; a slow, shared machine gets time for that


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


# ---- the parent side ----------------------------------------------------------------------------------


@contextlib.contextmanager
def _main_module_hidden() -> Iterator[None]:
    """Start a spawned child without re-importing this process's __main__.

    spawn runs the parent's main script again in the child (as __mp_main__): a script that opens a Library
    at its top level, without an `if __name__ == "__main__"` guard, would index again in the worker and try to
    start a worker of its own. The worker needs nothing from it; an empty stand-in is all spawn gets to see.
    (A frozen app needs multiprocessing.freeze_support() in its entry point: packaging/entry*.py call it.)
    """
    real = sys.modules.get("__main__")
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        if real is not None:
            sys.modules["__main__"] = real


class _Worker:
    def __init__(self) -> None:
        ctx = multiprocessing.get_context("spawn")  # never fork a process that runs threads (embedder, watcher)
        req_read, self.requests = ctx.Pipe(duplex=False)
        self.replies, rep_write = ctx.Pipe(duplex=False)
        fd, self.errlog = tempfile.mkstemp(prefix="trove-extract-", suffix=".log")
        os.close(fd)
        self.process = ctx.Process(target=worker_main, args=(req_read, rep_write, self.errlog),
                                   name="trove-extract", daemon=True)
        with _main_module_hidden():
            self.process.start()
        req_read.close()
        rep_write.close()
        if not self.replies.poll(STARTUP_SECONDS):
            self.kill()
            raise ExtractionError("the document reader did not start")
        self.replies.recv()

    def kill(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.process.join(10)
        for conn in (self.requests, self.replies):
            conn.close()
        with contextlib.suppress(OSError):
            os.unlink(self.errlog)

    def ran_out_of_memory(self) -> bool:
        """Whether the worker's last words were about memory (read before kill() removes them)."""
        try:
            with open(self.errlog, "rb") as fh:
                fh.seek(max(0, os.fstat(fh.fileno()).st_size - 8192))
                tail = fh.read()
            return b"MemoryError" in tail or b"out of memory" in tail
        except OSError:
            return False


class ExtractionSandbox:
    """Runs `extract()` in a worker process under a Budget. Thread-safe (one file at a time)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._worker: _Worker | None = None

    def extract(self, path: Path, budget: Budget) -> tuple[Extracted, Extraction]:
        """The file's extraction and the documents inside it, or ExtractionError with the reason (over time, over
        memory, unreadable)."""
        with self._lock:
            worker = self._worker = self._worker or _Worker()
            try:
                worker.requests.send((os.fspath(path), budget.memory_mb * 2**20))
                ready = worker.replies.poll(budget.seconds)
            except (OSError, EOFError):
                ready = True  # died before or while reading the request: recv() below says how
            if not ready:
                self._discard()
                raise ExtractionError(over_time(budget))
            try:
                status, payload = worker.replies.recv()
            except (EOFError, OSError):
                worker.process.join(5)
                # PDFium (and other C++ parsers) abort() without a word when an allocation fails under the cap
                memory = worker.ran_out_of_memory() or worker.process.exitcode == -signal.SIGABRT
                code = self._discard()
                if memory:
                    raise ExtractionError(over_memory(budget)) from None
                raise ExtractionError(f"the document reader crashed on this file (exit {code})") from None
        if status == "ok":
            return payload  # (Extracted, Extraction), pickled by the worker
        if status == "memory":
            self._discard()
            raise ExtractionError(over_memory(budget))
        raise ExtractionError(str(payload))

    def _discard(self) -> int | None:
        worker, self._worker = self._worker, None
        if worker is None:
            return None
        worker.kill()
        return worker.process.exitcode

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

