"""From a found file to its text, within bounds: size limits, a safe read, and extraction under a budget.

Plain text, Markdown and code are decoded here, in-process (linear, and streamed past WHOLE_FILE_MAX so a
200 MB log never sits in memory); every other type goes to the sandboxed worker with the settings' budget.
The indexer calls `size_problem`, `read_for_index` and `extract_document`; each refusal is an
ExtractionError whose message is the reason shown in `trove stats`.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Generic, TypeVar

from desktop_app.core.ingest.extract_rows import Extracted, Extraction
from desktop_app.core.ingest.safe_read import Source, StreamedText, read_source, text_document
from desktop_app.core.ingest.sandbox import Budget, shared_sandbox
from desktop_app.core.settings import Settings

TEXT_KINDS = frozenset({"text", "markdown", "code"})
T = TypeVar("T")


def budget_of(settings: Settings) -> Budget:
    """The per-file budget the settings ask for."""
    return Budget(seconds=settings.extract_timeout_seconds, memory_mb=settings.extract_memory_mb)


def size_limit_mb(kind: str, settings: Settings) -> float:
    """Text is streamed, so it may be far bigger than a document that is parsed whole."""
    return settings.max_text_file_mb if kind in TEXT_KINDS else settings.max_file_mb


def size_problem(size: int, kind: str, settings: Settings) -> str | None:
    """The reason a file is too big to index, or None."""
    limit = size_limit_mb(kind, settings)
    if size > limit * 1024 * 1024:
        return f"too large ({size / 1e6:.1f} MB; the limit is {limit:g} MB)"
    return None


def read_for_index(path: Path, kind: str) -> Source:
    """Hash the file (a regular file only); keep the bytes of a small text file to decode without rereading."""
    return read_source(path, keep=kind in TEXT_KINDS)


def extract_document(path: Path, kind: str, source: Source,
                     settings: Settings) -> tuple[Extracted | StreamedText, Extraction]:
    """The file's text (or, for a big text file, a StreamedText to chunk as it is read), and the documents inside
    it (a mailbox's messages, attachments)."""
    if kind in TEXT_KINDS:
        doc = text_document(path, source.data) if source.data is not None else StreamedText.open(path)
        return doc, Extraction(())
    return shared_sandbox().extract(path, budget_of(settings))


class Counted(Generic[T]):
    """An iterator that counts what went through it (chunks written while a big file streams)."""

    def __init__(self, items: Iterable[T]) -> None:
        self._items = iter(items)
        self.count = 0

    def __iter__(self) -> Iterator[T]:
        return self

    def __next__(self) -> T:
        item = next(self._items)
        self.count += 1
        return item


def peek(items: Iterable[T]) -> tuple[T | None, Iterator[T]]:
    """The first item (None if there is none) and an iterator over all of them, the first included."""
    it = iter(items)
    first = next(it, None)
    return first, (itertools.chain([first], it) if first is not None else iter(()))
