"""Text helpers every format shares: titles (file name, first line, Markdown, HTML), HTML text.

Bytes become text in one place only: `core/text/decode.py`.
"""

from __future__ import annotations

import html.parser
import re
from functools import lru_cache
from pathlib import PurePath

from desktop_app.core.errors import ExtractionError

_SEPARATORS = re.compile(r"[_\-.]+")
_FRONT_MATTER = re.compile(r"\A(?:\ufeff)?(---|\+\+\+)[ \t]*\r?\n(.*?)\r?\n\1[ \t]*(?:\r?\n|\Z)", re.DOTALL)
_FRONT_MATTER_TITLE = re.compile(r"""^title[ \t]*[:=][ \t]*(?P<q>["']?)(?P<title>.+?)(?P=q)[ \t]*$""",
                                 re.MULTILINE | re.IGNORECASE)


def title_from_path(path: PurePath) -> str:
    """A readable title from a file name: separators become spaces."""
    return _name_title(path.name)


@lru_cache(maxsize=1024)  # a file's title is asked for as it is read, extracted and written
def _name_title(name: str) -> str:
    dot = name.rfind(".")
    stem = name[:dot] if 0 < dot < len(name) - 1 else name  # PurePath.stem
    return _SEPARATORS.sub(" ", stem).strip() or name


def index_title(title: str, path: PurePath) -> str:
    """What the FTS title column holds: the title, plus the file name's words when the title is not from it."""
    from_name = title_from_path(path)
    return title if title == from_name else f"{title} {from_name}"


def first_line_title(text: str) -> str:
    """A plain-text file whose short first line stands alone (a blank line after it) is titled by it."""
    head, sep, rest = text.lstrip().partition("\n")
    head = head.strip()
    if sep and 3 <= len(head) <= 150 and rest.startswith(("\n", "\r\n")) and rest.strip():
        return head
    return ""


def markdown_title(text: str) -> str:
    """The `title:` of a YAML (---) or TOML (+++) front matter block, else the first `# heading`."""
    front = _FRONT_MATTER.match(text[:20_000])
    if front:
        found = _FRONT_MATTER_TITLE.search(front.group(2))
        if found and found.group("title").strip():
            return found.group("title").strip()
        text = text[front.end():]
    match = re.search(r"^#\s+(.+?)\s*#*\s*$", text[:5000], re.MULTILINE)
    return match.group(1).strip() if match else ""


class _VisibleText(html.parser.HTMLParser):
    """Collects the text a browser would show: no script, style, template or head metadata."""

    HIDDEN = frozenset({"script", "style", "template", "noscript", "head", "svg"})
    BLOCK = frozenset({"p", "div", "br", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "section", "article",
                       "pre", "blockquote", "table", "ul", "ol", "hr", "header", "footer", "main", "nav"})
    PARAGRAPH = frozenset({"p", "div", "section", "article", "table", "pre"})

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
            self.parts.append("\n\n" if tag in self.PARAGRAPH or tag[0] == "h" else "\n")

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


def first_heading(markup: str) -> str:
    """The text of the first <h1>–<h3> of an HTML document ("" when there is none)."""
    match = re.search(r"<h[1-3][^>]*>(.*?)</h[1-3]>", markup[:200_000], re.IGNORECASE | re.DOTALL)
    if not match:
        return ""
    return " ".join(html_to_text(match.group(1))[1].split())
