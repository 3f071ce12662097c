"""PostgresStore: the Store protocol on a PostgreSQL server with pgvector (a team library)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from desktop_app.core.errors import KnownError
from desktop_app.core.log import get_logger
from desktop_app.core.store.base import MemoryChunks, MemoryFacts
from desktop_app.core.store.postgres.access.permissions import display_name, is_person
from desktop_app.core.store.postgres.chats import ChatSQL
from desktop_app.core.store.postgres.connect import ServerAuthError, scalar
from desktop_app.core.store.postgres.documents import DocumentSQL
from desktop_app.core.store.postgres.export import ExportSQL
from desktop_app.core.store.postgres.folders import FolderSQL
from desktop_app.core.store.postgres.formats import FormatSQL
from desktop_app.core.store.postgres.keywords import KeywordSQL
from desktop_app.core.store.postgres.ledger import LedgerSQL
from desktop_app.core.store.postgres.links import LinkSQL
from desktop_app.core.store.postgres.memory.chunks import PgMemoryChunkSQL
from desktop_app.core.store.postgres.memory.facts import PgMemoryFactSQL
from desktop_app.core.store.postgres.ocr import OcrSQL
from desktop_app.core.store.postgres.search import SearchSQL
from desktop_app.core.store.postgres.vectors import VectorSQL
from desktop_app.core.store.rows import EngineInfo
from desktop_app.core.store.side.copies import forget

log = get_logger("db")


class PostgresStore(FolderSQL, DocumentSQL, VectorSQL, KeywordSQL, OcrSQL, SearchSQL, ChatSQL, ExportSQL, FormatSQL,
                    LedgerSQL, LinkSQL):
    """A library on a server. `PostgresStore(url)` connects (and migrates); many desktops may open it at once,
    each under its own machine id (`machine=` or desktop_app.core.machine). `side_dir`: where this desktop may
    keep side indexes of the library for search at scale (postgres/side.py); None keeps every search on the server."""

    SIDES_AT_ONCE = True  # hybrid search's two sides wait on the server at the same time (core/search/side_pool.py)

    def __init__(self, url: str, *, machine: str | None = None, side_dir: Path | None = None) -> None:
        try:
            super().__init__(url, machine=machine, side_dir=side_dir)
        except ServerAuthError:
            if side_dir is not None:  # refused (revoked, not admitted): what it could read leaves this disk
                forget(side_dir, url)
            raise
        try:
            self.role, self.person = self._read(
                lambda c: (str(scalar(c.execute("SELECT current_user"))), is_person(c)))
            self._bind_machine()
        except BaseException:
            self.close()
            raise
        if not self.features.get("trgm"):
            log.info("pg_trgm is not available on this server: typo-tolerant title matching is off")
        if not self.person and not self._read(lambda c: c.execute("SELECT 1 FROM chunks LIMIT 1").fetchone()):
            self.rebuild_keywords(1)  # an empty index is current: record the tokenizer version it will be made with

    def _bind_machine(self) -> None:
        """Record this machine id under this role (the first role to use an id keeps it: a policy stops anyone
        else from writing its folders, watchers or leases). A person whose id is another role's is refused."""
        def work(conn: Any) -> str:
            conn.execute("INSERT INTO machines (machine_id) VALUES (%s) ON CONFLICT DO NOTHING", (self.machine_id,))
            return str(scalar(conn.execute("SELECT role FROM machines WHERE machine_id = %s", (self.machine_id,))))
        owner = self._write(work)
        if owner != self.role and self.person:
            raise KnownError(f"This computer's machine id ({self.machine_id}) belongs to {display_name(owner)} in "
                             "this team library, so it cannot be used as you: unset TROVE_MACHINE_ID (or use your "
                             "own computer); nothing was changed.")

    def memory_facts(self) -> MemoryFacts:
        """The person's remembered facts and memory switch (memory.py: their own rows only)."""
        return PgMemoryFactSQL(self)

    def memory_chunks(self) -> MemoryChunks:
        """The person's raw history chunks (memory/chunks.py)."""
        return PgMemoryChunkSQL(self)

    def info(self) -> EngineInfo:
        """Engine, server version, the URL without its password, and the database size."""
        size = self._read(lambda c: scalar(c.execute("SELECT pg_database_size(current_database())")))
        return EngineInfo("postgresql", self.server_version, self.location, int(size or 0))
