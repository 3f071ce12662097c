"""Turn one file into plain text (and page boundaries for PDFs). Failures carry a reason for the user."""

from __future__ import annotations

import html.parser
import re
from dataclasses import dataclass
from pathlib import Path

from desktop_app.core.errors import ExtractionError
from desktop_app.core.ingest.filetypes import file_type
from desktop_app.core.log import get_logger

log = get_logger("ingest")


@dataclass(frozen=True)
class Page:
    """One page's slice of the extracted text (1-based page number)."""

    number: int
    start: int
    end: int


@dataclass(frozen=True)
class Extracted:
    """A file's text, its title and type, and where each page lies in the text (PDF only)."""

    text: str
    title: str
    type: str
    pages: tuple[Page, ...] = ()

    @property
    def page_count(self) -> int | None:
        return len(self.pages) or None


def extract(path: Path, data: bytes | None = None) -> Extracted:
    """Extract `path` (whose bytes may be passed in to avoid a second read). Raises ExtractionError."""
    kind = file_type(path)
    if kind is None:
        raise ExtractionError("unsupported file type")
    if kind == "pdf":
        return _extract_pdf(path)
    if kind == "docx":
        return _extract_docx(path)
    raw = data if data is not None else path.read_bytes()
    if b"\x00" in raw[:8192] and not raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise ExtractionError("binary file (contains NUL bytes)")
    text = decode_bytes(raw)
    if kind == "html":
        title, body = html_to_text(text)
        return Extracted(body, title or title_from_path(path), kind)
    if kind == "markdown":
        return Extracted(text, _markdown_title(text) or title_from_path(path), kind)
    if kind == "text":
        return Extracted(text, _first_line_title(text) or title_from_path(path), kind)
    return Extracted(text, title_from_path(path), kind)


def _first_line_title(text: str) -> str:
    """A plain-text file whose short first line stands alone (a blank line after it) is titled by it."""
    head, sep, rest = text.lstrip().partition("\n")
    head = head.strip()
    if sep and 3 <= len(head) <= 150 and rest.startswith(("\n", "\r\n")) and rest.strip():
        return head
    return ""


def index_title(title: str, path: Path) -> str:
    """What the FTS title column holds: the title, plus the file name's words when the title is not from it."""
    from_name = title_from_path(path)
    return title if title == from_name else f"{title} {from_name}"


def title_from_path(path: Path) -> str:
    """A readable title from a file name: separators become spaces."""
    return re.sub(r"[_\-.]+", " ", path.stem).strip() or path.name


def decode_bytes(raw: bytes) -> str:
    """UTF-8 (with or without BOM), UTF-16 with BOM, else detected; undecodable bytes become U+FFFD."""
    if raw.startswith(b"\xef\xbb\xbf"):
        return raw[3:].decode("utf-8", errors="replace")
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        return raw.decode("utf-16", errors="replace")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        pass
    try:
        from charset_normalizer import from_bytes

        best = from_bytes(raw[:200_000]).best()
        if best is not None and best.encoding:
            return raw.decode(best.encoding, errors="replace")
    except Exception as exc:  # detection is best effort; replacement decoding below never fails
        log.debug("charset detection failed: %s", exc)
    return raw.decode("utf-8", errors="replace")


def _markdown_title(text: str) -> str:
    match = re.search(r"^#\s+(.+?)\s*#*\s*$", text[:5000], re.MULTILINE)
    return match.group(1).strip() if match else ""


class _VisibleText(html.parser.HTMLParser):
    """Collects the text a browser would show: no script, style, template or head metadata."""

    HIDDEN = {"script", "style", "template", "noscript", "head", "svg"}
    BLOCK = {"p", "div", "br", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "section", "article",
             "pre", "blockquote", "table", "ul", "ol", "hr", "header", "footer", "main", "nav"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.title = ""
        self._hidden = 0
        self._in_title = False

    def handle_starttag(self, tag, attrs):
        if tag == "title":
            self._in_title = True
        elif tag in self.HIDDEN:
            self._hidden += 1
        elif tag in self.BLOCK:
            self.parts.append("\n\n" if tag in {"p", "div", "section", "article", "table", "pre"} or tag[0] == "h" else "\n")

    def handle_endtag(self, tag):
        if tag == "title":
            self._in_title = False
        elif tag in self.HIDDEN and self._hidden:
            self._hidden -= 1
        elif tag in self.BLOCK:
            self.parts.append("\n")

    def handle_data(self, data):
        if self._in_title:
            self.title += data
        elif not self._hidden:
            self.parts.append(data)


def html_to_text(markup: str) -> tuple[str, str]:
    """(title, visible text) of an HTML document."""
    parser = _VisibleText()
    try:
        parser.feed(markup)
        parser.close()
    except Exception as exc:  # html.parser is lenient; anything left is a damaged file
        raise ExtractionError(f"unreadable HTML: {exc}") from exc
    text = "".join(parser.parts)
    text = re.sub(r"[ \t\r\f\v]+", " ", text)
    text = re.sub(r" ?\n ?", "\n", text)
    text = re.sub(r"\n{3,}", "\n\n", text).strip()
    return " ".join(parser.title.split()), text


def _extract_pdf(path: Path) -> Extracted:
    import pdfplumber
    from pdfminer.pdfdocument import PDFEncryptionError, PDFPasswordIncorrect

    parts: list[str] = []
    pages: list[Page] = []
    pos = 0
    title = ""
    try:
        with pdfplumber.open(path) as pdf:
            info = pdf.metadata or {}
            raw_title = info.get("Title")
            title = raw_title.strip() if isinstance(raw_title, str) else ""
            for number, page in enumerate(pdf.pages, start=1):
                page_text = (page.extract_text() or "").strip()
                page.close()  # frees the page's parsed objects; long PDFs otherwise grow memory
                if parts:
                    parts.append("\n\n")
                    pos += 2
                parts.append(page_text)
                pages.append(Page(number, pos, pos + len(page_text)))
                pos += len(page_text)
    except (PDFPasswordIncorrect, PDFEncryptionError) as exc:
        raise ExtractionError("encrypted PDF (needs a password)") from exc
    except ExtractionError:
        raise
    except Exception as exc:
        # pdfplumber wraps pdfminer's errors: look at what it wraps too
        inner = exc.args[0] if exc.args and isinstance(exc.args[0], Exception) else exc
        name = type(inner).__name__
        if isinstance(inner, (PDFPasswordIncorrect, PDFEncryptionError)) or "password" in name.lower():
            raise ExtractionError("encrypted PDF (needs a password)") from exc
        raise ExtractionError(f"corrupt or unreadable PDF ({name}: {str(exc)[:200]})") from exc
    text = "".join(parts)
    if not text.strip():
        raise ExtractionError("PDF has no extractable text (scanned images need OCR)")
    return Extracted(text, title or title_from_path(path), "pdf", tuple(pages))


def _extract_docx(path: Path) -> Extracted:
    import zipfile

    import docx

    try:
        document = docx.Document(str(path))
    except (zipfile.BadZipFile, KeyError, ValueError) as exc:
        raise ExtractionError(f"corrupt or unreadable DOCX ({type(exc).__name__})") from exc
    except Exception as exc:
        raise ExtractionError(f"corrupt or unreadable DOCX ({type(exc).__name__}: {str(exc)[:200]})") from exc
    paragraphs = [p.text for p in document.paragraphs]
    for table in document.tables:
        for row in table.rows:
            paragraphs.append(" | ".join(cell.text for cell in row.cells))
    text = "\n\n".join(p for p in paragraphs if p.strip())
    title = (document.core_properties.title or "").strip()
    return Extracted(text, title or title_from_path(path), "docx")
