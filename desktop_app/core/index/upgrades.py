"""Derived data brought up to the current pipeline at the start of a sync: the keyword index after a text pipeline
change, the chunks after a chunker change. Both are resumable and leave search working on what is there."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from desktop_app.core.events import IndexProgress, ProgressPhase
from desktop_app.core.ingest.chunking import CHUNKER_VERSION
from desktop_app.core.store.base import Store


def rebuild_keywords(store: Store, stopping: threading.Event, emit: Callable[[IndexProgress], None],
                     batch: int = 500) -> None:
    """Refill the keyword index from stored chunk text when the text pipeline changed (a batch per transaction),
    with progress; stops between batches when the library closes."""
    left = store.keyword_rebuild_pending()
    total, started = left, time.monotonic()
    while left and not stopping.is_set():
        left = store.rebuild_keywords(batch)
        done = total - left
        rate = done / max(time.monotonic() - started, 1e-6)
        emit(IndexProgress(ProgressPhase.REBUILD, chunks_embedded=done, chunks_total=total, rate=rate,
                           eta_seconds=left / rate if rate else None))


def rechunk_if_stale(store: Store) -> None:
    """Files chunked by another CHUNKER_VERSION (on a team library: this machine's) look changed once, so this and
    later syncs cut them again; chunks whose text is unchanged keep their vectors."""
    key = "chunker" + (f":{store.machine_id}" if store.machine_id else "")
    if store.get_meta(key) != str(CHUNKER_VERSION):
        store.forget_content_hashes()
        store.set_meta(key, str(CHUNKER_VERSION))
