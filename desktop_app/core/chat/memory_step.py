"""Conversation memory in one question of a chat: ChatService's wiring of MemoryService (core/memory).

Per question, before anything is searched:
- the chats that went quiet (the most recent others) are kept verbatim as raw memory, so a later chat can recall
  them (a chat's own turns reach raw memory when compaction moves them out of its window, or when it goes quiet);
- the question's explicit self-statements become facts ("remember that …", "my editor is neovim"; a new value
  corrects the old one);
- the fact list (key → value, confidence, age) is cut to its share of the window and rides in the system prompt;
- recall adds at most a few items above its thresholds as passages, numbered and citable like a document's: facts
  the question is about, and raw excerpts of other chats or of this chat's compacted part, never one this chat was
  given before. Their source is "memory" and their place says where they came from (fact key and age, or chat
  title, turns and date).
When compaction runs, it saves the turns it drops here first, then summarises them, then recall runs again.
Memory turned off: none of this happens (MemoryService answers with nothing and stores nothing).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from desktop_app.core.chat.budget import Turn
from desktop_app.core.chat.context import CountTokens, Passage
from desktop_app.core.chat.runtime import ChatRuntime
from desktop_app.core.chat.sessions import ChatStore
from desktop_app.core.memory.recall import MAX_EXCERPTS
from desktop_app.core.memory.rows import MemoryHit
from desktop_app.core.memory.service import FACT_TOKENS, MEMORY_SOURCE, MemoryService, memory_results
from desktop_app.core.settings import Settings
from desktop_app.core.types import RetrievalResult

FACT_SHARE = 0.05  # the fact list's share of the window (at most FACT_TOKENS): 102 tokens of 2,048
FACT_SOURCES = 2  # facts the question is about, shown in Sources
QUIET_CHATS = 20  # the most recent other chats checked for turns not yet in raw memory
GetMemory = Callable[[], MemoryService | None]


def is_memory(passage: Passage) -> bool:
    """Whether a passage came from conversation memory (a fact or a past chat), not from a document."""
    return passage.source == MEMORY_SOURCE


class ChatMemory:
    """What memory adds to one question of one chat (see the module docstring)."""

    def __init__(self, memory: MemoryService, chats: ChatStore, chat_id: int, count_tokens: CountTokens,
                 n_ctx: int, min_score: float) -> None:
        self.memory = memory
        self.chats = chats
        self.chat_id = chat_id
        self.count_tokens = count_tokens
        self.n_ctx = n_ctx
        self.min_score = min_score
        self.facts_text = ""
        self.items: list[MemoryHit] = []
        self._recent: list[str] = []
        self._recall = True

    @classmethod
    def start(cls, get_memory: GetMemory | None, chats: ChatStore, chat_id: int, question: str,
              turns: Sequence[Turn], runtime: ChatRuntime, settings: Settings,
              scope: Sequence[str] = ()) -> ChatMemory | None:
        """Memory's part of this question, begun (None without memory, or with it turned off). A question kept to
        some files and folders (`scope`) gets the fact list but no recalled passages."""
        service = get_memory() if get_memory is not None else None
        if service is None or not service.enabled:
            return None
        memory = cls(service, chats, chat_id, runtime.count_tokens, runtime.n_ctx, settings.context_min_score)
        covered, _summary = chats.summary(chat_id)
        memory.begin(question, turns, min(covered, len(turns)), recall=not scope)
        return memory

    def begin(self, question: str, turns: Sequence[Turn], covered: int, *, recall: bool = True) -> None:
        """Save the quiet chats, remember the question's self-statements, and recall for it (`covered`: the
        chat's turns already compacted; the ones after are still in the window; `recall` False: the fact list
        only)."""
        self.settle()
        self.memory.remember(question, chat_id=self.chat_id, turn=len(turns) + 1)
        last = list(turns[-1:])
        self._recent = [*(m for t in last for m in (t.question, t.answer)), question]
        fact_tokens = min(FACT_TOKENS, int(FACT_SHARE * self.n_ctx))
        found = self.memory.recall(self.chat_id, self._recent, fact_tokens=fact_tokens, count_tokens=self.count_tokens,
                                   visible_from=covered + 1, max_excerpts=MAX_EXCERPTS if recall else 0)
        self.facts_text = found.facts_text
        self.items = (self._fact_sources(question, len(turns) + 1) if recall else []) + list(found.excerpts)
        self._recall = recall

    def results(self, found: Sequence[RetrievalResult]) -> list[RetrievalResult]:
        """The recalled items as passages (first: there are at most a few), then the documents' passages."""
        return self._as_results(self.items) + list(found)

    # ---- compaction (planning.HistoryMemory) ---------------------------------------------------

    def save(self, turns: Sequence[Turn], first_turn: int) -> None:
        """Keep the turns compaction is about to summarise verbatim, with breadcrumbs (before the summary)."""
        self.memory.save_compacted(self.chat_id, turns, first_turn=first_turn, title=self._title())

    def recall_after(self, results: Sequence[RetrievalResult], visible_from: int) -> list[RetrievalResult]:
        """After a compaction: excerpts of the turns it saved may now be recalled too (within the same limit)."""
        room = MAX_EXCERPTS - sum(1 for h in self.items if h.kind == "history")
        if room <= 0 or not self._recall:
            return list(results)
        more = self.memory.recall(self.chat_id, self._recent, max_excerpts=room, fact_tokens=0,
                                  count_tokens=self.count_tokens, visible_from=visible_from).excerpts
        self.items += list(more)
        return self._as_results(list(more)) + list(results)

    # ---- what was injected ---------------------------------------------------------------------

    def injected(self, passages: Sequence[Passage]) -> tuple[dict[str, Any], ...]:
        """What memory put in the prompt: the fact list, and each recalled item that was sent (with its number)."""
        out: list[dict[str, Any]] = []
        if self.facts_text:
            out.append({"kind": "facts", "text": self.facts_text, "tokens": self.count_tokens(self.facts_text)})
        sent = [p for p in passages if is_memory(p)]
        for hit, result in zip(self.items, self._as_results(self.items), strict=True):
            match = next((p for p in sent if p.place == result.metadata["label"]), None)
            if match is not None:
                out.append({**hit.to_dict(), "n": match.n, "tokens": self.count_tokens(match.content)})
        return tuple(out)

    # ---- parts ---------------------------------------------------------------------------------

    def settle(self) -> None:
        """Keep the turns of the recent other chats that are not in raw memory yet (they went quiet)."""
        for chat in self.chats.list_chats()[:QUIET_CHATS]:
            if chat.id == self.chat_id or not chat.message_count:
                continue
            if self.memory.chunk_sql.last_turn(chat.id) * 2 >= chat.message_count:
                continue  # every turn is kept already
            self.memory.save_compacted(chat.id, self.chats.turns(chat.id), first_turn=1, title=chat.title)

    def _fact_sources(self, question: str, turn: int) -> list[MemoryHit]:
        """Facts the question is about (current ones), not stated in this very message, not shown in this chat
        before."""
        if not self.memory.enabled:
            return []
        given = {p.place.split(", ")[0] for m in self.chats.messages(self.chat_id) for p in m.passages if is_memory(p)}
        hits = self.memory.searcher.fact_hits(question, self.memory.searcher.query_vector(question), 2 * FACT_SOURCES)
        fresh = [h for h in hits if not h.outdated
                 and not (h.provenance.get("chat_id") == self.chat_id and h.provenance.get("turn") == turn)
                 and f"fact {h.provenance.get('key', '')}" not in given]
        return fresh[:FACT_SOURCES]

    def _as_results(self, hits: Sequence[MemoryHit]) -> list[RetrievalResult]:
        return [replace(r, score=max(r.score, self.min_score)) for r in memory_results(hits)]

    def _title(self) -> str:
        return next((c.title for c in self.chats.list_chats() if c.id == self.chat_id), "")
