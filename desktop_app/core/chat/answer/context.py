"""Context injection: number the retrieved passages, fit them to a token budget, put them in the prompt.

Pure functions. Token counts come from a `count_tokens(text) -> int` callable: the model's own
tokenizer at run time, a simple word counter in unit tests.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from desktop_app.core.types import MEMORY_SOURCE, RetrievalResult

CountTokens = Callable[[str], int]
Message = dict[str, Any]

# A passage cut shorter than this many tokens says too little to be worth its header.
MIN_PASSAGE_TOKENS = 24
TRUNCATION_MARK = " …"


class Retriever(Protocol):
    """Anything with the seed MemoryBackend's retrieve()."""

    def retrieve(self, query: str, *, top_k: int = 5, **kw: Any) -> list[RetrievalResult]: ...


@dataclass(frozen=True)
class ContextConfig:
    """Whether and how much retrieved text goes into a prompt (the seed contract)."""

    enabled: bool = True
    top_k: int = 5
    min_score: float = 0.1
    max_context_tokens: int = 2048


@dataclass(frozen=True)
class Passage:
    """One numbered passage as it was sent to the model; `n` is the number the model cites as [n]."""

    n: int
    content: str
    source: str
    page: int | None = None
    chunk_id: int | None = None
    score: float = 0.0
    truncated: bool = False
    place: str = ""  # how the file names where the passage is: "slide 3", "message 2 · report.pdf · p. 2"

    @property
    def kind(self) -> str:
        """What the passage is evidence from: "document", or "fact" (something the person stated, from memory).
        Chats stored before round 4 may hold a past-chat excerpt as a memory passage: "conversation"."""
        if self.source != MEMORY_SOURCE:
            return "document"
        return "fact" if self.place.startswith("fact ") else "conversation"

    @property
    def where(self) -> str:
        """The place in its file ("slide 3"), or "p. N", or "" when the file has no pages."""
        return place_text(self.place, self.page)

    @property
    def label(self) -> str:
        """File name and place, e.g. "report.pdf, p. 3" or "deck.pptx, slide 3"."""
        name = os.path.basename(self.source.rstrip("/\\")) or self.source or "unknown"
        return f"{name}, {self.where}" if self.where else name

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (stored with the assistant message)."""
        return {"n": self.n, "content": self.content, "source": self.source, "page": self.page,
                "chunk_id": self.chunk_id, "score": self.score, "truncated": self.truncated, "place": self.place}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Passage:
        """The inverse of to_dict."""
        return cls(n=int(d["n"]), content=d["content"], source=d.get("source", ""), page=d.get("page"),
                   chunk_id=d.get("chunk_id"), score=float(d.get("score", 0.0)), truncated=bool(d.get("truncated")),
                   place=d.get("place", ""))


def place_text(place: str, page: int | None) -> str:
    """A place label ("slide 3"), or "p. N" for a plain page number, or "" for neither."""
    return place or (f"p. {page}" if page is not None else "")


def approx_tokens(text: str) -> int:
    """A tokenizer-free estimate (about 4 characters a token), for callers that have no tokenizer."""
    return (len(text) + 3) // 4


def format_passage(p: Passage) -> str:
    """The passage as the model sees it: number, file name and page, the seed's [Source: path] tag, text."""
    return f"[{p.n}] {p.label} [Source: {p.source}]\n{p.content}"


def format_context(passages: Sequence[Passage]) -> str:
    """All passages, separated by blank lines."""
    return "\n\n".join(format_passage(p) for p in passages)


def truncate_to_tokens(text: str, max_tokens: int, count_tokens: CountTokens) -> str:
    """The longest prefix of `text` (cut at a space when one is near) within `max_tokens`, plus a mark."""
    if count_tokens(text) <= max_tokens:
        return text
    lo, hi = 0, len(text)
    while lo < hi:  # binary search on characters: O(log n) tokenizer calls
        mid = (lo + hi + 1) // 2
        if count_tokens(text[:mid] + TRUNCATION_MARK) <= max_tokens:
            lo = mid
        else:
            hi = mid - 1
    cut = text[:lo]
    space = cut.rfind(" ")
    if space > len(cut) * 0.8:
        cut = cut[:space]
    return cut.rstrip() + TRUNCATION_MARK if cut.strip() else ""


def to_passage(n: int, result: RetrievalResult) -> Passage:
    """Number one retrieval result."""
    meta = result.metadata or {}
    return Passage(n=n, content=result.content, source=result.source, page=meta.get("page"),
                   chunk_id=meta.get("chunk_id"), score=float(result.score), place=meta.get("label") or "")


def select_passages(results: Sequence[RetrievalResult], *, min_score: float, budget_tokens: int,
                    count_tokens: CountTokens, format_one: Callable[[Passage], str] = format_passage) -> list[Passage]:
    """Passages that clear `min_score`, best first, numbered from 1, whose formatted text fits the budget.

    The first passage that does not fit whole is cut to the space left (if that leaves enough to be
    useful) and selection stops there, so a lower-ranked passage never displaces a better one.
    `format_one` is how a passage will appear in the prompt (its label costs tokens too).
    """
    chosen: list[Passage] = []
    used = 0
    for result in results:
        if result.score < min_score or not result.content.strip():
            continue
        p = to_passage(len(chosen) + 1, result)
        cost = count_tokens(format_one(p)) + 2  # +2: the blank line between passages
        if used + cost <= budget_tokens:
            chosen.append(p)
            used += cost
            continue
        header = count_tokens(format_one(replace(p, content=""))) + 2
        room = budget_tokens - used - header
        if room >= MIN_PASSAGE_TOKENS:
            cut = truncate_to_tokens(p.content, room, count_tokens)
            if cut:
                chosen.append(replace(p, content=cut, truncated=True))
        break
    return chosen


def inject_context(query: str, messages: Sequence[Message], backend: Retriever, config: ContextConfig | None = None,
                   *, count_tokens: CountTokens = approx_tokens) -> list[Message]:
    """A NEW message list whose first system message carries the retrieved passages (seed contract).

    Passages are numbered [1]…[n] with file name, page and a `[Source: path]` tag. With context
    disabled, or nothing above `min_score`, the messages come back unchanged (as a copy).
    """
    config = config or ContextConfig()
    out = [dict(m) for m in messages]
    if not config.enabled or not query.strip():
        return out
    results = backend.retrieve(query, top_k=config.top_k)
    passages = select_passages(results, min_score=config.min_score, budget_tokens=config.max_context_tokens,
                               count_tokens=count_tokens)
    if not passages:
        return out
    block = "Context from the user's documents:\n\n" + format_context(passages)
    if out and out[0].get("role") == "system":
        out[0]["content"] = f"{out[0]['content']}\n\n{block}" if out[0].get("content") else block
    else:
        out.insert(0, {"role": "system", "content": block})
    return out
