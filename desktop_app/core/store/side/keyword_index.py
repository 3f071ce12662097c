"""A derived keyword index beside the database: tantivy over the text pipeline's tokens, for libraries too large
for FTS5's ranking to keep up with typing.

FTS5 ranks an OR query by computing bm25() for every row holding any of its terms, so a common word costs what
its rows cost (docs/keyword-scale.md); tantivy's BM25 with block-max WAND visits only blocks that can still enter
the top k. chunks_fts stays the keyword index of record (small libraries, path filters, other title weights, and
whenever this one is missing or stale); this one is rebuilt from the stored chunk text.

Each chunk is one tantivy document whose `body` holds its tokens as index_fields makes them, each written
`<field letter>:<token>` so a term only matches its own field (as FTS5's `{title field} : "token"` does), the
title's tokens written twice (FTS5's title weight 2: bm25() multiplies a column's frequency by its weight), in
one field, so frequencies are summed before BM25 saturates them as bm25() does. Tantivy's BM25 has bm25()'s k1
(1.2) and b (0.75) but another IDF, ln(1 + (N - n + 0.5) / (n + 0.5)): each term is boosted by the ratio of
bm25()'s IDF to it (idf_ratio), so a term weighs what it weighs in FTS5. What still differs: tantivy stores
document lengths in one byte (coarser), a title token counts twice in the length, and a typed prefix matches its
PREFIX_TERMS most frequent expansions as separate terms (FTS5: one phrase). The ranking was measured against
FTS5's on SciFact and ArguAna (docs/search-scale.md). Folder, type and language filters are indexed fields.

The query language's date and tag filters are indexed fields too when the engine gives each chunk its document's
(`build_index(..., documents=True)`; the SQLite engine, whose triggers count a change of a document's date, tags or
path as a keyword write): `day`, the document's date as the number YYYYMMDD, and `tag`, every text a tag filter
matches, made as the engine's filter SQL matches them (document_tags). A filter the index cannot answer exactly (a
path, a date stored in another form, a tag it cannot hold) is left to the engine's allowed chunks (`takes`).

The SQLite engine ranks the side index's candidates again with FTS5's bm25() (sqlite/keyword/bm25.py), which needs
each candidate's tokens per FTS5 column. Its builds store them (`build_index(..., terms=True)`): per chunk, its
token count and each column's tokens with their counts (`terms`, packed_terms), so a query reads them with its hits
instead of running the text pipeline again over every candidate (60 % of the keyword side's time at 100k chunks),
and looks up only the few words it asks for (PackedTerms: decoding every token's count as JSON was a third of the
keyword side's time at 1M chunks). The chunk id is a fast field, read for all hits at once.

On disk: `<database>.keywords/` holds one tantivy index directory per build (`gen-<generation>-<pid>-<random>`) and
`current.json` naming the complete one with its format version, the text pipeline's fingerprint, the keyword
generation it was built at and its row count. The engine counts keyword writes (sqlite/side.py: meta.kw_generation,
once in each transaction that writes keyword rows, and by triggers on chunk deletes and document moves). A build
writes a new directory, commits it, then replaces current.json (written to a temporary name, fsynced, renamed): a
kill in the middle leaves the old index or none.
"""

from __future__ import annotations

import json
import math
import os
import re
import secrets
import shutil
from collections.abc import Callable, Iterator, Sequence
from collections.abc import Set as AbstractSet
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, NamedTuple

from desktop_app.core import text as tp
from desktop_app.core.ingest.extract import index_title
from desktop_app.core.store.rows import Filters
from desktop_app.core.store.side.base import SideIndex
from desktop_app.core.text.fields import analyze_title

FORMAT_VERSION = 4  # 4: packed column terms; 3: documents' dates and tags; 2: chunk ids fast, column terms
MIN_CHUNKS = 20_000  # below this FTS5's own plan answers in a few milliseconds
REBUILD_QUIET = 30.0  # seconds without keyword writes before a rebuild starts
PREFIX_TERMS = 64  # a typed prefix's expansions searched, the most frequent first
TITLE_REPEAT = 2  # FTS5_WEIGHTS["title"]: a title token counts twice
_LETTER = {"title": "t", "words": "w", "stems": "s", "grams": "g"}
_HEAP = 200_000_000
MAX_TAG_DIRS = 8  # folder names below the library folder joined into one tag text, at most
_DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def index_dir(db_path: Path) -> Path:
    return db_path.with_name(db_path.name + ".keywords")


def body_tokens(title: str, fields: dict[str, str]) -> str:
    """The `body` of one chunk's tantivy document (see the module docstring), of its title and index_fields."""
    out = [f"{_LETTER[f]}:{token}" for f in tp.FTS5_COLUMNS[1:] for token in fields[f].split()]
    for field, token in analyze_title(title):
        out.extend([f"{_LETTER[field]}:{token}"] * TITLE_REPEAT)
    return " ".join(out)


ColumnTerms = list[dict[str, int]]  # per FTS5 column (tp.FTS5_COLUMNS order): token -> its instances there


def column_terms(fields: dict[str, str]) -> ColumnTerms:
    """Each FTS5 column's tokens with their counts, of one chunk's index_fields. A column is tokens joined by single
    spaces, each letters, marks and digits only (text/fields.py), so split() cuts it where FTS5's `ascii` tokenizer
    does (tests/integration/store/test_keyword_terms.py compares them on real text in several scripts)."""
    out: ColumnTerms = []
    for column in tp.FTS5_COLUMNS:
        counts: dict[str, int] = {}
        for token in fields[column].split():
            counts[token] = counts.get(token, 0) + 1
        out.append(counts)
    return out


def packed_terms(columns: ColumnTerms) -> bytes:
    """column_terms as a build stores them: the chunk's token count on the first line, then a line per column of
    ` token:count` pairs, each token after a space (a token holds no whitespace or ASCII colon)."""
    lines = [str(sum(sum(c.values()) for c in columns))]
    lines += ["".join(f" {token}:{n}" for token, n in counts.items()) + " " for counts in columns]
    return "\n".join(lines).encode()


class PackedTerms:
    """One chunk's stored column terms (packed_terms), read for the few words a query asks about: a word's count
    is a substring search, not a decoded dictionary of every token (bm25.ColumnCounts)."""

    __slots__ = ("_columns", "length")

    def __init__(self, stored: bytes) -> None:
        head, *self._columns = stored.decode().split("\n")
        self.length = int(head)

    def count(self, column: int, word: str) -> int:
        text = self._columns[column]
        at = text.find(f" {word}:")
        if at < 0:
            return 0
        start = at + len(word) + 2
        return int(text[start : text.index(" ", start)])

    def starting(self, column: int, start: str) -> int:
        """The instances of every token that begins with `start`."""
        text, total = self._columns[column], 0
        at = text.find(" " + start)
        while at >= 0:
            colon = text.index(":", at)
            end = text.index(" ", colon)
            total += int(text[colon + 1 : end])
            at = text.find(" " + start, end)
        return total


def _schema(tantivy: Any) -> Any:
    schema = tantivy.SchemaBuilder()
    schema.add_text_field("body", stored=False, tokenizer_name="whitespace", index_option="freq")
    schema.add_integer_field("id", stored=False, indexed=False, fast=True)
    schema.add_bytes_field("terms", stored=True)  # packed_terms (builds with terms=True)
    schema.add_integer_field("folder", stored=False, indexed=True)
    schema.add_text_field("type", stored=False, tokenizer_name="raw", index_option="basic")
    schema.add_text_field("lang", stored=False, tokenizer_name="raw", index_option="basic")
    schema.add_integer_field("day", stored=False, indexed=True, fast=True)  # documents=True builds
    schema.add_text_field("tag", stored=False, tokenizer_name="raw", index_option="basic")
    return schema.build()


def day_number(day: str | None) -> int | None:
    """An ISO day (YYYY-MM-DD) as the number YYYYMMDD, which orders as the text does; None for any other form."""
    return int(day.replace("-", "")) if day is not None and _DAY.fullmatch(day) else None


def document_tags(tags: str | None, below: str | None) -> set[str]:
    """Every tag a document matches, as the engines' filter SQL matches one: `|tag|` within its packed tags
    ('|a|b|': the texts between two bars), or `<sep>tag<sep>` within its path below the library folder (folded as
    the engine folds it: one folder name, or up to MAX_TAG_DIRS of them in a row joined by the separator)."""
    out = set((tags or "").split("|")[1:-1])
    names = (below or "").split(os.sep)[1:-1]  # the folder names between the separators
    for start in range(len(names)):
        for end in range(start + 1, min(len(names), start + MAX_TAG_DIRS) + 1):
            out.add(os.sep.join(names[start:end]))
    out.discard("")
    return out


def tag_held(tag: str) -> bool:
    """Whether document_tags can hold this tag (a filter's): not empty, no bar, within MAX_TAG_DIRS names."""
    return bool(tag) and "|" not in tag and tag.count(os.sep) < MAX_TAG_DIRS


def idf_ratio(rows: int, total: int) -> float:
    """bm25()'s IDF of a term in `rows` of `total` rows over tantivy's: a term boosted by it scores with FTS5's
    IDF (log((N - n + 0.5) / (n + 0.5)), at least 1e-6: a term in over half the rows counts for all but nothing)."""
    fts5 = max(math.log((total - rows + 0.5) / (rows + 0.5)), 1e-6)
    return fts5 / math.log(1.0 + (total - rows + 0.5) / (rows + 0.5))


class Hit(NamedTuple):
    """One chunk the index found: its id, its BM25 score and where the index holds it."""

    chunk: int
    score: float
    address: Any


class Keywords:
    """A loaded keyword side index: one searcher over one finished build."""

    def __init__(self, tantivy: Any, index: Any, rows: int, info: dict | None = None) -> None:
        self._tv, self._index, self.rows = tantivy, index, rows
        self.schema = index.schema
        self.searcher = index.searcher()
        info = info or {}
        self.tags = bool(info.get("documents"))  # built with each document's date and tags
        self.days = self.tags and info.get("other_days") == 0  # every date was an ISO day (or none)

    def takes(self, filters: Filters) -> bool:
        """Whether the index answers these filters by itself: folders, types and languages; dates and tags when it
        holds them in a form that matches as the engine's SQL does; never paths."""
        if filters.paths or filters.path_has:
            return False
        if (filters.date_from or filters.date_to) and not (
                self.days and all(day_number(d) is not None for d in (filters.date_from, filters.date_to) if d)):
            return False
        return not filters.tags or (self.tags and all(tag_held(t) for t in filters.tags))

    def search(self, query: tp.Query, limit: int, filters: Filters | None = None) -> list[tuple[int, float]]:
        """The best `limit` chunks for the query's terms (score: BM25, higher is better; ties by chunk id)."""
        return [(hit.chunk, hit.score) for hit in self.hits(query, limit, filters)]

    def hits(self, query: tp.Query, limit: int, filters: Filters | None = None) -> list[Hit]:
        """`search`'s answer with each hit's address in the index (for `terms`)."""
        return self.hits_among(query, limit, filters)[0]

    def hits_among(self, query: tp.Query, limit: int, filters: Filters | None = None,
                   among: AbstractSet[int] | None = None) -> tuple[list[Hit], int]:
        """`hits` of the best `limit` chunks kept to the chunks `among` (a document filter's, which the index does
        not hold: read deep, most are dropped before they cost anything), and how many were read."""
        tv, searcher = self._tv, self.searcher
        clauses = []
        for term in query.terms:
            key = f"{_LETTER[term.field]}:{term.token}"
            keys = searcher.terms_with_prefix("body", key, limit=PREFIX_TERMS) if term.prefix \
                else [(key, searcher.doc_freq("body", key))]
            for k, rows in keys:
                if rows:
                    q = tv.Query.term_query(self.schema, "body", k)
                    boost = max(1, term.weight) * idf_ratio(int(rows), self.rows)
                    clauses.append((tv.Occur.Should, tv.Query.boost_query(q, boost)))
        if not clauses or limit <= 0:
            return [], 0
        found = tv.Query.boolean_query(clauses)
        if filters and (allowed := self._filter(filters)):
            found = tv.Query.boolean_query([(tv.Occur.Must, found), *allowed])
        hits = searcher.search(found, int(limit), count=False).hits
        ids = searcher.fast_field_values("id", [addr for _, addr in hits])
        out = [Hit(cid, score, addr) for cid, (score, addr) in zip(ids, hits, strict=True)
               if among is None or cid in among]
        return sorted(out, key=lambda h: (-h.score, h.chunk)), len(hits)

    def terms(self, hits: Sequence[Hit]) -> list[PackedTerms] | None:
        """The column terms of these hits (packed_terms), in their order; None when this build has none."""
        out = []
        for hit in hits:
            stored = self.searcher.doc(hit.address).get_first("terms")
            if stored is None:
                return None
            out.append(PackedTerms(stored))
        return out

    def term_rows(self, query: tp.Query) -> list[int]:
        """Rows holding each term (a prefix: the sum over its expansions searched, at most every row)."""
        out = []
        for term in query.terms:
            key = f"{_LETTER[term.field]}:{term.token}"
            if term.prefix:
                out.append(min(self.rows, sum(int(n) for _, n in self.searcher.terms_with_prefix(
                    "body", key, limit=PREFIX_TERMS))))
            else:
                out.append(int(self.searcher.doc_freq("body", key)))
        return out

    def _filter(self, filters: Filters) -> list[tuple[Any, Any]]:
        """Must clauses of score 0 for a folder / type / language filter, and for dates and tags when the index
        takes them (`takes`; otherwise the caller keeps to its allowed chunks: paths are not indexed here)."""
        tv = self._tv
        out = []
        takes = self.takes(filters)
        for field, values in (("folder", filters.folder_ids), ("type", filters.types), ("lang", filters.langs),
                              ("tag", filters.tags if takes else ())):
            if values:
                anyof = tv.Query.boolean_query([(tv.Occur.Should, tv.Query.term_query(self.schema, field, v))
                                                for v in values])
                out.append((tv.Occur.Must, tv.Query.const_score_query(anyof, 0.0)))
        if takes and (filters.date_from or filters.date_to):
            low, high = day_number(filters.date_from or None), day_number(filters.date_to or None)
            days = tv.Query.range_query(self.schema, "day", tv.FieldType.Integer, low, high,
                                        include_upper=high is None)  # [from, to): to is the first day left out
            out.append((tv.Occur.Must, tv.Query.const_score_query(days, 0.0)))
        return out


# ---- the files -------------------------------------------------------------------------------------------------


def _pointer(root: Path) -> dict | None:
    try:
        return json.loads((root / "current.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def header_problem(root: Path, generation: int) -> str:
    """Why the index under `root` cannot serve this generation, from current.json alone ("" when it may)."""
    if not (root / "current.json").exists():
        return "missing"
    info = _pointer(root)
    if not isinstance(info, dict) or not isinstance(info.get("dir"), str):
        return "damaged (current.json)"
    if info.get("format") != FORMAT_VERSION or info.get("fingerprint") != tp.tokenizer_fingerprint():
        return f"from another version (format {info.get('format')}, tokens {info.get('fingerprint')})"
    if info.get("generation") != generation:
        return "stale (chunks changed since it was built)"
    return ""


def read_index(root: Path, generation: int) -> tuple[Keywords | None, str]:
    """The index under `root` if current.json matches this generation and the index opens with the rows it
    names; otherwise None and the reason."""
    if problem := header_problem(root, generation):
        return None, problem
    info = _pointer(root) or {}
    import tantivy

    try:
        index = tantivy.Index.open(str(root / Path(info["dir"]).name))
        index.reload()
        loaded = Keywords(tantivy, index, int(info.get("rows", -1)), info)
        if loaded.searcher.num_docs != loaded.rows:
            return None, f"damaged ({loaded.searcher.num_docs} rows, {loaded.rows} expected)"
    except (OSError, ValueError) as exc:
        return None, f"damaged ({exc})"
    return loaded, ""


# chunk id, text, title, path, folder id, type, language; its document's date (an ISO day, or None), packed tags
# and path below its library folder as the engine's filters fold it (documents=True builds; else None)
Row = tuple[int, str, str, str, int, str, str, str | None, str | None, str | None]
RowSource = Callable[[], AbstractContextManager[tuple[int, Iterator[Sequence[Row]]]]]


def build_index(root: Path, source: RowSource, *, terms: bool = False,
                documents: bool = False) -> tuple[Keywords, int]:
    """A new index of every row `source` gives, under `root`; (the index, the generation it was built at). `terms`:
    store each chunk's column terms (the SQLite engine ranks candidates with them); `documents`: index the rows'
    dates and tags (an engine whose generation counts their changes)."""
    import tantivy

    root.mkdir(exist_ok=True)
    keep = (_pointer(root) or {}).get("dir")
    for left in root.glob("gen-*"):  # builds that never finished (the caller holds the build lock)
        if left.name != keep:
            shutil.rmtree(left, ignore_errors=True)
    with source() as (generation, batches):
        where = root / f"gen-{generation}-{os.getpid()}-{secrets.token_hex(4)}"  # never an old build's name
        where.mkdir()
        index = tantivy.Index(_schema(tantivy), path=str(where))
        writer = index.writer(heap_size=_HEAP, num_threads=1)
        rows = other_days = 0
        for batch in batches:
            for cid, text, title, path, folder, kind, lang, day, tags, below in batch:
                doc = chunk_document(tantivy, cid, index_title(title, Path(path)), text, folder, kind, lang, terms)
                if documents:
                    if (number := day_number(day)) is not None:
                        doc.add_integer("day", number)
                    elif day is not None:
                        other_days += 1
                    for tag in document_tags(tags, below):
                        doc.add_text("tag", tag)
                writer.add_document(doc)
            rows += len(batch)
    writer.commit()
    writer.wait_merging_threads()
    info = {"format": FORMAT_VERSION, "fingerprint": tp.tokenizer_fingerprint(), "generation": generation,
            "dir": where.name, "rows": rows, "documents": documents, "other_days": other_days}
    tmp = root / f"current.json.tmp-{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(info, fh)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, root / "current.json")
    if keep and keep != where.name:
        shutil.rmtree(root / keep, ignore_errors=True)  # a process still searching it keeps its open files
    index.reload()
    return Keywords(tantivy, index, rows, info), generation


def chunk_document(tantivy: Any, cid: int, title: str, text: str, folder: int, kind: str, lang: str,
                   terms: bool) -> Any:
    """One chunk's tantivy document (the text pipeline runs once for the body and the terms)."""
    fields = tp.index_fields(title, text)
    doc = tantivy.Document(id=int(cid), folder=int(folder), type=kind, lang=lang, body=body_tokens(title, fields))
    if terms:
        doc.add_bytes("terms", packed_terms(column_terms(fields)))
    return doc


class KeywordIndex(SideIndex[Keywords]):
    """One library's keyword side index: loaded in the background, rebuilt there when it is missing or stale (the
    engine's subclass reads its generation and rows: sqlite/side.py, postgres/side.py)."""

    what = "keyword index"
    meanwhile = "keyword search uses FTS5"

    def path(self) -> Path:
        return index_dir(self.db_path)

    def min_count(self) -> int:
        return MIN_CHUNKS

    def quiet(self) -> float:
        return REBUILD_QUIET

    def problem(self, generation: int) -> str:
        return header_problem(self.path(), generation)

    def read(self, generation: int) -> tuple[Keywords | None, str]:
        return read_index(self.path(), generation)

    def size(self, index: Keywords) -> int:
        return index.rows

