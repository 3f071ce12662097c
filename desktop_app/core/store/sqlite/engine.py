"""SQLiteStore: the Store protocol on one SQLite file (WAL, one writer, a reader per thread)."""

from __future__ import annotations

from pathlib import Path

import sqlean

from desktop_app.core.store.base import MemoryChunks, MemoryFacts
from desktop_app.core.store.rows import EngineInfo
from desktop_app.core.store.sqlite.backup.export import ExportSQL
from desktop_app.core.store.sqlite.backup.live import BackupSQL
from desktop_app.core.store.sqlite.chats import ChatSQL
from desktop_app.core.store.sqlite.documents import DocumentSQL
from desktop_app.core.store.sqlite.folders import FolderSQL
from desktop_app.core.store.sqlite.formats import FormatSQL
from desktop_app.core.store.sqlite.keyword.fts5 import KeywordSQL
from desktop_app.core.store.sqlite.ledger import LedgerSQL
from desktop_app.core.store.sqlite.links import LinkSQL
from desktop_app.core.store.sqlite.machines import MachineSQL
from desktop_app.core.store.sqlite.ocr import OcrSQL
from desktop_app.core.store.sqlite.search import SearchSQL
from desktop_app.core.store.sqlite.vectors import VectorSQL


class SQLiteStore(FolderSQL, DocumentSQL, VectorSQL, KeywordSQL, OcrSQL, SearchSQL, ChatSQL, MachineSQL,
                  ExportSQL, FormatSQL, BackupSQL, LedgerSQL, LinkSQL):
    """The embedded library engine. `SQLiteStore(path)` opens (and migrates) the file; ":memory:" works too."""

    # Hybrid search runs its sides one after the other here: both are this process's CPU work, and on 2 cores,
    # timed fairly (bench/scale.py's alternating passes, bench/hybrid_sides.py with the real query embedder, whose
    # ONNX Runtime takes both cores), at once was as fast at p50 and 1-4 ms slower at p95 (docs/benchmarks.md).
    SIDES_AT_ONCE = False

    def __init__(self, path: str | Path) -> None:
        super().__init__(path)
        # An empty library's keyword index is current: record the tokenizer version it will be made with. Asked
        # with LIMIT 1, not counts() (a scan: 2 s of every open at 1M chunks).
        if not self.read_only and self._read(lambda c: c.execute("SELECT 1 FROM chunks LIMIT 1").fetchone()) is None:
            self.rebuild_keywords(1)

    def info(self) -> EngineInfo:
        """Engine, SQLite version, the file and its size (with the WAL)."""
        size = 0
        if self.path is not None:
            for part in self.path.parent.glob(self.path.name + "*"):
                try:
                    size += part.stat().st_size
                except OSError:
                    pass
        return EngineInfo("sqlite", sqlean.sqlite_version, str(self.path or ":memory:"), size)

    def memory_facts(self) -> MemoryFacts:
        """This library's remembered facts and memory switch (memory.py)."""
        # Imported here, not at the top: every process loads this engine (the embedded default), and one whose
        # library is on a server must not load SQLite's memory SQL (tests/unit/layout/test_memory_seam.py).
        from desktop_app.core.store.sqlite.memory.facts import MemoryFactSQL

        return MemoryFactSQL(self)

    def memory_chunks(self) -> MemoryChunks:
        """This library's raw history chunks (memory_chunks.py); imported here for the reason above."""
        from desktop_app.core.store.sqlite.memory.chunks import MemoryChunkSQL

        return MemoryChunkSQL(self)

    @property
    def db_path(self) -> Path | None:
        """The database file (None in memory)."""
        return self.path
