"""Memory items in the built-in viewer: a remembered fact, or a past chat's excerpt, shown as text with what it is
highlighted — the fact with the chat turn it was stated in, the excerpt's turns inside their chat.

A memory item reaches the viewer as the Sources list knows it: a cited fact is a chat Passage (its text and its
label "fact <key>, <age>"); a recalled excerpt is a memory hit's dict (kind "history", with its chat and turns).
Everything here reads the store; nothing writes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from desktop_app.core.store.memory_rows import Fact
from desktop_app.core.store.rows import MessageRow
from desktop_app.core.viewer_rows import PassageText

__all__ = ["chat_turns_text", "memory_passage"]

MEMORY_TYPE = "memory"  # PassageText.type of a memory item (never a file: nothing opens in a system viewer)
SOURCES = {"user_explicit": "you said so", "conversation": "stated in a chat", "document": "read in a document"}


def memory_passage(library: Any, item: dict[str, Any]) -> PassageText:
    """A memory item as viewer text. `item`: {"kind": "fact" | "history" | "conversation", "text", "label",
    "provenance"?}. A fact or chat that is gone since shows what the item itself holds."""
    kind = str(item.get("kind", ""))
    provenance = item.get("provenance") or {}
    text, label = str(item.get("text", "")), str(item.get("label", ""))
    if kind == "fact":
        fact = _fact(library, text, provenance.get("fact_id"))
        if fact is not None:
            return _fact_passage(library, fact, label)
    elif kind == "history" and provenance.get("chat_id") is not None:
        turns = provenance.get("turns") or [0, 0]
        shown = _chat_passage(library, int(provenance["chat_id"]), int(turns[0]), int(turns[-1]), label)
        if shown is not None:
            return shown
    return PassageText("", f"Memory · {label}" if label else "Memory", MEMORY_TYPE, text, 0, len(text), None)


def _fact(library: Any, text: str, fact_id: object) -> Fact | None:
    """The stored fact a Sources item names: by id when known, else the one its text begins with (a cited fact's
    passage is "<key>: <value> (confidence …)"), a current one before an outdated one."""
    from desktop_app.core.memory.facts import fact_text

    facts = library.memory.list(include_outdated=True, include_expired=True)
    if fact_id is not None:
        return next((f for f in facts if f.id == fact_id), None)
    matching = [f for f in facts if text.startswith(fact_text(f.key, f.value))]
    return min(matching, key=lambda f: (f.outdated, -f.updated_at), default=None)


def _fact_passage(library: Any, fact: Fact, label: str) -> PassageText:
    """The fact on its first line (the passage), its details, then the chat turn it was stated in when it is kept."""
    from desktop_app.core.memory.facts import fact_text

    line = fact_text(fact.key, fact.value)
    details = [f"confidence {round(fact.confidence * 100)}%", SOURCES.get(fact.source, fact.source),
               "replaced by a newer value" if fact.outdated else ""]
    text = line + "\n\n" + ", ".join(d for d in details if d)
    if fact.chat_id is not None and fact.turn is not None:
        turns = turn_pairs(library.store.chat_messages(fact.chat_id))
        if 0 < fact.turn <= len(turns):
            text += f"\n\nStated in turn {fact.turn} of {_chat_title(library, fact.chat_id)}:\n\n" + \
                _turn_text(fact.turn, turns[fact.turn - 1])
    return PassageText("", f"Memory · {label or 'fact ' + fact.key}", MEMORY_TYPE, text, 0, len(line), None)


def _chat_passage(library: Any, chat_id: int, first: int, last: int, label: str) -> PassageText | None:
    """The chat's turns with turns `first`..`last` (the excerpt) as the passage; None when the chat is gone."""
    turns = turn_pairs(library.store.chat_messages(chat_id))
    if not turns or first < 1 or first > len(turns):
        return None
    text, start, end = chat_turns_text(turns, first, min(max(last, first), len(turns)))
    title = f"Memory · {label}" if label else f"Memory · {_chat_title(library, chat_id)}"
    return PassageText("", title, MEMORY_TYPE, text, start, end, None)


def turn_pairs(messages: Sequence[MessageRow]) -> list[tuple[str, str]]:
    """A chat's (question, answer) turns, numbered as raw memory numbers them (from 1: each user message with the
    assistant's reply after it)."""
    turns: list[tuple[str, str]] = []
    for m in messages:
        if m.role == "user":
            turns.append((m.content, ""))
        elif m.role == "assistant" and turns and not turns[-1][1]:
            turns[-1] = (turns[-1][0], m.content)
    return turns


def chat_turns_text(turns: Sequence[tuple[str, str]], first: int, last: int) -> tuple[str, int, int]:
    """(text, start, end): every turn, and where turns `first`..`last` (from 1) are in it."""
    parts: list[str] = []
    length, start, end = 0, 0, 0
    for n, turn in enumerate(turns, start=1):
        if n == first:
            start = length
        block = _turn_text(n, turn)
        parts.append(block)
        length += len(block)
        if n == last:
            end = length
        parts.append("\n\n")
        length += 2
    return "".join(parts).rstrip("\n"), start, end


def _turn_text(n: int, turn: tuple[str, str]) -> str:
    question, answer = turn
    return f"[turn {n}]\nYou: {question.strip()}\nTrove: {answer.strip()}"


def _chat_title(library: Any, chat_id: int) -> str:
    chat = next((c for c in library.store.list_chats() if c.id == chat_id), None)
    return f"chat '{chat.title}'" if chat is not None and chat.title else "a chat"
