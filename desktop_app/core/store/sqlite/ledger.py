"""The library ledger on SQLite: a page of document rows with their states, rows per state, and the files never read."""

from __future__ import annotations

from desktop_app.core.store.ledger import SQLITE, counts_sql, not_read_sql, page_sql, row_from
from desktop_app.core.store.ledger_rows import FileState, LedgerQuery, LedgerRow
from desktop_app.core.store.sqlite.base import SQLiteBase


class LedgerSQL(SQLiteBase):
    """`ledger_page`, `ledger_counts`, `ledger_not_read` and `mark_not_read` (core/store/ledger.py holds the SQL
    both engines share)."""

    def ledger_page(self, query: LedgerQuery, offset: int = 0, limit: int = 200) -> list[LedgerRow]:
        """Rows `offset` to `offset + limit` of the ledger under `query`."""
        sql, args = page_sql(SQLITE, query, offset, limit)
        return [row_from(tuple(r)) for r in self._read(lambda c: c.execute(sql, args).fetchall())]

    def ledger_counts(self, query: LedgerQuery) -> dict[FileState, int]:
        """Rows per state under the query's folder, type and language."""
        sql, args = counts_sql(SQLITE, query)
        return {FileState(s): int(n) for s, n in self._read(lambda c: c.execute(sql, args).fetchall())}

    def ledger_not_read(self, query: LedgerQuery) -> int:
        """Rows under the query's folder, type and language that were seen and never read."""
        sql, args = not_read_sql(SQLITE, query)
        return int(self._read(lambda c: c.execute(sql, args).fetchone()[0]))

    def mark_not_read(self, folder_id: int, path: str) -> None:
        """A file just recorded as failed was never read (hidden, unsupported type): its row leaves the failure
        counts (the kept counts' triggers follow the status) and stays listed with its reason."""
        self._write(lambda c: c.execute("UPDATE documents SET status = 'not_read' WHERE folder_id = ? AND path = ? "
                                        "AND status = 'failed'", (folder_id, path)), derived=True)
