"""Titles of documents by fixed rules: from a file name, a plain text's first line, Markdown front matter or its
first heading, and what the keyword index's title column holds (`index_title`). Pure; every format uses them."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import PurePath

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
