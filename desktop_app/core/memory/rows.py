"""Immutable values of conversation memory: what a search or recall returns; the stored rows (facts, raw history
chunks) are the store's (store/memory_rows.py) and are named here too, as memory's callers know them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from desktop_app.core.store.memory_rows import Fact, FactSource, MemoryChunk, NewFact, NewMemoryChunk

__all__ = ["Fact", "FactSource", "Forgotten", "MemoryChunk", "MemoryHit", "NewFact", "NewMemoryChunk", "Recall"]


@dataclass(frozen=True)
class MemoryHit:
    """One result of a memory search: a fact, a raw history excerpt or a document passage, with where it came from.

    `kind` is "fact", "history" or "document"; `tier` orders kinds (facts first); `provenance` says where it came
    from (fact key and age, or chat title, turns and date, or the document's path); `outdated` marks a superseded
    fact, or an excerpt that a newer fact contradicts."""

    kind: str
    text: str
    score: float
    tier: int
    provenance: dict[str, Any] = field(default_factory=dict)
    outdated: bool = False
    ref: str = ""  # a stable id: "fact:12", "history:7", or the document chunk's "chunk:33"

    def label(self) -> str:
        """How the hit names its origin in one line ("fact editor, 34d ago", "chat 'Deploy' turns 3-5, 2026-11-02")."""
        p = self.provenance
        if self.kind == "fact":
            return f"fact {p.get('key', '')}, {p.get('age', '')}".strip(", ")
        if self.kind == "history":
            turns = p.get("turns", [0, 0])
            span = f"turn {turns[0]}" if turns[0] == turns[1] else f"turns {turns[0]}-{turns[1]}"
            return f"chat '{p.get('chat_title', '')}' {span}, {p.get('date', '')}"
        return str(p.get("source", ""))

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {"kind": self.kind, "text": self.text, "score": self.score, "tier": self.tier, "ref": self.ref,
                "outdated": self.outdated, "label": self.label(), "provenance": dict(self.provenance)}


@dataclass(frozen=True)
class Recall:
    """What automatic recall adds to one prompt: the fact list and up to two raw excerpts, with their token cost."""

    facts_text: str = ""
    excerpts: tuple[MemoryHit, ...] = ()
    tokens: int = 0

    def __bool__(self) -> bool:
        return bool(self.facts_text or self.excerpts)


@dataclass(frozen=True)
class Forgotten:
    """What forgetting by a word did: the facts that went (their current values), or, when none matched, the keys
    there are, so the person can say which they meant."""

    facts: tuple[Fact, ...] = ()
    keys: tuple[str, ...] = ()
