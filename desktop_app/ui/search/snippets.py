"""Snippet text for search results: a window of the passage around its first highlight, escaped, with the
matched words in bold. Pure functions (no Qt), so tests can throw any string at them."""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

from desktop_app.core.text.markup import plain_spans, strip_markup

SNIPPET_CHARS = 260
_WS = re.compile(r"\s+")


def _clean_spans(spans: Sequence[Sequence[int]], length: int) -> list[tuple[int, int]]:
    """Valid (start, end) spans inside [0, length), sorted, with overlaps merged."""
    out: list[tuple[int, int]] = []
    for span in sorted((int(s), int(e)) for s, e in (tuple(x)[:2] for x in spans or ()) if 0 <= s < e):
        start, end = span[0], min(span[1], length)
        if start >= length:
            continue
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def snippet_window(text: str, spans: Sequence[Sequence[int]], limit: int = SNIPPET_CHARS) -> tuple[int, int]:
    """The [start, end) slice of `text` to show: `limit` characters starting a little before the first match."""
    if len(text) <= limit:
        return 0, len(text)
    clean = _clean_spans(spans, len(text))
    start = max(0, clean[0][0] - limit // 4) if clean else 0
    if start:
        space = text.rfind(" ", max(0, start - 20), start)
        start = space + 1 if space >= 0 else start
    end = min(len(text), start + limit)
    return start, end


def snippet_html(text: str, spans: Sequence[Sequence[int]], limit: int = SNIPPET_CHARS, mark: str = "b", *,
                 markup: bool = False) -> str:
    """Escaped HTML of the snippet window with highlighted spans wrapped in <mark>; whitespace collapsed.
    `markup`: the passage may hold Markdown or HTML syntax, shown as the text it marks up (core/text/markup.py).

    Everything that comes from the document goes through html.escape, so a passage holding `<img src=…>`
    shows those characters and loads nothing.
    """
    if markup:
        text, origin = strip_markup(text)
        spans = plain_spans(origin, spans)
    start, end = snippet_window(text, spans, limit)
    parts: list[str] = []
    pos = start
    for s, e in _clean_spans(spans, len(text)):
        s, e = max(s, start), min(e, end)
        if s >= e:
            continue
        parts.append(_esc(text[pos:s]))
        parts.append(f"<{mark}>{_esc(text[s:e])}</{mark}>")
        pos = e
    parts.append(_esc(text[pos:end]))
    body = "".join(parts)
    return ("… " if start > 0 else "") + body + (" …" if end < len(text) else "")


def _esc(fragment: str) -> str:
    return html.escape(_WS.sub(" ", fragment), quote=True)
