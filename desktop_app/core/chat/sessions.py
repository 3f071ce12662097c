"""Chats and their messages in the library database (citations and passages stored as JSON)."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from desktop_app.core.chat.answer.context import Passage
from desktop_app.core.chat.answer.gate.citations import Citation
from desktop_app.core.errors import KnownError
from desktop_app.core.store.base import Store
from desktop_app.core.store.rows import MessageRow
from desktop_app.core.types import Turn

TITLE_CHARS = 60
SUMMARY_ROLE = "summary"  # a message row holding {"covers": turns, "text": summary} of compacted turns
SHOWN = "shown"  # key of the entry, after an assistant row's citations, holding what the person was shown


@dataclass(frozen=True)
class ChatSummary:
    """One chat in a list of chats."""

    id: int
    title: str
    created_at: float
    updated_at: float
    message_count: int


@dataclass(frozen=True)
class ChatMessage:
    """One stored message. Assistant messages carry their citations and every passage that was sent."""

    id: int
    chat_id: int
    role: str
    content: str
    citations: tuple[Citation, ...]
    passages: tuple[Passage, ...]
    created_at: float
    shown: str = ""  # the answer as the person was shown it (the quote…) when it differs from `content`
    quote: dict[str, Any] | None = None  # the quote shown (Quote.to_dict), for highlighting it again


class ChatNotFoundError(KnownError):
    """A chat id that is not in this library."""


def title_for(question: str) -> str:
    """A chat's title: the first question, on one line, cut at a word."""
    flat = " ".join(question.split())
    if len(flat) <= TITLE_CHARS:
        return flat
    cut = flat[:TITLE_CHARS].rsplit(" ", 1)[0]
    return cut + "…"


class ChatSessions:
    """Chats of one library, as ChatSummary/ChatMessage values, over the library's Store (whose ChatStore role, in
    store/base.py, holds the rows)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def create_chat(self, title: str = "") -> int:
        """A new, empty chat; returns its id."""
        return self.store.create_chat(title, time.time())

    def require(self, chat_id: int) -> None:
        """Raise ChatNotFoundError unless the chat exists."""
        if not self.store.chat_exists(chat_id):
            raise ChatNotFoundError(f"No chat with id {chat_id}.")

    def list_chats(self) -> list[ChatSummary]:
        """Every chat, most recently used first."""
        return [
            ChatSummary(r.id, r.title, r.created_at, r.updated_at, r.message_count) for r in self.store.list_chats()
        ]

    def messages(self, chat_id: int) -> list[ChatMessage]:
        """The chat's messages, oldest first."""
        self.require(chat_id)
        out = []
        for m in self.store.chat_messages(chat_id):
            shown = next((d for d in m.citations if SHOWN in d), {})
            out.append(ChatMessage(
                m.id,
                m.chat_id,
                m.role,
                m.content,
                tuple(Citation.from_dict(d) for d in m.citations if SHOWN not in d),
                tuple(Passage.from_dict(d) for d in m.passages),
                m.created_at,
                shown.get(SHOWN, ""),
                shown.get("quote"),
            ))
        return out

    def turns(self, chat_id: int) -> list[Turn]:
        """Completed question/answer pairs, oldest first (what later prompts replay)."""
        turns, question = [], None
        for m in self.messages(chat_id):
            if m.role == "user":
                question = m.content
            elif m.role == "assistant" and question is not None:
                turns.append(Turn(question, m.content))
                question = None
        return turns

    def add_exchange(
        self, chat_id: int, question: str, answer: str, citations: Sequence[Citation], passages: Sequence[Passage],
        shown: str = "", quote: dict[str, Any] | None = None,
    ) -> None:
        """Store a question and its answer together (one transaction) and touch the chat. `answer` is the model's
        text (replayed to it verbatim); `shown`, when it differs, what the person saw (kept after the citations,
        so a reopened chat shows the same answer; no schema change)."""
        now = time.time()
        extra = ({SHOWN: shown, "quote": quote},) if shown and (shown != answer or quote) else ()
        self.store.add_messages(
            chat_id,
            [
                MessageRow(0, chat_id, "user", question, created_at=now),
                MessageRow(
                    0,
                    chat_id,
                    "assistant",
                    answer,
                    (*(c.to_dict() for c in citations), *extra),
                    tuple(p.to_dict() for p in passages),
                    now,
                ),
            ],
            title_for(question),
            now,
        )

    def add_summary(self, chat_id: int, covers: int, text: str) -> None:
        """Store the summary of the chat's first `covers` turns (a message row with role 'summary')."""
        now = time.time()
        self.store.add_messages(
            chat_id,
            [MessageRow(0, chat_id, SUMMARY_ROLE, json.dumps({"covers": covers, "text": text}), created_at=now)],
            "",
            now,
        )

    def summary(self, chat_id: int) -> tuple[int, str]:
        """(turns covered, text) of the chat's newest summary; (0, "") when it was never compacted."""
        for m in reversed(self.messages(chat_id)):
            if m.role == SUMMARY_ROLE:
                data = json.loads(m.content)
                return int(data["covers"]), str(data["text"])
        return 0, ""

    def delete_chat(self, chat_id: int) -> bool:
        """Delete a chat and its messages; False when there was no such chat."""
        return self.store.delete_chat(chat_id)
