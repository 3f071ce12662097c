"""XML from a document is checked after decoding, and parsed without entities, DTDs or network.

`prolog_refusal(head)` reads an XML member's prolog (everything before its root element) the way an XML
parser would: in the encoding its bytes or declaration name (UTF-16/32 with or without a byte order mark,
or what `encoding="…"` says), past any number of comments and processing instructions. An entity declaration
there is refused ("billion laughs" needs one; no office or e-book format does); so is a prolog that does not
end within MAX_PROLOG_CHARS, and an encoding that cannot be checked. A DOCTYPE without entities (EPUB 2's
XHTML doctype) is allowed.

`harden_lxml()` makes lxml's default parser (what odfdo and other readers use when they pass none) one that
resolves no entities, loads no DTD and never touches the network. python-docx, python-pptx and ebooklib
already pass their own parsers with `resolve_entities=False`; openpyxl parses through defusedxml.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterable

MAX_PROLOG_CHARS = 1 << 20
_BOMS = ((codecs.BOM_UTF32_LE, "utf-32-le"), (codecs.BOM_UTF32_BE, "utf-32-be"), (codecs.BOM_UTF8, "utf-8-sig"),
         (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))
_NO_BOM = ((b"<\0\0\0", "utf-32-le"), (b"\0\0\0<", "utf-32-be"), (b"<\0?\0", "utf-16-le"), (b"\0<\0?", "utf-16-be"),
           (b"\0<\0", "utf-16-be"), (b"<\0", "utf-16-le"))
_DECLARED = re.compile(rb"""^<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._:-]+)["']""")
_NAME_START = re.compile(r"[^\s!?/<>=\"']")


def xml_encoding(head: bytes) -> str | None:
    """The encoding an XML parser reads `head` in, or None when it is not one Python can check."""
    for bom, name in _BOMS:
        if head.startswith(bom):
            return name
    for magic, name in _NO_BOM:
        if head.startswith(magic):
            return name
    declared = _DECLARED.match(head[:1024])
    if not declared:
        return "utf-8"
    name = declared.group(1).decode("ascii").lower()
    try:
        info = codecs.lookup(name)
    except LookupError:
        return None
    try:
        ascii_compatible = "<!ENTITY".encode(info.name) == b"<!ENTITY"
    except (UnicodeError, LookupError):
        ascii_compatible = False
    # a wide encoding declared over 8-bit bytes, or one that spells markup differently from ASCII (EBCDIC, UTF-7)
    return info.name if ascii_compatible and not info.name.startswith(("utf-16", "utf-32", "utf-7")) else None


def prolog_refusal(blocks: Iterable[bytes]) -> str:
    """Why this XML is refused ("" when it is not), from its bytes in order (read only up to the root element)."""
    decoder = None
    text = ""
    for block in blocks:
        if decoder is None:
            encoding = xml_encoding(block[:1024])
            if encoding is None:
                return "is XML in an encoding that cannot be checked"
            decoder = codecs.getincrementaldecoder(encoding)("replace")
        text += decoder.decode(block)
        verdict = _scan(text)
        if verdict is not None:
            return verdict
        if len(text) > MAX_PROLOG_CHARS:
            return f"has more than {MAX_PROLOG_CHARS // 1024} K characters before its first element"
    return ""


def _scan(text: str) -> str | None:
    """"" when the root element starts before any entity declaration, the reason when one comes first, None when
    `text` ends before either."""
    pos = 0
    while True:
        start = text.find("<", pos)
        if start < 0 or start + 1 >= len(text):
            return None
        if text.startswith("<?", start):
            pos = _past(text, "?>", start)
        elif text.startswith("<!--", start):
            pos = _past(text, "-->", start)
        elif text.startswith("<!ENTITY", start):
            return "declares entities (entity expansion is not allowed)"
        elif text.startswith("<!", start):
            if len(text) - start < len("<!ENTITY"):
                return None
            pos = start + 2
        elif _NAME_START.match(text, start + 1):
            return ""
        else:
            pos = start + 1
        if pos < 0:
            return None


def _past(text: str, end: str, start: int) -> int:
    found = text.find(end, start + 2)
    return found + len(end) if found >= 0 else -1


def harden_lxml() -> None:
    """Make lxml's default parser (in this thread) one without entities, DTDs or network."""
    from lxml import etree

    etree.set_default_parser(etree.XMLParser(resolve_entities=False, load_dtd=False, no_network=True,
                                             huge_tree=False))
