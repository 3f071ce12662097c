"""An exact top-k plan for FTS5 keyword search: rare terms find the candidates, common terms only score them.

FTS5 ranks an OR query by computing bm25() for every row that holds any term, then sorting them all, so a query
with one common word ("show", "cell") costs as much as the rows that word is in. This plan (MaxScore, as search
engines use it) gets the same top k, with the same scores, from far fewer rows:

1. Each term's row count (the doclist walk bm25() makes for its IDF).
2. The rarest terms, while their counts add up to at most `CANDIDATES`, are the *essential* set E; the rest is C.
3. Every row holding an E term is scored exactly, by FTS5's own bm25() over ALL the query's phrases: the rows
   that also hold a C term by `(E) AND (C)` (FTS5 skips through C's doclists to E's rows), the others by `(E)`
   alone (C adds 0 to them). bm25's IDF, row count and average length are the table's, whatever the expression.
4. A row with no E term scores at most Σ over C of weight · IDF · (k1 + 1): BM25's term score is below
   IDF · (k1 + 1) for any frequency and length.
   When the k-th score found beats that bound (and k rows were found), no other row can enter the top k: the
   answer is exact. Otherwise the caller runs the plain plan (`None`).

`tests/integration/store/test_keyword_topk.py` checks it against the plain plan; bench/keyword_plans.py measures
it (docs/keyword-scale.md has the figures).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from desktop_app.core import text as tp
from desktop_app.core.store.sqlite.connect import Connection

K1 = 1.2  # FTS5's bm25() k1 (fts5_aux.c; its b, 0.75, does not enter the bound)
MIN_IDF = 1e-6  # FTS5 uses this IDF for a term in half the rows or more
# Rows the essential terms may bring: a share of the table (measured on SciFact train queries at 100k chunks:
# 6% proved 17 of 40 top-50s exact, 15% 36 of 40, at about half the plain plan's cost), and at least MIN_CANDIDATES.
CANDIDATE_SHARE = 0.15
MIN_CANDIDATES = 2000
MARGIN = 1e-9  # relative: the k-th score must beat the bound by more than float rounding


@dataclass(frozen=True)
class Plan:
    """How one query was answered: the essential/common split and whether it proved exact."""

    essential: tuple[tp.Term, ...]
    common: tuple[tp.Term, ...]
    bound: float  # the most a row without an essential term can score
    kth: float  # the k-th score found among the candidates (0 when fewer than k)


def row_count(conn: Connection, table: str = "chunks_fts") -> int:
    """Rows in the FTS5 table as bm25() counts them: the first varint of its averages record (%_data id 1)."""
    row = conn.execute(f"SELECT block FROM {table}_data WHERE id = 1").fetchone()
    return _varint(bytes(row[0])) if row and row[0] else 0


def _varint(blob: bytes) -> int:
    """SQLite's varint (FTS5 writes its records with it): big-endian 7-bit groups, a ninth byte of 8 bits."""
    value = 0
    for i, byte in enumerate(blob[:9]):
        if i == 8:
            return (value << 8) | byte
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            return value
    return value


def idf(rows: int, hits: int) -> float:
    """FTS5's bm25() IDF of a phrase in `hits` of `rows` rows."""
    value = math.log((rows - hits + 0.5) / (hits + 0.5))
    return value if value > 0.0 else MIN_IDF


def split_terms(query: tp.Query, counts: Sequence[int], budget: int) -> tuple[list[int], list[int]]:
    """Indices of the essential terms (rarest first while their counts add up to `budget`) and of the rest."""
    order = sorted(range(len(counts)), key=lambda i: (counts[i], i))
    essential: list[int] = []
    total = 0
    for i in order:
        if total + counts[i] > budget:
            break
        essential.append(i)
        total += counts[i]
    rest = [i for i in range(len(query.terms)) if i not in essential]
    return sorted(essential), rest


def common_bound(query: tp.Query, counts: Sequence[int], common: Sequence[int], rows: int) -> float:
    """The most a row holding none of the essential terms can score: Σ weight · IDF · (k1 + 1) over the rest."""
    return sum(max(1, query.terms[i].weight) * idf(rows, counts[i]) * (K1 + 1.0) for i in common)


class TopK:
    """The plan over one FTS5 table and one connection; `join`/`extra`/`args` narrow the rows (filters)."""

    def __init__(self, conn: Connection, rank: str, *, table: str = "chunks_fts", join: str = "",
                 extra: str = "", args: Sequence[object] = (), budget: int | None = None) -> None:
        self.conn, self.rank, self.table = conn, rank, table
        self.budget = budget
        self.join, self.extra, self.args = join, extra, list(args)
        self.last: Plan | None = None

    def search(self, query: tp.Query, limit: int) -> list[tuple[int, float]] | None:
        """The top `limit` rows as (rowid, -bm25), best first; None when the plan cannot prove them exact."""
        self.last = None
        if not query.terms or limit <= 0:
            return None
        rows = row_count(self.conn, self.table)
        if rows <= 0:
            return None
        budget = self.budget if self.budget is not None else max(MIN_CANDIDATES, int(rows * CANDIDATE_SHARE))
        counts = [self._count(term) for term in query.terms]
        essential, common = split_terms(query, counts, budget)
        if not essential or not common:
            return None  # every term common (nothing prunes) or every term rare (the plain plan is as cheap)
        part_e = tp.Query(tuple(query.terms[i] for i in essential))
        part_c = tp.Query(tuple(query.terms[i] for i in common))
        both = self._ranked(f"({tp.to_fts5(part_e)}) AND ({tp.to_fts5(part_c)})", limit)
        only_e = self._ranked(str(tp.to_fts5(part_e)), 2 * limit)  # ≥ limit rows beside `both`'s (see module)
        scores = dict(only_e)
        scores.update(both)
        hits = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]
        bound = common_bound(query, counts, common, rows)
        kth = hits[-1][1] if len(hits) == limit else 0.0
        self.last = Plan(part_e.terms, part_c.terms, bound, kth)
        if len(hits) < limit or kth <= bound * (1.0 + MARGIN):
            return None
        return hits

    def _count(self, term: tp.Term) -> int:
        """Rows holding the term (any row, filters aside: IDF is the table's). Counted in full: the bound is
        only as tight as a common term's IDF, and FTS5 walks the same doclist for bm25's IDF anyway."""
        match = tp.to_fts5(tp.Query((tp.Term(term.field, term.token, term.prefix),)))
        return int(self.conn.execute(f"SELECT count(*) FROM {self.table} WHERE {self.table} MATCH ?",
                                     (match,)).fetchone()[0])

    def plain(self, match: str, limit: int) -> list[tuple[int, float]]:
        """The plain plan: every row matching `match` scored, the best `limit` (what FTS5 alone does)."""
        return self._ranked(match, limit)

    def _ranked(self, match: str, limit: int) -> list[tuple[int, float]]:
        t = self.table
        sql = (f"SELECT {t}.rowid, {self.rank} AS r FROM {t}{self.join} WHERE {t} MATCH ?{self.extra} "
               f"ORDER BY r, {t}.rowid LIMIT ?")
        return [(int(cid), -float(r)) for cid, r in self.conn.execute(sql, [match, *self.args, int(limit)])]
