"""Conversation memory in the PostgreSQL engine: the person's facts (a tsvector of core/text's fields and a vector
each), their memory switch, and clearing. Raw history chunks are in memory_chunks.py; the tables and their row-level
security in memory_schema.py.

The MemoryFacts role (core/store/base.py), as the SQLite engine's MemoryFactSQL, over an open PostgresStore's pool.
Every statement also says `owner = current_user`: the policies already restrict a person to their own rows, and the
clause keeps a superuser's connection (which policies do not bind) to its own memory too.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

import psycopg

from desktop_app.core import text as tp
from desktop_app.core.store.memory_rows import Fact, NewFact, fact_title
from desktop_app.core.store.postgres.base import PostgresBase
from desktop_app.core.store.postgres.connect import scalar
from desktop_app.core.store.postgres.keywords import chunk_terms, rank_weights

MINE = "owner = current_user"
_FACT = ("SELECT id, key, value, category, source, confidence, created_at, updated_at, expires_at, superseded_by, "
         "merged_keys, chat_id, turn FROM memory_facts WHERE " + MINE)
TITLE_WEIGHT = 2.0  # as document search weighs a title


def _fact(r: Sequence[Any]) -> Fact:
    return Fact(int(r[0]), r[1], r[2], r[3], r[4], float(r[5]), float(r[6]), float(r[7]),
                None if r[8] is None else float(r[8]), None if r[9] is None else int(r[9]),
                tuple(r[10] or ()), None if r[11] is None else int(r[11]), None if r[12] is None else int(r[12]))


def ts_candidates(conn: psycopg.Connection, table: str, query: str, limit: int) -> list[tuple[int, float]]:
    """The person's rows of a memory table whose terms match the query's, by ts_rank (higher is better)."""
    tsquery = tp.to_tsquery(tp.build_query(query))
    if tsquery is None or limit <= 0:
        return []
    rows = conn.execute(
        f"SELECT t.id, ts_rank(%(w)s::float4[], t.terms, q, 1) AS r FROM {table} t, CAST(%(q)s AS tsquery) q "
        f"WHERE t.{MINE} AND t.terms @@ q ORDER BY r DESC, t.id LIMIT %(n)s",
        {"w": rank_weights(TITLE_WEIGHT), "q": tsquery, "n": int(limit)}).fetchall()
    return [(int(i), float(r)) for i, r in rows]


def fact_terms(key: str, value: str) -> str:
    """A fact's tsvector literal: its key's words as the title, its value as the text."""
    return chunk_terms(fact_title(key), value)


class PgMemoryFactSQL:
    """Facts of one person's memory, over a PostgresStore."""

    def __init__(self, db: PostgresBase) -> None:
        self.db = db

    # ---- switch --------------------------------------------------------------------------------

    def enabled(self) -> bool:
        """Whether memory is on (it is unless the person turned it off)."""
        row = self.db._read(lambda c: c.execute(f"SELECT enabled FROM memory_settings WHERE {MINE}").fetchone())
        return row is None or bool(row[0])

    def set_enabled(self, on: bool) -> None:
        """Turn memory on or off."""
        self.db._write(lambda c: c.execute(
            "INSERT INTO memory_settings (enabled) VALUES (%s) ON CONFLICT (owner) DO UPDATE SET enabled = "
            "EXCLUDED.enabled", (bool(on),)))

    def forgot_through(self) -> int:
        """The newest chat message the last forget-all covered (0: never): older turns are not saved again."""
        row = self.db._read(lambda c: c.execute(
            f"SELECT forgot_through FROM memory_settings WHERE {MINE}").fetchone())
        return int(row[0]) if row else 0

    def set_forgot_through(self, message_id: int) -> None:
        """Record a forget-all's watermark (see forgot_through; migration 012's column)."""
        self.db._write(lambda c: c.execute(
            "INSERT INTO memory_settings (forgot_through) VALUES (%s) ON CONFLICT (owner) DO UPDATE SET "
            "forgot_through = EXCLUDED.forgot_through", (int(message_id),)))

    # ---- facts ---------------------------------------------------------------------------------

    def insert_fact(self, fact: NewFact, now: float, merged_keys: Sequence[str] = (),
                    vector: bytes | None = None) -> int:
        """Store a new fact with its keyword terms; returns its id."""
        fid = self.db._write(lambda c: scalar(c.execute(
            "INSERT INTO memory_facts (key, value, category, source, confidence, created_at, updated_at, expires_at, "
            "merged_keys, chat_id, turn, terms, embedding) VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s::tsvector,%s) "
            "RETURNING id",
            (fact.key, fact.value, fact.category, str(fact.source), float(fact.confidence), now, now, fact.expires_at,
             json.dumps(list(merged_keys)), fact.chat_id, fact.turn, fact_terms(fact.key, fact.value), vector)
        )), idempotent=False)
        return int(fid)

    def touch_fact(self, fact_id: int, now: float, confidence: float, merged_keys: Sequence[str],
                   expires_at: float | None) -> None:
        """The same fact said again: newer, at least as confident, maybe under another key spelling."""
        self.db._write(lambda c: c.execute(
            f"UPDATE memory_facts SET updated_at = %s, confidence = %s, merged_keys = %s, expires_at = %s "
            f"WHERE id = %s AND {MINE}", (now, confidence, json.dumps(list(merged_keys)), expires_at, fact_id)))

    def supersede(self, old_id: int, new_id: int) -> None:
        """Mark `old_id` as corrected by `new_id` (it stays, flagged outdated)."""
        self.db._write(lambda c: c.execute(
            f"UPDATE memory_facts SET superseded_by = %s WHERE id = %s AND {MINE}", (new_id, old_id)))

    def fact(self, fact_id: int) -> Fact | None:
        """One fact by id."""
        row = self.db._read(lambda c: c.execute(_FACT + " AND id = %s", (fact_id,)).fetchone())
        return _fact(row) if row else None

    def facts(self, *, current_only: bool = False) -> list[Fact]:
        """Every fact (or only those no correction replaced), newest first."""
        where = " AND superseded_by IS NULL" if current_only else ""
        rows = self.db._read(lambda c: c.execute(_FACT + where + " ORDER BY updated_at DESC, id DESC").fetchall())
        return [_fact(r) for r in rows]

    def facts_by_id(self, ids: Iterable[int]) -> dict[int, Fact]:
        """Facts by id (missing ids left out)."""
        wanted = list(dict.fromkeys(int(i) for i in ids))
        if not wanted:
            return {}
        rows = self.db._read(lambda c: c.execute(_FACT + " AND id = ANY(%s)", (wanted,)).fetchall())
        return {int(r[0]): _fact(r) for r in rows}

    def fact_keyword_candidates(self, query: str, limit: int) -> list[tuple[int, float]]:
        """Facts whose key or value match the query's terms, by ts_rank."""
        return self.db._read(lambda c: ts_candidates(c, "memory_facts", query, limit))

    def fact_vectors(self) -> list[tuple[int, bytes]]:
        """(id, vector) of every fact that has one."""
        rows = self.db._read(lambda c: c.execute(
            f"SELECT id, embedding FROM memory_facts WHERE {MINE} AND embedding IS NOT NULL").fetchall())
        return [(int(r[0]), bytes(r[1])) for r in rows]

    def facts_without_vectors(self) -> list[Fact]:
        """Facts whose vector is missing (stored without an embedder, or the model changed)."""
        rows = self.db._read(lambda c: c.execute(_FACT + " AND embedding IS NULL").fetchall())
        return [_fact(r) for r in rows]

    def set_fact_vectors(self, items: Iterable[tuple[int, bytes]]) -> None:
        """Store facts' vectors."""
        params = [(v, i) for i, v in items]
        if params:
            self.db._write(lambda c: c.cursor().executemany(
                f"UPDATE memory_facts SET embedding = %s WHERE id = %s AND {MINE}", params))

    def delete_facts(self, ids: Iterable[int]) -> int:
        """Forget facts by id, with every older value they superseded. Returns how many rows went."""
        todo = [int(i) for i in ids]

        def work(conn: psycopg.Connection) -> int:
            gone, queue = 0, list(todo)
            while queue:
                fid = queue.pop()
                queue.extend(int(r[0]) for r in conn.execute(
                    f"SELECT id FROM memory_facts WHERE {MINE} AND superseded_by = %s", (fid,)))
                gone += conn.execute(f"DELETE FROM memory_facts WHERE {MINE} AND id = %s", (fid,)).rowcount
            return gone
        return int(self.db._write(work))

    def delete_all(self) -> int:
        """Forget every fact, raw chunk and recall record of this person. Returns how many facts and chunks went."""
        def work(conn: psycopg.Connection) -> int:
            gone = conn.execute(f"DELETE FROM memory_facts WHERE {MINE}").rowcount
            conn.execute(f"DELETE FROM memory_recalls WHERE {MINE}")
            return gone + conn.execute(f"DELETE FROM memory_chunks WHERE {MINE}").rowcount
        return int(self.db._write(work))

    def delete_chat(self, chat_id: int) -> int:
        """Forget what one chat left in memory (its raw chunks, the facts said in it, its recall records)."""
        def work(conn: psycopg.Connection) -> int:
            conn.execute(f"UPDATE memory_facts SET superseded_by = NULL WHERE {MINE} AND superseded_by IN "
                         f"(SELECT id FROM memory_facts WHERE {MINE} AND chat_id = %s)", (chat_id,))
            gone = conn.execute(f"DELETE FROM memory_facts WHERE {MINE} AND chat_id = %s", (chat_id,)).rowcount
            conn.execute(f"DELETE FROM memory_recalls WHERE {MINE} AND chat_id = %s", (chat_id,))
            return gone + conn.execute(f"DELETE FROM memory_chunks WHERE {MINE} AND chat_id = %s",
                                       (chat_id,)).rowcount
        return int(self.db._write(work))
