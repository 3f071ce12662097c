"""Zip checks before any library inflates an office file or e-book."""

from __future__ import annotations

import io
import struct
import zipfile

import pytest

from desktop_app.core.errors import ExtractionError
from desktop_app.core.ingest.safezip import ZipLimits, check_zip, size_refusal


def _zip(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def test_a_plain_zip_passes():
    check_zip(_zip({"word/document.xml": b"<?xml version='1.0'?><w:document/>"}), "DOCX")


def test_high_ratio_member_is_refused_as_a_zip_bomb():
    bomb = _zip({"xl/worksheets/sheet1.xml": b"<x>" + b" " * 50_000_000 + b"</x>"})
    with pytest.raises(ExtractionError, match="compression ratio .*zip bomb"):
        check_zip(bomb, "XLSX")


def test_declared_size_over_the_member_limit_is_refused():
    data = _zip({"content.xml": b"a" * 1000})
    with pytest.raises(ExtractionError, match="inflates to"):
        check_zip(data, "ODT", ZipLimits(max_member=500))


def test_a_member_that_lies_about_its_size_cannot_inflate_past_it():
    data = bytearray(_zip({"word/document.xml": b"A" * 5_000_000}))
    struct.pack_into("<I", data, 22, 1000)  # local header: uncompressed size
    central = data.find(b"PK\x01\x02")
    struct.pack_into("<I", data, central + 24, 1000)  # central directory: uncompressed size
    with zipfile.ZipFile(io.BytesIO(bytes(data))) as archive, pytest.raises(zipfile.BadZipFile):
        archive.read("word/document.xml")  # zipfile stops at the declared size (CRC error), never inflating 5 MB
    with pytest.raises(ExtractionError, match="corrupt zip member"):
        check_zip(bytes(data), "DOCX")  # and the XML prolog check already meets that error


def test_entity_declarations_are_refused():
    laughs = (b'<?xml version="1.0"?><!DOCTYPE l [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]>'
              b"<l>&b;</l>")
    with pytest.raises(ExtractionError, match="declares entities"):
        check_zip(_zip({"word/document.xml": laughs}), "DOCX")


def test_truncated_zip_has_a_reason():
    data = _zip({"content.xml": b"<x/>" * 1000})
    with pytest.raises(ExtractionError, match="corrupt or truncated ODT"):
        check_zip(data[: len(data) // 2], "ODT")


def test_encrypted_office_package_is_named_as_such():
    ole = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 100 + "EncryptedPackage".encode("utf-16-le")
    with pytest.raises(ExtractionError, match="encrypted XLSX .needs a password"):
        check_zip(ole, "XLSX")
    with pytest.raises(ExtractionError, match="old binary Office file"):
        check_zip(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 100, "DOCX")


def test_size_refusal_counts_members_and_totals():
    infos = [zipfile.ZipInfo(f"m{i}") for i in range(5)]
    for info in infos:
        info.file_size, info.compress_size = 300, 100
    assert size_refusal(infos, ZipLimits(max_members=4)).startswith("too many zip members")
    assert "inflates to more than" in size_refusal(infos, ZipLimits(max_total=1000))
    assert size_refusal(infos) == ""
