"""One text pipeline for keyword search in every script, for any database engine.

    fields = index_fields(title, chunk_text)      # {"title": "...", "words": "...", "stems": "...", "grams": "..."}
    query = build_query(user_text)                # Query(terms=(Term(field, token, prefix), ...))
    match = to_fts5(query)                        # FTS5 MATCH string, or None (nothing to search)
    spans = highlight_spans(chunk_text, query)    # [(start, end)] in chunk_text, for the snippet
    lang = detect_language(chunk_text)            # 'th', 'zh', 'ja', 'ko', 'ar', 'en', 'latn', ...

NFC (never NFKC) → script runs → ICU word breaks for Thai/Chinese/Japanese → case fold, accents (Latin) and
Arabic normalisation → Porter/light10 stems, Han/Kana/Hangul bigrams. See docs/text-pipeline.md.
An index written with another `tokenizer_fingerprint()` must be rebuilt from the stored chunk text.
"""

from __future__ import annotations

import functools
import unicodedata

import snowballstemmer

from desktop_app.core.text import segment
from desktop_app.core.text.fields import FIELDS, analyze, analyze_title
from desktop_app.core.text.highlight import highlight_spans
from desktop_app.core.text.language import LANGUAGE_NAMES, LANGUAGES, RIGHT_TO_LEFT, detect_language
from desktop_app.core.text.query import Query, Term, build_query
from desktop_app.core.text.render import (
    FTS5_COLUMNS,
    FTS5_TOKENIZE,
    FTS5_WEIGHTS,
    PG_LABELS,
    fts5_insert,
    fts5_rank,
    fts5_schema,
    to_fts5,
    to_tsquery,
)

# Bump when anything changes what index_fields writes for some text (the store then rebuilds its index).
TOKENIZER_VERSION = 1


def tokenizer_fingerprint() -> str:
    """TOKENIZER_VERSION plus the versions of what it depends on (ICU dictionaries, Unicode data, Snowball):
    store this with the index and rebuild when it differs."""
    snowball = getattr(snowballstemmer, "__version__", "3")
    return f"{TOKENIZER_VERSION}:icu-{segment.ICU_VERSION}:unicode-{unicodedata.unidata_version}:snowball-{snowball}"


def index_fields(title: str, text: str) -> dict[str, str]:
    """The text to store per FTS5 column / tsvector field for one chunk (keys: FTS5_COLUMNS).

    `title` holds the title's tokens of every field (searched together with each field, ranked with its own
    weight); `words`, `stems`, `grams` hold the chunk text's."""
    body = analyze(text)
    return {"title": _title_column(title), **{f: " ".join(body[f]) for f in FIELDS}}


@functools.lru_cache(maxsize=256)
def _title_column(title: str) -> str:
    """The `title` column of a title (every chunk of a document has the same one)."""
    return " ".join(token for _, token in analyze_title(title))


__all__ = [
    "FIELDS", "FTS5_COLUMNS", "FTS5_TOKENIZE", "FTS5_WEIGHTS", "LANGUAGES", "LANGUAGE_NAMES", "PG_LABELS",
    "RIGHT_TO_LEFT", "Query", "TOKENIZER_VERSION",
    "Term", "build_query", "detect_language", "fts5_insert", "fts5_rank", "fts5_schema", "highlight_spans",
    "index_fields",
    "to_fts5", "to_tsquery", "tokenizer_fingerprint",
]
