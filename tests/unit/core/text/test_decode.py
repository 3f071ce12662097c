"""Every format reads its text through core/text/decode.py: each encoding people have, in each format, in the
process and in the sandbox worker, from real files written here."""

from __future__ import annotations

import codecs
import json
import zipfile
from collections.abc import Callable
from email.message import EmailMessage
from pathlib import Path

import pytest

from desktop_app.core.errors import ExtractionError
from desktop_app.core.ingest.extract import extract, extract_many
from desktop_app.core.ingest.safe_read import StreamedText, text_document
from desktop_app.core.ingest.sandbox import Budget, ExtractionSandbox
from desktop_app.core.text.decode import choose_encoding, decode_text, incremental_decoder, looks_binary

FRENCH = "Un café naïve et une crème brûlée, déjà vu à l'hôtel — «voilà» pour 12 €."
# detection needs kana: a short run of kanji alone is taken for Korean (cp949) by charset-normalizer
JAPANESE = "東京タワーは高い。スカイツリーはもっと高いです。わたしはカメラをもって、まちをあるきました。" * 2
CHINESE = "我们的知识库把每个文件夹里的文件都变成可以搜索的文字，回答问题时引用原文的出处和页码。"
MIXED = "Ωmega café — naïve Привет 漢字"

# (id, codec, byte order mark, the sentence) — UTF-16 without a BOM is recognised by its NULs, so its sentence
# is mostly Latin; a legacy code page holds only what it can spell.
ENCODINGS = [
    ("utf-8", "utf-8", b"", MIXED),
    ("utf-8-bom", "utf-8", codecs.BOM_UTF8, MIXED),
    ("utf-16-le-bom", "utf-16-le", codecs.BOM_UTF16_LE, MIXED),
    ("utf-16-be-bom", "utf-16-be", codecs.BOM_UTF16_BE, MIXED),
    ("utf-16-le", "utf-16-le", b"", FRENCH),
    ("utf-16-be", "utf-16-be", b"", FRENCH),
    ("windows-1252", "cp1252", b"", FRENCH),
    ("shift-jis", "shift_jis", b"", JAPANESE),
    ("gb18030", "gb18030", b"", CHINESE),
]


def encoded(text: str, codec: str, bom: bytes) -> bytes:
    return bom + text.encode(codec)


def write_text(path: Path, sentence: str, codec: str, bom: bytes) -> Path:
    path = path.with_suffix(".txt")
    path.write_bytes(encoded(f"Notes\n\n{sentence}\n\nThe end of the notes.\n", codec, bom))
    return path


def write_csv(path: Path, sentence: str, codec: str, bom: bytes) -> Path:
    path = path.with_suffix(".csv")
    path.write_bytes(encoded(f'id,remark\r\n1,"{sentence}"\r\n2,second row\r\n', codec, bom))
    return path


def write_html(path: Path, sentence: str, codec: str, bom: bytes) -> Path:
    path = path.with_suffix(".html")
    path.write_bytes(encoded(f"<html><head><title>Page</title></head><body><p>{sentence}</p></body></html>",
                             codec, bom))
    return path


def write_notebook(path: Path, sentence: str, codec: str, bom: bytes) -> Path:
    path = path.with_suffix(".ipynb")
    notebook = {"nbformat": 4, "nbformat_minor": 5, "metadata": {},
                "cells": [{"cell_type": "markdown", "metadata": {}, "source": [f"# Notes\n\n{sentence}"]}]}
    path.write_bytes(encoded(json.dumps(notebook, ensure_ascii=False), codec, bom))
    return path


def write_attachment(path: Path, sentence: str, codec: str, bom: bytes) -> Path:
    """An e-mail whose attachment notes.txt holds the sentence in `codec` (sent as bytes, no charset named)."""
    path = path.with_suffix(".eml")
    message = EmailMessage()
    message["Subject"] = "notes attached"
    message["From"] = "a@example.org"
    message.set_content("See the attachment.")
    message.add_attachment(encoded(f"Notes\n\n{sentence}\n", codec, bom), maintype="application",
                           subtype="octet-stream", filename="notes.txt")
    path.write_bytes(bytes(message))
    return path


def write_epub(path: Path, sentence: str, codec: str, bom: bytes) -> Path:
    """An EPUB made by ebooklib whose chapter file is then rewritten in `codec`."""
    from ebooklib import epub

    path = path.with_suffix(".epub")
    book = epub.EpubBook()
    book.set_identifier(f"decode-{path.stem}")
    book.set_title("A book")
    chapter = epub.EpubHtml(title="One", file_name="chap.xhtml", content="<h1>One</h1><p>placeholder</p>")
    book.add_item(chapter)
    book.toc = [chapter]
    book.spine = [chapter]
    book.add_item(epub.EpubNcx())
    book.add_item(epub.EpubNav())
    epub.write_epub(str(path), book)
    markup = (f'<html xmlns="http://www.w3.org/1999/xhtml"><head><title>One</title></head>'
              f"<body><h1>One</h1><p>{sentence}</p></body></html>")
    with zipfile.ZipFile(path) as old:
        members = [(info, old.read(info)) for info in old.infolist()]
    with zipfile.ZipFile(path, "w") as new:
        for info, data in members:
            new.writestr(info, encoded(markup, codec, bom) if info.filename == "EPUB/chap.xhtml" else data)
    return path


def in_process(path: Path) -> str:
    if path.suffix == ".txt":
        return text_document(path, path.read_bytes()).text
    if path.suffix == ".eml":
        return next(d.text for d in extract_many(path).documents if d.part == "notes.txt")
    return extract(path).text


WRITERS: dict[str, Callable[[Path, str, str, bytes], Path]] = {
    "text": write_text, "csv": write_csv, "html": write_html, "attachment": write_attachment,
    "epub": write_epub, "notebook": write_notebook}


@pytest.fixture(scope="module")
def sandbox():
    box = ExtractionSandbox()
    yield box
    box.close()


def squash(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("fmt", sorted(WRITERS))
@pytest.mark.parametrize(("codec", "bom", "sentence"), [e[1:] for e in ENCODINGS], ids=[e[0] for e in ENCODINGS])
def test_every_format_reads_every_encoding_in_the_process(tmp_path, fmt, codec, bom, sentence):
    path = WRITERS[fmt](tmp_path / "doc", sentence, codec, bom)
    text = squash(in_process(path))
    assert squash(sentence) in text
    assert "\ufffd" not in text and "\ufeff" not in text


@pytest.mark.parametrize("fmt", sorted(WRITERS))
@pytest.mark.parametrize(("codec", "bom", "sentence"), [e[1:] for e in ENCODINGS], ids=[e[0] for e in ENCODINGS])
def test_every_format_reads_every_encoding_in_the_sandbox_worker(sandbox, tmp_path, fmt, codec, bom, sentence):
    path = WRITERS[fmt](tmp_path / "doc", sentence, codec, bom)
    own, inner = sandbox.extract(path, Budget())
    text = squash(next(d.text for d in inner.documents if d.part == "notes.txt") if fmt == "attachment"
                  else own.text)
    assert squash(sentence) in text
    assert "\ufffd" not in text and "\ufeff" not in text


@pytest.mark.parametrize(("codec", "bom", "sentence"), [e[1:] for e in ENCODINGS], ids=[e[0] for e in ENCODINGS])
def test_a_big_text_file_streamed_in_segments_reads_the_same(tmp_path, codec, bom, sentence):
    path = write_text(tmp_path / "doc", sentence, codec, bom)
    streamed = StreamedText.open(path)
    assert "".join(streamed.segments()) == decode_text(path.read_bytes())
    assert sentence in "".join(streamed.segments())


def test_a_segment_cut_inside_a_character_keeps_utf8():
    raw = "déjà vu".encode()
    assert choose_encoding(raw[:2]) == "utf-8"  # "d" and the first byte of "é"
    decoder = incremental_decoder("utf-8")
    assert decoder.decode(raw[:2]) + decoder.decode(raw[2:], final=True) == "déjà vu"


def test_one_binary_sniffer_for_text_and_for_formats(tmp_path):
    program = b"\x7fELF\x02\x01\x01\x00\x00\x00" + bytes(range(256))
    assert looks_binary(program)
    assert not looks_binary(FRENCH.encode("utf-16-le"))  # NULs, but UTF-16's pattern of them
    for suffix in (".txt", ".csv", ".html"):
        path = tmp_path / f"a{suffix}"
        path.write_bytes(program)
        with pytest.raises(ExtractionError, match="binary file"):
            extract(path)
