"""Raw history chunks of conversation memory in the SQLite engine: append-only rows (content-hashed per chat),
their keyword rows (core/text's fields) and window vectors in memory_vec (rowid = chunk id * 8 + window, like
chunks_vec), the record of the model that made those vectors, and what recall already injected per chat.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from desktop_app.core.embed.base import MAX_WINDOWS
from desktop_app.core.store.memory_rows import MemoryChunk, NewMemoryChunk
from desktop_app.core.store.sqlite.base import SQLiteBase
from desktop_app.core.store.sqlite.connect import Connection, run_script
from desktop_app.core.store.sqlite.memory.facts import fts_candidates, write_memory_fts
from desktop_app.core.text import detect_language

VEC0_MAX_K = 4096
_CHUNK = ("SELECT id, chat_id, chat_title, first_turn, last_turn, text, text_hash, breadcrumbs, created_at "
          "FROM memory_chunks")


def _chunk(r: Any) -> MemoryChunk:
    crumbs = tuple((str(k), str(t)) for k, t in json.loads(r[7] or "[]"))
    return MemoryChunk(int(r[0]), int(r[1]), r[2], int(r[3]), int(r[4]), r[5], r[6], crumbs, float(r[8]))


def _vec_dim(conn: Connection) -> int | None:
    row = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'memory_vec'").fetchone()
    if not row or "float[" not in (row[0] or ""):
        return None
    return int(row[0].split("float[", 1)[1].split("]", 1)[0])


class MemoryChunkSQL:
    """Raw history chunks of one library's memory, over its SQLite store."""

    def __init__(self, db: SQLiteBase) -> None:
        self.db = db

    def ensure_model(self, model_id: str, dim: int) -> bool:
        """Another embedding model (or size) than the one memory's vectors were made with drops them all (they are
        made again). True when they were reset."""
        recorded = f"{model_id}:{int(dim)}"
        row = self.db._read(lambda c: c.execute(
            "SELECT value FROM meta WHERE key = 'memory_embed_model'").fetchone())
        if row is not None and row[0] == recorded:
            return False

        def work(conn: Connection) -> None:
            if _vec_dim(conn) != int(dim) or row is not None:
                run_script(conn, f"""
                DROP TABLE IF EXISTS memory_vec;
                CREATE VIRTUAL TABLE memory_vec USING vec0(embedding float[{int(dim)}]);
                UPDATE memory_chunks SET embedded = 0;
                UPDATE memory_facts SET embedding = NULL;
                """)
            conn.execute("INSERT INTO meta (key, value) VALUES ('memory_embed_model', ?) "
                         "ON CONFLICT(key) DO UPDATE SET value = excluded.value", (recorded,))
        self.db._write(work)
        return True

    def insert(self, chunks: Sequence[NewMemoryChunk], now: float) -> list[int]:
        """Append chunks with their keyword rows; a text already stored for that chat is skipped. New ids."""
        def work(conn: Connection) -> list[int]:
            ids = []
            for c in chunks:
                cur = conn.execute(
                    "INSERT OR IGNORE INTO memory_chunks (chat_id, chat_title, first_turn, last_turn, text, text_hash, "
                    "breadcrumbs, lang, created_at) VALUES (?,?,?,?,?,?,?,?,?)",
                    (c.chat_id, c.chat_title, c.first_turn, c.last_turn, c.text, c.text_hash,
                     json.dumps([list(b) for b in c.breadcrumbs], ensure_ascii=False), detect_language(c.text), now))
                if cur.rowcount:
                    cid = int(cur.lastrowid)
                    write_memory_fts(conn, "memory_fts", cid, c.chat_title, c.text + _crumb_text(c.breadcrumbs))
                    ids.append(cid)
            return ids
        return self.db._write(work)

    def last_turn(self, chat_id: int) -> int:
        """The newest turn number of a chat already in raw memory (0: none)."""
        row = self.db._read(lambda c: c.execute(
            "SELECT MAX(last_turn) FROM memory_chunks WHERE chat_id = ?", (chat_id,)).fetchone())
        return int(row[0] or 0)

    def chunks(self, ids: Iterable[int]) -> dict[int, MemoryChunk]:
        """Chunks by id (missing ids left out)."""
        wanted = list(dict.fromkeys(int(i) for i in ids))

        def work(conn: Connection) -> list[Any]:
            rows = []
            for i in range(0, len(wanted), 900):
                part = wanted[i:i + 900]
                rows += conn.execute(_CHUNK + f" WHERE id IN ({','.join('?' * len(part))})", part).fetchall()
            return rows
        rows = self.db._read(work)
        return {int(r[0]): _chunk(r) for r in rows}

    def chat_chunks(self, chat_id: int) -> list[MemoryChunk]:
        """One chat's raw chunks, oldest first."""
        rows = self.db._read(lambda c: c.execute(_CHUNK + " WHERE chat_id = ? ORDER BY first_turn, id",
                                                 (chat_id,)).fetchall())
        return [_chunk(r) for r in rows]

    def count(self) -> int:
        """How many raw chunks memory holds."""
        row = self.db._read(lambda c: c.execute("SELECT COUNT(*) FROM memory_chunks").fetchone())
        return int(row[0])

    def keyword_candidates(self, query: str, limit: int) -> list[tuple[int, float]]:
        """Chunks matching the query's terms, by BM25 over the pipeline's fields."""
        return self.db._read(lambda c: fts_candidates(c, "memory_fts", query, limit))

    def dense_candidates(self, vector: np.ndarray, limit: int) -> list[tuple[int, float]]:
        """Nearest chunks by vec0 KNN: (id, cosine of the chunk's best window), best first."""
        if limit <= 0:
            return []
        k = min(int(limit) * 2, VEC0_MAX_K)
        q = np.asarray(vector, dtype=np.float32)
        rows = self.db._read(lambda c: c.execute(
            "SELECT rowid, distance FROM memory_vec WHERE embedding MATCH ? AND k = ? ORDER BY distance",
            (q.tobytes(), k)).fetchall())
        best: dict[int, float] = {}
        for rowid, dist in rows:
            best.setdefault(int(rowid) // MAX_WINDOWS, 1.0 - float(dist) ** 2 / 2.0)
        return list(best.items())[: int(limit)]

    def pending(self, limit: int) -> list[MemoryChunk]:
        """Chunks without vectors, oldest first."""
        rows = self.db._read(lambda c: c.execute(_CHUNK + " WHERE embedded = 0 ORDER BY id LIMIT ?",
                                                 (limit,)).fetchall())
        return [_chunk(r) for r in rows]

    def store_vectors(self, items: Iterable[tuple[int, np.ndarray]]) -> int:
        """Write the window vectors (windows × dim) of chunks that still exist and have none."""
        def work(conn: Connection) -> int:
            stored = 0
            for cid, matrix in items:
                row = conn.execute("SELECT embedded FROM memory_chunks WHERE id = ?", (cid,)).fetchone()
                if row is None or row[0]:
                    continue
                rows = np.asarray(matrix, dtype=np.float32).reshape(-1, np.shape(matrix)[-1])[:MAX_WINDOWS]
                for w, v in enumerate(rows):
                    conn.execute("INSERT INTO memory_vec (rowid, embedding) VALUES (?, ?)",
                                 (cid * MAX_WINDOWS + w, v.tobytes()))
                conn.execute("UPDATE memory_chunks SET embedded = 1 WHERE id = ?", (cid,))
                stored += 1
            return stored
        return int(self.db._write(work))

    def recalled(self, chat_id: int) -> set[int]:
        """Chunks recall already injected into this chat."""
        rows = self.db._read(lambda c: c.execute(
            "SELECT chunk_id FROM memory_recalls WHERE chat_id = ?", (chat_id,)).fetchall())
        return {int(r[0]) for r in rows}

    def mark_recalled(self, chat_id: int, chunk_ids: Iterable[int], now: float) -> None:
        """Record that these chunks were injected into this chat (never again there)."""
        params = [(chat_id, int(c), now) for c in chunk_ids]
        self.db._write(lambda c: c.executemany(
            "INSERT OR IGNORE INTO memory_recalls (chat_id, chunk_id, recalled_at) VALUES (?, ?, ?)", params))


def _crumb_text(crumbs: Sequence[tuple[str, str]]) -> str:
    """Breadcrumbs appended to the indexed text (not the stored one), so `8099` or `PROJ-12` match even when the
    pipeline cut them differently inside a sentence."""
    return ("\n" + " ".join(t for _, t in crumbs)) if crumbs else ""
