"""One search over facts, raw chat history and the library's documents: tiered, with provenance and freshness.

Tiers: curated facts first (a few slots), then history excerpts and document passages. Within a tier, keyword
(BM25 over core/text's fields, so every script) and vector candidates are fused as document search fuses them.
Every hit says where it came from: a fact's key, age, source and confidence; an excerpt's chat title, turns and
date; a passage's file. Freshness: a corrected fact is still found, flagged outdated, and so is a history excerpt
that states a value a newer fact replaced (it names the old value and not the new one).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import numpy as np
import regex

from desktop_app.core.memory.facts import FactBook, age_text, fact_text
from desktop_app.core.memory.rows import Fact, MemoryChunk, MemoryHit
from desktop_app.core.search.fusion import convex_fuse
from desktop_app.core.store.memory_rows import fact_title
from desktop_app.core.text import build_query
from desktop_app.core.text.fields import analyze
from desktop_app.core.text.query import STOPWORDS
from desktop_app.core.types import RetrievalResult

if TYPE_CHECKING:
    from desktop_app.core.store.base import MemoryChunks

SCOPES = ("memory", "documents", "all")
FACT_TIER, HISTORY_TIER, DOCUMENT_TIER = 0, 1, 2
FACT_SLOTS = 3  # at most this many facts lead a result list
FACT_MIN_SIMILARITY = 0.45  # a fact found only by its vector must be at least this close (MiniLM cosine)
FACT_MIN_COVERAGE = 0.5  # ... or hold this share of the query's terms (or the query names its key)
MIN_SIMILARITY = 0.2  # dense candidates below this are noise (as in document search)
MIN_CANDIDATES = 50

QueryVector = Callable[[str], np.ndarray | None]
Documents = Callable[[str, int], list[RetrievalResult]]


def date_text(when: float) -> str:
    """A timestamp as an ISO date (UTC)."""
    return datetime.fromtimestamp(when, UTC).strftime("%Y-%m-%d")


class MemorySearch:
    """Searches one library's memory (and, for scope "all", its documents through `documents`)."""

    def __init__(self, facts: FactBook, chunks: MemoryChunks, query_vector: QueryVector,
                 documents: Documents | None = None, clock: Callable[[], float] = time.time) -> None:
        self.facts = facts
        self.chunks = chunks
        self.query_vector = query_vector
        self.documents = documents
        self.clock = clock

    def search(self, query: str, top_k: int = 10, scope: str = "memory", *,
               fact_slots: int = FACT_SLOTS) -> list[MemoryHit]:
        """The best `top_k` hits for `query` in `scope` ("memory", "documents" or "all"), tiered."""
        if scope not in SCOPES:
            raise ValueError(f"unknown scope {scope!r}; use one of {', '.join(SCOPES)}")
        if top_k <= 0 or not (query or "").strip():
            return []
        if scope == "documents":
            return self.document_hits(query, top_k)
        qvec = self.query_vector(query)
        facts = self.fact_hits(query, qvec, min(fact_slots, top_k))
        rest = self.history_hits(query, qvec, top_k)
        if scope == "all":
            rest = sorted(rest + self.document_hits(query, top_k), key=lambda h: -h.score)
        return (facts + rest)[:top_k]

    # ---- facts ---------------------------------------------------------------------------------

    def fact_hits(self, query: str, qvec: np.ndarray | None, limit: int) -> list[MemoryHit]:
        """Facts matching the query by keyword, or close to it by vector; current ones before outdated ones."""
        if limit <= 0:
            return []
        keyword = self.facts.sql.fact_keyword_candidates(query, MIN_CANDIDATES)
        dense = [h for h in self.facts.similar(qvec, MIN_CANDIDATES) if h[1] >= FACT_MIN_SIMILARITY] \
            if qvec is not None else []
        fused = convex_fuse([keyword, dense])
        known = self.facts.sql.facts_by_id(fid for fid, _ in fused)
        now = self.clock()
        cosines = dict(dense)
        hits = [self.fact_hit(known[fid], score, now, known) for fid, score in fused
                if fid in known and not known[fid].expired(now) and about(known[fid], query, cosines.get(fid))]
        hits.sort(key=lambda h: (h.outdated, -h.score))
        return hits[:limit]

    def fact_hit(self, fact: Fact, score: float, now: float, known: dict[int, Fact] | None = None) -> MemoryHit:
        """A fact as a hit, with its key, age, source and confidence (and its correction when outdated)."""
        provenance: dict[str, Any] = {
            "fact_id": fact.id, "key": fact.key, "value": fact.value, "category": fact.category,
            "source": fact.source, "confidence": fact.confidence, "age": age_text(now - fact.updated_at),
            "updated": date_text(fact.updated_at), "chat_id": fact.chat_id, "turn": fact.turn}
        if fact.superseded_by is not None:
            newer = (known or {}).get(fact.superseded_by) or self.facts.sql.fact(fact.superseded_by)
            if newer is not None:
                provenance["superseded_by"] = f"{newer.key} → {newer.value}"
        return MemoryHit("fact", fact_text(fact.key, fact.value), float(score), FACT_TIER, provenance,
                         fact.outdated, f"fact:{fact.id}")

    # ---- history -------------------------------------------------------------------------------

    def history_candidates(self, query: str, qvec: np.ndarray | None,
                           limit: int) -> tuple[list[tuple[int, float]], dict[int, float]]:
        """Fused (chunk id, score) of raw history, best first, and each dense candidate's cosine."""
        n = max(3 * limit, MIN_CANDIDATES)
        keyword = self.chunks.keyword_candidates(query, n)
        dense = [h for h in self.chunks.dense_candidates(qvec, n) if h[1] >= MIN_SIMILARITY] \
            if qvec is not None else []
        return convex_fuse([keyword, dense]), dict(dense)

    def history_hits(self, query: str, qvec: np.ndarray | None, limit: int) -> list[MemoryHit]:
        """Raw history excerpts for the query, best first, with provenance and freshness marks."""
        fused, cosines = self.history_candidates(query, qvec, limit)
        rows = self.chunks.chunks(cid for cid, _ in fused[:limit])
        replaced = self.replaced_values()
        return [self.history_hit(rows[cid], score, cosines.get(cid), replaced)
                for cid, score in fused[:limit] if cid in rows]

    def history_hit(self, chunk: MemoryChunk, score: float, cosine: float | None,
                    replaced: Sequence[tuple[Fact, Fact]]) -> MemoryHit:
        """A raw chunk as a hit: chat title, turns, date, breadcrumbs; outdated when a newer fact replaced a value
        it states."""
        provenance: dict[str, Any] = {
            "chunk_id": chunk.id, "chat_id": chunk.chat_id, "chat_title": chunk.chat_title,
            "turns": [chunk.first_turn, chunk.last_turn], "date": date_text(chunk.created_at),
            "breadcrumbs": [list(b) for b in chunk.breadcrumbs], "similarity": cosine}
        stale = stale_by(chunk.text, replaced)
        if stale is not None:
            provenance["superseded_by"] = f"{stale.key} → {stale.value}"
        return MemoryHit("history", chunk.text, float(score), HISTORY_TIER, provenance, stale is not None,
                         f"history:{chunk.id}")

    def replaced_values(self) -> list[tuple[Fact, Fact]]:
        """(outdated fact, the current fact that replaced it) pairs."""
        every = self.facts.sql.facts()
        by_id = {f.id: f for f in every}
        pairs = []
        for fact in every:
            newer = by_id.get(fact.superseded_by) if fact.superseded_by is not None else None
            while newer is not None and newer.superseded_by is not None and newer.superseded_by in by_id:
                newer = by_id[newer.superseded_by]
            if newer is not None:
                pairs.append((fact, newer))
        return pairs

    # ---- documents -----------------------------------------------------------------------------

    def document_hits(self, query: str, limit: int) -> list[MemoryHit]:
        """The library's document passages for the query (the library's own hybrid search)."""
        if self.documents is None:
            return []
        return [MemoryHit("document", r.content, float(r.score), DOCUMENT_TIER,
                          {"source": r.source, "page": r.metadata.get("page"), "label": r.metadata.get("label", "")},
                          False, f"chunk:{r.metadata.get('chunk_id', '')}")
                for r in self.documents(query, limit)]


def coverage(text: str, message: str) -> tuple[float, int]:
    """Share (and number) of the message's search terms that `text` holds (core/text's tokens: every script)."""
    terms = build_query(message, prefix_last=False).terms
    if not terms:
        return 0.0, 0
    have = {f: set(tokens) for f, tokens in analyze(text).items()}
    matched = sum(1 for t in terms if t.token in have.get(t.field, ()))
    return matched / len(terms), matched


def about(fact: Fact, query: str, cosine: float | None) -> bool:
    """Whether a fact answers the query: close by vector, or the query names its key (every word of it), or it
    holds at least half of the query's terms. One shared word ("Caroline") is not enough to take a fact slot."""
    if cosine is not None and cosine >= FACT_MIN_SIMILARITY:
        return True
    key_share, _ = coverage(query, fact_title(fact.key))
    return key_share == 1.0 or coverage(fact_text(fact.key, fact.value), query)[0] >= FACT_MIN_COVERAGE


def mentions(text: str, value: str) -> bool:
    """Whether `text` states `value` (case-insensitive, whole words where the script has spaces)."""
    folded = value.casefold().strip()
    if len(folded) < 2 or folded in STOPWORDS:
        return False
    if not folded.isascii():
        return folded in text.casefold()
    return regex.search(rf"(?<![\w]){regex.escape(folded)}(?![\w])", text.casefold()) is not None


def stale_by(text: str, replaced: Sequence[tuple[Fact, Fact]]) -> Fact | None:
    """The newer fact that makes `text` outdated: it states an old value and not its replacement."""
    for old, newer in replaced:
        if mentions(text, old.value) and not mentions(text, newer.value):
            return newer
    return None
