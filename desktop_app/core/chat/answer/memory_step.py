"""Conversation memory in one question of a chat: ChatService's wiring of MemoryService (core/memory).

Evidence and context are kept apart by type (ARCHITECTURE.md, "Round 4 additions"):
- evidence: the facts the question is about become numbered passages (source "memory"), quotable and citable like a
  document's, and the abstention gate weighs them; the fact list rides in the system prompt;
- context: recalled past-chat excerpts are `MemoryHit`s that never become a passage. They go in the system prompt,
  labelled as memory, only when the question is about the conversation (core/memory/about_chat.py: "what did we
  decide about the port?"), or when they are this chat's own compacted turns (its window and summary are in the
  prompt anyway). The quote selector, the citations and the gate never see them, so no shown answer or citation is
  the text of a past question.

Per question, before anything is searched:
- the chats that went quiet (the most recent others) are kept verbatim as raw memory, so a later chat can recall
  them; turns from before a forget-all are never kept again (MemoryService.forgot_through);
- the question's explicit self-statements become facts; a message that only asks to remember something
  ("Remember that my locker code is 4417.") is acknowledged with what was stored, without the model (`acknowledge`);
- the fact list (key → value, confidence, age) is cut to its share of the window and rides in the system prompt.
When compaction runs, it saves the turns it drops here first, then summarises them, then recall runs again.
Memory turned off: none of this happens (MemoryService answers with nothing and stores nothing).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from desktop_app.core.chat.answer.context import CountTokens, Passage, truncate_to_tokens
from desktop_app.core.chat.answer.result import ChatAnswer
from desktop_app.core.chat.runtime.base import ChatRuntime
from desktop_app.core.chat.sessions import ChatSessions
from desktop_app.core.log import get_logger
from desktop_app.core.memory.about_chat import about_chat
from desktop_app.core.memory.extract import extract_statements
from desktop_app.core.memory.facts import FactChange
from desktop_app.core.memory.recall import MAX_EXCERPTS, excerpt_text
from desktop_app.core.memory.rows import MemoryHit
from desktop_app.core.memory.service import FACT_TOKENS, MemoryService, memory_results
from desktop_app.core.settings import Settings
from desktop_app.core.store.memory_rows import fact_title
from desktop_app.core.types import MEMORY_SOURCE, RetrievalResult, Turn

log = get_logger("chat")

FACT_SHARE = 0.05  # the fact list's share of the window (at most FACT_TOKENS): 102 tokens of 2,048
FACT_SOURCES = 2  # facts the question is about, shown in Sources
CONTEXT_SHARE = 0.2  # recalled excerpts' share of the window: 409 tokens of 2,048 (an excerpt is ~250)
QUIET_CHATS = 20  # the most recent other chats checked for turns not yet in raw memory
CONTEXT_HEADER = "From earlier chats (memory of the conversation, not a document: never quote or cite it):"
MEMORY_OFF = ("Memory is off, so nothing was remembered. Turn it on in the Memory panel (or with `trove memory on`) "
              "to keep facts like this.")
GetMemory = Callable[[], MemoryService | None]
_NOTE = re.compile(r"\s*(?:please\s+)?note\b", re.I)


def is_memory(passage: Passage) -> bool:
    """Whether a passage came from conversation memory (a fact the person stated), not from a document."""
    return passage.source == MEMORY_SOURCE


def remember_request(message: str) -> bool:
    """Whether a message only asks to remember something ("Remember that my locker code is 4417."): it holds an
    explicit statement to remember and no question, and does not open with "note" ("Note the differences between
    …" asks for an answer; the statement is still remembered on the ordinary path)."""
    if "?" in message or "？" in message or _NOTE.match(message):
        return False
    return any(s.explicit for s in extract_statements(message))


def acknowledgement(changes: Sequence[FactChange]) -> str:
    """What was stored, in one line: "Remembered: locker code → 4417." (a correction names the old value)."""
    parts = []
    for change in changes:
        fact = f"{fact_title(change.fact.key)} → {change.fact.value}"
        was = ", ".join(dict.fromkeys(f.value for f in change.replaced))
        parts.append(fact + (f" (was {was})" if was else "") + (" (already known)" if change.action == "confirmed"
                                                                   else ""))
    return "Remembered: " + "; ".join(parts) + "." if parts else ""


def acknowledged(get_memory: GetMemory | None, chats: ChatSessions, chat_id: int, message: str,
                 history_turns: int) -> ChatAnswer | None:
    """A remember request's answer: its facts stored and what was stored said (or that memory is off), the exchange
    kept like any other; never asks the model. None when the message is not a remember request, or there is no
    memory to ask, or nothing could be taken from it (then the question takes the ordinary path)."""
    service = get_memory() if get_memory is not None and remember_request(message) else None
    if service is None:
        return None
    text = MEMORY_OFF if not service.enabled else acknowledgement(
        service.remember(message, chat_id=chat_id, turn=history_turns + 1))
    if not text:
        return None
    chats.add_exchange(chat_id, message, text, [], [])
    log.info("chat %d: a remember request, acknowledged without the model", chat_id)
    return ChatAnswer(text=text, chat_id=chat_id, citations=(), passages=(), raw_text=text,
                      history_turns=history_turns, generation_shown=False)


class ChatMemory:
    """What memory adds to one question of one chat (see the module docstring)."""

    def __init__(self, memory: MemoryService, chats: ChatSessions, chat_id: int, count_tokens: CountTokens,
                 n_ctx: int, min_score: float) -> None:
        self.memory = memory
        self.chats = chats
        self.chat_id = chat_id
        self.count_tokens = count_tokens
        self.n_ctx = n_ctx
        self.min_score = min_score
        self.facts_text = ""
        self.facts: list[MemoryHit] = []  # evidence: facts the question is about, as numbered passages
        self.context: list[MemoryHit] = []  # context: past-chat excerpts for the prompt, never passages
        self.about_chat = False
        self._recent: list[str] = []
        self._recall = True

    @classmethod
    def start(cls, get_memory: GetMemory | None, chats: ChatSessions, chat_id: int, question: str,
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
        self.about_chat = about_chat(question)
        last = list(turns[-1:])
        self._recent = [*(m for t in last for m in (t.question, t.answer)), question]
        fact_tokens = min(FACT_TOKENS, int(FACT_SHARE * self.n_ctx))
        found = self.memory.recall(self.chat_id, self._recent, fact_tokens=fact_tokens, count_tokens=self.count_tokens,
                                   visible_from=covered + 1, max_excerpts=MAX_EXCERPTS if recall else 0,
                                   own_chat_only=not self.about_chat)
        self.facts_text = found.facts_text
        self.facts = self._fact_sources(question, len(turns) + 1) if recall else []
        self.context = list(found.excerpts)
        self._recall = recall

    @property
    def answers_from_chat(self) -> bool:
        """Whether the question is about the conversation and context was recalled for it: then, when no evidence
        answers, the model answers from that context (quoting and citing nothing) instead of a refusal."""
        return self.about_chat and bool(self.context)

    def results(self, found: Sequence[RetrievalResult]) -> list[RetrievalResult]:
        """The evidence to plan with: the facts the question is about (first: there are at most a few), then the
        documents' passages. Recalled excerpts are not among them (they are `system_text`'s context)."""
        return self._as_results(self.facts) + list(found)

    @property
    def system_text(self) -> str:
        """What memory puts in the system prompt: the fact list, then the recalled excerpts (labelled as memory)
        within their share of the window."""
        context = self._context_block()
        return "\n\n".join(t for t in (self.facts_text, context) if t)

    # ---- compaction (planning.HistoryMemory) ---------------------------------------------------

    def save(self, turns: Sequence[Turn], first_turn: int) -> None:
        """Keep the turns compaction is about to summarise verbatim, with breadcrumbs (before the summary); turns
        from before a forget-all stay forgotten."""
        skip = max(0, self._first_turn_after_forget(self.chat_id) - first_turn)
        if skip < len(turns):
            self.memory.save_compacted(self.chat_id, turns[skip:], first_turn=first_turn + skip, title=self._title())

    def recall_after(self, results: Sequence[RetrievalResult], visible_from: int) -> list[RetrievalResult]:
        """After a compaction: excerpts of the turns it saved may now be recalled too (within the same limit), as
        context; the evidence is unchanged."""
        room = MAX_EXCERPTS - len(self.context)
        if room > 0 and self._recall:
            self.context += list(self.memory.recall(
                self.chat_id, self._recent, max_excerpts=room, fact_tokens=0, count_tokens=self.count_tokens,
                visible_from=visible_from, own_chat_only=not self.about_chat).excerpts)
        return list(results)

    # ---- what was injected ---------------------------------------------------------------------

    def injected(self, passages: Sequence[Passage]) -> tuple[dict[str, Any], ...]:
        """What memory put in the prompt: the fact list, each fact sent as a passage (with its number), and each
        recalled excerpt sent as context (no number: it cannot be cited)."""
        out: list[dict[str, Any]] = []
        if self.facts_text:
            out.append({"kind": "facts", "text": self.facts_text, "tokens": self.count_tokens(self.facts_text)})
        sent = [p for p in passages if is_memory(p)]
        for hit, result in zip(self.facts, self._as_results(self.facts), strict=True):
            match = next((p for p in sent if p.place == result.metadata["label"]), None)
            if match is not None:
                out.append({**hit.to_dict(), "n": match.n, "tokens": self.count_tokens(match.content)})
        for hit, text in self._context_sent():
            out.append({**hit.to_dict(), "context": True, "tokens": self.count_tokens(text)})
        return tuple(out)

    # ---- parts ---------------------------------------------------------------------------------

    def settle(self) -> None:
        """Keep the turns of the recent other chats that are not in raw memory yet (they went quiet), except those
        from before a forget-all."""
        through = self.memory.forgot_through()
        for chat in self.chats.list_chats()[:QUIET_CHATS]:
            if chat.id == self.chat_id or not chat.message_count:
                continue
            if self.memory.chunk_sql.last_turn(chat.id) * 2 >= chat.message_count:
                continue  # every turn is kept already
            turns = self.chats.turns(chat.id)
            first = self._first_turn_after_forget(chat.id, through) if through else 1
            if first <= len(turns):
                self.memory.save_compacted(chat.id, turns[first - 1:], first_turn=first, title=chat.title)

    def _first_turn_after_forget(self, chat_id: int, through: int | None = None) -> int:
        """The number of the chat's first turn answered after the last forget-all (1 when memory was never
        forgotten; one past the last turn when every turn is older)."""
        through = self.memory.forgot_through() if through is None else through
        if not through:
            return 1
        answers = [m.id for m in self.chats.messages(chat_id) if m.role == "assistant"]
        return next((i for i, mid in enumerate(answers, start=1) if mid > through), len(answers) + 1)

    def _context_sent(self) -> list[tuple[MemoryHit, str]]:
        """The recalled excerpts that fit their share of the window, each as the prompt carries it."""
        budget = int(CONTEXT_SHARE * self.n_ctx) - self.count_tokens(CONTEXT_HEADER)
        out: list[tuple[MemoryHit, str]] = []
        for hit in self.context:
            text = excerpt_text(hit)
            cost = self.count_tokens(text) + 2
            if cost > budget:
                text = truncate_to_tokens(text, budget, self.count_tokens) if budget > 24 else ""
                if text:
                    out.append((hit, text))
                break
            out.append((hit, text))
            budget -= cost
        return out

    def _context_block(self) -> str:
        sent = self._context_sent()
        return "\n\n".join([CONTEXT_HEADER, *(text for _, text in sent)]) if sent else ""

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
        if any(h.kind != "fact" for h in hits):  # the type's promise: only facts are evidence
            raise TypeError("only facts are evidence; a past chat's excerpt is context")
        return [replace(r, score=max(r.score, self.min_score)) for r in memory_results(hits)]

    def _title(self) -> str:
        return next((c.title for c in self.chats.list_chats() if c.id == self.chat_id), "")
