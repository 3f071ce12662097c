"""A desktop's side indexes of a team library: the shared keyword and vector side indexes (side/keyword_index.py,
side/vector_index.py), built on this computer from what this person may read; here, what the team engine feeds
them (its SQL), and where the files live and what they may hold is side/copies.py.

The server's own plans do not keep up at a million chunks (docs/search-scale.md): ts_rank ranks every row that
matches any term, and pgvector's HNSW loses the exact top 10 among near-copies. The side indexes answer from
this desktop instead, and the server still decides who reads what:

- **Built from what row-level security lets this role read**, in one REPEATABLE READ snapshot: the rows and
  the generation they belong to. The files live under the person's own Trove home, one directory per server,
  database and role, so nothing another person may not see is ever on their disk by this path.
- **The generation** is a fingerprint of the `side_generations` rows this role can see (migration 009): per
  folder, a counter the writing transaction bumps (chunks written, deleted, moved or re-tokenised, titles and
  types for keywords; vectors stored or dropped for vectors). A write anywhere visible, a folder shared with this
  person or hidden from them, changes the fingerprint; the index is then stale and rebuilt in the background
  once writes settle, while search uses the server's plans (SideIndex, as on SQLite).
- **Every candidate is re-read through row-level security** before it is returned (`visible`): a folder made
  private after the build, or a chunk deleted since, is dropped, and when that leaves fewer than asked the
  server's own plan answers. Text, titles and paths shown always come from the server (chunk_rows).
- **A copy of what the person may no longer read is deleted** (`prune`, `forget`): `folders.json` beside the
  files records every folder they were built from (and every folder seen since); when a search finds one of
  them no longer readable (unshared, or the folder gone), the files are removed before anything answers, and
  rebuilt from what is readable now. A role the server refuses at connect (revoked, out of the library's group,
  password rotated) loses its whole directory for that library (`forget`, from PostgresStore's connect).
"""

from __future__ import annotations

import contextlib
import hashlib
import shutil
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import psycopg
from pgvector.psycopg import register_vector

import desktop_app.core.store.postgres.connect as pgc
from desktop_app.core.embed.base import MAX_WINDOWS
from desktop_app.core.log import get_logger
from desktop_app.core.store.postgres.base import PostgresBase
from desktop_app.core.store.postgres.textcodec import register_text_codec
from desktop_app.core.store.side import keyword_index as ki
from desktop_app.core.store.side import vector_index as vi
from desktop_app.core.store.side.base import of_store
from desktop_app.core.store.side.copies import COVERED, covered, record, side_home

log = get_logger("db")

_BATCH = 5_000
FOLDERS_SQL = "SELECT folder_id FROM side_generations"
GENERATIONS_SQL = "SELECT folder_id, keywords, vectors FROM side_generations ORDER BY folder_id"
# No dates or tags: the server's side_generations do not count their changes, so this desktop's copy cannot hold them
# (a date or tag filter asks the server: keywords.py).
ROWS_SQL = ("SELECT c.id, c.text, d.title, d.path, d.folder_id, d.type, c.lang, NULL, NULL, NULL FROM chunks c "
            "JOIN documents d ON d.id = c.document_id")
VECTORS_SQL = f'SELECT chunk_id * {MAX_WINDOWS} + "window", embedding FROM chunk_vectors'
VISIBLE_SQL = "SELECT id FROM chunks WHERE id = ANY(%s)"
CHUNKS_SQL = "SELECT COALESCE(sum(chunks), 0) FROM doc_counts"


def prune(store: PostgresBase, conn: psycopg.Connection, where: Path) -> bool:
    """Delete `where`'s side indexes when they may hold a folder this role can no longer read (and drop the
    store's loaded copies of them); then record what is readable now. True when something was deleted."""
    now = {int(r[0]) for r in conn.execute(FOLDERS_SQL, prepare=True)}
    gone = covered(where) - now
    if gone:
        for name in ("_side_keywords", "_side_vectors"):
            store.__dict__.pop(name, None)  # a running build finishes into a discarded object
        for child in where.iterdir():
            if child.is_dir():
                shutil.rmtree(child, ignore_errors=True)
            else:
                with contextlib.suppress(FileNotFoundError):
                    child.unlink()
        log.info("%d folder(s) are no longer readable here: this desktop's side indexes of %s are deleted and "
                 "will be rebuilt from what is", len(gone), store.location)
        (where / COVERED).unlink(missing_ok=True)
    record(where, now)
    return bool(gone)


def fingerprint(rows: Sequence[tuple[int, int]]) -> int:
    """A generation from (folder id, counter) pairs: any counter moving, or a folder seen or unseen, changes it."""
    text = ";".join(f"{f}:{n}" for f, n in rows)
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little") >> 2


def generations(conn: psycopg.Connection) -> tuple[int, int]:
    """(keyword generation, vector generation) of what this role sees."""
    rows = conn.execute(GENERATIONS_SQL, prepare=True).fetchall()
    return fingerprint([(r[0], r[1]) for r in rows]), fingerprint([(r[0], r[2]) for r in rows])


def visible(conn: psycopg.Connection, chunk_ids: Sequence[int]) -> set[int]:
    """The chunks among these that exist and this role may read (row-level security decides)."""
    if not chunk_ids:
        return set()
    return {int(r[0]) for r in conn.execute(VISIBLE_SQL, (list(chunk_ids),), prepare=True)}


@contextmanager
def _snapshot(url: str) -> Iterator[psycopg.Connection]:
    """A connection of its own in one read-only REPEATABLE READ transaction (the build reads for minutes)."""
    try:
        conn = psycopg.connect(url, connect_timeout=pgc.CONNECT_TIMEOUT)
    except psycopg.Error as exc:
        raise pgc.translate_connect_error(exc, url) from None
    try:
        register_text_codec(conn)
        register_vector(conn)
        conn.rollback()  # registering read the types: the snapshot's transaction starts with the next statement
        conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        yield conn
        conn.rollback()
    finally:
        conn.close()


def _snapshot_folders(conn: psycopg.Connection, where: Path | None) -> None:
    """Record the folders a build's snapshot reads (before it writes anything of them into `where`)."""
    if where is not None:
        record(where, {int(r[0]) for r in conn.execute(FOLDERS_SQL)})


@contextmanager
def server_rows(url: str, where: Path | None = None) -> Iterator[tuple[int, Iterator[Sequence[ki.Row]]]]:
    """The keyword generation and every chunk row this role may read, from one snapshot."""
    with _snapshot(url) as conn:
        _snapshot_folders(conn, where)
        generation = generations(conn)[0]
        with conn.cursor(name="trove_side_rows") as cursor:
            cursor.execute(ROWS_SQL)
            yield generation, iter(lambda: cursor.fetchmany(_BATCH), [])


@contextmanager
def server_vectors(url: str, where: Path | None = None) -> Iterator[tuple[int, int, Iterator[vi.Batch]]]:
    """The vector generation, the vector count and every window vector this role may read, from one snapshot."""
    with _snapshot(url) as conn:
        _snapshot_folders(conn, where)
        generation = generations(conn)[1]
        total = int(conn.execute("SELECT count(*) FROM chunk_vectors").fetchone()[0])  # type: ignore[index]
        with conn.cursor(name="trove_side_vectors", binary=True) as cursor:
            cursor.execute(VECTORS_SQL)

            def batches() -> Iterator[vi.Batch]:
                while rows := cursor.fetchmany(_BATCH):
                    keys = np.fromiter((r[0] for r in rows), dtype=np.uint64, count=len(rows))
                    yield keys, np.stack([_floats(r[1]) for r in rows]).tobytes()
            yield generation, total, batches()


def _floats(value: object) -> np.ndarray:
    """A pgvector value as float32 (the binary loader gives a Vector, the text one an array)."""
    to_numpy = getattr(value, "to_numpy", None)
    return np.asarray(to_numpy() if to_numpy else value, dtype=np.float32)


class ServerKeywords(ki.KeywordIndex):
    """The keyword side index of a team library, on this desktop (`where`: side_home)."""

    meanwhile = "keyword search asks the server"

    def __init__(self, where: Path, url: str) -> None:
        super().__init__(where / "library")
        self.url = url
        self.where = where

    def generation(self, conn: psycopg.Connection) -> int:
        return generations(conn)[0]

    def count(self, conn: psycopg.Connection) -> int:
        return int(conn.execute(CHUNKS_SQL).fetchone()[0])  # type: ignore[index]

    def build(self) -> tuple[ki.Keywords, int]:
        return ki.build_index(self.path(), lambda: server_rows(self.url, self.where))


class ServerVectors(vi.VectorIndex):
    """The vector side index of a team library, on this desktop (`where`: side_home)."""

    meanwhile = "semantic search asks the server"

    def __init__(self, where: Path, url: str) -> None:
        super().__init__(where / "library")
        self.url = url
        self.where = where

    def generation(self, conn: psycopg.Connection) -> int:
        return generations(conn)[1]

    def count(self, conn: psycopg.Connection) -> int:
        return int(conn.execute(CHUNKS_SQL).fetchone()[0])  # type: ignore[index]

    def build(self) -> tuple[vi.Loaded, int]:
        return vi.build_index(self.path(), self.dim, lambda: server_vectors(self.url, self.where))


# ---- searching through them ------------------------------------------------------------------------------------

SLACK = 10  # candidates asked beyond `limit`, for those row-level security or a delete has taken away since


def keyword_side(store: PostgresBase, conn: psycopg.Connection) -> ki.Keywords | None:
    """The store's keyword side index when it is current for this role (None: the server's plan answers)."""
    where = _where(store)
    if where is None:
        return None
    prune(store, conn, where)
    url = store.url
    return of_store(store, "_side_keywords", lambda: ServerKeywords(where, url)).usable(conn)


def vector_side(store: PostgresBase, conn: psycopg.Connection, dim: int) -> vi.Loaded | None:
    """The store's vector side index when it is current for this role and `dim` (None: the server's plan answers)."""
    where = _where(store)
    if where is None:
        return None
    prune(store, conn, where)
    url = store.url
    return of_store(store, "_side_vectors", lambda: ServerVectors(where, url)).at(conn, dim)


def _where(store: PostgresBase) -> Path | None:
    root = store.side_dir
    if root is None:
        return None
    return of_store(store, "_side_home", lambda: side_home(root, store.location, str(getattr(store, "role", ""))))


def checked(conn: psycopg.Connection, search: Callable[[int], list[tuple[int, float]]],
            limit: int) -> list[tuple[int, float]] | None:
    """The best `limit` of a side index's answer that this role may read now; None when too many of them are no
    longer there to read (a folder hidden or chunks deleted since the build): the server's plan answers then."""
    asked = limit + SLACK
    hits = search(asked)
    seen = visible(conn, [cid for cid, _ in hits])
    kept = [h for h in hits if h[0] in seen]
    if len(kept) >= limit or len(hits) < asked:
        return kept[:limit]
    return None
