"""The formats read as text (plain text, Markdown, code, HTML, CSV/TSV): decoded by core/text/decode.py, then
titled the way each one names itself (a standalone first line, front matter or a heading, <title>)."""

from __future__ import annotations

from desktop_app.core.ingest.extract_rows import Extracted
from desktop_app.core.ingest.formats.sheets import extract_csv
from desktop_app.core.ingest.html_text import html_to_text
from desktop_app.core.ingest.sniff import text_of
from desktop_app.core.text.titles import first_line_title, markdown_title


def read_text(raw: bytes, fallback_title: str) -> Extracted:
    """A text file, titled by a short first line that stands alone."""
    text = text_of(raw)
    return Extracted(text, first_line_title(text) or fallback_title, "text")


def read_markdown(raw: bytes, fallback_title: str) -> Extracted:
    """Markdown, titled by its front matter's title or its first heading."""
    text = text_of(raw)
    return Extracted(text, markdown_title(text) or fallback_title, "markdown")


def read_code(raw: bytes, fallback_title: str) -> Extracted:
    """Source code: its first line is code, not a title."""
    return Extracted(text_of(raw), fallback_title, "code")


def read_html(raw: bytes, fallback_title: str) -> Extracted:
    """The visible text of a page, titled by its <title> (or first heading)."""
    title, body = html_to_text(text_of(raw))
    return Extracted(body, title or fallback_title, "html")


def read_csv(raw: bytes, fallback_title: str) -> Extracted:
    """Comma (or sniffed) separated rows."""
    return extract_csv(text_of(raw), fallback_title, ".csv")


def read_tsv(raw: bytes, fallback_title: str) -> Extracted:
    """Tab-separated rows: the delimiter is not sniffed."""
    return extract_csv(text_of(raw), fallback_title, ".tsv")
