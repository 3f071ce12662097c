"""Compression bombs built in milliseconds: deflate streams of a repeated block, and the zip / PDF around them.

A block compressed once and followed by a full flush resets the compressor's history, so the same bytes
are a valid deflate segment wherever they are repeated: 1.5 GiB of XML becomes 1.5 MB without ever
compressing 1.5 GiB. Checksums (CRC-32 for zip, Adler-32 for PDF's zlib streams) are computed over the
real inflated bytes, so every parser sees a well-formed file.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass
from pathlib import Path

MIB = 1 << 20


@dataclass(frozen=True)
class Deflated:
    """A raw deflate stream with the size and checksums of what it inflates to."""

    data: bytes
    size: int
    crc32: int
    adler32: int


def _segment(block: bytes, *, final: bool = False) -> bytes:
    comp = zlib.compressobj(9, zlib.DEFLATED, -15, 9)
    return comp.compress(block) + comp.flush(zlib.Z_FINISH if final else zlib.Z_FULL_FLUSH)


def deflate_repeated(head: bytes, unit: bytes, count: int, tail: bytes) -> Deflated:
    """head + unit * count + tail, deflated without compressing the repetition more than once."""
    middle = _segment(unit)
    data = _segment(head) + middle * count + _segment(tail, final=True)
    crc, adler = zlib.crc32(head), zlib.adler32(head)
    for _ in range(count):
        crc, adler = zlib.crc32(unit, crc), zlib.adler32(unit, adler)
    crc, adler = zlib.crc32(tail, crc), zlib.adler32(tail, adler)
    return Deflated(data, len(head) + len(unit) * count + len(tail), crc, adler)


def deflate_plain(data: bytes) -> Deflated:
    """An ordinary member."""
    return Deflated(_segment(data, final=True), len(data), zlib.crc32(data), zlib.adler32(data))


def zlib_stream(d: Deflated) -> bytes:
    """The deflate stream wrapped as zlib (what a PDF FlateDecode filter holds)."""
    return b"\x78\xda" + d.data + struct.pack(">I", d.adler32)


def write_zip(path: Path, members: list[tuple[str, Deflated]], *, declared_sizes: dict[str, int] | None = None) -> Path:
    """A zip of deflated members; `declared_sizes` lets a member lie about how big it inflates."""
    declared_sizes = declared_sizes or {}
    out, central = bytearray(), bytearray()
    for name, d in members:
        raw = name.encode()
        size = declared_sizes.get(name, d.size)
        offset = len(out)
        out += struct.pack("<4sHHHHHIIIHH", b"PK\x03\x04", 20, 0, 8, 0, 0x21, d.crc32, len(d.data), size, len(raw), 0)
        out += raw + d.data
        central += struct.pack("<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 20, 20, 0, 8, 0, 0x21, d.crc32, len(d.data),
                               size, len(raw), 0, 0, 0, 0, 0, offset)
        central += raw
    cd_offset = len(out)
    out += central
    out += struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, len(members), len(members), len(central), cd_offset, 0)
    path.write_bytes(bytes(out))
    return path


W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
CONTENT_TYPES = (
    b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    b'<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    b'<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    b'<Default Extension="xml" ContentType="application/xml"/>'
    b'<Override PartName="/word/document.xml" '
    b'ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>'
)
ROOT_RELS = (
    b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    b'<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    b'<Relationship Id="rId1" '
    b'Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" '
    b'Target="word/document.xml"/></Relationships>'
)
DOC_HEAD = f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="{W_NS}"><w:body>'.encode()
DOC_TAIL = b"</w:body></w:document>"
PARAGRAPH = b"<w:p><w:r><w:t>bomb payload paragraph</w:t></w:r></w:p>"


def write_docx_parts(path: Path, document: Deflated, *, declared: int | None = None) -> Path:
    """A minimal DOCX (content types, package rels, word/document.xml) around a deflated document part."""
    members = [("[Content_Types].xml", deflate_plain(CONTENT_TYPES)), ("_rels/.rels", deflate_plain(ROOT_RELS)),
               ("word/document.xml", document)]
    return write_zip(path, members, declared_sizes={"word/document.xml": declared} if declared else None)


def docx_bomb(path: Path, inflated_bytes: int, *, long_runs: bool = False) -> Path:
    """A DOCX whose document part inflates to about `inflated_bytes` of paragraphs (honestly declared).

    `long_runs`: paragraphs of 8 MiB of one letter (under libxml2's 10 MB text-node limit), which deflate
    compresses 1000:1 instead of about 340:1, so 1.5 GiB fits in a 1.5 MB file.
    """
    unit = (b"<w:p><w:r><w:t>" + b"a" * (8 * MIB) + b"</w:t></w:r></w:p>") if long_runs else \
        PARAGRAPH * (MIB // len(PARAGRAPH))
    return write_docx_parts(path, deflate_repeated(DOC_HEAD, unit, max(1, inflated_bytes // len(unit)), DOC_TAIL))


def docx_lying(path: Path, inflated_bytes: int) -> Path:
    """A DOCX whose document part declares 4 KB but inflates to `inflated_bytes`."""
    unit = PARAGRAPH * (MIB // len(PARAGRAPH))
    return write_docx_parts(path, deflate_repeated(DOC_HEAD, unit, max(1, inflated_bytes // len(unit)), DOC_TAIL),
                            declared=4096)


def docx_billion_laughs(path: Path) -> Path:
    """A DOCX whose document part defines nested entities (10^9 "lol"s if anything expanded them)."""
    entities = ['<!ENTITY lol0 "lol">'] + [f'<!ENTITY lol{i} "{f"&lol{i - 1};" * 10}">' for i in range(1, 10)]
    xml = (f'<?xml version="1.0"?><!DOCTYPE lolz [{"".join(entities)}]><w:document xmlns:w="{W_NS}"><w:body>'
           '<w:p><w:r><w:t>laughs &lol9;</w:t></w:r></w:p></w:body></w:document>').encode()
    return write_docx_parts(path, deflate_plain(xml))


def raw_pdf(objects: list[bytes], *, root: int = 1) -> bytes:
    """A PDF from numbered object bodies (object i+1 is objects[i]) with a correct xref table."""
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root {root} 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def _page_objects(content: bytes, extra: bytes = b"") -> list[bytes]:
    return [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        content,
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>" + extra,
    ]


def pdf_bomb(path: Path, inflated_bytes: int) -> Path:
    """A one-page PDF whose content stream inflates to about `inflated_bytes` of text-showing operators."""
    op = b"BT /F1 12 Tf 72 720 Td (bomb payload) Tj ET\n"
    unit = op * (MIB // len(op))
    stream = zlib_stream(deflate_repeated(b"", unit, max(1, inflated_bytes // len(unit)), b""))
    content = f"<< /Length {len(stream)} /Filter /FlateDecode >>\nstream\n".encode() + stream + b"\nendstream"
    path.write_bytes(raw_pdf(_page_objects(content)))
    return path


def pdf_page_loop(path: Path) -> Path:
    """A PDF whose page tree contains itself (Kids points back at its own Pages node)."""
    objects = _page_objects(b"<< /Length 0 >>\nstream\n\nendstream")
    objects[1] = b"<< /Type /Pages /Kids [2 0 R 3 0 R] /Count 2 >>"
    path.write_bytes(raw_pdf(objects))
    return path


def pdf_deep_arrays(path: Path, depth: int = 200_000) -> Path:
    """A PDF with an object nested `depth` arrays deep (a recursive parser would overflow its stack)."""
    objects = _page_objects(b"<< /Length 0 >>\nstream\n\nendstream", extra=b"")
    objects.append(b"[" * depth + b"]" * depth)
    objects[0] = b"<< /Type /Catalog /Pages 2 0 R /Deep 6 0 R >>"
    path.write_bytes(raw_pdf(objects))
    return path
