"""What the built-in viewer shows, as values the UI may hold: a passage in its document's text, and a rendered PDF
page with the passage's and the quote's character boxes."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PassageText:
    """A passage in the text around it (its document's chunks, rebuilt by their character spans).

    `start`/`end` and `quote_start`/`quote_end` index `text` (a quote not found, or none: -1). `page` is where the
    passage is in a paged file (None: not paged); `rtl`: the passage is written right to left."""

    path: str  # the file that opens (for a document inside a file: that file)
    title: str
    type: str
    text: str
    start: int
    end: int
    page: int | None
    quote_start: int = -1
    quote_end: int = -1
    rtl: bool = False
    chunk_text: str = ""  # the passage itself (what a PDF page is searched for)
    pdf: bool = False  # `path` is a PDF file of its own (an attachment inside a mailbox shows as text)
    place: str = ""  # where the passage is in its file: "slide 3", "message 2 · report.pdf", "p. 4"
    whole: bool = False  # `text` is the whole file from its first character: its lines are the file's lines


@dataclass(frozen=True)
class Box:
    """A rectangle on a rendered page, in its pixels (origin top left)."""

    left: float
    top: float
    right: float
    bottom: float


@dataclass(frozen=True)
class PdfPage:
    """One PDF page rendered at `scale` pixels per point (BGRA rows of `stride` bytes), with the boxes of the
    passage's and the quote's characters (merged per line), and the character indices they cover."""

    path: str
    page: int  # from 1
    pages: int
    width: int
    height: int
    stride: int
    pixels: bytes
    scale: float
    passage_boxes: tuple[Box, ...] = ()
    quote_boxes: tuple[Box, ...] = ()
    quote_chars: tuple[int, int] = (-1, -1)  # [first, last) char index of the quote in PDFium's text page
