"""wikilinks(): every form of Obsidian link read from a note's text, and nothing that Obsidian would not link."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from desktop_app.core.ingest.markdown_links import MAX_LINKS, WikiLink, parse_link, wikilinks


def test_every_form_obsidian_writes():
    text = ("See [[Note A]], [[folder/Note B|the B]], [[C#Intro]], [[D#^block-1|a block]], ![[lamp.pdf]] "
            "and [[ Spaced  |  alias  ]].")
    assert wikilinks(text) == (
        WikiLink("Note A"), WikiLink("folder/Note B", alias="the B"), WikiLink("C", heading="Intro"),
        WikiLink("D", heading="^block-1", alias="a block"), WikiLink("lamp.pdf", embed=True),
        WikiLink("Spaced", alias="alias"))


def test_an_escaped_pipe_in_a_table_is_the_alias():
    assert wikilinks("| keeper | [[Ada Lovelace\\|Ada]] |") == (WikiLink("Ada Lovelace", alias="Ada"),)


def test_code_front_matter_and_same_note_headings_are_not_links():
    text = ("---\nrelated: [[In Front Matter]]\n---\n`[[inline]]` and ``[[double `tick`]]``\n"
            "```\n[[fenced]]\n```\n~~~python\n[[tilde]]\n~~~\n[[#Heading here]] then [[Real]]")
    assert wikilinks(text) == (WikiLink("Real"),)


def test_each_link_once_in_order_and_at_most_max_links():
    assert wikilinks("[[b]] [[a]] [[b]] [[a|x]]") == (WikiLink("b"), WikiLink("a"), WikiLink("a", alias="x"))
    many = " ".join(f"[[n{i}]]" for i in range(MAX_LINKS + 20))
    assert len(wikilinks(many)) == MAX_LINKS


def test_not_links():
    assert wikilinks("[single] [[]] [[ ]] [[|alias]] [[a\nb]] [[x]y]]") == ()
    assert parse_link("#only heading") is None


@given(st.text())
def test_any_text_never_raises_and_gives_targets(text):
    for link in wikilinks(text):
        assert link.target and link.target == link.target.strip() and "]]" not in link.target
