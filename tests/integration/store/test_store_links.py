"""A document's wikilinks kept by each engine (documents.links: SQLite migration 015, PostgreSQL 017): written,
read back in order, replaced and cleared; gone with their document; and the files a link target may name, found
by file name or stem in any case, never a document inside a file nor a name that only starts the same way."""

from __future__ import annotations

import os

from desktop_app.core.ingest.markdown_links import WikiLink
from desktop_app.core.store.rows import NewPart
from tests.integration.store.test_store_protocol import chunks, doc

LINKS = [WikiLink("Plan", "^risks", "the risks"), WikiLink("lamp.pdf", embed=True), WikiLink("Ünïcode 100%_x")]


def test_links_are_written_read_replaced_cleared_and_go_with_their_document(store, folder):
    note = store.write_document(doc(folder.id, os.path.join(folder.path, "note.md"), type_="markdown"),
                                chunks("see the plan"))
    other = store.write_document(doc(folder.id, os.path.join(folder.path, "other.md"), digest="d2",
                                     type_="markdown"), chunks("no links"))
    assert store.document_links(note) == [] and store.document_links(other) == []
    store.set_document_links(note, LINKS)
    assert store.document_links(note) == LINKS and store.document_links(other) == []
    store.set_document_links(note, LINKS[1:])
    assert store.document_links(note) == LINKS[1:]
    store.set_document_links(note, [])
    assert store.document_links(note) == []
    store.set_document_links(note, LINKS)
    store.delete_document(note)
    assert store.document_links(note) == []


def test_documents_named_by_file_name_or_stem_in_any_case(store, folder):
    p = folder.path
    paths = {name: os.path.join(p, *name.split("/")) for name in (
        "Plan.md", "Archive/Plan.md", "Plan.pdf", "Planning.md", "lamp.pdf", "mail.mbox", "Under_score.md",
        "Under-score.md", "100%.md")}
    for i, (name, path) in enumerate(paths.items()):
        parts = [NewPart(part="1/Plan.md", label="message 1 · Plan.md",  # its key ends with /Plan.md
                         doc=doc(folder.id, "", digest="part", type_="markdown"), chunks=tuple(chunks("x")))] \
            if name == "mail.mbox" else ()
        store.write_document(doc(folder.id, path, digest=f"n{i}"), chunks(f"text {i}"), parts=parts)

    def named(name: str) -> list[str]:
        return sorted(os.path.relpath(d.path, p).replace(os.sep, "/") for d in store.documents_named(name))

    assert named("Plan") == ["Archive/Plan.md", "Plan.md", "Plan.pdf"]
    assert named("plan") == ["Archive/Plan.md", "Plan.md", "Plan.pdf"]  # any (ASCII) case
    assert named("Plan.pdf") == ["Plan.pdf"]
    assert named("Under_score") == ["Under_score.md"]  # _ and % are letters here, not LIKE's wildcards
    assert named("100%") == ["100%.md"]
    assert named("Plann") == [] and named("") == [] and named("a" + os.sep + "b") == []
    assert all(d.title for d in store.documents_named("lamp"))
    assert len(store.documents_named("Plan", limit=2)) == 2
