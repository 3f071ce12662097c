"""Chats and their messages (citations and passages stored as JSON)."""

from __future__ import annotations

import json
from collections.abc import Sequence

from desktop_app.core.store.rows import ChatRow, MessageRow
from desktop_app.core.store.sqlite.base import SQLiteBase
from desktop_app.core.store.sqlite.connect import Connection


class ChatSQL(SQLiteBase):
    """Chat sessions."""

    def create_chat(self, title: str, now: float) -> int:
        """A new, empty chat."""
        return int(self._write(lambda c: c.execute(
            "INSERT INTO chats (title, created_at, updated_at) VALUES (?, ?, ?)",
            (title, now, now)).lastrowid, idempotent=False))

    def chat_exists(self, chat_id: int) -> bool:
        """Whether a chat id is in this library."""
        return self._read(lambda c: c.execute("SELECT 1 FROM chats WHERE id = ?", (chat_id,)).fetchone() is not None)

    def list_chats(self) -> list[ChatRow]:
        """Every chat, most recently used first."""
        rows = self._read(lambda c: c.execute(
            "SELECT c.id, c.title, c.created_at, c.updated_at, COUNT(m.id) FROM chats c "
            "LEFT JOIN messages m ON m.chat_id = c.id GROUP BY c.id ORDER BY c.updated_at DESC, c.id DESC").fetchall())
        return [ChatRow(int(r[0]), r[1], r[2], r[3], int(r[4])) for r in rows]

    def chat_messages(self, chat_id: int) -> list[MessageRow]:
        """A chat's messages, oldest first."""
        rows = self._read(lambda c: c.execute(
            "SELECT id, chat_id, role, content, citations, passages, created_at FROM messages "
            "WHERE chat_id = ? ORDER BY id", (chat_id,)).fetchall())
        return [MessageRow(int(r[0]), int(r[1]), r[2], r[3], tuple(json.loads(r[4] or "[]")),
                           tuple(json.loads(r[5] or "[]")), r[6])
                for r in rows]

    def add_messages(self, chat_id: int, messages: Sequence[MessageRow], title_if_empty: str, now: float) -> None:
        """Append messages and touch the chat, in one transaction."""
        def work(conn: Connection) -> None:
            for m in messages:
                conn.execute(
                    "INSERT INTO messages (chat_id, role, content, citations, passages, created_at) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (chat_id, m.role, m.content, json.dumps(list(m.citations)), json.dumps(list(m.passages)),
                     m.created_at or now))
            conn.execute("UPDATE chats SET updated_at = ?, title = CASE WHEN title = '' THEN ? ELSE title END "
                         "WHERE id = ?", (now, title_if_empty, chat_id))
        self._write(work, idempotent=False)

    def delete_chat(self, chat_id: int) -> bool:
        """Delete a chat and its messages."""
        return self._write(lambda c: c.execute("DELETE FROM chats WHERE id = ?", (chat_id,)).rowcount > 0)
