"""Obsidian `[[wikilinks]]` of a Markdown document, read at index time so a search result can follow them.

The forms Obsidian writes: `[[target]]`, `[[target|alias]]`, `[[target#heading]]`, `[[target#^block|alias]]`,
embeds `![[target]]`, and in a table `[[target\\|alias]]` (the pipe escaped). A link to a heading of the same note
(`[[#heading]]`) names no other document and is left out, as are links inside code (fenced or inline), where
Obsidian does not make links either. Which document a target names is decided when it is followed (core/search/
links.py), so a note written later still resolves.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_LINKS = 500  # a generated index note can hold thousands; a result shows the first ones
MAX_PART = 300  # characters kept of a target, heading or alias

_FRONT = re.compile(r"\A\ufeff?---[ \t]*\r?\n.*?\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.DOTALL)
_FENCE = re.compile(r"^[ \t]*(```|~~~).*?^[ \t]*\1[^\n]*$", re.DOTALL | re.MULTILINE)
_INLINE_CODE = re.compile(r"(`+)(?!`).+?(?<!`)\1", re.DOTALL)
_LINK = re.compile(r"(!?)\[\[([^\[\]\n]+?)\]\]")


@dataclass(frozen=True)
class WikiLink:
    """One `[[target#heading|alias]]` as written (`embed`: `![[...]]`, a note or file shown inline)."""

    target: str
    heading: str = ""
    alias: str = ""
    embed: bool = False


def wikilinks(text: str) -> tuple[WikiLink, ...]:
    """The wikilinks of a Markdown text in order, each (target, heading, alias) once."""
    body = _INLINE_CODE.sub(" ", _FENCE.sub(" ", _FRONT.sub("", text, count=1)))
    found: dict[WikiLink, None] = {}
    for m in _LINK.finditer(body):
        link = parse_link(m.group(2), embed=bool(m.group(1)))
        if link is not None:
            found.setdefault(link, None)
            if len(found) >= MAX_LINKS:
                break
    return tuple(found)


def parse_link(inner: str, *, embed: bool = False) -> WikiLink | None:
    """What is between `[[` and `]]`: target, then `#heading` or `#^block`, then `|alias`; None for no target."""
    inner = inner.replace("\\|", "|")
    target, _, alias = inner.partition("|")
    target, _, heading = target.partition("#")
    target = target.strip()
    if not target:
        return None  # [[#heading]]: a place in the same note
    return WikiLink(target=target[:MAX_PART], heading=heading.strip()[:MAX_PART], alias=alias.strip()[:MAX_PART],
                    embed=embed)
