"""Document dates and tags read at index time from real files (PDF, DOCX, e-mail, EPUB, Markdown, text), and an
Obsidian-style vault indexed by a real Library and searched with tag: and date filters."""

from __future__ import annotations

import datetime as dt
import zipfile
from email.message import EmailMessage
from pathlib import Path

from desktop_app.core.ingest.doc_facts import DocFacts, document_facts, first_date, front_matter, inline_tags


def write_pdf(path: Path, text: str, created: dt.datetime, keywords: str) -> Path:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_creation_date(created)
    pdf.set_keywords(keywords)
    pdf.set_font("Helvetica", size=12)
    pdf.add_page()
    pdf.multi_cell(0, 8, text)
    pdf.output(str(path))
    return path


def write_docx(path: Path, text: str, created: dt.datetime, keywords: str) -> Path:
    import docx

    document = docx.Document()
    document.core_properties.created = created
    document.core_properties.keywords = keywords
    document.add_paragraph(text)
    document.save(str(path))
    return path


def write_eml(path: Path, text: str, date: str) -> Path:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"], msg["Date"] = "a@example.org", "b@example.org", "Quarterly", date
    msg.set_content(text)
    path.write_bytes(bytes(msg))
    return path


def write_epub(path: Path, text: str, date: str) -> Path:
    from ebooklib import epub

    book = epub.EpubBook()
    book.set_identifier("id-1")
    book.set_title("A book")
    book.add_metadata("DC", "date", date)
    chapter = epub.EpubHtml(title="One", file_name="one.xhtml", content=f"<html><body><p>{text}</p></body></html>")
    book.add_item(chapter)
    book.spine = [chapter]
    book.add_item(epub.EpubNcx())
    book.add_item(epub.EpubNav())
    epub.write_epub(str(path), book)
    return path


def test_pdf_creation_date_and_keywords(tmp_path):
    created = dt.datetime(2021, 7, 9, tzinfo=dt.UTC)
    path = write_pdf(tmp_path / "r.pdf", "Annual report", created, "Finance, Q3;audit, ภาษี")  # UTF-16: a hex string
    assert document_facts(path, "pdf", "Annual report") == DocFacts("2021-07-09", ("finance", "q3", "audit", "ภาษี"))


def test_docx_core_properties(tmp_path):
    path = write_docx(tmp_path / "m.docx", "Minutes", dt.datetime(2022, 2, 28, 9, 30), "board, minutes")
    facts = document_facts(path, "docx", "Minutes")
    assert (facts.date, facts.tags) == ("2022-02-28", ("board", "minutes"))


def test_email_date_header_through_the_extractor(tmp_path):
    from desktop_app.core.ingest.reader import extract_document
    from desktop_app.core.settings import Settings

    path = write_eml(tmp_path / "m.eml", "The electricity bill is 120 EUR.", "Tue, 05 Mar 2024 10:00:00 +0100")
    doc, _inner = extract_document(path, "email", path.read_bytes(), Settings())
    assert document_facts(path, "email", doc.text, doc.metadata).date == "2024-03-05"


def test_epub_dc_date(tmp_path):
    path = write_epub(tmp_path / "b.epub", "Chapter text", "2019-11")
    assert document_facts(path, "epub", "Chapter text").date == "2019-11-01"


def test_markdown_front_matter_and_inline_tags():
    text = ("---\ntitle: Launch\ndate: 2024-03-14\ntags:\n  - Work\n  - project/alpha\n---\n"
            "# Heading\nNotes about the #launch and #ภาษี, not #123 nor a # heading.\n"
            "```\n#not-a-tag in code\n```\nEnd #Work.\n")
    assert front_matter(text) == ("2024-03-14", ["Work", "project/alpha"])
    assert inline_tags(text) == ["launch", "ภาษี", "Work"]
    facts = document_facts(Path("x.md"), "markdown", text)
    assert facts == DocFacts("2024-03-14", ("work", "project/alpha", "launch", "ภาษี"))
    assert front_matter("---\ntags: [a, b]\ndate: '5 March 2023'\n---\nbody") == ("2023-03-05", ["a", "b"])


def test_a_date_in_the_first_lines_else_none():
    assert first_date("Meeting notes\nMarch 5th, 2024 — attendees") == "2024-03-05"
    assert first_date("Minutes of 2023/12/01 and 2024-01-02") == "2023-12-01"
    assert first_date("Version 2024-13-45, nothing else") is None
    assert document_facts(Path("n.txt"), "text", "Notes\nno date here") == DocFacts()
    assert document_facts(Path("n.py"), "code", "# 2024-01-01 changelog") == DocFacts()
    assert document_facts(Path("gone.pdf"), "pdf", "") == DocFacts()  # unreadable: no facts, no error


def test_an_obsidian_vault_searched_by_tags_and_dates(make_library, tmp_path):
    vault = tmp_path / "Vault"
    (vault / "Projects" / "Alpha").mkdir(parents=True)
    (vault / "Daily").mkdir()
    (vault / ".obsidian").mkdir()
    (vault / "Projects" / "Alpha" / "kickoff.md").write_text(
        "---\ndate: 2024-03-14\ntags: [launch]\n---\nKickoff of the lighthouse project. #meeting\n")
    (vault / "Daily" / "2024-05-02.md").write_text("# 2024-05-02\nLighthouse budget review, see [[kickoff]].\n")
    (vault / "Daily" / "2023-12-20.md").write_text("# 2023-12-20\nLighthouse idea noted. #idea\n")
    write_pdf(vault / "spec.pdf", "Lighthouse specification", dt.datetime(2022, 1, 3, tzinfo=dt.UTC), "spec")
    lib = make_library()
    kickoff = vault / "Projects" / "Alpha" / "kickoff.md"
    lib.add_folder(vault)
    lib.sync()

    def found(query):
        return sorted(Path(r.source).name for r in lib.search(query, mode="keyword"))

    assert found("lighthouse") == ["2023-12-20.md", "2024-05-02.md", "kickoff.md", "spec.pdf"]
    assert found("lighthouse tag:launch") == ["kickoff.md"]
    assert found("lighthouse tag:meeting") == ["kickoff.md"]
    assert found("lighthouse tag:alpha") == ["kickoff.md"]  # a folder name
    assert found("lighthouse tag:spec") == ["spec.pdf"]
    assert found("lighthouse tag:daily -idea") == ["2024-05-02.md"]
    assert found("lighthouse date:2024") == ["2024-05-02.md", "kickoff.md"]
    assert found("lighthouse before:2024") == ["2023-12-20.md", "spec.pdf"]
    assert found("lighthouse after:2024-04 type:md") == ["2024-05-02.md"]
    assert found("lighthouse date:2022-01 type:pdf") == ["spec.pdf"]
    kickoff.write_text("Kickoff of the lighthouse project, rewritten without a date or tags.\n")
    lib.sync()
    assert found("lighthouse tag:launch") == []  # a rewrite drops the old content's tags and date
    changed = lib.store.document_by_path(str(kickoff)).mtime_ns  # max(mtime, ctime): when the file last changed
    day = dt.datetime.fromtimestamp(changed / 1e9, dt.UTC).date()
    assert found(f"lighthouse date:{day}") == ["kickoff.md"]  # back to the day it was modified


def test_core_properties_are_read_by_pattern_and_a_broken_zip_is_no_error(tmp_path):
    bad = tmp_path / "broken.docx"
    with zipfile.ZipFile(bad, "w") as z:
        z.writestr("docProps/core.xml", "<cp:coreProperties><dcterms:created>2020-01-02T00:00:00Z"
                                        "</dcterms:created><cp:keywords>a &amp; b</cp:keywords></cp:coreProperties>")
    assert document_facts(bad, "docx", "") == DocFacts("2020-01-02", ("a & b",))
    (tmp_path / "not.docx").write_bytes(b"PK\x03\x04 not really")
    assert document_facts(tmp_path / "not.docx", "docx", "") == DocFacts()


def test_each_message_of_a_mailbox_has_its_own_date(make_library, tmp_path):
    from tests.support import sample_docs as sd

    mail = tmp_path / "mail"
    mail.mkdir()
    sd.write_mbox(mail / "box.mbox", [
        sd.make_email("Power bill", "electricity bill 120 EUR", date="Tue, 05 Mar 2024 10:00:00 +0000"),
        sd.make_email("Power bill", "electricity bill 95 EUR", date="Sun, 05 May 2024 10:00:00 +0000"),
        sd.make_email("Power bill", "electricity bill 80 EUR", date="Thu, 05 Dec 2023 10:00:00 +0000")])
    lib = make_library()
    lib.add_folder(mail)
    lib.sync()

    def labels(query):
        return sorted(r.metadata["label"] for r in lib.search(query, mode="keyword") if r.metadata.get("part_path"))

    assert labels("electricity") == ["message 1", "message 2", "message 3"]
    assert labels("electricity date:2024-03") == ["message 1"]
    assert labels("electricity after:2024") == ["message 1", "message 2"]
    assert labels("electricity before:2024") == ["message 3"]
