"""Which line breaks of a text end a unit, for quoting: structure first, sentences inside prose after.

A line break is not a sentence break. Markdown and plain text are hard-wrapped at ~80-100 columns and a PDF's
text layer breaks every printed line, so "…Jupiter, Saturn, Uranus and\\nNeptune." is one sentence over two
lines. But some lines are units of their own whatever their punctuation: a heading, a table row (Markdown `|`
cells; tab-separated values and columns aligned with runs of spaces, where most lines of the paragraph have
them), a list item (with its indented continuation
lines), a rule or setext underline, and every line of a fenced code block.

`blocks(text)` cuts a text into those units and into prose blocks: runs of lines joined where a line was only
wrapped. A prose line is wrapped, not ended, when it fills most of its paragraph's width (the longest line of
the run of non-blank lines it is in), when the next line starts with a lower-case letter, when it ends with a
comma, or when it does not read as a title (a few words without clause punctuation): a short title line before
the text ends at its break. (A line that ends a sentence ends it with its mark either way.) Pure
functions; every non-blank character of the text is in exactly one block.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

import regex

FULL_LINE = 0.6  # a prose line this share of its paragraph's widest line, or wider, was wrapped by the writer
_FENCE = regex.compile(r"[ \t]*(?:```|~~~)")
_HEADING = regex.compile(r"[ \t]{0,3}#{1,6}(?:[ \t]|$)")
_RULE = regex.compile(r"[ \t]*(?:[-=_*~+][ \t]*){3,}$")
_COLUMNS = regex.compile(r"\S(?<![.!?。！？؟])(?:[ \u00a0]{2,}|\t)\S")  # cells aligned with spaces, or TSV
_ITEM = regex.compile(r"[ \t]*(?:[-*+•‣◦▪●○■□–]|\(?(?:\d{1,3}|[a-zA-Z]|[ivxIVX]{1,4})[.)])[ \t]+\S")
_LOWER_START = regex.compile(r"[ \t]*[\p{Ll}]")
_WRAP_END = regex.compile(r"[,،、，\-–—(]$")
_CLAUSE = regex.compile(r"[,;:،，、；：.!?。！？؟]")
TITLE_WORDS = 10
HEADING_WORDS = 6  # a title line quoted with the unit after it (is_heading)


class Kind(StrEnum):
    """What a block is: prose (split into sentences), or a line unit quoted whole."""

    PROSE = "prose"
    ITEM = "item"  # a list item and its continuation lines
    LINE = "line"  # a heading, table row, aligned columns, a rule, a line of code


@dataclass(frozen=True)
class Block:
    """A stretch `text[start:end]` (no line break at either end) and what it is."""

    start: int
    end: int
    kind: Kind


def _lines(text: str) -> list[tuple[int, int]]:
    """(start, end) of each line, without its line break."""
    out, pos = [], 0
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\r\n\u2028\u2029\x0b\x0c\x1c\x1d\x1e\x85")
        out.append((pos, pos + len(body)))
        pos += len(line)
    return out


def _row(line: str) -> bool:
    """A Markdown table row: it starts with a pipe or holds two."""
    return line.lstrip().startswith("|") or line.count("|") >= 2


def _columned(body: str) -> bool:
    """Cells aligned with a run of spaces, or separated by a tab (the expression only runs where one may be)."""
    return ("  " in body or "\t" in body or "\u00a0" in body) and bool(_COLUMNS.search(body))


def line_kind(line: str, columns: bool = False) -> Kind:
    """A non-blank line out of a code block: a line unit, the first line of a list item, or prose. `columns`: its
    paragraph is laid out in columns, so a line with a wide gap is a row."""
    if _HEADING.match(line) or _RULE.match(line) or _row(line):
        return Kind.LINE
    if columns and _columned(line.strip()):
        return Kind.LINE
    return Kind.ITEM if _ITEM.match(line) else Kind.PROSE


def _paragraphs(text: str, lines: list[tuple[int, int]]) -> list[tuple[int, bool]]:
    """Per line, its paragraph's (the run of non-blank lines it is in) widest line, and whether half or more of
    the paragraph's lines have a column gap (a stray double space in one line of prose does not make a table)."""
    out = [(0, False)] * len(lines)
    i = 0
    while i < len(lines):
        j = i
        while j < len(lines) and text[lines[j][0]:lines[j][1]].strip():
            j += 1
        bodies = [text[a:b].strip() for a, b in lines[i:j]]
        widest = max(map(len, bodies), default=0)
        gaps = sum(1 for body in bodies if _columned(body))
        out[i:j] = [(widest, 2 * gaps >= len(bodies))] * (j - i)
        i = j + 1 if j == i else j
    return out


def _title_like(line: str) -> bool:
    """A short line that reads as a title: a few words, no clause punctuation, no end mark."""
    body = line.strip()
    return len(body.split()) <= TITLE_WORDS and not _CLAUSE.search(body)


def is_heading(unit: str) -> bool:
    """A unit that only names what follows it: a Markdown heading, or a one-line title in a cased script (a few
    words, capitalised, without clause punctuation, an end mark or a column gap). Never a table row, aligned
    columns or a list item; a line of Thai or Chinese, which has no titles told by case, never reads as one."""
    body = unit.strip()
    if "\n" in body or not body:
        return False
    kind = line_kind(body)
    if kind is Kind.LINE:
        return bool(_HEADING.match(body))
    return (kind is Kind.PROSE and len(body.split()) <= HEADING_WORDS and _title_like(body) and body[0].isupper()
            and not _columned(body))


def _joins(kind: Kind, previous: str, line: str, width: int, first: bool) -> bool:
    """Whether `line` (prose) continues the block whose last line is `previous` rather than starting one. The
    text's first line may start mid-line (a passage cut from a document), so its width says nothing."""
    if kind is Kind.LINE:
        return False
    if kind is Kind.ITEM:  # an item goes on over indented lines (or a lazily wrapped lower-case one)
        return line[:1] in " \t" or bool(_LOWER_START.match(line))
    body = previous.strip()
    if _LOWER_START.match(line) or _WRAP_END.search(body):
        return True
    if not first and len(body) >= FULL_LINE * width:
        return True
    return not _title_like(body)


def blocks(text: str) -> list[Block]:
    """The units and prose blocks of `text`, in order; blank lines belong to none."""
    lines = _lines(text)
    paragraphs = _paragraphs(text, lines)
    out: list[Block] = []
    current: list = []  # [start, end, kind, last line's text, its start] of the block being built
    fenced = False
    first = next((a for a, b in lines if text[a:b].strip()), 0)

    def close() -> None:
        if current:
            out.append(Block(current[0], current[1], current[2]))
            current.clear()

    for (a, b), (width, columns) in zip(lines, paragraphs, strict=True):
        line = text[a:b]
        if not line.strip():
            close()
            continue
        fence = bool(_FENCE.match(line))
        if fenced or fence:
            close()
            out.append(Block(a, b, Kind.LINE))
            fenced = fenced != fence
            continue
        kind = line_kind(line, columns)
        if kind is Kind.PROSE and current and _joins(current[2], current[3], line, width, current[4] == first):
            current[1], current[3], current[4] = b, line, a
            continue
        close()
        if kind is Kind.LINE:
            out.append(Block(a, b, kind))
        else:
            current[:] = [a, b, kind, line, a]
    close()
    return out
