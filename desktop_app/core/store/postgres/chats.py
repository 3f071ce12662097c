"""Chats and their messages (citations and passages as jsonb)."""

from __future__ import annotations

from collections.abc import Sequence

import psycopg
from psycopg.types.json import Jsonb

from desktop_app.core.store.postgres.base import PostgresBase
from desktop_app.core.store.postgres.connect import scalar
from desktop_app.core.store.rows import ChatRow, MessageRow


class ChatSQL(PostgresBase):
    """Chat sessions."""

    def create_chat(self, title: str, now: float) -> int:
        """A new, empty chat."""
        return int(self._write(lambda c: scalar(c.execute(
            "INSERT INTO chats (title, created_at, updated_at) VALUES (%s, %s, %s) RETURNING id",
            (title, now, now))), idempotent=False))

    def chat_exists(self, chat_id: int) -> bool:
        """Whether a chat id is in this library."""
        return self._read(lambda c: c.execute("SELECT 1 FROM chats WHERE id = %s", (chat_id,)).fetchone() is not None)

    def list_chats(self) -> list[ChatRow]:
        """Every chat, most recently used first."""
        rows = self._read(lambda c: c.execute(
            "SELECT c.id, c.title, c.created_at, c.updated_at, count(m.id) FROM chats c "
            "LEFT JOIN messages m ON m.chat_id = c.id GROUP BY c.id ORDER BY c.updated_at DESC, c.id DESC").fetchall())
        return [ChatRow(int(r[0]), r[1], float(r[2]), float(r[3]), int(r[4])) for r in rows]

    def chat_messages(self, chat_id: int) -> list[MessageRow]:
        """A chat's messages, oldest first."""
        rows = self._read(lambda c: c.execute(
            "SELECT id, chat_id, role, content, citations, passages, created_at FROM messages "
            "WHERE chat_id = %s ORDER BY id", (chat_id,)).fetchall())
        return [MessageRow(int(r[0]), int(r[1]), r[2], r[3], tuple(r[4] or ()), tuple(r[5] or ()), float(r[6]))
                for r in rows]

    def add_messages(self, chat_id: int, messages: Sequence[MessageRow], title_if_empty: str, now: float) -> None:
        """Append messages and touch the chat, in one transaction (not retried once sent: it could double)."""
        def work(conn: psycopg.Connection) -> None:
            with conn.cursor() as cur:
                cur.executemany(
                    "INSERT INTO messages (chat_id, role, content, citations, passages, created_at) "
                    "VALUES (%s, %s, %s, %s, %s, %s)",
                    [(chat_id, m.role, m.content, Jsonb(list(m.citations)), Jsonb(list(m.passages)),
                      m.created_at or now) for m in messages])
            conn.execute("UPDATE chats SET updated_at = %s, title = CASE WHEN title = '' THEN %s ELSE title END "
                         "WHERE id = %s", (now, title_if_empty, chat_id))
        self._write(work, idempotent=False)

    def delete_chat(self, chat_id: int) -> bool:
        """Delete a chat and its messages."""
        return self._write(lambda c: c.execute("DELETE FROM chats WHERE id = %s", (chat_id,)).rowcount > 0)
