"""Pure text work of the viewer: rebuild a document's text from its chunks' character spans, and find a passage
or a quote in a text whatever its line breaks and spacing (a PDF's text layer breaks lines where the chunk has
spaces; a quote is trimmed)."""

from __future__ import annotations

from collections.abc import Sequence

# soft hyphen, PDFium's generated hyphen (U+0002) and its other invisibles: not part of what is compared
_IGNORED = frozenset("\u00ad\u0002\u0003\ufffe\ufeff\u200b")


def assemble(chunks: Sequence[tuple[int | None, int, int, str]], focus: int) -> tuple[str, int, int]:
    """(text, start, end): the chunks' texts laid out by their spans (an overlap is written once, a gap becomes a
    paragraph break), and where chunk `focus` is in that text."""
    parts: list[str] = []
    length, written_to = 0, None  # written_to: the document offset the text so far reaches
    where = (0, 0)
    for i, (_page, start, _end, text) in enumerate(chunks):
        skip = 0
        if written_to is not None:
            if start > written_to:
                parts.append("\n\n")
                length += 2
            else:
                skip = min(written_to - start, len(text))
        mine = length - skip
        parts.append(text[skip:])
        length += len(text) - skip
        written_to = max(written_to or 0, start + len(text))
        if i == focus:
            where = (max(mine, 0), max(mine, 0) + len(text))
    return "".join(parts), where[0], where[1]


def _squeezed(text: str) -> tuple[str, list[int]]:
    """`text` without whitespace or invisibles, case-folded per character, and each kept character's index."""
    kept, index = [], []
    for i, ch in enumerate(text):
        if not ch.isspace() and ch not in _IGNORED:
            kept.append(ch.lower() if len(ch.lower()) == 1 else ch)
            index.append(i)
    return "".join(kept), index


def find_text(haystack: str, needle: str, *, near: int = 0) -> tuple[int, int] | None:
    """[start, end) of `needle` in `haystack` ignoring whitespace, invisibles and case (the occurrence closest to
    `near`); when the whole is not there, from its first to its last 40 characters (a passage whose middle the
    text layer spells differently); None when neither is found."""
    hay, at = _squeezed(haystack)
    pin, _ = _squeezed(needle)
    if not pin or not hay:
        return None
    found = _closest(hay, pin, at, near)
    if found is not None:
        return at[found], at[found + len(pin) - 1] + 1
    head, tail = pin[:40], pin[-40:]
    first = _closest(hay, head, at, near)
    if first is None:
        return None
    last = hay.find(tail, first + len(head) - len(tail) if len(head) > len(tail) else first)
    if last == -1:
        return None
    return at[first], at[last + len(tail) - 1] + 1


def _closest(hay: str, pin: str, at: list[int], near: int) -> int | None:
    best, pos = None, hay.find(pin)
    while pos != -1:
        if best is None or abs(at[pos] - near) < abs(at[best] - near):
            best = pos
        pos = hay.find(pin, pos + 1)
    return best
