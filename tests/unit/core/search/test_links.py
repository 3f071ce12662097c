"""resolve(): a wikilink target picks the document Obsidian would open among the files named like it."""

from __future__ import annotations

import os

from desktop_app.core.ingest.markdown_links import WikiLink
from desktop_app.core.search.links import link_target, resolve
from desktop_app.core.store.link_rows import NamedDocument, like_escaped, pack_links, unpack_links

V = os.sep + "vault"


def p(*parts: str) -> str:
    return os.sep.join((V, *parts))


DOCS = [NamedDocument(i, path, "") for i, path in enumerate([
    p("Projects", "Lighthouse", "Plan.md"), p("Archive", "Plan.md"), p("Plan.pdf"), p("Notebook", "plan.MD"),
    p("Attachments", "lamp-spec.pdf"), p("Planning.md")], start=1)]


def picked(target: str, linking: str = p("Daily", "today.md")) -> int | None:
    doc = resolve(target, linking, DOCS)
    return doc.id if doc else None


def test_a_stem_names_a_note_before_another_file_and_the_shortest_path_wins():
    assert picked("Plan") == 2  # three Plan notes: /vault/Archive/Plan.md is the shortest path
    assert picked("plan") == 2  # any case


def test_the_linking_notes_own_folder_comes_first():
    assert picked("Plan", linking=p("Projects", "Lighthouse", "Kickoff.md")) == 1
    assert picked("Plan", linking=p("Notebook", "x.md")) == 4


def test_a_path_or_a_file_name_narrows_it():
    assert picked("Projects/Lighthouse/Plan") == 1
    assert picked("Lighthouse/Plan.md") == 1
    assert picked("Plan.pdf") == 3
    assert picked("lamp-spec.pdf") == 5
    assert picked("Elsewhere/Plan") is None


def test_an_unwritten_note_or_a_prefix_is_not_resolved():
    assert picked("Maintenance schedule") is None
    assert picked("Plann") is None
    assert picked("") is None


def test_link_targets_are_read_with_slashes_whatever_the_system():
    assert link_target("a/b/Note") == (("a", "b"), "Note")
    assert link_target("a\\b/./Note.md") == (("a", "b"), "Note.md")


def test_links_survive_their_stored_form_and_like_patterns_match_literally():
    links = [WikiLink("Plan", "^risk", "the risks"), WikiLink("lamp.pdf", embed=True), WikiLink("Ünï|cödé")]
    assert unpack_links(pack_links(links)) == links
    assert pack_links([]) is None and unpack_links(None) == [] and unpack_links("{damaged") == []
    assert like_escaped("100%_a\\b") == "100\\%\\_a\\\\b"
