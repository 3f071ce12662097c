"""How many indexed documents the library holds of each format (the welcome state's "3 Markdown, 2 Text, 1 PDF")."""

from __future__ import annotations

from desktop_app.core.store.postgres.base import PostgresBase


class FormatSQL(PostgresBase):
    """Document counts per format on the server (only the documents this person may read: row-level security)."""

    def formats(self) -> list[tuple[str, int]]:
        """Each document type among the indexed documents with its count, most first (then by name)."""
        rows = self._read(lambda c: c.execute(
            "SELECT type, count(*) FROM documents WHERE status = 'indexed' AND type <> '' "
            "GROUP BY type ORDER BY count(*) DESC, type").fetchall())
        return [(str(r[0]), int(r[1])) for r in rows]
