"""The rows of a document's wikilinks as the engines store them and the link sub-facade hands them out."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from desktop_app.core.ingest.markdown_links import WikiLink


@dataclass(frozen=True)
class NamedDocument:
    """A document a link target may name: its id, path and title (candidates before resolution)."""

    id: int
    path: str
    title: str


def pack_links(links: Sequence[WikiLink]) -> str | None:
    """The links as the engines keep them: a JSON list of [target, heading, alias, embed] (None: no links)."""
    if not links:
        return None
    return json.dumps([[x.target, x.heading, x.alias, int(x.embed)] for x in links], ensure_ascii=False)


def unpack_links(packed: str | None) -> list[WikiLink]:
    """pack_links' text back to links (a damaged value reads as no links)."""
    try:
        rows = json.loads(packed) if packed else []
        return [WikiLink(str(t), str(h), str(a), bool(e)) for t, h, a, e in rows]
    except (ValueError, TypeError):
        return []


def like_escaped(text: str) -> str:
    """`text` matched literally by LIKE / ILIKE ... ESCAPE '\\' (its %, _ and \\ escaped)."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


@runtime_checkable
class LinkStore(Protocol):
    """A document's wikilinks, and the documents a link target may name (both engines: sqlite/ and postgres/
    links.py)."""

    def set_document_links(self, doc_id: int, links: Sequence[WikiLink]) -> None:
        """Replace a document's wikilinks (empty: it has none)."""
        ...

    def document_links(self, doc_id: int) -> list[WikiLink]:
        """A document's wikilinks in the order written (empty when it has none or is not visible)."""
        ...

    def documents_named(self, name: str, limit: int = 50) -> list[NamedDocument]:
        """Files (not parts inside files) whose file name starts with `name`, any case: the candidates for a link
        target (core/search/links.py picks among them as Obsidian does)."""
        ...
