"""Raw history: verbatim turns packed into chunks of at most 4,000 characters, content-hashed, with breadcrumbs.

Chunks are append-only: a chat's turns are packed once, when compaction moves them out of the window; the store
skips a text it already has for that chat (same hash), so saving the same turns twice changes nothing. A turn
longer than a chunk is cut at whitespace into several chunks that share its turn number.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from desktop_app.core.memory.breadcrumbs import MAX_CRUMBS, breadcrumbs
from desktop_app.core.memory.rows import NewMemoryChunk
from desktop_app.core.types import Turn

RAW_MAX_CHARS = 4000
# Chunks stop growing at about this size. bench/memory.py on LoCoMo's tuning conversations 0-4 (hash embedder):
# evidence recall@10 0.815 at 600 characters, 0.884 at 1,000, 0.901 at 1,500, while a recalled excerpt's prompt cost
# grows with it (299, 449, 645 tokens per question): 1,000 is the trade.
RAW_TARGET_CHARS = 1000


@dataclass(frozen=True)
class TurnText:
    """One turn of a chat as raw memory keeps it: its number (from 1) and its text, speakers named."""

    number: int
    text: str


def chat_turns(turns: Sequence[Turn], first: int = 1) -> list[TurnText]:
    """Question/answer turns as TurnTexts numbered from `first`."""
    return [TurnText(first + i, f"User: {t.question.strip()}\nAssistant: {t.answer.strip()}")
            for i, t in enumerate(turns)]


def content_hash(text: str) -> str:
    """The hash a chunk is stored under (two saves of one text are one chunk)."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def turn_block(turn: TurnText) -> str:
    """A turn as it appears in a chunk: "[turn 3] User: …"."""
    return f"[turn {turn.number}] {turn.text.strip()}"


def pack_turns(chat_id: int, title: str, turns: Sequence[TurnText], *, max_chars: int = RAW_MAX_CHARS,
               target_chars: int = RAW_TARGET_CHARS) -> list[NewMemoryChunk]:
    """Consecutive turns packed into chunks: a chunk takes turns while it stays within `target_chars` (it always
    takes one), and never exceeds `max_chars`."""
    max_chars = max(int(max_chars), 200)
    target = min(max(int(target_chars), 1), max_chars)
    out: list[NewMemoryChunk] = []
    group: list[tuple[int, str]] = []
    size = 0
    for turn in sorted(turns, key=lambda t: t.number):
        for piece in _pieces(turn_block(turn), max_chars):
            extra = len(piece) + (2 if group else 0)
            if group and size + extra > target:
                out.append(_chunk(chat_id, title, group))
                group, size, extra = [], 0, len(piece)
            group.append((turn.number, piece))
            size += extra
    if group:
        out.append(_chunk(chat_id, title, group))
    return out


def _chunk(chat_id: int, title: str, group: list[tuple[int, str]]) -> NewMemoryChunk:
    text = "\n\n".join(piece for _, piece in group)
    crumbs = tuple(breadcrumbs(text)[:MAX_CRUMBS])
    return NewMemoryChunk(chat_id, title, group[0][0], group[-1][0], text, content_hash(text), crumbs)


def _pieces(text: str, max_chars: int) -> list[str]:
    """`text` cut at whitespace into pieces of at most `max_chars` (mid-word only for a word that long)."""
    pieces: list[str] = []
    rest = text
    while len(rest) > max_chars:
        cut = rest.rfind(" ", max_chars // 2, max_chars + 1)
        cut = cut if cut > 0 else max_chars
        pieces.append(rest[:cut].rstrip())
        rest = rest[cut:].lstrip()
    if rest.strip():
        pieces.append(rest)
    return pieces


def turn_windows(text: str, max_windows: int) -> list[str]:
    """The texts a chunk's vectors are made from: one per turn block, so a chunk's best vector is its best turn
    (the closest turn decides, not a 256-token window across several); neighbours are joined when a chunk holds more
    turns than `max_windows`."""
    blocks = [b for b in text.split("\n\n[turn ") if b.strip()]
    blocks = [b if i == 0 else "[turn " + b for i, b in enumerate(blocks)] or [text]
    while len(blocks) > max(1, max_windows):
        shortest = min(range(len(blocks) - 1), key=lambda i: len(blocks[i]) + len(blocks[i + 1]))
        blocks[shortest:shortest + 2] = [blocks[shortest] + "\n\n" + blocks[shortest + 1]]
    return blocks
