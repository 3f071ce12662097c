"""How many indexed documents the library holds of each format (the welcome state's "3 Markdown, 2 Text, 1 PDF")."""

from __future__ import annotations

from desktop_app.core.store.postgres.base import PostgresBase


class FormatSQL(PostgresBase):
    """Document counts per format on the server, from the kept counts, and documents' own dates and tags (only the
    folders this person may read: row-level security)."""

    def formats(self) -> list[tuple[str, int]]:
        """Each document type among the indexed documents with its count, most first (then by name)."""
        rows = self._read(lambda c: c.execute(
            "SELECT type, sum(documents) AS n FROM doc_counts WHERE type <> '' "
            "GROUP BY type HAVING sum(documents) > 0 ORDER BY n DESC, type").fetchall())
        return [(str(r[0]), int(r[1])) for r in rows]

    def document_dates(self) -> tuple[int, str, str]:
        """How many documents have a date of their own, the earliest and the latest (ISO days; "" when none)."""
        row = self._read(lambda c: c.execute(
            "SELECT count(doc_date), min(doc_date)::text, max(doc_date)::text FROM documents "
            "WHERE doc_date IS NOT NULL").fetchone())
        return (int(row[0]), row[1] or "", row[2] or "") if row else (0, "", "")

    def tag_counts(self, limit: int = 20) -> list[tuple[str, int]]:
        """The most used stored tags with their document counts, most first (then by name)."""
        rows = self._read(lambda c: c.execute(
            "SELECT t, count(*) AS n FROM documents, unnest(tags) t WHERE tags IS NOT NULL GROUP BY t "
            "ORDER BY n DESC, t LIMIT %s", (int(limit),)).fetchall())
        return [(str(r[0]), int(r[1])) for r in rows]
