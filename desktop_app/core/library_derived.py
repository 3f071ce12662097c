"""What the Library facade derives from its settings and its store: its embedder, the search parameters, and
`trove stats`. (library_tools.py holds the functions that need no open Library.)"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from desktop_app.core.embed.auto import library_embedder, recorded_embedder
from desktop_app.core.embed.base import Embedder
from desktop_app.core.errors import KnownError
from desktop_app.core.folders import FolderInfo
from desktop_app.core.search.service import SearchParams
from desktop_app.core.settings import Settings
from desktop_app.core.store.base import Store
from desktop_app.core.store.ledger_rows import LedgerQuery

__all__ = ["first_embedder", "library_stats", "memory_items", "search_params", "settings_embedder"]


def settings_embedder(settings: Settings, store: Store, *, team: bool) -> Embedder:
    """The embedder the settings choose; on a team library the model of the server's vectors decides instead."""
    embedder = library_embedder(settings.embedder, settings.embed_batch_size, store.languages)
    if team:
        embedder = recorded_embedder(store.get_meta("embed_model"), embedder, settings.embed_batch_size)
    return embedder


def first_embedder(settings: Settings, store: Store, *, team: bool) -> Embedder:
    """settings_embedder() for a store just opened: the store is closed again when there is no embedder."""
    try:
        return settings_embedder(settings, store, team=team)
    except KnownError:
        store.close()
        raise


def search_params(settings: Settings) -> SearchParams:
    """The fusion settings the search service works with."""
    return SearchParams(keyword_weight=settings.keyword_weight, semantic_weight=settings.semantic_weight,
                        rrf_k=settings.rrf_k, fusion=settings.fusion)


def library_stats(home: Path, store: Store, folders: list[FolderInfo]) -> dict[str, Any]:
    """Counts for `trove stats` and the status bar."""
    totals = store.counts()
    engine = store.info()
    ocr = store.ocr_counts()
    return {
        "home": str(home),
        "engine": {"name": engine.engine, "version": engine.version, "location": engine.location},
        "documents": totals.documents,
        "failed": totals.failed,
        "not_read": store.ledger_not_read(LedgerQuery()),  # hidden or unsupported files: listed, not failures
        "chunks": totals.chunks,
        "chunks_embedded": totals.embedded,
        "embedding_model": store.get_meta("embed_model"),
        "embedding_error": store.get_meta("embed_error"),
        "folders": [f.__dict__ for f in folders],
        "search_folders": sorted({f.path for f in store.all_folders()}),  # + what other desktops share
        "failures": [{"path": f.path, "reason": f.reason} for f in [*store.failures(), *store.ocr_failures()]],
        "ocr": {"pages_pending": ocr.pending, "pages_done": ocr.done, "pages_failed": ocr.failed,
                "error": store.get_meta("ocr_error")},
        "languages": [[lang, n] for lang, n in store.languages()],
        "formats": [[kind, n] for kind, n in store.formats()],
        "dates": dict(zip(("documents", "from", "to"), store.document_dates(), strict=True)),  # own dates only
        "tags": [[tag, n] for tag, n in store.tag_counts()],
        "memory_items": memory_items(store),
        "keyword_rebuild_pending": store.keyword_rebuild_pending(),
        "database_bytes": engine.size_bytes,
    }


def memory_items(store: Store) -> int:
    """Facts and past-chat excerpts memory holds, 0 while memory is off (the search pane offers its scope only
    when there is something to search)."""
    facts, chunks = store.memory_facts(), store.memory_chunks()
    return len(facts.facts(current_only=True)) + chunks.count() if facts.enabled() else 0
