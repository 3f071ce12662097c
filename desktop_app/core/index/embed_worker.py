"""The semantic phase: a background thread gives vectors to chunks that have none, in batches."""

from __future__ import annotations

import time
from collections.abc import Callable

from desktop_app.core.embed.base import Embedder, embed_passages
from desktop_app.core.events import IndexProgress, Notice
from desktop_app.core.index.phase import BackgroundPhase
from desktop_app.core.store.base import Store
from desktop_app.core.store.rows import ChunkVectors

MIN_ROUND = 16  # chunks in the first round, before the rate is known


def next_round_size(last_size: int, last_seconds: float, target_seconds: float, largest: int) -> int:
    """How many chunks the next round takes so that it lasts about `target_seconds` (within [MIN_ROUND, largest])."""
    if last_seconds <= 0:
        return largest
    wanted = int(last_size * target_seconds / last_seconds)
    return max(min(MIN_ROUND, largest), min(largest, wanted))


class EmbedWorker(BackgroundPhase):
    """The semantic phase: gives vectors to chunks that have none, in rounds of a few seconds."""

    name = "semantic indexing"
    verb = "embedding"
    error_key = "embed_error"

    def __init__(self, store: Store, embedder: Embedder, *, batch: int = 512, round_seconds: float = 3.0,
                 emit: Callable[[IndexProgress], None] | None = None,
                 notify: Callable[[Notice], None] | None = None) -> None:
        super().__init__(store, emit=emit, notify=notify)
        self.embedder = embedder
        self.batch = batch  # the largest round
        self.round_seconds = round_seconds

    def run_pending(self) -> int:
        """Embed every pending chunk, round by round (each round one transaction). Returns how many got vectors.

        Rounds are sized to take about `round_seconds` at the measured rate, so a kill loses seconds of work and
        files become semantically searchable progressively, without making the model's batches tiny.
        """
        total = self.store.count_pending()
        done, after, started = 0, 0, time.monotonic()
        size = min(MIN_ROUND, self.batch)
        while not self.stopping:
            rows = self.store.pending_chunks(size, after)
            if not rows:
                break
            after = rows[-1].id
            round_started = time.monotonic()
            vectors = embed_passages(self.embedder, [row.text for row in rows])
            done += self.store.store_vectors(
                ChunkVectors(row.id, row.text_hash, vec) for row, vec in zip(rows, vectors, strict=True))
            size = next_round_size(len(rows), time.monotonic() - round_started, self.round_seconds, self.batch)
            elapsed = time.monotonic() - started
            rate = done / elapsed if elapsed > 0 else 0.0
            self.emit(IndexProgress("semantic", chunks_embedded=done, chunks_total=max(total, done), rate=rate,
                                    eta_seconds=(max(total - done, 0) / rate) if rate else None))
        return done
