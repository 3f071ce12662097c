"""Citation markers: find [n] in an answer, resolve them to the passages that were sent, drop the rest.

Pure functions."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from desktop_app.core.chat.answer.context import Passage, place_text

SNIPPET_CHARS = 200
MAX_RANGE = 50  # "[1-9999]" is noise, not a citation of 9999 passages

# One bracket holding numbers separated by commas/semicolons, or ranges like 2-4: [1], [1, 3], [2-4].
MARKER = re.compile(r"\[\s*(\d{1,4}(?:\s*[-–]\s*\d{1,4})?(?:\s*[,;]\s*\d{1,4}(?:\s*[-–]\s*\d{1,4})?)*)\s*\]")
_PART = re.compile(r"(\d{1,4})(?:\s*[-–]\s*(\d{1,4}))?")


@dataclass(frozen=True)
class Citation:
    """A marker [n] in an answer resolved to where passage n came from."""

    n: int
    path: str
    page: int | None
    chunk_id: int | None
    snippet: str
    place: str = ""  # "slide 3", "message 2 · report.pdf · p. 2"; empty: the page number says it

    @property
    def where(self) -> str:
        """The place in its file, or "p. N", or ""."""
        return place_text(self.place, self.page)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (the messages.citations column)."""
        return {
            "n": self.n,
            "path": self.path,
            "page": self.page,
            "chunk_id": self.chunk_id,
            "snippet": self.snippet,
            "place": self.place,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Citation:
        """The inverse of to_dict."""
        return cls(
            n=int(d["n"]),
            path=d.get("path", ""),
            page=d.get("page"),
            chunk_id=d.get("chunk_id"),
            snippet=d.get("snippet", ""),
            place=d.get("place", ""),
        )


def unmarked(text: str) -> str:
    """`text` with its citation markers replaced by spaces: the words a sentence says."""
    return MARKER.sub(" ", text)


def marker_numbers(group: str) -> list[int]:
    """The passage numbers one marker's group names ("1, 3", "2-4"); a range wider than MAX_RANGE is its start."""
    out: list[int] = []
    for m in _PART.finditer(group):
        lo = int(m.group(1))
        hi = int(m.group(2)) if m.group(2) else lo
        if hi < lo or hi - lo > MAX_RANGE:
            hi = lo
        out.extend(range(lo, hi + 1))
    return out


def cited_numbers(text: str) -> list[int]:
    """Every number the answer cites, in order of first appearance, without repeats."""
    seen: dict[int, None] = {}
    for m in MARKER.finditer(text):
        for n in marker_numbers(m.group(1)):
            seen.setdefault(n, None)
    return list(seen)


def snippet(text: str, limit: int = SNIPPET_CHARS) -> str:
    """The passage's first `limit` characters with whitespace collapsed, cut at a word."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    cut = flat[:limit]
    space = cut.rfind(" ")
    return (cut[:space] if space > limit // 2 else cut) + "…"


def resolve_citations(text: str, passages: Sequence[Passage]) -> list[Citation]:
    """Citations for the markers in `text` that name a sent passage; markers pointing nowhere are dropped."""
    by_n = {p.n: p for p in passages}
    return [
        Citation(
            n=n,
            path=by_n[n].source,
            page=by_n[n].page,
            chunk_id=by_n[n].chunk_id,
            snippet=snippet(by_n[n].content),
            place=by_n[n].place,
        )
        for n in cited_numbers(text)
        if n in by_n
    ]


def drop_dangling_markers(text: str, valid: set[int]) -> str:
    """`text` with numbers that name no passage removed from its markers (a marker left empty goes entirely)."""

    def fix(m: re.Match[str]) -> str:
        kept = [str(n) for n in marker_numbers(m.group(1)) if n in valid]
        if len(kept) == len(marker_numbers(m.group(1))):
            return m.group(0)  # untouched: keep the model's own spelling, e.g. [2-4]
        return f"[{', '.join(dict.fromkeys(kept))}]" if kept else ""

    cleaned = MARKER.sub(fix, text)
    # removing "[0]" from "[[0]0]" leaves a new marker: repeat until stable
    # (a pass removes text or leaves valid markers)
    while True:
        again = MARKER.sub(fix, cleaned)
        if again == cleaned:
            break
        cleaned = again
    return re.sub(r"[ \t]+([.,;:!?])", r"\1", cleaned) if cleaned != text else text


def format_source_line(c: Citation | Passage) -> str:
    """One line for a sources list: "[n] path (p. N)" or "[n] path (slide 3)", the place omitted when unknown."""
    path = c.path if isinstance(c, Citation) else c.source
    return f"[{c.n}] {path}" + (f" ({c.where})" if c.where else "")
