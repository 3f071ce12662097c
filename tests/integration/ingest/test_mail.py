"""Mail: one document per message with subject, sender and date; attachments as their own documents."""

from __future__ import annotations

from desktop_app.core.ingest.extract import extract, extract_many
from tests.support import sample_docs as sd
from tests.support.helpers import write_docx, write_pdf


def test_eml_message_and_attachments_are_documents(tmp_path):
    pdf = write_pdf(tmp_path / "r.pdf", ["cover", "page two has zephyrine"]).read_bytes()
    message = sd.make_email("Budget meeting", "Body says kumquat", attachments=[
        ("notes.txt", b"attached text with xylocarp", "text/plain"),
        ("report.pdf", pdf, "application/pdf"),
        ("tool.exe", b"MZ\x90\x00", "application/octet-stream"),
    ])
    result = extract_many(sd.write_eml(tmp_path / "m.eml", message))
    parts = {d.part: d for d in result.documents}
    assert set(parts) == {"", "notes.txt", "report.pdf"}
    mail = parts[""]
    assert mail.title == "Budget meeting" and mail.type == "email"
    assert mail.metadata["from"] == "Ada <ada@example.org>" and mail.metadata["date"] == "2024-03-05T10:00:00+00:00"
    assert "kumquat" in mail.text and "Attachments: notes.txt, report.pdf, tool.exe" in mail.text
    report = parts["report.pdf"]
    assert report.type == "pdf" and "zephyrine" in report.page_text(report.pages[1])
    assert [(f.part, f.reason) for f in result.failed] == [("tool.exe", "attachment type not read (.exe)")]


def test_eml_flattened_for_a_store_keyed_by_path(tmp_path):
    pdf = write_pdf(tmp_path / "r.pdf", ["cover", "page two has zephyrine"]).read_bytes()
    message = sd.make_email("Budget", "body", attachments=[("report.pdf", pdf, "application/pdf")])
    doc = extract(sd.write_eml(tmp_path / "m.eml", message))
    page = next(p for p in doc.pages if "zephyrine" in doc.page_text(p))
    assert page.label == "report.pdf · p. 2" and doc.title == "Budget"


def test_mbox_one_document_per_message(tmp_path):
    docx = write_docx(tmp_path / "a.docx", ["minutes mention the axolotl"]).read_bytes()
    messages = [sd.make_email(f"Subject {i}", f"body {i}") for i in range(1, 6)]
    messages[2] = sd.make_email("Third", "body with gallimaufry", sender="Zed <zed@example.org>", attachments=[
        ("minutes.docx", docx, "application/vnd.openxmlformats-officedocument.wordprocessingml.document")])
    path = sd.write_mbox(tmp_path / "box.mbox", messages)
    result = extract_many(path)
    parts = {d.part: d for d in result.documents}
    assert list(parts) == ["1", "2", "3", "3/minutes.docx", "4", "5"]
    third = parts["3"]
    assert third.title == "Third" and third.label == "message 3" and third.metadata["from"] == "Zed <zed@example.org>"
    assert "gallimaufry" in third.text and "axolotl" in parts["3/minutes.docx"].text
    flat = extract(path)
    assert next(p.label for p in flat.pages if "axolotl" in flat.page_text(p)) == "message 3 · minutes.docx"
    assert next(p.label for p in flat.pages if "gallimaufry" in flat.page_text(p)) == "message 3"


def test_attached_message_is_read_with_its_own_attachment(tmp_path):
    inner = sd.make_email("Inner", "inner body", attachments=[("deep.txt", b"nested quetzal", "text/plain")])
    outer = sd.make_email("Outer", "see attached")
    outer.add_attachment(inner, filename="fwd.eml")
    parts = {d.part: d for d in extract_many(sd.write_eml(tmp_path / "o.eml", outer)).documents}
    assert parts["fwd.eml"].title == "Inner"
    assert "nested quetzal" in parts["fwd.eml/deep.txt"].text


def test_msg_message_and_attachment(tmp_path):
    path = sd.write_msg(tmp_path / "o.msg", "Quarterly llama report", "Body mentions the narwhal",
                        attachment=("a.txt", b"attachment okapi text"))
    result = extract_many(path)
    parts = {d.part: d for d in result.documents}
    assert parts[""].title == "Quarterly llama report" and "narwhal" in parts[""].text
    assert parts[""].metadata["from"] == "Ada Example" and parts[""].metadata["date"].startswith("2024-03-05")
    assert "okapi" in parts["a.txt"].text
