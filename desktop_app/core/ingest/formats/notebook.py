"""Jupyter notebooks (plain JSON, nbformat 4): markdown and code cells in blocks; outputs are skipped."""

from __future__ import annotations

import json

from desktop_app.core.errors import ExtractionError
from desktop_app.core.ingest.extract_rows import Extracted, PageBuilder
from desktop_app.core.text.decode import decode_text
from desktop_app.core.text.titles import markdown_title

BLOCK_WORDS = 300  # consecutive cells are grouped so a chunk holds a few cells, and is cited "cells 3-7"


def extract_notebook(data: bytes, fallback_title: str) -> Extracted:
    """Markdown and code cells (raw cells too) in order, a page per group of cells; titled by the first heading."""
    try:
        notebook = json.loads(decode_text(data))
    except json.JSONDecodeError as exc:
        raise ExtractionError(f"corrupt notebook (not JSON: {exc.msg} at line {exc.lineno})") from exc
    cells = notebook.get("cells") if isinstance(notebook, dict) else None
    if not isinstance(cells, list):
        raise ExtractionError("not a Jupyter notebook (no list of cells; nbformat 3 and older are not read)")
    builder = PageBuilder()
    block: list[str] = []
    first = last = words = 0
    title = ""
    for number, cell in enumerate(cells, start=1):
        text = _cell_source(cell)
        if not text.strip():
            continue
        if not title and isinstance(cell, dict) and cell.get("cell_type") == "markdown":
            title = markdown_title(text)
        if block and words + len(text.split()) > BLOCK_WORDS:
            _flush(builder, block, first, last)
            block, words = [], 0
        if not block:
            first = number
        block.append(text)
        last = number
        words += len(text.split())
    if block:
        _flush(builder, block, first, last)
    return builder.build(title or fallback_title, "notebook")


def _cell_source(cell: object) -> str:
    if not isinstance(cell, dict) or cell.get("cell_type") not in ("markdown", "code", "raw"):
        return ""
    source = cell.get("source", "")
    return "".join(s for s in source if isinstance(s, str)) if isinstance(source, list) else str(source)


def _flush(builder: PageBuilder, block: list[str], first: int, last: int) -> None:
    builder.add("\n\n".join(block), f"cell {first}" if first == last else f"cells {first}-{last}")
