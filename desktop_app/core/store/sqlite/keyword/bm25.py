"""bm25() as FTS5 computes it, for a few rows in Python: the keyword side index's candidates ranked by FTS5's own
scores, so a library large enough for the side index ranks as a small one does.

FTS5's bm25() (fts5_aux.c): for the query's phrases P_i, each found in n_i of the table's N rows,
idf_i = ln((N - n_i + 0.5) / (n_i + 0.5)), at least 1e-6; a row of |D| tokens (all columns), avgdl the table's
average, scores  sum_i idf_i * f_i * (k1 + 1) / (f_i + k1 * (1 - b + b * |D| / avgdl)),  f_i being the phrase's
instances in the columns its query names, each counted with its column's weight; k1 = 1.2, b = 0.75.
The side index ranks with tantivy's BM25 (one-byte lengths, a title's tokens counted twice in the length, its
own tokens): close to bm25() but not equal (docs/keyword-scale.md). Here a candidate's columns are its tokens per
column with their counts, as FTS5's `ascii` tokenizer splits the index_fields columns: stored in the side index
when it was built (side/keyword_index.py PackedTerms), or made again from the stored text (`column_counts`); N and
the column totals come from FTS5's own averages record, n_i from the side index (a term's rows; a prefix's, the sum
over the expansions searched, at most N: the one estimate left). A query term is one token (text/query.py: letters,
marks and digits, folded), so a phrase is one word or one prefix and the counts answer it.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Protocol

from desktop_app.core import text as tp
from desktop_app.core.store.sqlite.connect import Connection

K1, B = 1.2, 0.75
# FTS5's ascii tokenizer: ASCII letters and digits and every non-ASCII character make tokens; ASCII letters fold.
_TOKEN = re.compile(r"[0-9A-Za-z\x80-\U0010ffff]+")
_SPACED = re.compile(r"[0-9a-z ]*")


def ascii_tokens(text: str) -> list[str]:
    """`text` split and folded as FTS5's ascii tokenizer does."""
    if _SPACED.fullmatch(text):  # the text pipeline's columns: folded tokens and single spaces
        return text.split()
    if text.isascii():
        return _TOKEN.findall(text.lower())
    return [t.lower() if t.isascii() else _fold_ascii(t) for t in _TOKEN.findall(text)]


def _fold_ascii(token: str) -> str:
    return "".join(c.lower() if c.isascii() else c for c in token)


def table_stats(conn: Connection, table: str = "chunks_fts") -> tuple[int, list[int]] | None:
    """(rows, tokens per column) from FTS5's averages record, or None when it cannot be read."""
    row = conn.execute(f"SELECT block FROM {table}_data WHERE id = 1").fetchone()
    if row is None or not row[0]:
        return None
    values, pos, data = [], 0, bytes(row[0])
    while pos < len(data):
        value, pos = _varint(data, pos)
        values.append(value)
    if len(values) != 1 + len(tp.FTS5_COLUMNS):
        return None
    return values[0], values[1:]


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    """SQLite's variable-length integer at `pos`: (value, the position after it)."""
    value = 0
    for i in range(9):
        byte = data[pos + i]
        if i == 8:
            return (value << 8) | byte, pos + 9
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            return value, pos + i + 1
    raise AssertionError("unreachable")


class ColumnCounts(Protocol):
    """A row's tokens per FTS5 column (tp.FTS5_COLUMNS order), as `scores` reads them: its token count over every
    column, a word's instances in one column, and the instances of every token starting with a prefix."""

    length: int

    def count(self, column: int, word: str) -> int: ...

    def starting(self, column: int, start: str) -> int: ...


class CountedColumns:
    """ColumnCounts of a row's columns counted from its text (column_counts)."""

    def __init__(self, columns: list[dict[str, int]]) -> None:
        self.columns = columns
        self.length = sum(sum(c.values()) for c in columns)

    def count(self, column: int, word: str) -> int:
        return self.columns[column].get(word, 0)

    def starting(self, column: int, start: str) -> int:
        return sum(n for word, n in self.columns[column].items() if word.startswith(start))


def column_counts(fields: Mapping[str, str]) -> CountedColumns:
    """Each FTS5 column's tokens (as the ascii tokenizer splits them) with their counts, of index_fields columns."""
    return CountedColumns([dict(Counter(ascii_tokens(fields[c]))) for c in tp.FTS5_COLUMNS])


def scores(query: tp.Query, rows: Sequence[tuple[int, ColumnCounts]], hits: Sequence[int],
           total_rows: int, total_tokens: int) -> list[tuple[int, float]]:
    """bm25() (higher is better, as keyword_candidates returns it) of each (chunk id, column counts) row, for the
    query's terms found in `hits[i]` rows each; best first, ties by chunk id."""
    weights = [tp.FTS5_WEIGHTS[c] for c in tp.FTS5_COLUMNS]
    avgdl = total_tokens / max(total_rows, 1)
    words: dict[str, list[tuple[int, float]]] = {}  # whole words: their counts are looked up
    prefixes: list[tuple[str, int, float]] = []  # a typed word's prefix: the counts of the tokens it starts
    for term, n in zip(query.terms, hits, strict=True):
        tokens = ascii_tokens(term.token)
        if tokens:
            idf = max(math.log((total_rows - n + 0.5) / (n + 0.5)), 1e-6) * max(1, term.weight)
            column = tp.FTS5_COLUMNS.index(term.field)  # searched with the title (column 0)
            if term.prefix:
                prefixes.append((tokens[-1], column, idf))
            else:
                words.setdefault(tokens[-1], []).append((column, idf))
    ordered = sorted(words.items())  # sorted: the same sum in every process
    title_weight = weights[0]
    out = []
    for cid, counts in rows:
        norm = K1 * (1 - B + B * counts.length / avgdl)
        score = 0.0
        for word, uses in ordered:
            title = counts.count(0, word)
            for column, idf in uses:
                f = title_weight * title + (weights[column] * counts.count(column, word) if column else 0)
                if f:
                    score += idf * f * (K1 + 1) / (f + norm)
        for start, column, idf in prefixes:
            f = sum(weights[c] * counts.starting(c, start) for c in {0, column})
            if f:
                score += idf * f * (K1 + 1) / (f + norm)
        out.append((cid, score))
    return sorted(out, key=lambda h: (-h[1], h[0]))
