"""Each format, written by the library people's programs use: a word from deep inside comes out with the
page / slide / sheet / chapter label a citation needs; broken files of each type give a reason."""

from __future__ import annotations

import zipfile

import pytest

from desktop_app.core.errors import ExtractionError
from desktop_app.core.ingest.extract import extract
from tests.support import sample_docs as sd


def label_of(doc, word: str) -> str:
    """The label of the page that holds `word` (exactly one page must)."""
    pages = [p for p in doc.pages if word in doc.page_text(p)]
    assert len(pages) == 1, f"{word!r} is on {len(pages)} pages"
    return pages[0].label


def test_epub_chapter(tmp_path):
    path = sd.write_epub(tmp_path / "b.epub", [("Dawn", "one"), ("Noon", "two\n\nmore"),
                                               ("Dusk", "late text\n\nwith zorbulate deep inside")], title="A Book")
    doc = extract(path)
    assert (doc.type, doc.title) == ("epub", "A Book")
    assert label_of(doc, "zorbulate") == "chapter 3: Dusk"


def test_odt_text_and_title(tmp_path):
    doc = extract(sd.write_odt(tmp_path / "d.odt", ["para one"] * 50 + ["para with quibblewick"], title="ODT T"))
    assert (doc.type, doc.title) == ("odt", "ODT T") and "quibblewick" in doc.text


def test_ods_sheet_rows_with_header(tmp_path):
    rows = [["Item", "Cost"]] + [[f"thing{i}", i] for i in range(2, 100)] + [["flumox", 5]]
    doc = extract(sd.write_ods(tmp_path / "s.ods", {"Intro": [["a", "b"], [1, 2]], "Budget": rows}))
    assert label_of(doc, "flumox") == "sheet Budget rows 62-100"
    page = next(p for p in doc.pages if "flumox" in doc.page_text(p))
    assert doc.page_text(page).startswith("Item | Cost\n")


def test_odp_slide(tmp_path):
    doc = extract(sd.write_odp(tmp_path / "p.odp", ["first", "second", "third with glimmerwort"]))
    assert label_of(doc, "glimmerwort") == "slide 3" and doc.type == "odp"


def test_pptx_slide_and_notes(tmp_path):
    path = sd.write_pptx(tmp_path / "p.pptx", [("Intro", "hello"), ("Middle", "content"),
                                               ("End", "body with snorkelfish")], notes={2: "notes: wobbegong"})
    doc = extract(path)
    assert label_of(doc, "snorkelfish") == "slide 3"
    assert label_of(doc, "wobbegong") == "slide 2"
    assert doc.title == "Intro"


def test_xlsx_sheet_rows_with_header(tmp_path):
    rows = [["Item", "Cost", "Note"]] + [[f"row{i}", i * 1.0, "plain"] for i in range(2, 202)] + [["pangolin", 9, "x"]]
    doc = extract(sd.write_xlsx(tmp_path / "b.xlsx", {"Intro": [["a"], [1]], "Budget": rows}, title="XL"))
    assert doc.title == "XL"
    assert label_of(doc, "pangolin") == "sheet Budget row 202"
    page = next(p for p in doc.pages if "pangolin" in doc.page_text(p))
    assert doc.page_text(page) == "Item | Cost | Note\npangolin | 9 | x"
    assert "row7 | 7 | plain" in doc.text  # 7.0 is shown as a person reads it


def test_csv_rows(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("name,value\n" + "".join(f"n{i},{i}\n" for i in range(2, 300)) + "wombat,7\n", encoding="utf-8")
    doc = extract(path)
    assert doc.type == "csv" and label_of(doc, "wombat").endswith("-300")


def test_rtf_text_and_title(tmp_path):
    doc = extract(sd.write_rtf(tmp_path / "l.rtf", ["Dear friend,"] * 30 + ["the word is marzipanic, café"],
                               title="Letter"))
    assert (doc.type, doc.title) == ("rtf", "Letter") and "marzipanic, café" in doc.text


def test_notebook_cells_without_outputs(tmp_path):
    cells = [("markdown", "# Notebook Title\nintro")] + [("code", "y = 1  # " + "word " * 100) for _ in range(6)]
    cells.append(("code", "print('quokka')"))
    doc = extract(sd.write_ipynb(tmp_path / "n.ipynb", cells, outputs="OUTPUTSECRET"))
    assert doc.title == "Notebook Title"
    assert label_of(doc, "quokka").startswith("cell") and label_of(doc, "quokka").endswith("8")
    assert "OUTPUTSECRET" not in doc.text


def test_markdown_front_matter_and_html_title(tmp_path):
    md = tmp_path / "post.md"
    md.write_text("---\ntitle: 'Front Matter Title'\n---\n# Heading\ntext", encoding="utf-8")
    page = tmp_path / "page.html"
    page.write_text("<html><head><title>The Page</title></head><body><h1>H</h1>x</body></html>", encoding="utf-8")
    assert extract(md).title == "Front Matter Title"
    assert extract(page).title == "The Page"


def test_image_is_a_page_waiting_for_ocr(tmp_path):
    doc = extract(sd.write_text_image(tmp_path / "r.png", ["hello"]))
    assert doc.type == "image" and doc.text == ""
    assert [(p.label, p.needs_ocr) for p in doc.pages] == [("image", True)]


# ---- broken files ------------------------------------------------------------------------------------------

WRITERS = {
    "docx": lambda p: __import__("tests.support.helpers", fromlist=["x"]).write_docx(p, ["hello"] * 40),
    "pptx": lambda p: sd.write_pptx(p, [("a", "b")] * 5),
    "xlsx": lambda p: sd.write_xlsx(p, {"S": [["a", "b"]] * 200}),
    "odt": lambda p: sd.write_odt(p, ["hello"] * 40),
    "ods": lambda p: sd.write_ods(p, {"S": [["a", "b"]] * 50}),
    "odp": lambda p: sd.write_odp(p, ["a"] * 5),
    "epub": lambda p: sd.write_epub(p, [("a", "b " * 200)] * 3),
}


@pytest.mark.parametrize("suffix", sorted(WRITERS))
def test_truncated_zip_formats_have_a_reason(tmp_path, suffix):
    good = WRITERS[suffix](tmp_path / f"good.{suffix}")
    bad = tmp_path / f"bad.{suffix}"
    bad.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    with pytest.raises(ExtractionError, match="corrupt|truncated|unreadable"):
        extract(bad)


@pytest.mark.parametrize("suffix", sorted(WRITERS))
def test_wrong_extension_names_what_the_file_is(tmp_path, suffix):
    pdf = __import__("tests.support.helpers", fromlist=["x"]).write_pdf(tmp_path / "real.pdf", ["a pdf"])
    fake = tmp_path / f"fake.{suffix}"
    fake.write_bytes(pdf.read_bytes())
    with pytest.raises(ExtractionError, match="it is a PDF .wrong extension"):
        extract(fake)


@pytest.mark.parametrize("suffix", ["docx", "pptx", "xlsx"])
def test_password_protected_office_file(tmp_path, suffix):
    good = WRITERS[suffix](tmp_path / f"good.{suffix}")
    locked = sd.encrypt_office(good, tmp_path / f"locked.{suffix}")
    with pytest.raises(ExtractionError, match=r"encrypted .* \(needs a password\)"):
        extract(locked)


def test_password_protected_opendocument(tmp_path):
    good = sd.write_odt(tmp_path / "good.odt", ["secret"])
    locked = tmp_path / "locked.odt"
    with zipfile.ZipFile(good) as src, zipfile.ZipFile(locked, "w") as dst:
        for info in src.infolist():
            data = src.read(info)
            if info.filename == "META-INF/manifest.xml":  # what LibreOffice writes for a password-protected file
                entry = (b'<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml">'
                         b"<manifest:encryption-data/></manifest:file-entry>")
                data = data.replace(b"</manifest:manifest>", entry + b"</manifest:manifest>")
            dst.writestr(info, data)
    with pytest.raises(ExtractionError, match="encrypted ODT"):
        extract(locked)


def test_drm_epub(tmp_path):
    good = WRITERS["epub"](tmp_path / "good.epub")
    locked = tmp_path / "drm.epub"
    encryption = (b'<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><EncryptedData>'
                  b'<CipherData><CipherReference URI="EPUB/chap_1.xhtml"/></CipherData></EncryptedData></encryption>')
    with zipfile.ZipFile(good) as src, zipfile.ZipFile(locked, "w") as dst:
        for info in src.infolist():
            dst.writestr(info, src.read(info))
        dst.writestr("META-INF/encryption.xml", encryption)
    with pytest.raises(ExtractionError, match="DRM"):
        extract(locked)


@pytest.mark.parametrize(("name", "data", "reason"), [
    ("x.rtf", b"plain text, not rtf", "not an RTF"),
    ("x.ipynb", b"{not json", "corrupt notebook"),
    ("x.ipynb", b'{"nbformat": 3, "worksheets": []}', "not a Jupyter notebook"),
    ("x.png", b"\x89PNG\r\n\x1a\n-truncated", "unreadable image"),
    ("x.jpg", b"GIF89a" + b"\0" * 40, "unreadable image|not a PNG"),
    ("x.eml", b"\x00\x01binary", "binary"),
    ("x.eml", b"just some words, no headers", "not an e-mail"),
    ("x.msg", b"not an ole file at all", "corrupt or unreadable MSG"),
    ("x.pdf", b"PK\x03\x04 a zip named pdf", "not a PDF file: it is a zip archive"),
])
def test_broken_small_files_have_reasons(tmp_path, name, data, reason):
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(ExtractionError, match=reason):
        extract(path)


def test_every_new_type_has_a_sample(tmp_path):
    """Guards this file: a type added to FORMAT_TYPES without a sample here shows up."""
    from desktop_app.core.ingest.filetypes import FORMAT_TYPES

    covered = {"pdf", "docx", "odt", "ods", "odp", "rtf", "epub", "pptx", "xlsx", "csv", "email", "notebook", "image"}
    assert set(FORMAT_TYPES.values()) == covered


@pytest.mark.parametrize(("member", "data", "reason"), [
    ("word/media/bomb.xml", b"<x>" + b" " * 40_000_000 + b"</x>", "zip bomb"),
    ("word/document.xml", b'<?xml version="1.0"?><!DOCTYPE d [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;">]><d>&b;</d>',
     "declares entities"),
])
def test_zip_bomb_and_billion_laughs_docx_are_refused_before_parsing(tmp_path, member, data, reason):
    good = WRITERS["docx"](tmp_path / "good.docx")
    bad = tmp_path / "bad.docx"
    with zipfile.ZipFile(good) as src, zipfile.ZipFile(bad, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            if info.filename != member:
                dst.writestr(info, src.read(info))
        dst.writestr(member, data)
    with pytest.raises(ExtractionError, match=reason):
        extract(bad)
