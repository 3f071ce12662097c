"""Tables as pages of rows: each page is a block of whole rows that starts with the sheet's header row.

A chunk of a spreadsheet is then a set of rows a person can read ("sheet Budget rows 2-41", with the column
names on top), never a cut through the middle of a row. Blocks are kept under BLOCK_WORDS words so the chunker
(512 words by default) leaves each one whole.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator

from desktop_app.core.errors import ExtractionError
from desktop_app.core.ingest.extract_rows import Extracted, PageBuilder

BLOCK_WORDS = 200
BLOCK_ROWS = 60
CELL_SEPARATOR = " | "
Row = tuple[int, list[str]]  # (1-based row number as the application shows it, the cells' texts)


def row_text(cells: list[str]) -> str:
    """One row as a line: cells joined, trailing empty cells dropped, line breaks inside cells flattened."""
    while cells and not cells[-1].strip():
        cells = cells[:-1]
    return CELL_SEPARATOR.join(" ".join(c.split()) for c in cells)


def row_blocks(rows: Iterable[Row], block_words: int = BLOCK_WORDS,
               block_rows: int = BLOCK_ROWS) -> Iterator[tuple[str, int, int]]:
    """(text, first row, last row) per block; each text starts with the header (the first non-empty row)."""
    header: str | None = None
    lines: list[str] = []
    first = last = words = 0
    for number, cells in rows:
        line = row_text(cells)
        if not line:
            continue
        if header is None:
            header, first, last = line, number, number
            continue
        if lines and (words + len(line.split()) > block_words or len(lines) >= block_rows):
            yield "\n".join([header, *lines]), first, last
            lines, words = [], 0
        if not lines:
            first = number
        lines.append(line)
        last = number
        words += len(line.split())
    if header is not None and lines:
        yield "\n".join([header, *lines]), first, last
    elif header is not None:
        yield header, first, last


def add_sheet(builder: PageBuilder, rows: Iterable[Row], sheet: str | None) -> None:
    """Append a sheet's row blocks to `builder`, labelled "sheet NAME rows A-B" (or "rows A-B" without a name)."""
    for text, first, last in row_blocks(rows):
        span = f"row {first}" if first == last else f"rows {first}-{last}"
        builder.add(text, f"sheet {sheet} {span}" if sheet else span)


def extract_csv(text: str, title: str, suffix: str) -> Extracted:
    """A CSV/TSV file as blocks of rows; the delimiter is sniffed (a tab for .tsv)."""
    delimiter = "\t" if suffix == ".tsv" else _sniff_delimiter(text)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    builder = PageBuilder()
    try:
        add_sheet(builder, enumerate(reader, start=1), None)
    except csv.Error as exc:
        raise ExtractionError(f"unreadable CSV ({exc})") from exc
    return builder.build(title, "csv")


def _sniff_delimiter(text: str) -> str:
    try:
        return csv.Sniffer().sniff(text[:20_000], delimiters=",;\t|").delimiter
    except csv.Error:
        return ","
