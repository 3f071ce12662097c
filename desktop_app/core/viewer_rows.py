"""What the built-in viewer shows, as values the UI may hold: a passage in its document's text, and a rendered page
(of a PDF, or an image file) with the passage's and the quote's boxes."""

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
    image: bool = False  # `path` is an image file of its own: shown as a page, with the words OCR read on it
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
    """One page rendered at `scale` pixels per point (BGRA rows of `stride` bytes): a PDF page, or a frame of an
    image file. With the boxes of the passage's and the quote's characters (merged per line), and the character
    indices they cover; on a page OCR read (`ocr`: a scan, a photo) the boxes are of the words OCR read there."""

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
    # (on an OCR'd page: word index in the page's OCR words)
    ocr: bool = False  # the boxes are OCR's word boxes: the page has no text layer
