"""The library ledger's reads on PostgreSQL: a page of document rows with their states, and rows per state.

Rows are what this person may see (row-level security), the same rows the kept counts of `trove stats` hold."""

from __future__ import annotations

from desktop_app.core.store.ledger import POSTGRES, counts_sql, page_sql, row_from
from desktop_app.core.store.ledger_rows import FileState, LedgerQuery, LedgerRow
from desktop_app.core.store.postgres.base import PostgresBase


class LedgerSQL(PostgresBase):
    """`ledger_page` and `ledger_counts` (core/store/ledger.py holds the SQL both engines share)."""

    def ledger_page(self, query: LedgerQuery, offset: int = 0, limit: int = 200) -> list[LedgerRow]:
        """Rows `offset` to `offset + limit` of the ledger under `query`."""
        sql, args = page_sql(POSTGRES, query, offset, limit)
        return [row_from(tuple(r)) for r in self._read(lambda c: c.execute(sql, args).fetchall())]

    def ledger_counts(self, query: LedgerQuery) -> dict[FileState, int]:
        """Rows per state under the query's folder, type and language."""
        sql, args = counts_sql(POSTGRES, query)
        return {FileState(s): int(n) for s, n in self._read(lambda c: c.execute(sql, args).fetchall())}
