"""The rows conversation memory keeps in the store: facts and raw history chunks, as written and as read back.

They live with the store (as rows.py does for documents and chunks), so the engines that write them import
nothing from memory/; memory/rows.py adds what a memory search or recall returns."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


def fact_title(key: str) -> str:
    """The words of a key, as the keyword index and the embedder read them (preferred_language → preferred language);
    both engines index a fact's key this way, and recall shows it so."""
    return key.replace("_", " ")


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
