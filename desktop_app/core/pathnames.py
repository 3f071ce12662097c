"""File names as Trove stores them and shows them; text that must be valid Unicode before it goes anywhere.

POSIX file names are bytes. Python hands them over as `str`, each byte that is not UTF-8 turned into a lone
surrogate U+DC80..U+DCFF (PEP 383, "surrogateescape"), and `open()` turns them back: such a `str` is the
only correct in-process form of the path. SQLite text (and PostgreSQL's) must be UTF-8, so binding that
`str` raises `UnicodeEncodeError: ... surrogates not allowed` — the crash of issue 15.

At the database boundary a text goes through `to_db` and comes back through `from_db`:

* a lone surrogate U+D800..U+DFFF (U+DC80..U+DCFF from POSIX bytes; any of them from a broken Windows
  UTF-16 name) becomes ESC + U+10F000 + (its offset), and ESC itself (U+10FFFD, the last private-use code
  point) becomes ESC ESC. The map is character by character and prefix-free, so it is injective, it keeps
  every other text byte for byte, and a folder's stored path is still a prefix of its files' stored paths.
* `from_db` undoes it exactly; stored text that was never escaped comes back unchanged.

People see `display_path`: undecodable bytes as `\\xff`, control characters (a newline, a terminal escape)
and bidirectional overrides as escapes, so a name can neither break a line nor pretend to be another name.
"""

from __future__ import annotations

import os
import re

ESC = "\U0010fffd"
_SURROGATE_BASE = 0x10F000
_NEEDS_ESCAPE = re.compile("[\ud800-\udfff\U0010fffd]")
_ESCAPED = re.compile("\U0010fffd(.)", re.DOTALL)
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
# C0/C1 controls, DEL, and the bidi embedding/override/isolate marks that reorder what follows them.
_UNSAFE_FOR_DISPLAY = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_NAMED_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def to_db(text: str) -> str:
    """A text safe to bind as SQL text (valid UTF-8); `from_db(to_db(t)) == t` for every `t`."""
    if text.isascii() or _NEEDS_ESCAPE.search(text) is None:
        return text
    return _NEEDS_ESCAPE.sub(_escape_one, text)


def _escape_one(match: re.Match[str]) -> str:
    char = match.group(0)
    if char == ESC:
        return ESC + ESC
    return ESC + chr(_SURROGATE_BASE + ord(char) - 0xD800)


def from_db(text: str) -> str:
    """The original text of a value stored with `to_db`."""
    if ESC not in text:
        return text
    return _ESCAPED.sub(_unescape_one, text)


def _unescape_one(match: re.Match[str]) -> str:
    char = match.group(1)
    if char == ESC:
        return ESC
    code = ord(char) - _SURROGATE_BASE + 0xD800
    return chr(code) if 0xD800 <= code <= 0xDFFF else match.group(0)


def display_path(path: str | os.PathLike[str]) -> str:
    """A path as a person should see it: printable, one line, in its true reading order."""
    text = os.fspath(path)
    if text.isprintable() and _UNSAFE_FOR_DISPLAY.search(text) is None:
        return text
    return _UNSAFE_FOR_DISPLAY.sub(_show_escaped, text)


def _show_escaped(match: re.Match[str]) -> str:
    char = match.group(0)
    code = ord(char)
    if char in _NAMED_ESCAPES:
        return _NAMED_ESCAPES[char]
    if 0xDC80 <= code <= 0xDCFF:
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def clean_text(text: str) -> str:
    """Valid Unicode for text that is searched, embedded or shown (a query, an extracted page).

    Lone surrogates come from undecodable bytes (a non-UTF-8 argv, a broken PDF font map): bytes that were
    escaped are decoded again as UTF-8 where they can be; anything left becomes U+FFFD.
    """
    if text.isascii() or _LONE_SURROGATE.search(text) is None:
        return text
    try:
        text = text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    except UnicodeEncodeError:  # surrogates that were never bytes (e.g. from JSON "\ud800")
        pass
    return _LONE_SURROGATE.sub("\ufffd", text)
