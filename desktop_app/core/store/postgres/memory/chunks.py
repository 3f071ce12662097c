"""Raw history chunks of conversation memory in the PostgreSQL engine: append-only rows (content-hashed per chat), their
tsvector of core/text's fields (breadcrumbs added, as in the SQLite engine), window vectors in memory_vectors
(searched exactly: one person's memory), the model that made them, and what recall injected.

The MemoryChunks role (core/store/base.py), as the SQLite engine's MemoryChunkSQL; every row is the person's own
(memory_schema's policies, and `owner = current_user` in each statement).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import psycopg

from desktop_app.core.embed.base import MAX_WINDOWS
from desktop_app.core.store.memory_rows import MemoryChunk, NewMemoryChunk
from desktop_app.core.store.postgres.base import PostgresBase
from desktop_app.core.store.postgres.keywords import chunk_terms
from desktop_app.core.store.postgres.memory.facts import MINE, ts_candidates
from desktop_app.core.text import detect_language

_CHUNK = ("SELECT id, chat_id, chat_title, first_turn, last_turn, text, text_hash, breadcrumbs, created_at "
          "FROM memory_chunks WHERE " + MINE)


def _chunk(r: Sequence[Any]) -> MemoryChunk:
    crumbs = tuple((str(k), str(t)) for k, t in (r[7] or ()))
    return MemoryChunk(int(r[0]), int(r[1]), r[2], int(r[3]), int(r[4]), r[5], r[6], crumbs, float(r[8]))


def _crumb_text(crumbs: Sequence[tuple[str, str]]) -> str:
    return ("\n" + " ".join(t for _, t in crumbs)) if crumbs else ""


class PgMemoryChunkSQL:
    """Raw history chunks of one person's memory, over a PostgresStore."""

    def __init__(self, db: PostgresBase) -> None:
        self.db = db

    def ensure_model(self, model_id: str, dim: int) -> bool:
        """Another embedding model (or size) than the one this person's memory vectors were made with drops them
        (they are made again). True when they were reset."""
        recorded = f"{model_id}:{int(dim)}"
        row = self.db._read(lambda c: c.execute(
            f"SELECT embed_model FROM memory_settings WHERE {MINE}").fetchone())
        if row is not None and row[0] == recorded:
            return False

        def work(conn: psycopg.Connection) -> None:
            conn.execute(f"DELETE FROM memory_vectors WHERE {MINE}")
            conn.execute(f"UPDATE memory_chunks SET embedded = false WHERE {MINE} AND embedded")
            conn.execute(f"UPDATE memory_facts SET embedding = NULL WHERE {MINE} AND embedding IS NOT NULL")
            conn.execute("INSERT INTO memory_settings (embed_model) VALUES (%s) ON CONFLICT (owner) DO UPDATE "
                         "SET embed_model = EXCLUDED.embed_model", (recorded,))
        self.db._write(work)
        return True

    def insert(self, chunks: Sequence[NewMemoryChunk], now: float) -> list[int]:
        """Append chunks with their keyword terms; a text already stored for that chat is skipped. New ids."""
        params = [(c.chat_id, c.chat_title, c.first_turn, c.last_turn, c.text, c.text_hash,
                   json.dumps([list(b) for b in c.breadcrumbs], ensure_ascii=False), detect_language(c.text), now,
                   chunk_terms(c.chat_title, c.text + _crumb_text(c.breadcrumbs))) for c in chunks]

        def work(conn: psycopg.Connection) -> list[int]:
            ids = []
            for p in params:
                row = conn.execute(
                    "INSERT INTO memory_chunks (chat_id, chat_title, first_turn, last_turn, text, text_hash, "
                    "breadcrumbs, lang, created_at, terms) VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s::tsvector) "
                    "ON CONFLICT (owner, chat_id, text_hash) DO NOTHING RETURNING id", p).fetchone()
                if row:
                    ids.append(int(row[0]))
            return ids
        return self.db._write(work) if params else []

    def last_turn(self, chat_id: int) -> int:
        """The newest turn number of a chat already in raw memory (0: none)."""
        row = self.db._read(lambda c: c.execute(
            f"SELECT MAX(last_turn) FROM memory_chunks WHERE {MINE} AND chat_id = %s", (chat_id,)).fetchone())
        return int(row[0] or 0) if row else 0

    def chunks(self, ids: Iterable[int]) -> dict[int, MemoryChunk]:
        """Chunks by id (missing ids left out)."""
        wanted = list(dict.fromkeys(int(i) for i in ids))
        if not wanted:
            return {}
        rows = self.db._read(lambda c: c.execute(_CHUNK + " AND id = ANY(%s)", (wanted,)).fetchall())
        return {int(r[0]): _chunk(r) for r in rows}

    def chat_chunks(self, chat_id: int) -> list[MemoryChunk]:
        """One chat's raw chunks, oldest first."""
        rows = self.db._read(lambda c: c.execute(_CHUNK + " AND chat_id = %s ORDER BY first_turn, id",
                                                 (chat_id,)).fetchall())
        return [_chunk(r) for r in rows]

    def count(self) -> int:
        """How many raw chunks this person's memory holds."""
        row = self.db._read(lambda c: c.execute(f"SELECT count(*) FROM memory_chunks WHERE {MINE}").fetchone())
        return int(row[0]) if row else 0

    def keyword_candidates(self, query: str, limit: int) -> list[tuple[int, float]]:
        """Chunks matching the query's terms, by ts_rank over the pipeline's fields."""
        return self.db._read(lambda c: ts_candidates(c, "memory_chunks", query, limit))

    def dense_candidates(self, vector: np.ndarray, limit: int) -> list[tuple[int, float]]:
        """Nearest chunks by exact cosine: (id, cosine of the chunk's best window), best first."""
        if limit <= 0:
            return []
        q = np.asarray(vector, dtype=np.float32)
        rows = self.db._read(lambda c: c.execute(
            f"SELECT chunk_id, 1 - min(embedding <=> %s) AS s FROM memory_vectors WHERE {MINE} "
            "AND vector_dims(embedding) = %s GROUP BY chunk_id ORDER BY s DESC, chunk_id LIMIT %s",
            (q, int(q.shape[-1]), int(limit))).fetchall())
        return [(int(cid), float(s)) for cid, s in rows]

    def pending(self, limit: int) -> list[MemoryChunk]:
        """Chunks without vectors, oldest first."""
        rows = self.db._read(lambda c: c.execute(_CHUNK + " AND NOT embedded ORDER BY id LIMIT %s",
                                                 (int(limit),)).fetchall())
        return [_chunk(r) for r in rows]

    def store_vectors(self, items: Iterable[tuple[int, np.ndarray]]) -> int:
        """Write the window vectors (windows × dim) of chunks that still exist and have none."""
        wanted = list(items)
        if not wanted:
            return 0

        def work(conn: psycopg.Connection) -> int:
            open_ids = {int(r[0]) for r in conn.execute(
                f"SELECT id FROM memory_chunks WHERE {MINE} AND id = ANY(%s) AND NOT embedded FOR UPDATE",
                ([cid for cid, _ in wanted],))}
            params, done = [], []
            for cid, matrix in wanted:
                if cid not in open_ids:
                    continue
                rows = np.asarray(matrix, dtype=np.float32).reshape(-1, np.shape(matrix)[-1])[:MAX_WINDOWS]
                params += [(cid, w, v) for w, v in enumerate(rows)]
                done.append(cid)
            if params:
                conn.cursor().executemany(
                    'INSERT INTO memory_vectors (chunk_id, "window", embedding) VALUES (%s, %s, %s)', params)
                conn.execute(f"UPDATE memory_chunks SET embedded = true WHERE {MINE} AND id = ANY(%s)", (done,))
            return len(done)
        return int(self.db._write(work))

    def recalled(self, chat_id: int) -> set[int]:
        """Chunks recall already injected into this chat."""
        rows = self.db._read(lambda c: c.execute(
            f"SELECT chunk_id FROM memory_recalls WHERE {MINE} AND chat_id = %s", (chat_id,)).fetchall())
        return {int(r[0]) for r in rows}

    def mark_recalled(self, chat_id: int, chunk_ids: Iterable[int], now: float) -> None:
        """Record that these chunks were injected into this chat (never again there)."""
        params = [(chat_id, int(c), now) for c in chunk_ids]
        if params:
            self.db._write(lambda c: c.cursor().executemany(
                "INSERT INTO memory_recalls (chat_id, chunk_id, recalled_at) VALUES (%s, %s, %s) "
                "ON CONFLICT DO NOTHING", params))
