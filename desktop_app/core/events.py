"""Immutable events that cross threads: progress of indexing, notices for the user."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum

from desktop_app.core.log import get_logger

log = get_logger("index")


class ProgressPhase(StrEnum):
    """The phases indexing reports (a StrEnum: it compares, hashes and prints as its string)."""

    SCAN = "scan"
    KEYWORD = "keyword"
    SEMANTIC = "semantic"
    REBUILD = "rebuild"  # the keyword index rebuilt after an upgrade
    OCR = "ocr"
    IDLE = "idle"


@dataclass(frozen=True)
class IndexProgress:
    """A snapshot of indexing progress across both phases (keyword, then semantic)."""

    phase: ProgressPhase | str  # a ProgressPhase; its string ("keyword") is taken as the member
    files_queued: int = 0
    files_done: int = 0
    files_failed: int = 0
    chunks_embedded: int = 0
    chunks_total: int = 0
    current_file: str = ""
    bytes_done: int = 0
    rate: float = 0.0  # files/s in the keyword phase, chunks/s in the semantic phase
    eta_seconds: float | None = None
    at: float = field(default_factory=time.time)

    def __post_init__(self) -> None:
        object.__setattr__(self, "phase", ProgressPhase(self.phase))  # anything outside the set is a bug

    @property
    def fraction(self) -> float:
        """How much of the current phase is done, 0..1."""
        if self.phase in ("semantic", "rebuild"):
            return self.chunks_embedded / self.chunks_total if self.chunks_total else 1.0
        total = self.files_queued
        return (self.files_done + self.files_failed) / total if total else 1.0


class NoticeLevel(StrEnum):
    """How much a Notice matters (a StrEnum: it compares, hashes and prints as its string)."""

    INFO = "info"
    WARNING = "warning"
    ERROR = "error"


@dataclass(frozen=True)
class Notice:
    """Something the user should read once: an error, an offline folder, a fallback to polling."""

    level: NoticeLevel | str  # a NoticeLevel; its string ("error") is taken as the member
    message: str
    path: str = ""
    at: float = field(default_factory=time.time)
    details: str = ""  # what "Copy details" puts on the clipboard (a crash's traceback and recent log lines)

    def __post_init__(self) -> None:
        object.__setattr__(self, "level", NoticeLevel(self.level))  # anything outside the set is a bug: ValueError


Event = IndexProgress | Notice
Listener = Callable[[Event], None]


class EventBus:
    """Hands every IndexProgress and Notice to its subscribers (called on the publishing thread)."""

    def __init__(self) -> None:
        self._listeners: list[Listener] = []
        self._lock = threading.Lock()

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call `listener` with every event from now on. Returns an unsubscribe function."""
        with self._lock:
            self._listeners.append(listener)

        def unsubscribe() -> None:
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)
        return unsubscribe

    def publish(self, event: Event) -> None:
        """Send an event to every subscriber; a broken subscriber never stops the work that published it."""
        with self._lock:
            listeners = list(self._listeners)
        for listener in listeners:
            try:
                listener(event)
            except Exception:
                log.exception("event listener failed")
