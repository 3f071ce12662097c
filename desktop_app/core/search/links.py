"""Following a Markdown note's `[[wikilinks]]` to the documents they name, as Obsidian resolves them.

A target names a file by its name: `[[Note]]` is `Note.md` anywhere in the library, `[[report.pdf]]` that file,
`[[Projects/Note]]` a `Note.md` whose path ends with `Projects/Note.md`; names compare in any case. When several
files answer, Obsidian's order decides: the exact file name before another file of that stem (a Markdown note before
a PDF), then the file in the linking note's own folder, then the shortest path. A target no file answers is kept,
unresolved, as Obsidian shows a link to a note not written yet.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from pathlib import PurePath

from desktop_app.core.ingest.markdown_links import WikiLink
from desktop_app.core.store.link_rows import LinkStore, NamedDocument

NOTE_SUFFIX = ".md"


@dataclass(frozen=True)
class FollowedLink:
    """A wikilink and the document it names (path "" when no file in the library answers)."""

    link: WikiLink
    path: str = ""
    title: str = ""
    document_id: int | None = None

    def to_dict(self) -> dict[str, object]:
        """As `trove search --json` and the MCP tools show it."""
        return {"target": self.link.target, "heading": self.link.heading, "alias": self.link.alias,
                "embed": self.link.embed, "path": self.path, "title": self.title}


def link_target(target: str) -> tuple[tuple[str, ...], str]:
    """(folder names, file name) of a target as written: Obsidian writes '/' whatever the system."""
    parts = [p for p in posixpath.normpath(target.replace("\\", "/")).split("/") if p not in ("", ".")]
    return tuple(parts[:-1]), (parts[-1] if parts else "")


def resolve(target: str, linking_path: str, candidates: list[NamedDocument]) -> NamedDocument | None:
    """The document a target names among `candidates` (files named like it), or None."""
    folders, name = link_target(target)
    if not name:
        return None
    wanted = name.casefold()

    def rank(doc: NamedDocument) -> tuple[int, int, int, str] | None:
        path = PurePath(doc.path)
        if path.name.casefold() == wanted:
            kind = 0  # the exact file name ([[Note.md]], [[report.pdf]])
        elif path.stem.casefold() == wanted:
            kind = 1 if path.suffix.casefold() == NOTE_SUFFIX else 2  # [[Note]]: the note, then another file
        else:
            return None
        above = tuple(p.casefold() for p in path.parts[:-1])
        if folders and above[-len(folders):] != tuple(f.casefold() for f in folders):
            return None  # [[Projects/Note]]: a Note.md under another folder is not it
        same_folder = 0 if path.parent == PurePath(linking_path).parent else 1
        return kind, same_folder, len(doc.path), doc.path

    ranked = [(r, doc) for doc in candidates if (r := rank(doc)) is not None]
    return min(ranked, key=lambda x: x[0])[1] if ranked else None


def follow(store: LinkStore, linking_path: str, links: list[WikiLink]) -> list[FollowedLink]:
    """Each link with the document it names (targets asked of the store once each)."""
    out = []
    asked: dict[str, NamedDocument | None] = {}
    for link in links:
        if link.target not in asked:
            name = link_target(link.target)[1]
            asked[link.target] = resolve(link.target, linking_path, store.documents_named(name) if name else [])
        doc = asked[link.target]
        out.append(FollowedLink(link, doc.path, doc.title, doc.id) if doc else FollowedLink(link))
    return out
