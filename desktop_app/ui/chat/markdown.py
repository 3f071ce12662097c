"""Turns a chat transcript into Markdown that is safe to render: no HTML, no images, citations as links.

Pure functions. The transcript is rendered with QTextDocument.setMarkdown and the MarkdownNoHTML feature,
so raw HTML in a question or an answer shows as text; what is left to neutralise is Markdown's own
image syntax (which would make the document load a file) and user text being read as Markdown at all.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

CITE_SCHEME = "cite"
_MARKDOWN_SPECIALS = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~])")
# [3], [1, 2], [2-4]; not already a link target ("[1](" ) nor an escaped bracket.
_MARKER = re.compile(r"(?<!\\)\[\s*(\d{1,3}(?:\s*[-–,;]\s*\d{1,3})*)\s*\](?!\()")
_PART = re.compile(r"(\d{1,3})(?:\s*[-–]\s*(\d{1,3}))?")
_FENCE = re.compile(r"^\s{0,3}(```|~~~)", re.MULTILINE)


@dataclass(frozen=True)
class ShownExchange:
    """One question and its answer as the transcript shows them: plain strings for Markdown (the answer grows while
    it streams). The chat's own model of an exchange is core/chat/conversation.py's Exchange."""

    question: str
    answer: str = ""
    note: str = ""  # e.g. "stopped", "failed: …" (shown in italics after the answer)


def escape_markdown(text: str) -> str:
    """Text that Markdown shows literally (user questions are never interpreted)."""
    return _MARKDOWN_SPECIALS.sub(r"\\\1", text)


def neutralise_images(text: str) -> str:
    """`![alt](src)` would load a resource: make it plain text."""
    return text.replace("![", "!\\[")


def close_fences(text: str) -> str:
    """An unterminated code fence (common mid-stream) would swallow everything after it."""
    return text + "\n```" if len(_FENCE.findall(text)) % 2 else text


def cite_url(answer: int, n: int) -> str:
    return f"{CITE_SCHEME}:{answer}:{n}"


def parse_cite_url(url: str) -> tuple[int, int] | None:
    """(answer index, passage number) from a cite link, or None for any other link."""
    m = re.fullmatch(rf"{CITE_SCHEME}:(\d+):(\d+)", url)
    return (int(m.group(1)), int(m.group(2))) if m else None


def link_citations(text: str, answer: int) -> str:
    """Citation markers as links: [1, 2] becomes [\\[1\\]](cite:a:1) [\\[2\\]](cite:a:2)."""
    def linkify(m: re.Match[str]) -> str:
        numbers: list[int] = []
        for part in _PART.finditer(m.group(1)):
            lo = int(part.group(1))
            hi = int(part.group(2)) if part.group(2) else lo
            numbers.extend(range(lo, hi + 1) if 0 <= hi - lo <= 20 else [lo])
        return "".join(f"[\\[{n}\\]]({cite_url(answer, n)})" for n in dict.fromkeys(numbers))
    return _MARKER.sub(linkify, text)


def answer_markdown(text: str, answer: int) -> str:
    """An answer as Markdown: images neutralised, fences closed, citation markers linked."""
    return link_citations(close_fences(neutralise_images(text)), answer)


def transcript_markdown(exchanges: Sequence[ShownExchange], assistant: str = "Trove") -> str:
    """The whole conversation as one Markdown document."""
    parts = []
    for i, ex in enumerate(exchanges):
        parts.append(f"**You**\n\n{escape_markdown(ex.question)}")
        body = answer_markdown(ex.answer, i) if ex.answer else "…"
        note = f"\n\n*{escape_markdown(ex.note)}*" if ex.note else ""
        parts.append(f"**{assistant}**\n\n{body}{note}")
    return "\n\n---\n\n".join(parts) + "\n"
