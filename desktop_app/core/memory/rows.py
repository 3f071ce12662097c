"""Immutable values of conversation memory: facts, raw history chunks, and what a search or recall returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class FactSource(StrEnum):
    """Where a fact came from."""

    USER_EXPLICIT = "user_explicit"  # "remember that …", the Memory panel, `trove memory add`
    CONVERSATION = "conversation"  # the extractor found a self-statement in a chat
    DOCUMENT = "document"  # read from one of the library's documents


@dataclass(frozen=True)
class NewFact:
    """A fact to remember (before merging with what is known)."""

    key: str
    value: str
    category: str = ""
    source: FactSource = FactSource.USER_EXPLICIT
    confidence: float = 1.0
    expires_at: float | None = None
    chat_id: int | None = None
    turn: int | None = None


@dataclass(frozen=True)
class Fact:
    """A stored fact. `superseded_by` is the id of the correction that replaced it (it stays findable)."""

    id: int
    key: str
    value: str
    category: str
    source: str
    confidence: float
    created_at: float
    updated_at: float
    expires_at: float | None = None
    superseded_by: int | None = None
    merged_keys: tuple[str, ...] = ()
    chat_id: int | None = None
    turn: int | None = None

    @property
    def outdated(self) -> bool:
        """A newer value replaced this one."""
        return self.superseded_by is not None

    def expired(self, now: float) -> bool:
        """Past its expiry."""
        return self.expires_at is not None and self.expires_at <= now


@dataclass(frozen=True)
class NewMemoryChunk:
    """Verbatim turns of one chat, packed (at most 4,000 characters), before they are stored."""

    chat_id: int
    chat_title: str
    first_turn: int
    last_turn: int
    text: str
    text_hash: str
    breadcrumbs: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class MemoryChunk:
    """A stored raw history chunk."""

    id: int
    chat_id: int
    chat_title: str
    first_turn: int
    last_turn: int
    text: str
    text_hash: str
    breadcrumbs: tuple[tuple[str, str], ...]
    created_at: float


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
