"""A document's own date and tags, read at index time for the query language's date and tag filters.

The date is the first of: the format's metadata (PDF CreationDate, Office and OpenDocument core properties,
an e-mail's Date header, EPUB dc:date), Markdown front matter `date:`, a date in the first lines of the text.
None leaves the file's modified time to count (the store's filters fall back to it). Tags come from Markdown
front matter `tags:` and inline `#tags` (Obsidian), and Office / PDF keywords; folder names are tags too, read
from paths at query time (so a moved file's folders are its tags at once).

Metadata is read with bounded reads and patterns, never by a full parser: the file was already read by the
sandboxed extractor, and these are a few fields from its first or last bytes or one small zip member.
"""

from __future__ import annotations

import datetime as dt
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path

import regex

from desktop_app.core.errors import ExtractionError
from desktop_app.core.ingest.safezip import open_checked_zip, read_member
from desktop_app.core.text.decode import decode_text

PDF_WINDOW = 256 * 1024  # a PDF's Info dictionary is near its start or its end
ZIP_MAX_BYTES = 64 * 1024 * 1024  # a bigger Office or EPUB file keeps its modified time as its date
MEMBER_MAX = 1024 * 1024
FIRST_LINES_CHARS = 600
MAX_TAGS = 64

_PDF_DATE = re.compile(rb"/CreationDate\s*\(\s*D:\s*(\d{4})(\d{2})?(\d{2})?")
_PDF_KEYWORDS = re.compile(rb"/Keywords\s*(?:\(((?:[^()\\]|\\.){0,2000})\)|<([0-9A-Fa-f\s]{0,8000})>)")
_XML_DATE = re.compile(r"<(?:dcterms:created|meta:creation-date|dc:date)\b[^>]*>\s*(\d{4}(?:-\d{2}(?:-\d{2})?)?)")
_XML_KEYWORDS = re.compile(r"<(?:cp:keywords|meta:keyword)\b[^>]*>([^<]{0,2000})</")
_OPF_PATH = re.compile(r'full-path\s*=\s*"([^"]+)"')
_FRONT = re.compile(r"\A\ufeff?---[ \t]*\r?\n(.*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.DOTALL)
_FRONT_KEY = re.compile(r"^([A-Za-z_][\w-]*)\s*:\s*(.*)$")
_FRONT_ITEM = re.compile(r"^\s*-\s+(.*)$")
# Obsidian: # then letters, digits, _ - /, not only digits, after a line start or a space (not a heading's "# ").
_INLINE_TAG = regex.compile(r"(?:(?<=\s)|^)#([\p{L}\p{M}\p{N}_/-]*[\p{L}_/-][\p{L}\p{M}\p{N}_/-]*)", regex.MULTILINE)
_FENCE = re.compile(r"^(```|~~~).*?^\1", re.DOTALL | re.MULTILINE)
_ISO_DAY = re.compile(r"(?<!\d)(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?!\d)")
_MONTHS = "january february march april may june july august september october november december".split()
_MONTH = r"(jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
_NAMED_DAY = re.compile(rf"(?i)\b(?:(\d{{1,2}})(?:st|nd|rd|th)?\s+{_MONTH}|{_MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?,?)"
                        r"\s+(\d{4})\b")


@dataclass(frozen=True)
class DocFacts:
    """What a document says about itself: its date (an ISO day) and its tags (case-folded, in order)."""

    date: str | None = None
    tags: tuple[str, ...] = ()


def document_facts(path: Path | None, kind: str, text: str, metadata: dict[str, str] | None = None) -> DocFacts:
    """The date and tags of a file of type `kind` whose extracted text starts with `text` (`metadata`: the
    extractor's header fields, an e-mail's ISO `date`; `path` None: a document inside a file, whose own bytes are
    not on disk). Never raises: an unreadable field is no field."""
    date: str | None = None
    tags: list[str] = []
    try:
        if path is None:
            pass
        elif kind == "pdf":
            date, tags = _pdf(path)
        elif kind in ("docx", "pptx", "xlsx", "odt", "odp", "ods", "epub"):
            date, tags = _zipped(path, kind)
    except (OSError, ValueError, zipfile.BadZipFile, RuntimeError, ExtractionError):
        pass  # the extractor already judged the file; a field that cannot be read is just absent
    if kind == "email" and metadata and metadata.get("date"):
        date = _day(metadata["date"][:10])
    if kind == "markdown":
        front_date, front_tags = front_matter(text)
        date = date or front_date
        tags += front_tags + inline_tags(text)
    if date is None and kind not in ("code", "csv", "xlsx", "ods", "notebook"):
        date = first_date(text[:FIRST_LINES_CHARS])
    return DocFacts(date, clean_tags(tags))


def clean_tags(tags: list[str]) -> tuple[str, ...]:
    """Tags as filters match them: case-folded, without '#' or spaces around, each once, at most MAX_TAGS."""
    out: dict[str, None] = {}
    for tag in tags:
        tag = tag.strip().strip("#\"'").strip().casefold()
        if tag and "|" not in tag and len(tag) <= 100:
            out[tag] = None
    return tuple(out)[:MAX_TAGS]


# ---- formats ---------------------------------------------------------------------------------------------------


def _pdf(path: Path) -> tuple[str | None, list[str]]:
    with open(path, "rb") as fh:
        head = fh.read(PDF_WINDOW)
        fh.seek(0, 2)
        size = fh.tell()
        tail = b""
        if size > PDF_WINDOW:
            fh.seek(max(PDF_WINDOW, size - PDF_WINDOW))
            tail = fh.read(PDF_WINDOW)
    date = None
    for window in (tail, head):  # an incremental update appends its newer Info dictionary at the end
        m = _PDF_DATE.search(window)
        if m:
            date = _day(f"{m.group(1).decode()}-{(m.group(2) or b'01').decode()}-{(m.group(3) or b'01').decode()}")
            break
    tags: list[str] = []
    for window in (tail, head):
        k = _PDF_KEYWORDS.search(window)
        if k:
            raw = k.group(1) if k.group(1) is not None else _hex(k.group(2))
            tags = _split_keywords(_pdf_string(raw))
            break
    return date, tags


def _hex(digits: bytes) -> bytes:
    """A PDF hex string's bytes (an odd last digit is followed by 0, as the PDF reference says)."""
    clean = b"".join(digits.split()).decode()
    return bytes.fromhex(clean + "0" * (len(clean) % 2))


def _pdf_string(raw: bytes) -> str:
    """A PDF literal string: UTF-16 with a byte-order mark, else PDFDocEncoding (near enough Latin-1)."""
    return decode_text(re.sub(rb"\\(.)", rb"\1", raw))  # the one decoder reads a byte-order mark (hex or not)


def _zipped(path: Path, kind: str) -> tuple[str | None, list[str]]:
    if path.stat().st_size > ZIP_MAX_BYTES:
        return None, []
    archive = open_checked_zip(path.read_bytes(), kind)
    names = set(archive.namelist())
    if kind == "epub":
        container = _member(archive, "META-INF/container.xml", names)
        m = _OPF_PATH.search(container)
        member = m.group(1) if m else ""
    else:
        member = "docProps/core.xml" if kind in ("docx", "pptx", "xlsx") else "meta.xml"
    xml = _member(archive, member, names)
    d = _XML_DATE.search(xml)
    date = _day(d.group(1) + "-01" * (2 - d.group(1).count("-"))) if d else None
    keywords = _XML_KEYWORDS.findall(xml)
    tags = [t for k in keywords for t in _split_keywords(_unescape(k))]
    return date, tags


def _member(archive: zipfile.ZipFile, name: str, names: set[str]) -> str:
    if name not in names:
        return ""
    return read_member(archive, name, MEMBER_MAX, whole=False).decode("utf-8", "replace")


def _unescape(text: str) -> str:
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"').replace("&apos;", "'") \
        .replace("&amp;", "&")


def _split_keywords(text: str) -> list[str]:
    return [k for k in re.split(r"[,;]", text) if k.strip()]


# ---- text ------------------------------------------------------------------------------------------------------


def front_matter(text: str) -> tuple[str | None, list[str]]:
    """`date:` and `tags:` of a Markdown file's YAML front matter (a list, `[a, b]`, or words with commas or
    spaces); the simple shapes notes use, read without a YAML parser."""
    m = _FRONT.match(text)
    if not m:
        return None, []
    date: str | None = None
    tags: list[str] = []
    key = ""
    for line in m.group(1).splitlines():
        item = _FRONT_ITEM.match(line)
        if item and key in ("tags", "tag", "keywords"):
            tags.append(item.group(1))
            continue
        kv = _FRONT_KEY.match(line)
        if not kv:
            continue
        key, value = kv.group(1).lower(), kv.group(2).strip()
        if key in ("date", "created") and date is None:
            date = first_date(value.strip("\"'"))
        elif key in ("tags", "tag", "keywords") and value:
            tags += [t for t in re.split(r"[,\s]+", value.strip("[]")) if t]
    return date, tags


def inline_tags(text: str) -> list[str]:
    """Obsidian-style `#tags` in the text (not inside fenced code, not a heading's `# `, not `#123`)."""
    body = _FENCE.sub("", _FRONT.sub("", text, count=1))
    return [m.group(1).strip("/") for m in _INLINE_TAG.finditer(body)]


def first_date(text: str) -> str | None:
    """The first calendar date written in `text` (2024-03-05, 2024/3/5, 5 March 2024, March 5, 2024), or None."""
    found: list[tuple[int, str]] = []
    for m in _ISO_DAY.finditer(text):
        day = _day(f"{m.group(1)}-{m.group(2)}-{m.group(3)}")
        if day:
            found.append((m.start(), day))
            break
    for m in _NAMED_DAY.finditer(text):
        day_of_month = m.group(1) or m.group(4)
        month = m.group(2) or m.group(3)
        number = next(i for i, name in enumerate(_MONTHS, 1) if name.startswith(month.lower().rstrip(".")[:3]))
        day = _day(f"{m.group(5)}-{number}-{day_of_month}")
        if day:
            found.append((m.start(), day))
            break
    return min(found)[1] if found else None


def _day(text: str) -> str | None:
    """An ISO day from "YYYY-M-D", or None when it is no real day."""
    try:
        year, month, day = (int(x) for x in text.split("-")[:3])
        return dt.date(year, month, day).isoformat() if 1000 <= year <= 9999 else None
    except ValueError:
        return None
