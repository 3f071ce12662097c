"""A conversation as the chat window holds it, without a window: the exchanges (question, streamed text, quote,
answer, passages, citations, whether a hidden model answer is shown, how it ended), the one request in flight
with its cancel event, and the request ids that make tokens from an answer the user left behind harmless.

The chat pane is a view of this: it starts a request here (`begin`), hands every event from the worker back
with the request id it was started with, and renders `exchanges`. Pure Python, so it is tested without Qt.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace
from enum import Enum
from typing import TYPE_CHECKING

from desktop_app.core.chat.answer.gate.citations import drop_dangling_markers

if TYPE_CHECKING:
    from desktop_app.core.chat.answer.quote.selector import Quote
    from desktop_app.core.chat.answer.result import ChatAnswer
    from desktop_app.core.chat.summarize import Summary


def quote_from(d: dict):
    """A stored quote (Quote.to_dict) as a Quote."""
    from desktop_app.core.chat.answer.quote.selector import Quote

    return Quote.from_dict(d)


class Ending(Enum):
    """How an exchange stands: still streaming, or how it ended."""

    STREAMING = "streaming"
    ANSWERED = "answered"
    CANCELLED = "cancelled"
    FAILED = "failed"


@dataclass(frozen=True)
class Exchange:
    """One question and what came back. `answer` is the finished ChatAnswer (None for a summary, a past chat's
    message, or one still streaming); `text` is a finished answer's text when there is no ChatAnswer."""

    question: str
    streamed: str = ""
    quote: Quote | None = None
    answer: ChatAnswer | None = None
    text: str = ""
    passages: tuple = ()
    cited: tuple[int, ...] = ()
    note: str = ""  # "stopped", "Failed: …", a summary's progress or its size
    expanded: bool = False  # the hidden model's answer is shown under the quote
    ending: Ending = Ending.STREAMING

    def can_toggle(self) -> bool:
        """A finished answer whose model answer is behind the quote."""
        return self.answer is not None and bool(self.answer.generation) and not self.answer.generation_shown


@dataclass(frozen=True)
class Request:
    """A question or summary in flight: its id (events carrying another id are stale) and its Stop event."""

    id: int
    cancel: threading.Event


class Conversation:
    """The exchanges of one chat and the request in flight (at most one)."""

    def __init__(self) -> None:
        self.chat_id: int | None = None
        self.exchanges: list[Exchange] = []
        self.tokens_received = 0
        self._request = 0
        self._cancel: threading.Event | None = None

    @property
    def busy(self) -> bool:
        return self._cancel is not None

    def begin(self, question: str, note: str = "") -> Request | None:
        """The one prologue of every request: None while another is in flight, else a new id and Stop event,
        and the exchange it fills in."""
        if self.busy:
            return None
        self._request += 1
        self._cancel = threading.Event()
        self.exchanges.append(Exchange(question, note=note))
        return Request(self._request, self._cancel)

    def current(self, request: int) -> bool:
        """Whether an event with this request id belongs to the exchange being filled in."""
        return request == self._request and bool(self.exchanges)

    def token(self, request: int, text: str) -> bool:
        """Append a streamed token; False (and nothing changes) when the request is stale."""
        if not self.current(request):
            return False  # from an answer the user already left behind
        self.tokens_received += 1
        self._update(streamed=self.exchanges[-1].streamed + text)
        return True

    def quote(self, request: int, quote: Quote) -> bool:
        """The quote, chosen before the model's first token."""
        if not self.current(request) or not self.busy:
            return False
        self._update(quote=quote)
        return True

    def progress(self, request: int, done: int, total: int) -> bool:
        """A summary's progress: step `done` of `total`."""
        if not self.current(request) or not self.busy:
            return False
        self._update(note=f"step {done} of {total}…")
        return True

    def answered(self, request: int, answer: ChatAnswer) -> bool:
        """The ChatAnswer arrived (also after Stop, with cancelled=True)."""
        if not self._finish(request):
            return False
        self.chat_id = answer.chat_id
        self._update(answer=answer, quote=answer.quote, passages=tuple(answer.passages),
                     cited=tuple(c.n for c in answer.citations), note="stopped" if answer.cancelled else "",
                     ending=Ending.CANCELLED if answer.cancelled else Ending.ANSWERED)
        return True

    def summarized(self, request: int, summary: Summary) -> bool:
        """A Summary arrived (also after Stop, with cancelled=True)."""
        if not self._finish(request):
            return False
        note = "stopped" if summary.cancelled else f"{summary.chunks} chunks, {summary.calls} model calls"
        self._update(text=summary.text, note=note,
                     ending=Ending.CANCELLED if summary.cancelled else Ending.ANSWERED)
        return True

    def failed(self, request: int, exc: BaseException) -> bool:
        """Asking raised: the exchange keeps what streamed and says why it stopped."""
        if not self._finish(request):
            return False
        self._update(note=f"Failed: {exc}", ending=Ending.FAILED)
        return True

    def stop(self) -> None:
        """Ask the request in flight to stop (the worker checks the event between tokens)."""
        if self._cancel is not None:
            self._cancel.set()

    def clear(self) -> None:
        """A new chat: stop what is in flight, and make its late events stale."""
        self.stop()
        self._request += 1
        self._cancel = None
        self.chat_id = None
        self.exchanges = []

    def load(self, chat_id: int, messages) -> None:
        """A past chat's messages (user, assistant, …) as its exchanges."""
        self.clear()
        self.chat_id = chat_id
        question = None
        for m in messages:
            if m.role == "user":
                question = m.content
            elif m.role == "assistant" and question is not None:
                shown = getattr(m, "shown", "") or m.content  # what was shown then (the quote), not the raw text
                text = drop_dangling_markers(shown.strip(), {p.n for p in m.passages})
                quote = getattr(m, "quote", None)
                self.exchanges.append(Exchange(question, text=text, passages=tuple(m.passages),
                                               quote=quote_from(quote) if quote else None,
                                               cited=tuple(c.n for c in m.citations), ending=Ending.ANSWERED))
                question = None

    def toggle(self, index: int) -> bool:
        """Show or hide exchange `index`'s hidden model answer; False when it has none to toggle."""
        if not 0 <= index < len(self.exchanges) or not self.exchanges[index].can_toggle():
            return False
        self.exchanges[index] = replace(self.exchanges[index], expanded=not self.exchanges[index].expanded)
        return True

    def sources(self, index: int) -> tuple[tuple, tuple[int, ...], Quote | None] | None:
        """Exchange `index`'s passages, cited numbers and quote (None for no such exchange)."""
        if not 0 <= index < len(self.exchanges):
            return None
        e = self.exchanges[index]
        return e.passages, e.cited, e.answer.quote if e.answer is not None else e.quote

    def _finish(self, request: int) -> bool:
        if not self.current(request):
            return False
        self._cancel = None
        return True

    def _update(self, **changes) -> None:
        self.exchanges[-1] = replace(self.exchanges[-1], **changes)
