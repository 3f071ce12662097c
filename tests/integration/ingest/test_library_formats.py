"""Through today's Library and store: every new format is indexed and a deep word is found on its page."""

from __future__ import annotations

from pathlib import Path

from tests.support import sample_docs as sd
from tests.support.helpers import assert_consistent, write_pdf


def _folder(root: Path) -> dict[str, tuple[str, int]]:
    """Writes one file per format; returns word -> (file name, page number it must be cited on)."""
    root.mkdir()
    sd.write_epub(root / "book.epub", [("Dawn", "one"), ("Noon", "two"), ("Dusk", "deep zorbulate")])
    sd.write_pptx(root / "deck.pptx", [("a", "b"), ("c", "d"), ("e", "snorkelfish")])
    sd.write_xlsx(root / "sheet.xlsx", {"Budget": [["Item", "Cost"]] + [[f"r{i}", i] for i in range(100)]
                                        + [["pangolin", 1]]})
    sd.write_odp(root / "talk.odp", ["x", "glimmerwort"])
    sd.write_mbox(root / "box.mbox", [sd.make_email(f"S{i}", "gallimaufry" if i == 4 else "plain")
                                      for i in range(1, 6)])
    sd.write_rtf(root / "letter.rtf", ["marzipanic"])
    write_pdf(root / "paper.pdf", ["intro", "results", "the quixotic conclusion"])
    return {"zorbulate": ("book.epub", "chapter 3: Dusk"), "snorkelfish": ("deck.pptx", "slide 3"),
            "pangolin": ("sheet.xlsx", "sheet Budget rows 62-102"), "glimmerwort": ("talk.odp", "slide 2"),
            "gallimaufry": ("box.mbox", "message 4"), "quixotic": ("paper.pdf", ""), "marzipanic": ("letter.rtf", "")}


def test_new_formats_are_searchable_with_their_page(make_library, tmp_path):
    expected = _folder(tmp_path / "docs")
    lib = make_library()
    lib.add_folder(tmp_path / "docs")
    report = lib.sync()
    assert report.failed == 0, report.errors
    for word, (name, label) in expected.items():
        hits = lib.search(word, mode="keyword")
        assert hits and Path(hits[0].source).name == name, word
        assert hits[0].metadata["label"] == label, word
    assert lib.search("quixotic", mode="keyword")[0].metadata["page"] == 3


def write_report_mailbox(docs: Path, tmp_path: Path) -> Path:
    """docs/box.mbox: a lunch note, then a report with a 2-page PDF ("ocelot" on page 2) and an .exe attached."""
    docs.mkdir()
    report_pdf = write_pdf(tmp_path / "report.pdf", ["summary", "the ocelot budget"])
    return sd.write_mbox(docs / "box.mbox", [
        sd.make_email("Lunch", "see you at noon"),
        sd.make_email("Quarterly report", "attached, see page two",
                      attachments=[("report.pdf", report_pdf.read_bytes(), "application/pdf"),
                                   ("tool.exe", b"MZ\x90\x00", "application/octet-stream")])])


def test_a_mailbox_is_one_document_per_message_and_attachment(make_library, tmp_path):
    docs = tmp_path / "docs"
    box = write_report_mailbox(docs, tmp_path)
    lib = make_library()
    lib.add_folder(docs)
    lib.sync()
    [hit] = lib.search("ocelot", mode="keyword")
    assert hit.source == str(box) and hit.metadata["page"] == 2  # the file opens; the label says where inside
    assert hit.metadata["label"] == "message 2 · report.pdf · p. 2"
    assert hit.metadata["part_path"] == f"{box}#2/report.pdf"
    [message] = lib.search("noon", mode="keyword")
    assert message.metadata["title"] == "Lunch" and message.metadata["label"] == "message 1"
    failures = {f["path"]: f["reason"] for f in lib.stats()["failures"]}
    assert failures == {f"{box}#2/tool.exe": "attachment type not read (.exe)"}
    assert lib.stats()["documents"] == 4  # the mailbox file, two messages, one attachment
    target = docs / "sub" / "box.mbox"
    target.parent.mkdir()
    box.rename(target)
    assert lib.move_path(box, target).moved == 1  # its messages and attachments follow it
    [hit] = lib.search("ocelot", mode="keyword")
    assert hit.source == str(target) and hit.metadata["part_path"] == f"{target}#2/report.pdf"
    target.unlink()
    lib.sync()
    assert lib.stats()["documents"] == 0 and lib.search("noon", mode="keyword") == []
    assert_consistent(lib.db_path)
