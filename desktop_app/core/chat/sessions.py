"""Chats and their messages in the library database (citations and passages stored as JSON)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from desktop_app.core.chat.budget import Turn
from desktop_app.core.chat.citations import Citation
from desktop_app.core.chat.context import Passage
from desktop_app.core.db import connect, migrate, transaction
from desktop_app.core.errors import KnownError

TITLE_CHARS = 60
SUMMARY_ROLE = "summary"  # a message row holding {"covers": turns, "text": summary} of compacted turns


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


class ChatNotFoundError(KnownError):
    """A chat id that is not in this library."""


def title_for(question: str) -> str:
    """A chat's title: the first question, on one line, cut at a word."""
    flat = " ".join(question.split())
    if len(flat) <= TITLE_CHARS:
        return flat
    cut = flat[:TITLE_CHARS].rsplit(" ", 1)[0]
    return cut + "…"


class ChatStore:
    """Reads and writes chats on its own connection; safe to call from any one thread at a time (a lock serialises)."""

    def __init__(self, db_path: Path) -> None:
        self.db_path = Path(db_path)
        self._conn = None
        self._lock = threading.RLock()

    def _db(self):
        # Opened lazily and shareable across threads: the UI creates the service on its thread and asks on a worker.
        if self._conn is None:
            self._conn = connect(self.db_path, check_same_thread=False)
            migrate(self._conn)
        return self._conn

    def create_chat(self, title: str = "") -> int:
        """A new, empty chat; returns its id."""
        now = time.time()
        with self._lock, transaction(self._db()) as conn:
            cur = conn.execute("INSERT INTO chats (title, created_at, updated_at) VALUES (?, ?, ?)", (title, now, now))
            return int(cur.lastrowid)

    def require(self, chat_id: int) -> None:
        """Raise ChatNotFoundError unless the chat exists."""
        with self._lock:
            row = self._db().execute("SELECT 1 FROM chats WHERE id = ?", (chat_id,)).fetchone()
        if row is None:
            raise ChatNotFoundError(f"No chat with id {chat_id}.")

    def list_chats(self) -> list[ChatSummary]:
        """Every chat, most recently used first."""
        sql = ("SELECT c.id, c.title, c.created_at, c.updated_at, COUNT(m.id) FROM chats c "
               "LEFT JOIN messages m ON m.chat_id = c.id GROUP BY c.id ORDER BY c.updated_at DESC, c.id DESC")
        with self._lock:
            rows = self._db().execute(sql).fetchall()
        return [ChatSummary(int(r[0]), r[1], r[2], r[3], int(r[4])) for r in rows]

    def messages(self, chat_id: int) -> list[ChatMessage]:
        """The chat's messages, oldest first."""
        self.require(chat_id)
        with self._lock:
            rows = self._db().execute(
                "SELECT id, chat_id, role, content, citations, passages, created_at FROM messages "
                "WHERE chat_id = ? ORDER BY id", (chat_id,)).fetchall()
        return [ChatMessage(int(r[0]), int(r[1]), r[2], r[3],
                            tuple(Citation.from_dict(d) for d in json.loads(r[4] or "[]")),
                            tuple(Passage.from_dict(d) for d in json.loads(r[5] or "[]")), r[6]) for r in rows]

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

    def add_exchange(self, chat_id: int, question: str, answer: str, citations: Sequence[Citation],
                     passages: Sequence[Passage]) -> None:
        """Store a question and its answer together (one transaction) and touch the chat."""
        now = time.time()
        with self._lock, transaction(self._db()) as conn:
            conn.execute("INSERT INTO messages (chat_id, role, content, created_at) VALUES (?, 'user', ?, ?)",
                         (chat_id, question, now))
            conn.execute("INSERT INTO messages (chat_id, role, content, citations, passages, created_at) "
                         "VALUES (?, 'assistant', ?, ?, ?, ?)",
                         (chat_id, answer, json.dumps([c.to_dict() for c in citations]),
                          json.dumps([p.to_dict() for p in passages]), now))
            conn.execute("UPDATE chats SET updated_at = ?, title = CASE WHEN title = '' THEN ? ELSE title END "
                         "WHERE id = ?", (now, title_for(question), chat_id))

    def add_summary(self, chat_id: int, covers: int, text: str) -> None:
        """Store the summary of the chat's first `covers` turns (a message row with role 'summary')."""
        with self._lock, transaction(self._db()) as conn:
            conn.execute("INSERT INTO messages (chat_id, role, content, created_at) VALUES (?, ?, ?, ?)",
                         (chat_id, SUMMARY_ROLE, json.dumps({"covers": covers, "text": text}), time.time()))

    def summary(self, chat_id: int) -> tuple[int, str]:
        """(turns covered, text) of the chat's newest summary; (0, "") when it was never compacted."""
        for m in reversed(self.messages(chat_id)):
            if m.role == SUMMARY_ROLE:
                data = json.loads(m.content)
                return int(data["covers"]), str(data["text"])
        return 0, ""

    def delete_chat(self, chat_id: int) -> bool:
        """Delete a chat and its messages; False when there was no such chat."""
        with self._lock, transaction(self._db()) as conn:
            return conn.execute("DELETE FROM chats WHERE id = ?", (chat_id,)).rowcount > 0

    def close(self) -> None:
        """Close the connection (a later call reopens it)."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
