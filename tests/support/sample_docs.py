"""Real documents of every format Trove reads, written by the same libraries people's programs use.

Each writer puts given text where a reader must dig for it (a late chapter, slide, sheet, message, attachment),
so tests can check that a word from deep inside is extracted with the right page label. Used by tests and by
bench/extract_formats.py.
"""

from __future__ import annotations

import datetime as dt
import io
import json
import mailbox
import struct
from email.message import EmailMessage
from pathlib import Path


def write_epub(path: Path, chapters: list[tuple[str, str]], title: str = "") -> Path:
    """An EPUB 3 with a nav document and one XHTML file per (chapter title, text)."""
    from ebooklib import epub

    book = epub.EpubBook()
    book.set_identifier(f"trove-test-{path.stem}")
    book.set_title(title or path.stem)
    book.set_language("en")
    items = []
    for number, (heading, text) in enumerate(chapters, start=1):
        item = epub.EpubHtml(title=heading, file_name=f"chap_{number}.xhtml", lang="en")
        paragraphs = "".join(f"<p>{p}</p>" for p in text.split("\n\n"))
        item.content = f"<html><body><h1>{heading}</h1>{paragraphs}</body></html>"
        book.add_item(item)
        items.append(item)
    book.toc = items
    book.add_item(epub.EpubNcx())
    book.add_item(epub.EpubNav())
    book.spine = ["nav", *items]
    epub.write_epub(str(path), book)
    return path


def write_odt(path: Path, paragraphs: list[str], title: str = "") -> Path:
    from odfdo import Document, Header, Paragraph

    document = Document("text")
    document.body.clear()
    if title:
        document.meta.title = title
        document.body.append(Header(1, title))
    for text in paragraphs:
        document.body.append(Paragraph(text))
    document.save(str(path))
    return path


def write_ods(path: Path, sheets: dict[str, list[list[object]]]) -> Path:
    from odfdo import Document, Table

    document = Document("spreadsheet")
    document.body.clear()
    for name, rows in sheets.items():
        table = Table(name)
        table.set_values(rows)
        document.body.append(table)
    document.save(str(path))
    return path


def write_odp(path: Path, slides: list[str], title: str = "") -> Path:
    from odfdo import Document, DrawPage, Frame

    document = Document("presentation")
    document.meta.title = title or path.stem
    document.body.clear()
    for number, text in enumerate(slides, start=1):
        page = DrawPage(f"page{number}", name=f"Slide {number}")
        page.append(Frame.text_frame(text, size=("20cm", "10cm"), position=("1cm", "1cm")))
        document.body.append(page)
    document.save(str(path))
    return path


def write_pptx(path: Path, slides: list[tuple[str, str]], notes: dict[int, str] | None = None) -> Path:
    """(title, body) per slide; `notes` maps a 1-based slide number to its speaker notes."""
    import pptx

    deck = pptx.Presentation()
    for number, (heading, body) in enumerate(slides, start=1):
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        slide.shapes.title.text = heading
        slide.placeholders[1].text = body
        if notes and number in notes:
            slide.notes_slide.notes_text_frame.text = notes[number]
    deck.save(str(path))
    return path


def write_xlsx(path: Path, sheets: dict[str, list[list[object]]], title: str = "") -> Path:
    import openpyxl

    workbook = openpyxl.Workbook()
    workbook.remove(workbook.active)
    for name, rows in sheets.items():
        sheet = workbook.create_sheet(name)
        for row in rows:
            sheet.append(row)
    if title:
        workbook.properties.title = title
    workbook.save(str(path))
    return path


def encrypt_office(source: Path, target: Path, password: str = "hunter2") -> Path:
    """A password-protected copy of an OOXML file (what Office writes: an OLE "EncryptedPackage")."""
    from msoffcrypto.format.ooxml import OOXMLFile

    with source.open("rb") as infile, target.open("wb") as outfile:
        OOXMLFile(infile).encrypt(password, outfile)
    return target


def write_rtf(path: Path, paragraphs: list[str], title: str = "") -> Path:
    """RTF as word processors write it: a font table, an info group with the title, \\par paragraphs."""
    info = f"{{\\info{{\\title {title}}}}}" if title else ""
    body = "".join(f"{_rtf_escape(p)}\\par\n" for p in paragraphs)
    path.write_bytes(("{\\rtf1\\ansi\\deff0{\\fonttbl{\\f0 Times New Roman;}}" + info + "\n" + body + "}").encode())
    return path


def _rtf_escape(text: str) -> str:
    out = text.replace("\\", "\\\\").replace("{", "\\{").replace("}", "\\}")
    return "".join(c if ord(c) < 128 else f"\\u{ord(c) if ord(c) < 32768 else ord(c) - 65536}?" for c in out)


def make_email(subject: str, body: str, *, sender: str = "Ada <ada@example.org>", to: str = "bob@example.org",
               date: str = "Tue, 05 Mar 2024 10:00:00 +0000",
               attachments: list[tuple[str, bytes, str]] = ()) -> EmailMessage:
    """A message with (filename, bytes, mime type) attachments."""
    message = EmailMessage()
    message["Subject"], message["From"], message["To"], message["Date"] = subject, sender, to, date
    message.set_content(body)
    for name, data, mime in attachments:
        maintype, subtype = mime.split("/", 1)
        message.add_attachment(data, maintype=maintype, subtype=subtype, filename=name)
    return message


def write_eml(path: Path, message: EmailMessage) -> Path:
    path.write_bytes(bytes(message))
    return path


def write_mbox(path: Path, messages: list[EmailMessage]) -> Path:
    box = mailbox.mbox(str(path), create=True)
    try:
        for message in messages:
            box.add(message)
        box.flush()
    finally:
        box.close()
    return path


def write_msg(path: Path, subject: str, body: str, sender: str = "Ada Example",
              attachment: tuple[str, bytes] | None = None) -> Path:
    """An Outlook .msg written with extract-msg's OLE writer: the MAPI property streams a message needs."""
    from extract_msg.ole_writer import OleWriter

    writer = OleWriter()
    strings = {0x001A: "IPM.Note", 0x0037: subject, 0x1000: body, 0x0C1A: sender}
    props = b"".join(_msg_string(writer, "", pid, text) for pid, text in strings.items())
    sent = dt.datetime(2024, 3, 5, 10, 0, tzinfo=dt.UTC) - dt.datetime(1601, 1, 1, tzinfo=dt.UTC)
    props += struct.pack("<IIQ", 0x00390040, 6, int(sent.total_seconds() * 10_000_000))  # PR_CLIENT_SUBMIT_TIME
    count = 1 if attachment else 0
    writer.addEntry("__properties_version1.0", b"\0" * 8 + struct.pack("<IIII", 0, count, 0, count) + b"\0" * 8 + props)
    writer.addEntry("__nameid_version1.0", storage=True)
    for stream in ("00020102", "00030102", "00040102"):
        writer.addEntry(f"__nameid_version1.0/__substg1.0_{stream}", b"")
    if attachment:
        name, data = attachment
        storage = "__attach_version1.0_#00000000"
        writer.addEntry(storage, storage=True)
        writer.addEntry(f"{storage}/__substg1.0_37010102", data)
        att_props = struct.pack("<IIQ", 0x37050003, 6, 1)  # PR_ATTACH_METHOD = by value
        att_props += struct.pack("<IIII", 0x37010102, 6, len(data), 0)
        att_props += _msg_string(writer, storage + "/", 0x3707, name)
        writer.addEntry(f"{storage}/__properties_version1.0", b"\0" * 8 + att_props)
    writer.write(str(path))
    return path


def _msg_string(writer, prefix: str, pid: int, text: str) -> bytes:
    tag = (pid << 16) | 0x001F
    data = text.encode("utf-16-le")
    writer.addEntry(f"{prefix}__substg1.0_{tag:08X}", data)
    return struct.pack("<IIII", tag, 6, len(data) + 2, 0)


def write_ipynb(path: Path, cells: list[tuple[str, str]], outputs: str = "") -> Path:
    """nbformat 4 JSON with (cell type, source) cells; code cells carry `outputs` as a stream output."""
    nb_cells = []
    for kind, source in cells:
        cell = {"cell_type": kind, "metadata": {}, "source": source.splitlines(keepends=True)}
        if kind == "code":
            cell.update(execution_count=1, outputs=[{"output_type": "stream", "name": "stdout", "text": [outputs]}])
        nb_cells.append(cell)
    notebook = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": nb_cells}
    path.write_text(json.dumps(notebook), encoding="utf-8")
    return path


def write_scanned_pdf(path: Path, text_pdf: Path, dpi: int = 150) -> Path:
    """An image-only PDF made from a text PDF: each page rendered to a picture, saved as a PDF of pictures."""
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(str(text_pdf))
    try:
        images = [document[i].render(scale=dpi / 72).to_pil().convert("RGB") for i in range(len(document))]
    finally:
        document.close()
    images[0].save(str(path), "PDF", resolution=dpi, save_all=True, append_images=images[1:])
    return path


def write_text_image(path: Path, lines: list[str], size: tuple[int, int] = (1000, 400)) -> Path:
    """A picture of text (black on white, a large built-in font), saved in the format the suffix names."""
    from PIL import Image, ImageDraw, ImageFont

    image = Image.new("RGB", size, "white")
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=40)
    for number, line in enumerate(lines):
        draw.text((40, 40 + number * 70), line, fill="black", font=font)
    buffer = io.BytesIO()
    image.save(buffer, format={".jpg": "JPEG", ".jpeg": "JPEG", ".tif": "TIFF", ".tiff": "TIFF",
                               ".webp": "WEBP"}.get(path.suffix.lower(), "PNG"))
    path.write_bytes(buffer.getvalue())
    return path
