"""An HTML document's title and visible text (what a browser would show), and its first heading: what the HTML,
EPUB and e-mail formats read. Bytes become text in one place only: `core/text/decode.py`.
"""

from __future__ import annotations

import html.parser
import re

from desktop_app.core.errors import ExtractionError


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
