"""Conversation memory in the SQLite engine (the MemoryFacts role of core/store/base.py): facts (with a keyword row of
core/text's fields and a vector each), the on/off switch, and clearing. Raw history chunks are in memory_chunks.py.

Wraps an open SQLiteStore (its writer and readers), so memory shares the library file and its transactions.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

from desktop_app.core import text as tp
from desktop_app.core.store.memory_rows import Fact, NewFact, fact_title
from desktop_app.core.store.sqlite.base import SQLiteBase
from desktop_app.core.store.sqlite.connect import Connection

_FACT = ("SELECT id, key, value, category, source, confidence, created_at, updated_at, expires_at, superseded_by, "
         "merged_keys, chat_id, turn FROM memory_facts")


def write_memory_fts(conn: Connection, table: str, rowid: int, title: str, text: str) -> None:
    """(Re)write one keyword row of a memory FTS table (memory_facts_fts or memory_fts)."""
    fields = tp.index_fields(title, text)
    conn.execute(f"DELETE FROM {table} WHERE rowid = ?", (rowid,))
    conn.execute(tp.fts5_insert(table), (rowid, *(fields[c] for c in tp.FTS5_COLUMNS)))


def fts_candidates(conn: Connection, table: str, query: str, limit: int) -> list[tuple[int, float]]:
    """Rows of a memory FTS table matching the query's terms, by BM25 (score = -bm25, higher is better)."""
    match = tp.to_fts5(tp.build_query(query))
    if not match or limit <= 0:
        return []
    rank = tp.fts5_rank(table)
    rows = conn.execute(f"SELECT rowid, {rank} AS r FROM {table} WHERE {table} MATCH ? ORDER BY r LIMIT ?",
                        (match, int(limit))).fetchall()
    return [(int(rowid), -float(r)) for rowid, r in rows]


def _fact(r) -> Fact:
    return Fact(int(r[0]), r[1], r[2], r[3], r[4], float(r[5]), float(r[6]), float(r[7]),
                None if r[8] is None else float(r[8]), None if r[9] is None else int(r[9]),
                tuple(json.loads(r[10] or "[]")), None if r[11] is None else int(r[11]),
                None if r[12] is None else int(r[12]))


class MemoryFactSQL:
    """Facts of one library's memory, over its SQLite store."""

    def __init__(self, db: SQLiteBase) -> None:
        self.db = db

    # ---- switch --------------------------------------------------------------------------------

    def enabled(self) -> bool:
        """Whether memory is on (it is unless the person turned it off)."""
        row = self.db._read(lambda c: c.execute("SELECT value FROM meta WHERE key = 'memory_enabled'").fetchone())
        return row is None or row[0] != "0"

    def set_enabled(self, on: bool) -> None:
        """Turn memory on or off."""
        self.db._write(lambda c: c.execute(
            "INSERT INTO meta (key, value) VALUES ('memory_enabled', ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value", ("1" if on else "0",)))

    def forgot_through(self) -> int:
        """The newest chat message the last forget-all covered (0: never): older turns are not saved again."""
        row = self.db._read(lambda c: c.execute(
            "SELECT value FROM meta WHERE key = 'memory_forgot_through'").fetchone())
        return int(row[0]) if row else 0

    def set_forgot_through(self, message_id: int) -> None:
        """Record a forget-all's watermark (see forgot_through)."""
        self.db._write(lambda c: c.execute(
            "INSERT INTO meta (key, value) VALUES ('memory_forgot_through', ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value", (str(int(message_id)),)))

    # ---- facts ---------------------------------------------------------------------------------

    def insert_fact(self, fact: NewFact, now: float, merged_keys: Sequence[str] = (),
                    vector: bytes | None = None) -> int:
        """Store a new fact with its keyword row; returns its id."""
        def work(conn: Connection) -> int:
            fid = int(conn.execute(
                "INSERT INTO memory_facts (key, value, category, source, confidence, created_at, updated_at, "
                "expires_at, merged_keys, chat_id, turn, embedding) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                (fact.key, fact.value, fact.category, str(fact.source), float(fact.confidence), now, now,
                 fact.expires_at, json.dumps(list(merged_keys)), fact.chat_id, fact.turn, vector)).lastrowid)
            write_memory_fts(conn, "memory_facts_fts", fid, fact_title(fact.key), fact.value)
            return fid
        return int(self.db._write(work, idempotent=False))

    def touch_fact(self, fact_id: int, now: float, confidence: float, merged_keys: Sequence[str],
                   expires_at: float | None) -> None:
        """The same fact said again: newer, at least as confident, maybe under another key spelling."""
        self.db._write(lambda c: c.execute(
            "UPDATE memory_facts SET updated_at = ?, confidence = ?, merged_keys = ?, expires_at = ? "
            "WHERE id = ?", (now, confidence, json.dumps(list(merged_keys)), expires_at, fact_id)))

    def supersede(self, old_id: int, new_id: int) -> None:
        """Mark `old_id` as corrected by `new_id` (it stays, flagged outdated)."""
        self.db._write(lambda c: c.execute(
            "UPDATE memory_facts SET superseded_by = ? WHERE id = ?", (new_id, old_id)))

    def fact(self, fact_id: int) -> Fact | None:
        """One fact by id."""
        row = self.db._read(lambda c: c.execute(_FACT + " WHERE id = ?", (fact_id,)).fetchone())
        return _fact(row) if row else None

    def facts(self, *, current_only: bool = False) -> list[Fact]:
        """Every fact (or only those no correction replaced), newest first."""
        where = " WHERE superseded_by IS NULL" if current_only else ""
        rows = self.db._read(lambda c: c.execute(_FACT + where + " ORDER BY updated_at DESC, id DESC").fetchall())
        return [_fact(r) for r in rows]

    def facts_by_id(self, ids: Iterable[int]) -> dict[int, Fact]:
        """Facts by id (missing ids left out)."""
        wanted = list(dict.fromkeys(int(i) for i in ids))
        if not wanted:
            return {}
        rows = self.db._read(lambda c: c.execute(_FACT + f" WHERE id IN ({','.join('?' * len(wanted))})",
                                                 wanted).fetchall())
        return {int(r[0]): _fact(r) for r in rows}

    def fact_keyword_candidates(self, query: str, limit: int) -> list[tuple[int, float]]:
        """Facts whose key or value match the query's terms, by BM25."""
        return self.db._read(lambda c: fts_candidates(c, "memory_facts_fts", query, limit))

    def fact_vectors(self) -> list[tuple[int, bytes]]:
        """(id, vector) of every fact that has one."""
        rows = self.db._read(lambda c: c.execute(
            "SELECT id, embedding FROM memory_facts WHERE embedding IS NOT NULL").fetchall())
        return [(int(r[0]), r[1]) for r in rows]

    def facts_without_vectors(self) -> list[Fact]:
        """Facts whose vector is missing (stored without an embedder, or the model changed)."""
        rows = self.db._read(lambda c: c.execute(_FACT + " WHERE embedding IS NULL").fetchall())
        return [_fact(r) for r in rows]

    def set_fact_vectors(self, items: Iterable[tuple[int, bytes]]) -> None:
        """Store facts' vectors."""
        params = [(v, i) for i, v in items]
        self.db._write(lambda c: c.executemany("UPDATE memory_facts SET embedding = ? WHERE id = ?", params))

    def delete_facts(self, ids: Iterable[int]) -> int:
        """Forget facts by id, with every older value they superseded. Returns how many rows went."""
        todo = [int(i) for i in ids]

        def work(conn: Connection) -> int:
            gone, queue = 0, list(todo)
            while queue:
                fid = queue.pop()
                queue.extend(int(r[0]) for r in conn.execute(
                    "SELECT id FROM memory_facts WHERE superseded_by = ?", (fid,)))
                gone += conn.execute("DELETE FROM memory_facts WHERE id = ?", (fid,)).rowcount
            return gone
        return int(self.db._write(work))

    def delete_all(self) -> int:
        """Forget every fact, raw chunk and recall record. Returns how many facts and chunks went."""
        def work(conn: Connection) -> int:
            gone = conn.execute("DELETE FROM memory_facts").rowcount
            gone += conn.execute("DELETE FROM memory_chunks").rowcount
            conn.execute("DELETE FROM memory_recalls")
            return gone
        return int(self.db._write(work))

    def delete_chat(self, chat_id: int) -> int:
        """Forget what one chat left in memory (its raw chunks, the facts said in it, its recall records)."""
        def work(conn: Connection) -> int:
            conn.execute("UPDATE memory_facts SET superseded_by = NULL WHERE superseded_by IN "
                         "(SELECT id FROM memory_facts WHERE chat_id = ?)", (chat_id,))
            gone = conn.execute("DELETE FROM memory_facts WHERE chat_id = ?", (chat_id,)).rowcount
            gone += conn.execute("DELETE FROM memory_chunks WHERE chat_id = ?", (chat_id,)).rowcount
            conn.execute("DELETE FROM memory_recalls WHERE chat_id = ?", (chat_id,))
            return gone
        return int(self.db._write(work))
