"""Store.formats on both engines: indexed documents counted per type, most first, failed files left out (the welcome
state's "3 Markdown, 2 Text, 1 PDF"). Every test runs on SQLite and on a real PostgreSQL (the `store` fixture)."""

from __future__ import annotations

from tests.integration.store.test_store_protocol import chunks, doc


def test_indexed_documents_are_counted_per_format_most_first(store, folder):
    assert store.formats() == []
    for name, kind in (("a.md", "markdown"), ("b.md", "markdown"), ("c.pdf", "pdf"), ("d.txt", "text"),
                       ("e.md", "markdown"), ("f.txt", "text")):
        store.write_document(doc(folder.id, f"{folder.path}/{name}", type_=kind), chunks(f"words of {name}"))
    store.record_failure(doc(folder.id, f"{folder.path}/broken.pdf", type_="pdf"), "damaged")
    assert store.formats() == [("markdown", 3), ("text", 2), ("pdf", 1)]  # the failed PDF is not a document
    store.delete_under(f"{folder.path}/a.md")
    store.delete_under(f"{folder.path}/c.pdf")
    assert store.formats() == [("markdown", 2), ("text", 2)]  # a tie: by name
