"""What every chat backend is and shares: the ChatRuntime protocol, the Generation it returns, and the loop that
streams OpenAI-style chunks with cancel, a sentence limit and a repetition guard (llama.py, openai_backend.py)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from desktop_app.core.chat.answer.context import Message
from desktop_app.core.chat.answer.gate.attribution import sentences
from desktop_app.core.chat.models.files import ModelInfo

OnText = Callable[[str], None]


@dataclass(frozen=True)
class Generation:
    """What one generation produced and how it went."""

    text: str
    tokens: int  # streamed pieces (one per sampled token, except where llama.cpp holds back a partial stop string)
    prompt_tokens: int
    reused_prefix_tokens: int  # prompt tokens whose KV entries were kept from the previous call
    ttft_s: float | None
    total_s: float
    cancelled: bool
    finish_reason: str | None


class ChatRuntime(Protocol):
    """A chat model backend: token counting for the budget, streaming generation with cancel."""

    backend: str

    @property
    def n_ctx(self) -> int: ...
    def count_tokens(self, text: str) -> int: ...
    def prompt_tokens(self, messages: Sequence[Message]) -> int: ...
    def overheads(self) -> tuple[int, int]: ...
    def generate(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int,
        temperature: float,
        on_text: OnText | None = None,
        cancel: threading.Event | None = None,
        stop: Sequence[str] = (),
        max_sentences: int = 0,
    ) -> Generation: ...
    def info(self) -> ModelInfo: ...
    def close(self) -> None: ...


def stream_pieces(
    chunks, on_text: OnText | None, cancel: threading.Event | None, *, max_sentences: int = 0
) -> tuple[list[str], float | None, bool, str | None]:
    """Consume OpenAI-style stream chunks: pass each content piece on, stop as soon as `cancel` is set.

    With `max_sentences`, the answer ends before the piece that would start one sentence more (finish
    reason "sentences"). Shared by both backends. Returns (pieces, time of the first piece, cancelled, finish reason).
    """
    pieces: list[str] = []
    first: float | None = None
    finish: str | None = None
    loop = LoopGuard()
    limit = SentenceLimit(max_sentences)
    for chunk in chunks:
        choice = (chunk.get("choices") or [{}])[0]
        piece = (choice.get("delta") or {}).get("content")
        finish = choice.get("finish_reason") or finish
        if piece:
            if not limit.allows(piece):
                return pieces, first, False, "sentences"
            if first is None:
                first = time.perf_counter()
            pieces.append(piece)
            if on_text is not None:
                on_text(piece)
            if loop.feed(piece):
                return pieces, first, False, "repetition"
        if cancel is not None and cancel.is_set():
            return pieces, first, True, "cancelled"
    return pieces, first, False, finish


class SentenceLimit:
    """Ends an answer after `n` sentences (0: no limit): a small model drifts from its passages after one or two."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.text = ""

    def allows(self, piece: str) -> bool:
        """Whether `piece` still belongs to the first `n` sentences (it is added to the text when it does)."""
        if (
            self.n > 0
            and piece[:1].isspace()
            and self.text.strip()
            and len(sentences(self.text + piece + "x")) > self.n
        ):
            return False
        self.text += piece
        return True


class LoopGuard:
    """Notices a small model stuck repeating itself: the same non-trivial line a third time ends the answer."""

    def __init__(self, min_chars: int = 16, max_repeats: int = 2) -> None:
        self.min_chars = min_chars
        self.max_repeats = max_repeats
        self._seen: dict[str, int] = {}
        self._line = ""

    def feed(self, piece: str) -> bool:
        """Add streamed text; True when a finished line has now appeared more than `max_repeats` times."""
        *done, self._line = (self._line + piece).split("\n")
        for line in done:
            key = " ".join(line.split()).lower()
            if len(key) >= self.min_chars:
                self._seen[key] = self._seen.get(key, 0) + 1
                if self._seen[key] > self.max_repeats:
                    return True
        return False
