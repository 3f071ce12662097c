"""Render a Query for a database engine: an FTS5 MATCH string, or a PostgreSQL tsquery string.

The FTS5 table has one column per field (`FTS5_COLUMNS`), filled with `index_fields` and tokenized by
FTS5's `ascii` tokenizer: it splits at ASCII spaces/punctuation only, so every token the pipeline wrote is
taken as it is (unicode61 would split Thai at its vowel marks and drop letters newer than Unicode 6.1).
Ranking is `bm25()` with the column weights of `fts5_rank`.

In PostgreSQL, field → weight label (`PG_LABELS`): a tsvector is built per field with `setweight`, and a
term only matches lexemes of its field's label.
"""

from __future__ import annotations

from desktop_app.core.text.query import Query, Term

FTS5_COLUMNS = ("title", "words", "stems", "grams")
FTS5_TOKENIZE = "ascii"
# bm25() column weights, in FTS5_COLUMNS order; measured on SciFact train (bench/text_pipeline.py).
FTS5_WEIGHTS = {"title": 2.0, "words": 1.0, "stems": 1.0, "grams": 1.0}
PG_LABELS = {"title": "A", "words": "B", "stems": "C", "grams": "D"}


def fts5_schema(table: str = "chunks_fts", extra: str = "") -> str:
    """CREATE VIRTUAL TABLE for an FTS5 index of these fields (`extra`: more options, e.g. "content=''")."""
    options = ", ".join([*FTS5_COLUMNS, *([extra] if extra else []), f"tokenize='{FTS5_TOKENIZE}'"])
    return f"CREATE VIRTUAL TABLE {table} USING fts5({options})"


def fts5_insert(table: str = "chunks_fts") -> str:
    """INSERT of one row (rowid first, then the FTS5_COLUMNS) into an FTS5 index of these fields."""
    return f"INSERT INTO {table} (rowid, {', '.join(FTS5_COLUMNS)}) VALUES (?, {', '.join('?' * len(FTS5_COLUMNS))})"


def fts5_rank(table: str = "chunks_fts", weights: dict[str, float] | None = None) -> str:
    """The bm25() expression ranking rows of `table` (lower is better, as FTS5 returns it)."""
    w = {**FTS5_WEIGHTS, **(weights or {})}
    return f"bm25({table}, {', '.join(repr(float(w[c])) for c in FTS5_COLUMNS)})"


def to_fts5(query: Query) -> str | None:
    """An FTS5 MATCH expression OR-ing the query's terms, each limited to its column; None for no terms.

    A term of weight n is written n times: bm25() sums over the query's phrases, so it counts n times."""
    parts = []
    for term in query.terms:
        phrase = '"' + term.token.replace('"', '""') + '"'
        parts.extend([f"{{title {term.field}}} : {phrase}{'*' if term.prefix else ''}"] * max(1, term.weight))
    return " OR ".join(parts) or None


def to_tsquery(query: Query) -> str | None:
    """A PostgreSQL tsquery literal (cast it: `%s::tsquery`) OR-ing the terms, each restricted to its
    field's weight label; prefixes as `:*`. None for no terms. Each term is written once whatever its weight:
    ts_rank folds repeated query lexemes into one, so repeating would change nothing but the query's size
    (`tsquery_groups` weights them)."""
    parts = []
    for term in query.terms:
        lexeme = "'" + term.token.replace("\\", "\\\\").replace("'", "''") + "'"
        parts.append(f"{lexeme}:{'*' if term.prefix else ''}{PG_LABELS['title']}{PG_LABELS[term.field]}")
    return " | ".join(parts) or None


def tsquery_groups(query: Query) -> list[tuple[float, str]]:
    """The terms grouped by weight as (share, tsquery) pairs, for a rank of Σ share · ts_rank(group).

    ts_rank of an OR'ed tsquery is the mean of its distinct lexemes' scores, so with share = weight × the
    group's terms / all terms the sum counts a term the query says n times n times, as FTS5's repeated phrases
    do in bm25(). A query whose terms all weigh the same is one group of share 1: plain ts_rank."""
    groups: dict[int, list[Term]] = {}
    for term in query.terms:
        groups.setdefault(max(1, term.weight), []).append(term)
    if len(groups) <= 1:
        rendered = to_tsquery(query)
        return [(1.0, rendered)] if rendered else []
    n = len(query.terms)
    return [(weight * len(terms) / n, str(to_tsquery(Query(tuple(terms))))) for weight, terms in sorted(groups.items())]
