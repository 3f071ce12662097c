"""MemoryService: conversation memory as the facade exposes it (`Library.memory`).

Facts (added by the person or found by the extractor in what they say), raw chat history (turns compaction moves
out of the window, packed and indexed like documents), one search over both and the documents, and recall for a
chat's next prompt. Memory lives in the library: the SQLite file's own tables, or on a team server in per-person
tables that row-level security keeps private to their person (core/store/postgres/memory/schema.py). Turned off,
memory is in no prompt and no search, and nothing new is written to it.

How a chat uses it (ChatService's wiring):
    memory.remember(question, chat_id=..., turn=n)          # after each exchange: explicit self-statements
    memory.save_compacted(chat_id, moved_out_turns, first_turn=1, title=...)   # compaction: save, then summarise
    r = memory.recall(chat_id, last_messages, visible_from=window_start + 1, fact_tokens=..., count_tokens=...)
    r.facts_text → the system prompt; r.excerpts → passages (memory_results(r.excerpts) for citations)
"""

from __future__ import annotations

import builtins
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from desktop_app.core.embed.base import MAX_WINDOWS, Embedder, embed_passages, embed_query
from desktop_app.core.errors import UnavailableError
from desktop_app.core.log import get_logger
from desktop_app.core.memory.extract import extract_statements
from desktop_app.core.memory.facts import FactBook, FactChange
from desktop_app.core.memory.raw import (
    RAW_MAX_CHARS,
    RAW_TARGET_CHARS,
    TurnText,
    chat_turns,
    pack_turns,
    turn_windows,
)
from desktop_app.core.memory.recall import (
    MAX_EXCERPTS,
    CountTokens,
    Recaller,
    approx_tokens,
    excerpt_text,
    fact_line,
    format_facts,
)
from desktop_app.core.memory.rows import Fact, FactSource, Forgotten, MemoryHit, NewFact, Recall
from desktop_app.core.memory.search import Documents, MemorySearch
from desktop_app.core.store.base import MemoryStore, Store
from desktop_app.core.types import MEMORY_SOURCE, RetrievalResult, Turn

log = get_logger("chat")

FACT_TOKENS = 200  # the fact list's default share of a prompt
EXPLICIT_CONFIDENCE = 1.0  # "remember that …"
STATED_CONFIDENCE = 0.9
QUERY_CACHE = 32  # "my editor is neovim", found by the extractor
EmbedderSource = Embedder | Callable[[], Embedder | None] | None


class MemoryService:
    """One library's memory. Thread-safe through its store (one writer, a reader per thread)."""

    def __init__(self, store: Store, embedder: EmbedderSource = None, *, documents: Documents | None = None,
                 clock: Callable[[], float] = time.time, owns_store: bool = False,
                 target_chars: int = RAW_TARGET_CHARS) -> None:
        if not isinstance(store, MemoryStore):
            raise TypeError(f"no memory for a {type(store).__name__}")
        self.store = store
        self._embedder = embedder
        self._owns_store = owns_store
        self.clock = clock
        self.target_chars = target_chars
        self.fact_sql, self.chunk_sql = store.memory_facts(), store.memory_chunks()  # the engine's own SQL
        self.facts = FactBook(self.fact_sql, self._vectorise, clock)
        self.searcher = MemorySearch(self.facts, self.chunk_sql, self._query_vector, documents, clock)
        self.recaller = Recaller(self.searcher, clock)
        self._vectors: dict[tuple[str, str], np.ndarray] = {}  # recent query vectors: recall searches a text twice
        self._vectors_lock = threading.Lock()

    @classmethod
    def for_store(cls, store: Store, home: Path, embedder: EmbedderSource = None, *,
                  documents: Documents | None = None) -> MemoryService:
        """Memory in the library's own store: its SQLite file, or the team server (the person's own rows).
        `home` is unused now (memory of a server library was once kept in a local file there)."""
        del home
        return cls(store, embedder, documents=documents)

    # ---- switch --------------------------------------------------------------------------------

    @property
    def enabled(self) -> bool:
        """Whether memory is on."""
        return self.fact_sql.enabled()

    def set_enabled(self, on: bool) -> None:
        """Turn memory on or off (off: in no prompt or search, nothing new saved; what is stored stays)."""
        self.fact_sql.set_enabled(on)

    # ---- facts ---------------------------------------------------------------------------------

    def add(self, key: str, value: str, *, category: str = "", source: FactSource | str = FactSource.USER_EXPLICIT,
            confidence: float = EXPLICIT_CONFIDENCE, expires_at: float | None = None, chat_id: int | None = None,
            turn: int | None = None) -> FactChange:
        """Remember a fact (merged with a known one under a near-duplicate key; another value corrects it)."""
        if not key.strip() or not value.strip():
            raise ValueError("a fact needs a key and a value")
        return self.facts.add(NewFact(key, value, category, FactSource(source), min(max(confidence, 0.0), 1.0),
                                      expires_at, chat_id, turn))

    def remember(self, message: str, *, chat_id: int | None = None,
                 turn: int | None = None) -> builtins.list[FactChange]:
        """Store the explicit self-statements of one message the person wrote (none while memory is off)."""
        if not self.enabled:
            return []
        changes = []
        for s in extract_statements(message):
            source = FactSource.USER_EXPLICIT if s.explicit else FactSource.CONVERSATION
            confidence = EXPLICIT_CONFIDENCE if s.explicit else STATED_CONFIDENCE
            changes.append(self.add(s.key, s.value, category=s.category, source=source, confidence=confidence,
                                    chat_id=chat_id, turn=turn))
        return changes

    def list(self, *, include_outdated: bool = False, include_expired: bool = False) -> list[Fact]:
        """Known facts, newest first (current and unexpired unless asked for more)."""
        return self.facts.facts(include_outdated=include_outdated, include_expired=include_expired)

    def forget(self, key_or_id: str | int) -> int:
        """Forget one fact by id, or every value of a key. Returns how many facts went."""
        found = self.facts.find(str(key_or_id))
        return self.fact_sql.delete_facts(f.id for f in found)

    def forget_matching(self, words: str) -> Forgotten:
        """Forget the facts `words` name: an id, a key (`locker_code`), or a word of keys (`locker` forgets
        `locker_code` and `locker_room`). When none match, nothing goes and `keys` lists the keys there are."""
        found = self.facts.find(words) or self.facts.with_key_word(words)
        if not found:
            return Forgotten((), tuple(dict.fromkeys(f.key for f in self.facts.facts())))
        current = [f for f in found if not f.outdated] or found
        self.fact_sql.delete_facts(f.id for f in found)
        return Forgotten(tuple(current), ())

    def forget_all(self) -> int:
        """Forget every fact and all raw history. Returns how many rows went. The chats stay, so the newest
        message there is recorded: turns up to it are never saved into memory again (`forgot_through`)."""
        gone = self.fact_sql.delete_all()
        self.fact_sql.set_forgot_through(self._newest_message())
        return gone

    def forgot_through(self) -> int:
        """The id of the newest chat message when memory was last forgotten (0: never); only later turns are saved."""
        return self.fact_sql.forgot_through()

    def _newest_message(self) -> int:
        """The id of the newest chat message (0 without chats). Chats come most recently used first, and adding a
        message touches its chat, so the newest message is in the first chat. An id is not reused unless the chat
        holding the newest message is deleted (SQLite's rowid): a rare case, which at worst leaves the next few
        turns of a new chat out of memory."""
        chats = getattr(self.store, "list_chats", None)
        rows = chats() if chats is not None else []
        if not rows:
            return 0
        return max((m.id for m in self.store.chat_messages(rows[0].id)), default=0)

    def forget_chat(self, chat_id: int) -> int:
        """Forget what one chat left in memory (deleting a chat in the same library does this by itself)."""
        return self.fact_sql.delete_chat(chat_id)

    # ---- raw history ---------------------------------------------------------------------------

    def save_compacted(self, chat_id: int, turns: Sequence[Turn], first_turn: int = 1, title: str = "") -> int:
        """Keep turns verbatim as raw memory (`turns[0]` is turn `first_turn`); turns already saved are skipped.
        Returns how many chunks were written."""
        return self.save_history(chat_id, chat_turns(turns, first_turn), title)

    def save_history(self, chat_id: int, turns: Sequence[TurnText], title: str = "") -> int:
        """Pack and store turns newer than the chat's last saved one (append-only), with vectors when a model is
        available. Nothing is written while memory is off."""
        if not self.enabled:
            return 0
        done = self.chunk_sql.last_turn(chat_id)
        new = [t for t in turns if t.number > done and t.text.strip()]
        if not new:
            return 0
        chunks = pack_turns(chat_id, title or self._chat_title(chat_id), new, max_chars=RAW_MAX_CHARS,
                            target_chars=self.target_chars)
        ids = self.chunk_sql.insert(chunks, self.clock())
        self.embed_pending()
        return len(ids)

    def _chat_title(self, chat_id: int) -> str:
        lister = getattr(self.store, "list_chats", None)
        if lister is None:
            return ""
        return next((c.title for c in lister() if c.id == chat_id), "")

    def embed_pending(self, batch: int = 32) -> int:
        """Give vectors to raw chunks and facts that have none. Returns how many chunks got them."""
        embedder = self._model()
        if embedder is None:
            return 0
        self.chunk_sql.ensure_model(embedder.model_id, embedder.dim)
        done = 0
        try:
            while rows := self.chunk_sql.pending(batch):
                windows = [turn_windows(r.text, MAX_WINDOWS) for r in rows]
                flat = embed_passages(embedder, [t for ws in windows for t in ws])
                matrices, at = [], 0
                for ws in windows:  # each turn's own windows (one for most turns), at most MAX_WINDOWS a chunk
                    matrices.append(np.concatenate(flat[at:at + len(ws)])[:MAX_WINDOWS])
                    at += len(ws)
                stored = self.chunk_sql.store_vectors((r.id, m) for r, m in zip(rows, matrices, strict=True))
                done += stored
                if not stored:
                    break
            self.facts.embed_missing()
        except UnavailableError as exc:
            log.warning("memory vectors not made: %s", exc)
        return done

    # ---- search and recall ---------------------------------------------------------------------

    def search(self, query: str, top_k: int = 10, scope: str = "memory") -> builtins.list[MemoryHit]:
        """Facts first, then history excerpts (and document passages for scope "all"), each with provenance.
        While memory is off, only documents are searched."""
        if not self.enabled:
            return self.searcher.search(query, top_k, "documents") if scope != "memory" else []
        return self.searcher.search(query, top_k, scope)

    def facts_for_prompt(self, max_tokens: int = FACT_TOKENS, count_tokens: CountTokens = approx_tokens,
                         query: str = "") -> str:
        """The fact list for a prompt ("" when memory is off or empty): when they do not all fit, the facts the query
        is about are the ones kept; listed newest first either way, so the prompt's prefix (and the model's KV
        cache) stays the same from one question to the next while the facts do."""
        if not self.enabled or max_tokens <= 0:
            return ""
        facts = self.facts.facts()
        now = self.clock()
        if query.strip() and facts and not format_facts(facts, now, max_tokens, count_tokens).endswith(
                fact_line(facts[-1], now)):  # not all fit: keep those the query is about
            first = [h.provenance["fact_id"] for h in self.searcher.fact_hits(query, self._query_vector(query),
                                                                            len(facts)) if not h.outdated]
            rank = {fid: i for i, fid in enumerate(first)}
            order = {f.id: i for i, f in enumerate(facts)}
            ranked = sorted(facts, key=lambda f: rank.get(f.id, len(rank)))
            kept = format_facts(ranked, now, max_tokens, count_tokens).count("\n- ")
            facts = sorted(ranked[:kept], key=lambda f: order[f.id])
        return format_facts(facts, now, max_tokens, count_tokens)

    def recall(self, chat_id: int | None, recent: Sequence[str], *, max_excerpts: int = MAX_EXCERPTS,
               fact_tokens: int = FACT_TOKENS, count_tokens: CountTokens = approx_tokens,
               visible_from: int | None = None, own_chat_only: bool = False) -> Recall:
        """Memory for a chat's next prompt: the fact list and up to `max_excerpts` raw excerpts above the threshold,
        never one this chat was given before, nor one of its own turns still in the window (>= `visible_from`);
        with `own_chat_only`, only excerpts of this chat's own compacted turns."""
        if not self.enabled:
            return Recall()
        facts_text = self.facts_for_prompt(fact_tokens, count_tokens, "\n".join(list(recent)[-2:]))
        hits = [h for h in self.recaller.candidates(chat_id, recent, max_excerpts + 4)
                if not _visible(h, chat_id, visible_from)
                and not (own_chat_only and h.provenance.get("chat_id") != chat_id)][:max_excerpts]
        if chat_id is not None and hits:
            self.chunk_sql.mark_recalled(chat_id, (h.provenance["chunk_id"] for h in hits), self.clock())
        tokens = (count_tokens(facts_text) if facts_text else 0) + sum(count_tokens(excerpt_text(h)) for h in hits)
        return Recall(facts_text, tuple(hits), tokens)

    # ---- embedder ------------------------------------------------------------------------------

    def _model(self) -> Embedder | None:
        source = self._embedder
        if source is None or isinstance(source, Embedder):
            return source
        return source()

    def _vectorise(self, texts: builtins.list[str]) -> builtins.list[bytes] | None:
        embedder = self._model()
        if embedder is None:
            return None
        try:
            self.chunk_sql.ensure_model(embedder.model_id, embedder.dim)
            return [np.asarray(v, dtype=np.float32).tobytes() for v in embedder.embed(texts)]
        except UnavailableError as exc:
            log.warning("memory vectors not made: %s", exc)
            return None

    def _query_vector(self, query: str) -> np.ndarray | None:
        embedder = self._model()
        if embedder is None or not query.strip():
            return None
        try:
            if self.chunk_sql.ensure_model(embedder.model_id, embedder.dim):
                self.embed_pending()
            key = (embedder.model_id, query)
            with self._vectors_lock:
                cached = self._vectors.get(key)
            if cached is None:
                cached = np.asarray(embed_query(embedder, query), dtype=np.float32)
                with self._vectors_lock:
                    if len(self._vectors) >= QUERY_CACHE:
                        self._vectors.pop(next(iter(self._vectors)))
                    self._vectors[key] = cached
            return cached
        except UnavailableError as exc:
            log.warning("memory search without vectors: %s", exc)
            return None

    def close(self) -> None:
        """Close the local memory file of a server library (the library closes its own store)."""
        if self._owns_store:
            self.store.close()


def _visible(hit: MemoryHit, chat_id: int | None, visible_from: int | None) -> bool:
    return (visible_from is not None and hit.provenance.get("chat_id") == chat_id
            and hit.provenance["turns"][1] >= visible_from)




def memory_place(hit: MemoryHit) -> str:
    """Where a memory hit came from, as a passage's place ("fact editor, 34d ago", "chat 'Deploy' turns 3-5, …")."""
    mark = f" (outdated: {hit.provenance['superseded_by']})" if hit.outdated and hit.provenance.get(
        "superseded_by") else (" (outdated)" if hit.outdated else "")
    return hit.label() + mark


def memory_results(hits: Sequence[MemoryHit]) -> list[RetrievalResult]:
    """Memory hits as RetrievalResults (for the Sources pane and citations): a fact or an excerpt has the source
    "memory" and its origin as the place; a document passage keeps its file. The hit itself is in metadata."""
    out = []
    for h in hits:
        source = str(h.provenance.get("source", "")) if h.kind == "document" else MEMORY_SOURCE
        text = h.text
        if h.kind == "fact":
            text = f"{h.text} (confidence {round(float(h.provenance.get('confidence', 1.0)) * 100)}%, " \
                   f"updated {h.provenance.get('age', '')})"
        out.append(RetrievalResult(text, h.score, source, {"memory": h.to_dict(), "label": memory_place(h)}))
    return out
