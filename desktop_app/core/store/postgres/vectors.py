"""The vector side of the PostgreSQL engine: pgvector rows keyed by (chunk, window), an HNSW cosine index."""

from __future__ import annotations

from collections.abc import Collection, Iterable

import psycopg

from desktop_app.core.errors import KnownError
from desktop_app.core.store.postgres.base import PostgresBase
from desktop_app.core.store.postgres.chunks import insert_vectors
from desktop_app.core.store.postgres.connect import scalar
from desktop_app.core.store.postgres.folders import MY_FOLDER_IDS
from desktop_app.core.store.rows import ChunkVectors, PendingChunk

MODEL_LOCK = 0x7472_6F77  # serialises two desktops that switch the embedding model at once

# Chunks this machine embeds: those of folders it watches (another desktop embeds its own).
_PENDING = f"NOT c.embedded AND c.document_id IN (SELECT id FROM documents WHERE folder_id IN ({MY_FOLDER_IDS}))"
# ... leaving out the documents the semantic phase skips (an empty array skips none).
_SKIP = " AND NOT (c.document_id = ANY(%(skip)s::bigint[]))"


class VectorSQL(PostgresBase):
    """Pending chunks, vectors, and the record of which model made them."""

    person: bool = False

    def ensure_embedding_model(self, model_id: str, dim: int) -> bool:
        """A different model (or size) drops every vector for re-embedding. True when the vectors were reset.

        Only the administrator may do that: a person's desktop records the model of a library that has none yet
        (when the vector column already has its size) and is refused one line otherwise, never touching vectors
        other people's desktops made (Library uses the recorded model instead)."""
        def work(conn: psycopg.Connection) -> bool:
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (MODEL_LOCK,))
            meta: dict[str, str] = dict(conn.execute(
                "SELECT key, value FROM meta WHERE key IN ('embed_model', 'embed_dim')").fetchall())
            if meta.get("embed_model") == model_id and meta.get("embed_dim") == str(dim):
                return False
            if self.person:
                _record_first_model(conn, meta, model_id, dim)
                return True
            if meta.get("embed_model") is not None or _column_dim(conn) != dim:
                _recreate_vectors(conn, dim)
            for key, value in (("embed_model", model_id), ("embed_dim", str(dim))):
                conn.execute("INSERT INTO meta (key, value) VALUES (%s, %s) "
                             "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value", (key, value))
            return True
        return self._write(work)

    def count_pending(self, *, skip_documents: Collection[int] = ()) -> int:
        """Chunks of this machine's folders without vectors (not counting those of `skip_documents`)."""
        return int(self._read(lambda c: scalar(c.execute(
            "SELECT count(*) FROM chunks c WHERE " + _PENDING + _SKIP,
            {"m": self.machine_id, "skip": sorted(skip_documents)}))))

    def pending_chunks(self, limit: int, after_id: int = 0, document_id: int | None = None, *,
                       skip_documents: Collection[int] = ()) -> list[PendingChunk]:
        """Chunks without vectors, in id order (of this machine's folders, or of one document; none of
        `skip_documents`: what the semantic phase leaves out)."""
        if document_id is None:
            sql, args = ("SELECT c.id, c.text_hash, c.text FROM chunks c WHERE " + _PENDING + _SKIP +
                         " AND c.id > %(after)s ORDER BY c.id LIMIT %(n)s",
                         {"m": self.machine_id, "after": after_id, "n": limit, "skip": sorted(skip_documents)})
        else:
            sql, args = ("SELECT c.id, c.text_hash, c.text FROM chunks c WHERE NOT c.embedded AND c.id > %(after)s "
                         "AND c.document_id = %(doc)s" + _SKIP + " ORDER BY c.id LIMIT %(n)s",
                         {"after": after_id, "doc": document_id, "n": limit, "skip": sorted(skip_documents)})
        rows = self._read(lambda c: c.execute(sql, args).fetchall())
        return [PendingChunk(int(r[0]), r[1], r[2]) for r in rows]

    def store_vectors(self, items: Iterable[ChunkVectors]) -> int:
        """Write window vectors for chunks that still exist with the same text."""
        wanted = list(items)
        if not wanted:
            return 0

        def work(conn: psycopg.Connection) -> int:
            current: dict[int, str] = dict(conn.execute(
                "SELECT id, text_hash FROM chunks WHERE id = ANY(%s) FOR UPDATE", ([i.chunk_id for i in wanted],)
            ).fetchall())
            keep = [(i.chunk_id, i.vectors) for i in wanted if current.get(i.chunk_id) == i.text_hash]
            if keep:
                insert_vectors(conn, keep)
            return len(keep)
        return self._write(work, derived=True)

    def has_vectors(self) -> bool:
        """Whether any chunk has vectors."""
        return self._read(lambda c: c.execute("SELECT 1 FROM chunk_vectors LIMIT 1").fetchone() is not None)


def _record_first_model(conn: psycopg.Connection, meta: dict[str, str], model_id: str, dim: int) -> None:
    """A person's desktop names the model of a library without one; any other change is the administrator's."""
    if meta.get("embed_model") is not None or _column_dim(conn) != dim:
        raise KnownError(f"This team library's vectors are made by {meta.get('embed_model') or 'another model'} "
                         f"({meta.get('embed_dim') or _column_dim(conn)} dimensions), not {model_id}; only its "
                         "administrator can change the model. Semantic search uses the library's model.")
    conn.execute("INSERT INTO meta (key, value) VALUES ('embed_model', %s), ('embed_dim', %s)", (model_id, str(dim)))


def _column_dim(conn: psycopg.Connection) -> int | None:
    """The size chunk_vectors.embedding was declared with (pgvector keeps it as the type modifier)."""
    row = conn.execute("SELECT atttypmod FROM pg_attribute WHERE attrelid = 'chunk_vectors'::regclass "
                       "AND attname = 'embedding'").fetchone()
    return int(row[0]) if row and row[0] and row[0] > 0 else None


def _recreate_vectors(conn: psycopg.Connection, dim: int) -> None:
    """No vectors, the column re-declared for `dim`, the HNSW index rebuilt; every chunk is pending again."""
    conn.execute("TRUNCATE chunk_vectors")
    conn.execute("DROP INDEX IF EXISTS chunk_vectors_hnsw")
    conn.execute(f"ALTER TABLE chunk_vectors ALTER COLUMN embedding TYPE vector({int(dim)})")
    conn.execute("CREATE INDEX chunk_vectors_hnsw ON chunk_vectors USING hnsw (embedding vector_cosine_ops)")
    conn.execute("UPDATE chunks SET embedded = false WHERE embedded")
