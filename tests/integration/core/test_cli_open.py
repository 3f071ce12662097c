"""`trove open PASSAGE_ID`: a passage from search shown in its document's text (with a quote marked), as text and
as JSON; a passage that is gone is one line and exit 1."""

from __future__ import annotations

import json

from desktop_app.cli import main
from desktop_app.core.library import Library
from desktop_app.core.settings import Settings
from tests.support.helpers import write_pdf
from tests.support.runner import write_settings

NOTE = ("# Harbour notes\n\nThe harbour master counts the boats each morning.\n\n"
        "Quinces ripen in the walled garden behind the customs house in late October.\n")


def test_open_shows_a_passage_in_its_document(tmp_path, capsys):
    docs, home = tmp_path / "docs", tmp_path / "home"
    docs.mkdir()
    (docs / "harbour.md").write_text(NOTE, encoding="utf-8")
    write_pdf(docs / "keeper.pdf", ["The coast road.", "The lighthouse keeper logged the storm of March."])
    write_settings(home, embedder="hash")
    with Library(home, settings=Settings(embedder="hash")) as lib:
        lib.add_folder(docs)
        lib.sync(wait=True)
        hit = next(r for r in lib.search("quinces walled garden", mode="keyword") if r.source.endswith(".md"))
        pdf_hit = next(r for r in lib.search("lighthouse storm", mode="keyword") if r.source.endswith(".pdf"))
    passage_id = hit.metadata["chunk_id"]

    assert main(["--home", str(home), "open", str(passage_id), "--json", "--quote", "walled garden"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["passage"] == hit.content and shown["quote"] == "walled garden"
    assert shown["path"] == hit.source and (shown["before"] + shown["passage"] + shown["after"]).strip() in NOTE

    assert main(["--home", str(home), "open", str(passage_id), "--quote", "walled garden"]) == 0
    text = capsys.readouterr().out
    assert text.splitlines()[0] == hit.source and "»walled garden«" in text and "[[" in text

    assert main(["--home", str(home), "open", str(pdf_hit.metadata["chunk_id"])]) == 0
    assert capsys.readouterr().out.splitlines()[0] == f"{pdf_hit.source}  (p. 2)"

    assert main(["--home", str(home), "open", "999999"]) == 1
    assert "no passage 999999" in capsys.readouterr().err


def test_a_slide_passage_names_its_slide(tmp_path):
    from tests.support.sample_docs import write_pptx

    docs = tmp_path / "docs"
    docs.mkdir()
    write_pptx(docs / "deck.pptx", [("Opening", "Welcome aboard the survey ship."),
                                     ("Soundings", "The soundings off the cape found forty fathoms of water.")])
    with Library(tmp_path / "home", settings=Settings(embedder="hash")) as lib:
        lib.add_folder(docs)
        lib.sync(wait=True)
        hit = next(r for r in lib.search("forty fathoms soundings", mode="keyword") if r.source.endswith(".pptx"))
        passage = lib.viewer.passage(hit.metadata["chunk_id"])
    assert passage is not None and passage.place == hit.metadata.get("label") == "slide 2"
    assert "forty fathoms" in passage.text[passage.start:passage.end] and not passage.pdf
