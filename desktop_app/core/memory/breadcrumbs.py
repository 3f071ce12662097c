"""Breadcrumbs: the exact strings a person later searches history for, found by a deterministic extractor.

Kinds: url, path, command, port, amount, ticket, identifier, number, quote. A match inside an earlier one (the
host of a URL, the number of a port) is left out. Each is a (kind, text) pair, in the order
they first appear, without repeats, at most MAX_CRUMBS per text. Never raises on any string.
"""

from __future__ import annotations

import regex

MAX_CRUMBS = 40
MAX_CRUMB_CHARS = 200
MAX_SCAN_CHARS = 20_000  # a pasted log is scanned by its beginning: the work stays bounded

_PATTERNS: tuple[tuple[str, regex.Pattern[str]], ...] = (
    ("url", regex.compile(r"\b(?:https?|ftp|ssh|git)://[^\s<>\"'`)\]]+|\bwww\.[^\s<>\"'`)\]]+", regex.I)),
    ("command", regex.compile(r"`([^`\n]{2,200})`|(?m)^\s*\$\s+(\S[^\n]{1,200})")),
    ("path", regex.compile(r"(?<![\w/:.])(?:~|\.{1,2})?(?:/[\w.@+-]+){2,}/?|\b[A-Za-z]:\\(?:[\w .-]+\\)*[\w .-]+")),
    ("port", regex.compile(r"\bport\s*(?:is|=|:|of|number)?\s*(\d{2,5})\b|(?<=[\w\]]):(\d{2,5})\b", regex.I)),
    ("amount", regex.compile(
        r"[$€£¥฿]\s?\d[\d,]*(?:\.\d+)?(?:\s?(?:k|m|bn))?\b|\b\d[\d,]*(?:\.\d+)?\s?(?:%|percent\b|"
        r"(?:USD|EUR|GBP|JPY|THB|SAR|AED|dollars?|euros?|pounds?|baht|riyals?)\b)", regex.I)),
    ("ticket", regex.compile(r"\b[A-Z][A-Z0-9]{1,9}-\d{1,6}\b|(?<![\w&])#\d{2,7}\b")),
    ("identifier", regex.compile(
        r"\b[a-z]+(?:_[a-z0-9]+)+\b|\b[a-z]+(?:[A-Z][a-z0-9]+)+\b|\b[A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*){2,}\b|"
        r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b|\bv?\d+\.\d+(?:\.\d+)+\b")),
    ("number", regex.compile(r"(?<![\w.,])\d{3,}(?![\w.,]\d)")),
    ("quote", regex.compile(r"\"([^\"\n]{3,200})\"|“([^”\n]{3,200})”|«([^»\n]{3,200})»|„([^“\n]{3,200})“")),
)


def breadcrumbs(text: str) -> list[tuple[str, str]]:
    """The breadcrumbs of `text`, in the order they appear, each text once."""
    if not isinstance(text, str) or not text:
        return []
    body = text[:MAX_SCAN_CHARS]
    found: list[tuple[int, int, str, str]] = []
    for kind, pattern in _PATTERNS:
        for m in pattern.finditer(body):
            value = next((g for g in m.groups() if g), None) if m.groups() else None
            found.append((m.start(), m.end(), kind, (value or m.group(0)).strip()))
    found.sort(key=lambda item: (item[0], -item[1]))
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    covered = -1
    for start, end, kind, value in found:
        value = value.rstrip(".,;:!?")[:MAX_CRUMB_CHARS]
        if start < covered or len(value) < 2 or value.casefold() in seen:
            continue
        covered = max(covered, end)
        seen.add(value.casefold())
        out.append((kind, value))
        if len(out) >= MAX_CRUMBS:
            break
    return out
