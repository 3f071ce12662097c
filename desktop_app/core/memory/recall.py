"""Automatic recall: what memory adds to a chat's next prompt.

Facts: a compact list with age and confidence ("editor → neovim (confidence 90%, updated 34d ago)"), those the
conversation is about first, cut to a token budget. Raw excerpts: from the chat's last few messages, at most two
history chunks that clear a threshold (vector similarity, or most of the newest message's words), never one this
chat was already given.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from desktop_app.core.memory.facts import age_text
from desktop_app.core.memory.rows import Fact, MemoryHit
from desktop_app.core.memory.search import MemorySearch, coverage
from desktop_app.core.store.memory_rows import fact_title

CountTokens = Callable[[str], int]
MAX_EXCERPTS = 2
RECENT_MESSAGES = 3
CANDIDATES = 10
# Thresholds: an excerpt is recalled when its best window's MiniLM cosine to the recent messages reaches
# RECALL_MIN_SIMILARITY, or when it holds at least RECALL_MIN_COVERAGE of the newest message's search terms (and two
# of them): the keyword path is what works in every script. Set by hand, not tuned yet; bench/memory.py reports how
# often recall's excerpts hold the answer on LoCoMo (auto_recall_hit) and what they cost in tokens.
RECALL_MIN_SIMILARITY = 0.5
RECALL_MIN_COVERAGE = 0.6
FACTS_HEADER = "What you remember about the person (from memory):"


def approx_tokens(text: str) -> int:
    """A model-free token estimate (about four characters a token) for when no tokenizer is given."""
    return (len(text) + 3) // 4


def fact_line(fact: Fact, now: float) -> str:
    """"- editor → neovim (confidence 90%, updated 34d ago)"."""
    return (f"- {fact_title(fact.key)} → {fact.value} (confidence {round(fact.confidence * 100)}%, "
            f"updated {age_text(now - fact.updated_at)})")


def format_facts(facts: Sequence[Fact], now: float, max_tokens: int, count_tokens: CountTokens = approx_tokens) -> str:
    """The fact list for a prompt, in the given order, with as many lines as fit in `max_tokens` ("" for none)."""
    lines: list[str] = []
    for fact in facts:
        candidate = "\n".join([FACTS_HEADER, *lines, fact_line(fact, now)])
        if count_tokens(candidate) > max_tokens:
            break
        lines.append(fact_line(fact, now))
    return "\n".join([FACTS_HEADER, *lines]) if lines else ""


def excerpt_text(hit: MemoryHit) -> str:
    """A recalled excerpt as the prompt carries it, its origin first."""
    mark = " (outdated: " + str(hit.provenance.get("superseded_by", "")) + ")" if hit.outdated else ""
    return f"[memory: {hit.label()}{mark}]\n{hit.text}"


def recall_query(recent: Sequence[str]) -> str:
    """The search text for the last few messages, newest first (a long one is searched by its beginning)."""
    return "\n".join(m for m in reversed(list(recent)[-RECENT_MESSAGES:]) if m and m.strip())


class Recaller:
    """Chooses the raw excerpts recall injects into a chat, remembering what each chat was given."""

    def __init__(self, search: MemorySearch, clock: Callable[[], float] = time.time,
                 min_similarity: float = RECALL_MIN_SIMILARITY, min_coverage: float = RECALL_MIN_COVERAGE) -> None:
        self.search = search
        self.clock = clock
        self.min_similarity = min_similarity
        self.min_coverage = min_coverage

    def candidates(self, chat_id: int | None, recent: Sequence[str], limit: int = MAX_EXCERPTS) -> list[MemoryHit]:
        """Excerpts above the threshold for these messages, best first, leaving out those the chat already had."""
        query = recall_query(recent)
        if not query or limit <= 0:
            return []
        newest = next((m for m in reversed(list(recent)) if m and m.strip()), "")
        qvec = self.search.query_vector(query)
        fused, cosines = self.search.history_candidates(query, qvec, CANDIDATES)
        given = self.search.chunks.recalled(chat_id) if chat_id is not None else set()
        fresh = [cid for cid, _ in fused[:CANDIDATES] if cid not in given]
        rows = self.search.chunks.chunks(fresh)
        replaced = self.search.replaced_values()
        out: list[MemoryHit] = []
        score = dict(fused)
        for cid in fresh:
            chunk = rows.get(cid)
            if chunk is None or not self.relevant(chunk.text, newest, cosines.get(cid)):
                continue
            out.append(self.search.history_hit(chunk, score[cid], cosines.get(cid), replaced))
            if len(out) >= limit:
                break
        return out

    def relevant(self, text: str, newest: str, cosine: float | None) -> bool:
        """Whether an excerpt clears the threshold: close enough by vector, or holding most of the message's words."""
        if cosine is not None and cosine >= self.min_similarity:
            return True
        share, matched = coverage(text, newest)
        return matched >= 2 and share >= self.min_coverage
