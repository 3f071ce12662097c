"""The semantic phase: a background thread gives vectors to chunks that have none, in batches.

Its progress names the file it is on and the time left; chunks outside its scope (a paused folder, a big log,
CSV export or mailbox: index/semantic_scope.py) are left without vectors and do not count in the time left."""

from __future__ import annotations

import time
from collections.abc import Callable

from desktop_app.core.embed.base import Embedder, embed_passages
from desktop_app.core.events import IndexProgress, Notice, NoticeLevel, ProgressPhase
from desktop_app.core.index.background_phase import BackgroundPhase
from desktop_app.core.index.semantic_scope import SemanticScope
from desktop_app.core.settings import Settings
from desktop_app.core.store.base import Store
from desktop_app.core.store.rows import ChunkVectors, PendingChunk

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
                 settings: Settings | None = None, emit: Callable[[IndexProgress], None] | None = None,
                 notify: Callable[[Notice], None] | None = None) -> None:
        super().__init__(store, emit=emit, notify=notify)
        self.embedder = embedder
        self.batch = batch  # the largest round
        self.round_seconds = round_seconds
        self.settings = settings  # keyword_only_mb and semantic_paused_folders (None: every chunk)
        self.skipped = 0  # chunks the last run left keyword-only or paused

    def _choose_model(self) -> None:
        """An "auto" embedder chooses again from the library's languages; a new model means new vectors."""
        refresh = getattr(self.embedder, "refresh", None)
        if refresh is None or not refresh():
            return
        if self.store.ensure_embedding_model(self.embedder.model_id, self.embedder.dim):
            self.notify(Notice(NoticeLevel.INFO, f"Semantic search now uses {self.embedder.model_id}, the model "
                                                 "for the languages this library holds; its vectors are being "
                                                 "recomputed."))

    def scope(self) -> SemanticScope:
        """What this run embeds, from the settings as they are now."""
        s = self.settings
        if s is None:
            return SemanticScope(self.store)
        return SemanticScope(self.store, keyword_only_mb=s.keyword_only_mb, paused=tuple(s.semantic_paused_folders))

    def run_pending(self) -> int:
        """Embed every pending chunk in scope, round by round (each round one transaction). Returns how many got
        vectors.

        Rounds are sized to take about `round_seconds` at the measured rate, so a kill loses seconds of work and
        files become semantically searchable progressively, without making the model's batches tiny. A document
        found out of scope is left out by the store's pending query from then on: its chunks are read once, not
        every round.
        """
        self._choose_model()
        scope = self.scope()
        skip: set[int] = set()
        total = self.store.count_pending()
        done, after, started = 0, 0, time.monotonic()
        self.skipped = 0
        size = min(MIN_ROUND, self.batch)
        while not self.stopping:
            rows = self.store.pending_chunks(size, after, skip_documents=skip)
            if not rows:
                break
            after = rows[-1].id
            rows, current = self._in_scope(rows, scope, skip)
            if not rows:
                continue
            round_started = time.monotonic()
            vectors = embed_passages(self.embedder, [row.text for row in rows])
            done += self.store.store_vectors(
                ChunkVectors(row.id, row.text_hash, vec) for row, vec in zip(rows, vectors, strict=True))
            size = next_round_size(len(rows), time.monotonic() - round_started, self.round_seconds, self.batch)
            elapsed = time.monotonic() - started
            rate = done / elapsed if elapsed > 0 else 0.0
            left = max(total - self.skipped - done, 0)
            self.emit(IndexProgress(ProgressPhase.SEMANTIC, chunks_embedded=done, chunks_total=done + left, rate=rate,
                                    current_file=current, eta_seconds=(left / rate) if rate else None))
        if self.skipped and not self.stopping:  # what was left out is not work left: the phase is done
            self.emit(IndexProgress(ProgressPhase.SEMANTIC, chunks_embedded=done, chunks_total=done, eta_seconds=0.0))
        return done

    def _in_scope(self, rows: list[PendingChunk], scope: SemanticScope,
                  skip: set[int]) -> tuple[list[PendingChunk], str]:
        """The rows this run embeds, and the file the last of them is in (what progress names). The documents of
        the others join `skip`, and `skipped` counts every pending chunk of them."""
        info = self.store.chunk_rows([row.id for row in rows])
        kept = [row for row in rows if row.id not in info or scope.wanted(info[row.id])]
        if len(kept) < len(rows):
            kept_ids = {row.id for row in kept}
            skip.update(info[row.id].document_id for row in rows if row.id not in kept_ids)
            self.skipped = self.store.count_pending() - self.store.count_pending(skip_documents=skip)
        last = info.get(kept[-1].id) if kept else None
        return kept, (last.container or last.path) if last is not None else ""
