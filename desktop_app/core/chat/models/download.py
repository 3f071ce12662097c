"""Download a GGUF model by URL, only when the person asks: progress, resume, SHA-256, cancel, early refusals.

The file grows as `<name>.part` beside a small `<name>.part.json` (the URL, the server's validator and the
expected hash), so an interrupted download resumes with an HTTP Range request, and `If-Range` makes the server
send the whole file again if it changed meanwhile. Refused before anything is written: a URL that is not https
(plain http only on this machine's loopback), a file bigger than this machine's memory, not enough free disk. The
first four bytes must be "GGUF", checked before more is written. The SHA-256 is checked whenever one is known:
the one the caller pins (the catalog), and the one Hugging Face publishes for every LFS file: its resolve URL
answers with a redirect whose `X-Linked-Etag` header is the file's SHA-256 (huggingface_hub's `hf_hub_url`
documents "an object's ETag is its git-sha1 if stored in git, or its sha256 if stored in git-lfs", and reads the
header as the etag in `get_hf_file_metadata`). A mismatch removes the partial file; a download with no hash to
check against is `verified=False` (the CLI and the Models dialog say so in words). Redirects are followed only to
https. A server that sends no length is cut off once the body passes what this machine's memory and disk allow
(the same refusals, made while streaming).

Standard library only (urllib): no new dependency for one GET.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import re
import shutil
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from desktop_app.core.chat.models.catalog import (
    estimate_ram_bytes,
    format_bytes,
    machine_memory_bytes,
    too_big_for_memory,
)
from desktop_app.core.chat.models.download_http import (
    DownloadCancelled,
    DownloadError,
    DownloadInterrupted,
    RangeDone,
    RecordingRedirects,
    file_name_for,
    normalise_url,
    open_from,
    parse_content_range,
    read_exactly,
    sha256_from_etag,
    total_from_content_range,
)
from desktop_app.core.chat.models.gguf_header import MAGIC
from desktop_app.core.log import get_logger

log = get_logger("chat")

CHUNK = 1 << 20
TIMEOUT_S = 30.0
DISK_MARGIN = 64 << 20  # leave a little room on the disk beyond the file itself
USER_AGENT = "Trove (local-first knowledge base; model download)"
SHA256_RE = re.compile(r"^[0-9a-f]{64}$")
LOOPBACK = {"127.0.0.1", "localhost", "::1"}


@dataclass(frozen=True)
class DownloadProgress:
    """How far a download is (crosses from the download thread to the UI)."""

    done: int
    total: int  # 0 when the server does not say

    @property
    def fraction(self) -> float:
        """0..1, or 0 while the total is unknown."""
        return self.done / self.total if self.total else 0.0


@dataclass(frozen=True)
class DownloadResult:
    """A finished download."""

    path: Path
    size_bytes: int
    sha256: str
    verified: bool  # the bytes matched a published SHA-256
    url: str
    resumed: bool


@dataclass(frozen=True)
class _Plan:
    url: str
    dest: Path
    part: Path
    meta: Path


def download(
    url: str,
    dest_dir: Path,
    *,
    sha256: str = "",
    progress: Callable[[DownloadProgress], None] | None = None,
    cancel: threading.Event | None = None,
    retries: int = 2,
    memory_bytes: int | None = None,
    free_space: Callable[[Path], int] | None = None,
    file_name: str = "",
) -> DownloadResult:
    """Download `url` into `dest_dir`, resuming a partial download of the same URL. See the module docstring.

    `sha256` pins the expected hash; `memory_bytes` and `free_space` are this machine's (injectable for tests).
    A broken connection is resumed up to `retries` times before DownloadInterrupted is raised.
    """
    url = normalise_url(url)
    dest_dir = Path(dest_dir)
    dest_dir.mkdir(parents=True, exist_ok=True)
    dest = dest_dir / (file_name or file_name_for(url))
    if dest.exists():
        raise DownloadError(f"{dest.name} is already in the models folder ({dest_dir}).")
    plan = _Plan(url, dest, dest.with_name(dest.name + ".part"), dest.with_name(dest.name + ".part.json"))
    job = _Job(
        plan,
        sha256.lower(),
        progress,
        cancel or threading.Event(),
        machine_memory_bytes() if memory_bytes is None else memory_bytes,
        free_space or (lambda p: shutil.disk_usage(p).free),
    )
    attempt = 0
    while True:
        try:
            return job.run()
        except DownloadInterrupted:
            attempt += 1
            if attempt > retries or job.cancel.is_set():
                raise
            log.info("download of %s interrupted; resuming (attempt %d)", plan.dest.name, attempt + 1)
            time.sleep(min(0.5 * attempt, 2.0))


class _Job:
    """One download attempt after another over the same .part file."""

    def __init__(
        self,
        plan: _Plan,
        pinned: str,
        progress,
        cancel: threading.Event,
        memory: int,
        free_space: Callable[[Path], int],
    ) -> None:
        self.plan, self.pinned, self.progress, self.cancel = plan, pinned, progress, cancel
        self.memory, self.free_space = memory, free_space
        self.resumed = False

    def run(self) -> DownloadResult:
        state = self._load_state()
        offset = self.plan.part.stat().st_size if self.plan.part.exists() and state else 0
        if offset and not _starts_with_magic(self.plan.part):
            offset, state = 0, {}
        redirects = RecordingRedirects()
        response = open_from(self.plan.url, offset, state.get("validator", ""), redirects)
        try:
            start, total = self._accept(response, offset)
            expected = self._expected_hash(response, redirects, state)
            self._check_room(total, start)
            self._save_state(response, expected, total)
            digest = _hash_prefix(self.plan.part, start)
            self.resumed = self.resumed or start > 0
            done = self._stream(response, start, total, digest)
        finally:
            response.close()
        return self._finish(done, total, digest.hexdigest(), expected)

    # ---- request and response ------------------------------------------------------------------

    def _accept(self, response, offset: int) -> tuple[int, int]:
        """(byte the body starts at, total size or 0). A 200 to a Range request means start over."""
        if isinstance(response, RangeDone):
            total = total_from_content_range(response.content_range)
            if total != offset:
                self._discard()
                raise DownloadInterrupted("The partial download no longer matches the file; starting again.")
            return offset, total
        if response.status == 206:
            start, total = parse_content_range(response.headers.get("Content-Range", ""))
            if start != offset:
                self._discard()
                raise DownloadInterrupted("The server resumed at the wrong place; starting again.")
            return start, total
        if offset:
            log.info("server sent the whole file again for %s; restarting", self.plan.dest.name)
            self.plan.part.unlink(missing_ok=True)
        return 0, int(response.headers.get("Content-Length") or 0)

    def _expected_hash(self, response, redirects: RecordingRedirects, state: dict) -> str:
        published = sha256_from_etag(redirects.linked.get("X-Linked-Etag", "")) or state.get("sha256", "")
        if not isinstance(response, RangeDone):
            published = published or sha256_from_etag(response.headers.get("X-Linked-Etag", ""))
        if self.pinned and published and self.pinned != published:
            raise DownloadError(
                f"The server's {self.plan.dest.name} is not the file the catalog names (SHA-256 "
                f"{published[:12]}… instead of {self.pinned[:12]}…); nothing was downloaded."
            )
        return self.pinned or published

    def _check_room(self, total: int, start: int) -> None:
        if total and too_big_for_memory(estimate_ram_bytes(total, 2048), self.memory):
            raise DownloadError(
                f"{self.plan.dest.name} ({format_bytes(total)}) is too big for this machine's "
                f"memory ({format_bytes(self.memory)}); choose a smaller model or quantisation."
            )
        if total:
            free = self.free_space(self.plan.part.parent)
            needed = total - start + DISK_MARGIN
            if needed > free:
                raise DownloadError(
                    f"Not enough disk space for {self.plan.dest.name}: it needs "
                    f"{format_bytes(needed)} and {self.plan.part.parent} has {format_bytes(free)} free."
                )

    # ---- body ------------------------------------------------------------------------------------

    def _stream(self, response, start: int, total: int, digest) -> int:
        done = start
        if isinstance(response, RangeDone):
            return done
        self._report(done, total)
        with open(self.plan.part, "ab" if start else "wb") as out:
            if not start:
                head = read_exactly(response, len(MAGIC))
                if head != MAGIC:
                    out.close()
                    self._discard()
                    raise DownloadError(f"{self.plan.url} is not a GGUF model (it does not start with 'GGUF').")
                out.write(head)
                digest.update(head)
                done += len(head)
            done = self._copy(response, out, digest, done, total, start)
        return done

    def _unsized_limit(self) -> int:
        """The most bytes a body of unknown length may bring: what this machine's memory could load and its disk
        can hold beyond the margin."""
        room = max(self.free_space(self.plan.part.parent) - DISK_MARGIN, 0)
        if self.memory <= 0:
            return room
        low, high = 0, self.memory  # the largest file too_big_for_memory accepts, to a MiB
        while high - low > CHUNK:
            mid = (low + high) // 2
            if too_big_for_memory(estimate_ram_bytes(mid, 2048), self.memory):
                high = mid
            else:
                low = mid
        return min(room, low)

    def _copy(self, response, out, digest, done: int, total: int, start: int) -> int:
        last = 0.0
        limit = None if total else self._unsized_limit()
        while True:
            if self.cancel.is_set():
                out.flush()
                raise DownloadCancelled(
                    f"Download of {self.plan.dest.name} stopped; it resumes from {format_bytes(done)} next time."
                )
            try:
                block = response.read1(CHUNK)  # whatever has arrived: a cancel is seen within one network read
            except (OSError, ValueError, http.client.HTTPException) as exc:  # reset, timeout, IncompleteRead
                raise DownloadInterrupted(f"The connection broke at {format_bytes(done)}: {exc!r}.") from exc
            if not block:
                return done
            if limit is not None and done + len(block) > limit:
                out.close()
                self._discard()
                raise DownloadError(
                    f"{self.plan.dest.name} did not say its size and passed {format_bytes(limit)}, more than this "
                    "machine's memory and disk allow; the partial file was removed."
                )
            out.write(block)
            digest.update(block)
            done += len(block)
            now = time.monotonic()
            if now - last >= 0.1 or (total and done >= total):
                last = now
                self._report(done, total)

    def _finish(self, done: int, total: int, actual: str, expected: str) -> DownloadResult:
        if total and done < total:
            raise DownloadInterrupted(f"The connection closed at {format_bytes(done)} of {format_bytes(total)}.")
        self._report(done, total or done)
        if expected and actual != expected:
            self._discard()
            raise DownloadError(
                f"{self.plan.dest.name} failed its SHA-256 check (expected {expected[:12]}…, got "
                f"{actual[:12]}…); the partial file was removed."
            )
        os.replace(self.plan.part, self.plan.dest)
        self.plan.meta.unlink(missing_ok=True)
        log.info(
            "downloaded %s (%s, sha256 %s, %s)",
            self.plan.dest.name,
            format_bytes(done),
            actual,
            "verified" if expected else "no published hash",
        )
        return DownloadResult(self.plan.dest, done, actual, bool(expected), self.plan.url, self.resumed)

    # ---- the .part and its record ---------------------------------------------------------------

    def _load_state(self) -> dict[str, Any]:
        try:
            state = json.loads(self.plan.meta.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return state if isinstance(state, dict) and state.get("url") == self.plan.url else {}

    def _save_state(self, response, sha256: str, total: int) -> None:
        headers = {} if isinstance(response, RangeDone) else response.headers
        validator = headers.get("ETag") or headers.get("Last-Modified") or ""
        if validator.startswith("W/"):
            validator = ""  # If-Range needs a strong validator
        state = {"url": self.plan.url, "validator": validator, "sha256": sha256, "total": total}
        if isinstance(response, RangeDone):
            state.update({k: v for k, v in self._load_state().items() if k == "validator"})
        self.plan.meta.write_text(json.dumps(state), encoding="utf-8")

    def _discard(self) -> None:
        self.plan.part.unlink(missing_ok=True)
        self.plan.meta.unlink(missing_ok=True)

    def _report(self, done: int, total: int) -> None:
        if self.progress is not None:
            self.progress(DownloadProgress(done, total))


def _starts_with_magic(path: Path) -> bool:
    try:
        with open(path, "rb") as f:
            return f.read(len(MAGIC)) == MAGIC
    except OSError:
        return False


def _hash_prefix(path: Path, length: int):
    """A SHA-256 already fed with the first `length` bytes of `path` (what a resumed download has)."""
    digest = hashlib.sha256()
    if length:
        with open(path, "rb") as f:
            remaining = length
            while remaining:
                block = f.read(min(CHUNK, remaining))
                if not block:
                    raise DownloadInterrupted("The partial file is shorter than recorded; starting again.")
                digest.update(block)
                remaining -= len(block)
    return digest
