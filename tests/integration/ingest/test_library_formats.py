"""Through today's Library and store: every new format is indexed and a deep word is found on its page."""

from __future__ import annotations

from pathlib import Path

from tests import sample_docs as sd
from tests.helpers import write_pdf


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
    return {"zorbulate": ("book.epub", 3), "snorkelfish": ("deck.pptx", 3), "pangolin": ("sheet.xlsx", 2),
            "glimmerwort": ("talk.odp", 2), "gallimaufry": ("box.mbox", 4), "quixotic": ("paper.pdf", 3),
            "marzipanic": ("letter.rtf", None)}


def test_new_formats_are_searchable_with_their_page(make_library, tmp_path):
    expected = _folder(tmp_path / "docs")
    lib = make_library()
    lib.add_folder(tmp_path / "docs")
    report = lib.sync()
    assert report.failed == 0, report.errors
    for word, (name, page) in expected.items():
        hits = lib.search(word, mode="keyword")
        assert hits and Path(hits[0].source).name == name, word
        assert hits[0].metadata.get("page") == page, word
