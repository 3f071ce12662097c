"""How many indexed documents the library holds of each format (the welcome state's "3 Markdown, 2 Text, 1 PDF"),
and the dates and tags documents have of their own (`trove stats`)."""

from __future__ import annotations

from collections import Counter

from desktop_app.core.store.sqlite.base import SQLiteBase


class FormatSQL(SQLiteBase):
    """Document counts per format, dates and tags, over the SQLite store."""

    def formats(self) -> list[tuple[str, int]]:
        """Each document type among the indexed documents with its count, most first (then by name)."""
        rows = self._read(lambda c: c.execute(
            "SELECT type, SUM(documents) AS n FROM doc_counts WHERE type != '' GROUP BY type HAVING n > 0 "
            "ORDER BY n DESC, type").fetchall())
        return [(str(r[0]), int(r[1])) for r in rows]

    def document_dates(self) -> tuple[int, str, str]:
        """How many documents have a date of their own, the earliest and the latest (ISO days; "" when none)."""
        row = self._read(lambda c: c.execute(
            "SELECT COUNT(doc_date), MIN(doc_date), MAX(doc_date) FROM documents WHERE doc_date IS NOT NULL"
        ).fetchone())
        return int(row[0]), row[1] or "", row[2] or ""

    def tag_counts(self, limit: int = 20) -> list[tuple[str, int]]:
        """The most used stored tags with their document counts, most first (then by name)."""
        rows = self._read(lambda c: c.execute("SELECT tags FROM documents WHERE tags IS NOT NULL").fetchall())
        counts = Counter(tag for (packed,) in rows for tag in packed.strip("|").split("|") if tag)
        return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]
