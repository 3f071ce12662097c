"""The one place Trove turns a document's bytes into text, and tells text from a binary.

Every format reads its text through `decode_text` (plain text, Markdown, code, CSV, HTML, e-mail attachments,
EPUB chapters, notebooks, in the process and in the sandbox worker), so a file reads the same whatever its
extension or wherever it is read. The guess is the one a person would expect: a byte order mark; UTF-16
without one (NUL bytes in every other place); UTF-8; then detection that prefers Windows-1252 for sparse
accented Latin text ("naïve" used to come back as "naďve"); else charset-normalizer's guess (Shift-JIS,
GB18030, …); else UTF-8 with U+FFFD for what cannot be read. Decoding never raises.

`looks_binary` is the one binary sniffer: NUL bytes near the start of what is not UTF-16/32.
A big file is read in segments: `choose_encoding(first segment)` then `incremental_decoder(encoding)`.
"""

from __future__ import annotations

import codecs
import re

from desktop_app.core.log import get_logger

log = get_logger("ingest")

SNIFF_BYTES = 8192
DETECT_BYTES = 200_000  # detection looks at this much of a file
# Windows-1252 characters (beyond ASCII) that sparse Western European text is made of.
_WESTERN = re.compile("[\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u00ff\u00a0\u00a1\u00a3\u00a7\u00a9\u00ab\u00ae\u00b0"
                      "\u00b7\u00bb\u00bf\u0152\u0153\u0160\u0161\u0178\u017d\u017e\u2013\u2014\u2018-\u201e"
                      "\u2022\u2026\u20ac]")


def decode_text(raw: bytes) -> str:
    """Text of a whole file (undecodable bytes become U+FFFD; never raises). The same guess as
    `choose_encoding`, decoding valid UTF-8 once instead of checking it first."""
    proven = sniff_encoding(raw)
    if proven:
        return raw.decode(proven, "replace")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return raw.decode(_after_utf8_failed(raw, exc), "replace")


def incremental_decoder(encoding: str) -> codecs.IncrementalDecoder:
    """A decoder for a file read a segment at a time in `encoding` (what `choose_encoding` said of its start)."""
    return codecs.getincrementaldecoder(encoding)("replace")


def sniff_encoding(head: bytes) -> str | None:
    """An encoding the first bytes prove (a BOM, or UTF-16's pattern of NULs), else None."""
    if head.startswith(codecs.BOM_UTF8):
        return "utf-8-sig"
    if head.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):
        return "utf-32"
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16"
    sample = head[: SNIFF_BYTES & ~1]
    if len(sample) >= 8:
        even, odd = sample[0::2].count(0) / (len(sample) / 2), sample[1::2].count(0) / (len(sample) / 2)
        if odd > 0.4 and even < 0.02:
            return "utf-16-le"
        if even > 0.4 and odd < 0.02:
            return "utf-16-be"
    return None


def looks_binary(head: bytes) -> bool:
    """NUL bytes near the start of a file that is not UTF-16/32: a binary, whatever its name says."""
    return b"\x00" in head[:SNIFF_BYTES] and sniff_encoding(head) is None


def choose_encoding(raw: bytes) -> str:
    """The encoding to read `raw` (a whole file or its first segment) with."""
    proven = sniff_encoding(raw)
    if proven:
        return proven
    try:
        raw.decode("utf-8")
        return "utf-8"
    except UnicodeDecodeError as exc:
        return _after_utf8_failed(raw, exc)


def _after_utf8_failed(raw: bytes, exc: UnicodeDecodeError) -> str:
    if exc.start >= len(raw) - 3 and exc.reason.startswith("unexpected end"):
        return "utf-8"  # a segment cut inside a character
    return _detected(raw)


def _detected(raw: bytes) -> str:
    """Sparse accented Latin is Windows-1252 (detectors guess Central European code pages for short French);
    anything else is what charset-normalizer says, or UTF-8 with replacement characters."""
    if _mostly_utf8(raw):
        return "utf-8"
    if _sparse_western(raw):
        return "cp1252"
    try:
        from charset_normalizer import from_bytes

        best = from_bytes(raw[:DETECT_BYTES]).best()
        if best is not None and best.encoding and best.encoding != "ascii":
            return best.encoding
    except Exception as exc:  # noqa: BLE001 -- detection is best effort; UTF-8 with replacement never fails
        log.debug("charset detection failed: %s", exc)
    return "utf-8"


def _mostly_utf8(raw: bytes) -> bool:
    """Valid UTF-8 characters outnumber the stray bytes (a UTF-8 file with a few broken bytes)."""
    text = raw[:DETECT_BYTES].decode("utf-8", "replace")
    bad = text.count("\ufffd")
    good = sum(1 for c in text if ord(c) >= 0x80) - bad
    return good > 0 and bad <= good


def _sparse_western(raw: bytes) -> bool:
    """Mostly ASCII with a few bytes that Windows-1252 reads as accented letters and typography."""
    sample = raw[:DETECT_BYTES]
    high = sum(1 for b in sample if b >= 0x80)
    if high == 0 or high > len(sample) * 0.5:
        return False
    text = sample.decode("cp1252", "replace")
    return all(_WESTERN.match(c) for c in text if ord(c) >= 0x80)
