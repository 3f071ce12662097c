"""The library ledger: every document row with the state a person reads (what `trove files` and the window list).

A row's state is derived, never stored: a row never read (hidden, unsupported type: status `not_read`) is `skipped`;
a failed row is `encrypted`, `skipped` or `failed` by its recorded reason;
an indexed row waits for the OCR phase while any of its pages is pending, for the semantic phase while any of its
chunks has no vector, and is `indexed` otherwise. Both engines build their SQL from `page_sql` and `counts_sql`
with their own spelling (`Dialect`), so the two cannot classify a reason differently. Counts add up to `trove stats`:
the indexed-side states sum to its `documents`, the failure-side states to its `failed` and its `not_read`.
"""

from __future__ import annotations

from dataclasses import dataclass

from desktop_app.core.store.ledger_rows import FileState, LedgerQuery, LedgerRow, LedgerSort

# What a failure reason says, lower-cased, in the order it is asked: a password or DRM first (an encrypted file
# is neither broken nor skipped), then what was never opened or refused by its kind or size.
ENCRYPTED_MARKS = ("encrypted", "needs a password", "drm-protected")
SKIPPED_MARKS = ("not a regular file", "symlink", "path too long", "too large", "binary file",
                 "unsupported file type", "empty: no text", "empty mailbox")


@dataclass(frozen=True)
class Dialect:
    """How one engine spells what the ledger's SQL needs."""

    param: str  # "?" or "%s"
    contains: str  # a function (haystack, needle) -> position, 0 when absent: instr / strpos
    not_embedded: str  # the predicate on chunks for "has no vector yet"


SQLITE = Dialect("?", "instr", "embedded = 0")
POSTGRES = Dialect("%s", "strpos", "NOT embedded")


def _reason_case(d: Dialect) -> str:
    """The failure-side state of a failed row, from its reason (marks are constants: no text from outside)."""
    def any_of(marks: tuple[str, ...]) -> str:
        return " OR ".join(f"{d.contains}(lower(COALESCE(d.error, '')), '{m}') > 0" for m in marks)
    return (f"CASE WHEN {any_of(ENCRYPTED_MARKS)} THEN '{FileState.ENCRYPTED}' "
            f"WHEN {any_of(SKIPPED_MARKS)} THEN '{FileState.SKIPPED}' ELSE '{FileState.FAILED}' END")


def state_sql(d: Dialect) -> str:
    """The state of document `d` as one SQL expression. The waiting sets are uncorrelated subqueries over the
    pending rows (partial indexes on both engines), read once per statement, not once per document."""
    return (f"(CASE WHEN d.status = 'not_read' THEN '{FileState.SKIPPED}' "
            f"WHEN d.status = 'failed' THEN {_reason_case(d)} "
            f"WHEN d.id IN (SELECT document_id FROM ocr_pages WHERE status = 'pending') THEN '{FileState.WAITING_OCR}' "
            f"WHEN d.id IN (SELECT document_id FROM chunks WHERE {d.not_embedded}) "
            f"THEN '{FileState.WAITING_SEMANTIC}' ELSE '{FileState.INDEXED}' END)")


_ORDER = {LedgerSort.PATH: "d.path", LedgerSort.TYPE: "d.type", LedgerSort.SIZE: "d.size",
          LedgerSort.MODIFIED: "d.mtime_ns", LedgerSort.REASON: "COALESCE(d.error, '')"}


def _where(d: Dialect, q: LedgerQuery, *, with_states: bool) -> tuple[str, list[object]]:
    """The WHERE clause (may be empty) and its arguments."""
    p = d.param
    terms: list[str] = []
    args: list[object] = []
    if q.folder:
        prefix = q.folder.rstrip("/\\") + ("\\" if "\\" in q.folder and "/" not in q.folder else "/")
        terms.append(f"(d.path = {p} OR substr(d.path, 1, length({p})) = {p})")
        args += [q.folder, prefix, prefix]
    if q.type:
        terms.append(f"d.type = {p}")
        args.append(q.type)
    if q.lang:
        terms.append(f"d.id IN (SELECT document_id FROM chunks WHERE lang = {p})")
        args.append(q.lang)
    if with_states and q.states:
        terms.append(f"{state_sql(d)} IN ({', '.join([p] * len(q.states))})")
        args += [str(s) for s in q.states]
    return (" WHERE " + " AND ".join(terms) if terms else ""), args


def page_sql(d: Dialect, q: LedgerQuery, offset: int, limit: int) -> tuple[str, list[object]]:
    """One page of rows: filtered and ordered on the documents alone, then (for that page only) the folder, the main
    language and, unless the filter or the order needed it for every row, the state worked out."""
    where, args = _where(d, q, with_states=True)
    by_state = q.sort == LedgerSort.STATE
    everywhere = by_state or bool(q.states)  # the state of every row is needed, not only of the page's
    order = state_sql(d) if by_state else _ORDER[q.sort]
    direction = " DESC" if q.descending else ""
    inner = (f"SELECT d.id, d.folder_id, d.path, d.status, d.error, d.type, d.size, d.mtime_ns, d.pages, "
             f"d.chunk_count, d.part_label{f', {state_sql(d)} AS state' if everywhere else ''} FROM documents d"
             f"{where} ORDER BY {order}{direction}, d.path{direction}, d.id LIMIT {d.param} OFFSET {d.param}")
    sql = (f"SELECT d.id, COALESCE(f.path, ''), d.path, {'d.state' if everywhere else state_sql(d)}, d.error, "
           f"d.type, d.size, d.mtime_ns, d.pages, d.chunk_count, d.part_label, (SELECT c.lang FROM chunks c "
           f"WHERE c.document_id = d.id GROUP BY c.lang ORDER BY count(*) DESC, c.lang LIMIT 1), d.status "
           f"FROM ({inner}) d LEFT JOIN folders f ON f.id = d.folder_id "
           f"ORDER BY {'d.state' if by_state else _ORDER[q.sort]}{direction}, d.path{direction}, d.id")
    return sql, [*args, limit, offset]


def counts_sql(d: Dialect, q: LedgerQuery) -> tuple[str, list[object]]:
    """Rows per state under the query's folder, type and language (its state filter left out: the counts are
    what the state filter chooses among)."""
    where, args = _where(d, q, with_states=False)
    states = f"SELECT {state_sql(d)} AS state FROM documents d{where}"
    return f"SELECT state, count(*) FROM ({states}) s GROUP BY state", args


def not_read_sql(d: Dialect, q: LedgerQuery) -> tuple[str, list[object]]:
    """Rows never read (hidden, unsupported) under the query's folder, type and language (a partial index on both
    engines holds only those rows)."""
    where, args = _where(d, q, with_states=False)
    status = "d.status = 'not_read'"
    return f"SELECT count(*) FROM documents d{where} {'AND' if where else 'WHERE'} {status}", args


def row_from(r: tuple) -> LedgerRow:
    """A LedgerRow from one row of `page_sql`."""
    return LedgerRow(int(r[0]), r[2], r[1], FileState(r[3]), r[4] or "", r[5] or "", r[11] or "", int(r[6] or 0),
                     int(r[7] or 0), None if r[8] is None else int(r[8]), int(r[9] or 0), r[10] or "",
                     r[12] == "not_read")
