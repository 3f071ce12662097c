"""How many indexed documents the library holds of each format (the welcome state's "3 Markdown, 2 Text, 1 PDF")."""

from __future__ import annotations

from desktop_app.core.store.postgres.base import PostgresBase


class FormatSQL(PostgresBase):
    """Document counts per format on the server, from the kept counts (only the folders this person may read: row-level
    security)."""

    def formats(self) -> list[tuple[str, int]]:
        """Each document type among the indexed documents with its count, most first (then by name)."""
        rows = self._read(lambda c: c.execute(
            "SELECT type, sum(documents) AS n FROM doc_counts WHERE type <> '' "
            "GROUP BY type HAVING sum(documents) > 0 ORDER BY n DESC, type").fetchall())
        return [(str(r[0]), int(r[1])) for r in rows]
