"""A document's wikilinks on SQLite (documents.links, migration 015), and the files a link target may name."""

from __future__ import annotations

import os
from collections.abc import Sequence

from desktop_app.core.ingest.markdown_links import WikiLink
from desktop_app.core.store.link_rows import NamedDocument, like_escaped, pack_links, unpack_links
from desktop_app.core.store.sqlite.base import SQLiteBase


class LinkSQL(SQLiteBase):
    """documents.links read and written; documents found by the start of their file name."""

    def set_document_links(self, doc_id: int, links: Sequence[WikiLink]) -> None:
        """Replace a document's wikilinks (empty: it has none)."""
        self._write(lambda c: c.execute("UPDATE documents SET links = ? WHERE id = ?", (pack_links(links), doc_id)))

    def document_links(self, doc_id: int) -> list[WikiLink]:
        """A document's wikilinks in the order written."""
        row = self._read(lambda c: c.execute("SELECT links FROM documents WHERE id = ?", (doc_id,)).fetchone())
        return unpack_links(row[0]) if row else []

    def documents_named(self, name: str, limit: int = 50) -> list[NamedDocument]:
        """Read files whose file name is `name`, or `name` and an extension (LIKE: any ASCII case; the caller
        compares exactly)."""
        if not name or os.sep in name:
            return []
        exact = "%" + like_escaped(os.sep + name)
        rows = self._read(lambda c: c.execute(
            "SELECT id, path, title FROM documents WHERE (path LIKE ? ESCAPE '\\' OR path LIKE ? ESCAPE '\\') "
            "AND container IS NULL AND status = 'indexed' ORDER BY length(path), path LIMIT ?",
            (exact, exact + ".%", int(limit))).fetchall())
        return [NamedDocument(int(r[0]), r[1], r[2] or "") for r in rows]
