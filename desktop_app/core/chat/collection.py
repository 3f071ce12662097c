"""Whole-library answers: a count, a list or a total over every matching document, computed in Python.

The question is read by collection_question.py; here every document its filters allow is listed from the store
(`listed_documents`: the query language's filters in the engine's own SQL, both engines; not the top k), each
document's whole text is read and kept when its title or file name names the asked kind of document and its text
holds every asked word; then its date and (for a total) its amount are read by fixed rules (collection_values.py)
and the count, list or total is computed exactly. Every row cites its document: the path and the passage holding
what the row shows (the amount's line, or the document's first lines).
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal

from desktop_app.core.chat.collection_question import KIND_TYPES, CollectionQuestion, Operation, singular
from desktop_app.core.chat.collection_values import Amount, document_amount, totals
from desktop_app.core.ingest.doc_facts import first_date
from desktop_app.core.search.query_language import contains, fold, parse_query
from desktop_app.core.search.query_search import query_filters
from desktop_app.core.store.base import Store
from desktop_app.core.store.rows import ChunkRow, Filters

MAX_DOCUMENTS = 5000  # documents read for one answer at most; past it the answer says it stopped there
EVIDENCE_CHARS = 160


@dataclass(frozen=True)
class CollectionRow:
    """One matching document: where it is, its date, its amount (for a total) and the passage that shows them."""

    path: str  # the file that opens (a document inside a file: that file)
    title: str
    date: str  # ISO day, "" when the document has none of its own
    passage: str  # the chunk cited
    evidence: str  # the line of it that the row rests on
    chunk_id: int | None = None
    page: int | None = None
    place: str = ""
    amount: Amount | None = None


@dataclass(frozen=True)
class Collected:
    """The rows of a whole-library answer and what was read to find them."""

    question: CollectionQuestion
    rows: tuple[CollectionRow, ...]
    listed: int  # documents the filters allowed (all of them read)
    truncated: bool = False  # more than MAX_DOCUMENTS were allowed: only the first (newest) were read
    sums: dict[str, Decimal] = field(default_factory=dict)  # per currency, for a total

    @property
    def count(self) -> int:
        return len(self.rows)

    @property
    def without_amount(self) -> int:
        return sum(1 for r in self.rows if r.amount is None)


def collect(store: Store, question: CollectionQuestion, *, scope: Sequence[str] = (),
            today: dt.date | None = None) -> Collected:
    """Every document of `store` that `question` asks about (within `scope` paths), with the value it asks for."""
    parsed = parse_query(question.query, today=today or dt.date.today())
    filters = query_filters(parsed, Filters(paths=tuple(scope)) if scope else None) or Filters()
    listed = store.listed_documents(filters, MAX_DOCUMENTS + 1)
    truncated = len(listed) > MAX_DOCUMENTS
    firsts = store.chunk_rows([cid for cid, _ in listed[:MAX_DOCUMENTS]])
    rows: list[CollectionRow] = []
    for cid, _ in listed[:MAX_DOCUMENTS]:
        first = firsts.get(cid)
        if first is None or not _is_kind(first, question):
            continue
        chunks = store.document_chunks(first.path)
        text = "\n".join(t for _, t in chunks)
        if not _holds_terms(f"{first.title}\n{text}", question.terms):
            continue
        rows.append(_row(store, first, chunks, text, question))
    rows.sort(key=lambda r: (r.date or "9999", r.path))  # oldest first, as a ledger reads
    sums = totals([r.amount for r in rows if r.amount is not None]) if question.operation == Operation.TOTAL else {}
    return Collected(question, tuple(rows), len(listed[:MAX_DOCUMENTS]), truncated, sums)


def _is_kind(row: ChunkRow, question: CollectionQuestion) -> bool:
    """Whether a document is of an asked kind: of its type (mail, pdf), or named so in its title or file name."""
    if not question.kinds or "document" in question.kinds:
        return True
    name = os.path.basename(row.container or row.path)
    words = {singular(w) for w in fold(f"{row.title} {name}").replace("_", " ").replace("-", " ").split()}
    words |= {singular(w.strip(".:#")) for w in list(words)}
    for kind in question.kinds:
        if kind in KIND_TYPES:
            if row.type == KIND_TYPES[kind]:
                return True
        elif kind in words or (kind == "meeting" and "minute" in words):
            return True
    return False


def _holds_terms(text: str, terms: tuple[str, ...]) -> bool:
    """Every asked word is in the text as a whole word (a plural also as its singular)."""
    folded = fold(text)
    return all(contains(folded, fold(t)) or contains(folded, singular(t)) for t in terms)


def _row(store: Store, first: ChunkRow, chunks: list[tuple[int | None, str]], text: str, question: CollectionQuestion
         ) -> CollectionRow:
    amount = document_amount(text) if question.operation == Operation.TOTAL else None
    if amount is not None:
        at = next((i for i, (_, t) in enumerate(chunks) if amount.line in t), 0)
        evidence = amount.line
    else:
        tags = tuple(p[4:] for p in question.query.split() if p.startswith("tag:"))
        at, evidence = _evidence(chunks, first.title, question.terms, tags)
    page, passage = chunks[at] if chunks else (first.page, first.text)
    return CollectionRow(
        path=first.container or first.path, title=first.title, date=first.doc_date or first_date(text[:600]) or "",
        passage=passage, evidence=evidence, chunk_id=_chunk_id(store, first, at), page=page,
        place=first.label if at == 0 else "", amount=amount)


def _evidence(chunks: list[tuple[int | None, str]], title: str, terms: tuple[str, ...], tags: tuple[str, ...] = ()
              ) -> tuple[int, str]:
    """(chunk index, line) of the first line that holds an asked word (or an asked tag: `#budget`, `tags: …`), else
    the title, else the first line with words: the line that shows why the document is counted."""
    for wanted in ([fold(t) for t in terms], [f"#{fold(t)}" for t in tags] + [f"tags: {fold(t)}" for t in tags],
                   [fold(title)]):
        found = _first_line(chunks, [w for w in wanted if w])
        if found is not None:
            return found
    return _first_line(chunks, [], any_words=True) or (0, "")


def _first_line(chunks: list[tuple[int | None, str]], wanted: list[str], any_words: bool = False
                ) -> tuple[int, str] | None:
    for i, (_, text) in enumerate(chunks):
        for line in text.splitlines():
            folded = fold(line).replace("[", "").replace(",", "")
            if any(contains(folded, w) for w in wanted) or (any_words and any(ch.isalnum() for ch in line)):
                return i, _short(line)
    return None


def _chunk_id(store: Store, first: ChunkRow, ordinal: int) -> int | None:
    """The id of the document's chunk `ordinal`: a document's chunks are written together, so it is the first's id
    plus the ordinal — checked against the store, None when that is not so."""
    if ordinal == 0:
        return first.chunk_id
    row = store.chunk_rows([first.chunk_id + ordinal]).get(first.chunk_id + ordinal)
    ok = row is not None and row.document_id == first.document_id and row.ordinal == ordinal
    return first.chunk_id + ordinal if ok else None


def _short(line: str) -> str:
    """A line on one line, up to EVIDENCE_CHARS (cut at a word, marked with …)."""
    flat = " ".join(line.split())
    return flat if len(flat) <= EVIDENCE_CHARS else flat[: EVIDENCE_CHARS - 1].rsplit(" ", 1)[0] + " …"
