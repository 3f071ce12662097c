"""Markup out of a passage before it becomes a snippet: Markdown's `#`, `**`, `[text](url)` and list markers, and
HTML tags and entities, so a result reads as text. Each kept character remembers where it was, so the
highlighted words' spans (given on the original passage) still land on the same words. Pure, no Qt."""

from __future__ import annotations

import bisect
import html
import re
from collections.abc import Sequence

_MARKUP = re.compile(
    r"(?P<comment><!--.*?-->)"
    r"|(?P<tag></?(?P<name>[A-Za-z][A-Za-z0-9]*)[^<>\n]*>)"
    r"|(?P<entity>&(?:#\d{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z]{2,8});)"
    r"|(?P<link>!?\[(?P<label>[^\]\n]*)\]\([^)\n]*\))"
    r"|(?P<rule>(?m:^[ \t]*(?P<r>[-*_])(?:[ \t]*(?P=r)){2,}[ \t]*$))"
    r"|(?P<heading>(?m:^[ \t]{0,3}#{1,6}[ \t]+))"
    r"|(?P<marker>(?m:^[ \t]*(?:>[ \t]?|[-*+][ \t]+)))"
    r"|(?P<strong>\*\*|__|~~|`+)"
    r"|(?P<emphasis>(?<!\w)[*_](?=\S)|(?<=\S)[*_](?!\w))",
    re.DOTALL,
)

_BLOCKS = frozenset({"p", "br", "div", "li", "ul", "ol", "tr", "td", "th", "table", "h1", "h2", "h3", "h4", "h5",
                     "h6", "blockquote", "pre", "hr", "section", "article"})


def strip_markup(text: str) -> tuple[str, list[int]]:
    """(plain text, for each of its characters the index it came from in `text`)."""
    out: list[str] = []
    origin: list[int] = []
    pos = 0
    for m in _MARKUP.finditer(text):
        out.append(text[pos:m.start()])
        origin.extend(range(pos, m.start()))
        if m.group("tag") and m.group("name").lower() in _BLOCKS:  # a line or cell ends: words stay apart
            out.append(" ")
            origin.append(m.start())
        elif m.group("entity"):
            decoded = html.unescape(m.group())
            out.append(decoded)
            origin.extend([m.start()] * len(decoded))
        elif m.group("link") is not None:
            out.append(m.group("label"))
            origin.extend(range(m.start("label"), m.end("label")))
        pos = m.end()
    out.append(text[pos:])
    origin.extend(range(pos, len(text)))
    plain = "".join(out)
    lead, kept = len(plain) - len(plain.lstrip()), len(plain.rstrip())  # a snippet starts at its first word
    return plain[lead:kept], origin[lead:kept] if kept > lead else []


def plain_spans(origin: list[int], spans: Sequence[Sequence[int]]) -> list[tuple[int, int]]:
    """Spans over the original text, moved onto the plain text whose characters came from `origin`."""
    moved = []
    for span in spans or ():
        start, end = int(span[0]), int(span[1])
        s, e = bisect.bisect_left(origin, start), bisect.bisect_left(origin, end)
        if s < e:
            moved.append((s, e))
    return moved
